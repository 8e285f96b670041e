#pragma once
// The corrections sidecar: a versioned JSON file beside the device trace holding the correction
// log, the link options it was made under, and the fingerprints of the traces it belongs to.
// Format: docs/sidecar-format.md.

#include "edit/correction.h"
#include "edit/sha256.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {

inline constexpr const char *kSidecarFormat = "linkscope-corrections";
inline constexpr int kSidecarVersion = 1;

struct Sidecar {
    std::string generator;                // "linkscope 0.1.0"
    FileFingerprint device;
    std::optional<FileFingerprint> host;
    Policy policy = Policy::Nesting;
    bool interThreadDeps = false;
    CorrectionLog log;
};

// "<device>.linkscope.json"
std::string defaultSidecarPath(const std::string &devicePath);

nlohmann::json sidecarToJson(const Sidecar &sidecar);
// `name` is used in errors. Throws LoadError naming it (and the byte offset for syntax errors,
// the JSON pointer of the offending value otherwise).
Sidecar sidecarFromJson(const nlohmann::json &json, const std::string &name);
Sidecar parseSidecar(const std::string &text, const std::string &name);
Sidecar loadSidecar(const std::string &path);

// Writes atomically (io/atomicfile.h: a temporary file in the same folder, fsync, rename). Throws
// WriteError (a std::runtime_error naming the path) on failure; the previous file is then untouched.
void saveSidecar(const Sidecar &sidecar, const std::string &path);

// Whether the traces now loaded are the ones the sidecar was made from (size and SHA-256; the
// paths may differ: traces get moved).
struct InputCheck {
    bool matches = true;
    std::vector<std::string> problems; // one line each, for the user
};
InputCheck checkInputs(const Sidecar &sidecar, const FileFingerprint &device, const std::optional<FileFingerprint> &host);

} // namespace linkscope::core
