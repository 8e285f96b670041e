#pragma once
// The corrections sidecar: a versioned JSON file beside the device trace holding the correction
// log, the link options it was made under, and the fingerprints of the traces it belongs to.
// Format: docs/sidecar-format.md.

#include "edit/bookmarks.h"
#include "edit/correction.h"
#include "edit/sha256.h"
#include "io/file/atomicfile.h"
#include "model/common.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {

inline constexpr const char *kSidecarFormat = "linkscope-corrections";
inline constexpr int kSidecarVersion = 1;

struct Sidecar {
    std::string generator; // "linkscope 0.1.0"
    FileFingerprint device;
    std::optional<FileFingerprint> host;
    Policy policy = Policy::Nesting;
    bool interThreadDeps = false;
    CorrectionLog log;
    // Time markers (edit/bookmarks.h), in time order. Written only when there are any, as the
    // optional top-level "bookmarks" array, so a sidecar without them is byte-for-byte as before.
    BookmarkList bookmarks;
    // What reading the file changed (not written): a bookmark name, note or step label longer than
    // kSidecarTextLimit is cut to it, each with one line naming the file, where, and the length.
    // The cut text is what the session holds and the next save writes.
    std::vector<std::string> warnings;
};

// "<device>.linkscope.json"
std::string defaultSidecarPath(const std::string &devicePath);

nlohmann::json sidecarToJson(const Sidecar &sidecar);
// `name` is used in errors. Throws LoadError naming it (and the byte offset for syntax errors,
// the JSON pointer of the offending value otherwise).
Sidecar sidecarFromJson(const nlohmann::json &json, const std::string &name);
Sidecar parseSidecar(const std::string &text, const std::string &name);
// Reads `path` (a regular file); `identity` receives the file's identity as read.
Sidecar loadSidecar(const std::string &path, FileIdentity *identity = nullptr);
// The file's text: pretty-printed JSON, always valid UTF-8 (invalid bytes in paths become U+FFFD).
std::string sidecarText(const Sidecar &sidecar);

// Writes atomically (io/file/atomicfile.h: a temporary file in the same folder, fsync, rename). Throws
// WriteError (a std::runtime_error naming the path) on failure; the previous file is then untouched.
void saveSidecar(const Sidecar &sidecar, const std::string &path);

// Another session or program changed the sidecar since it was read: not overwritten.
class SidecarConflict : public WriteError {
public:
    using WriteError::WriteError;
};

// Saves unless the file changed since `expected` (its identity when it was last read or written
// here; known == false: it did not exist). The check and the write happen under an exclusive
// flock() on the sidecar's folder, so concurrent savers take turns and the second one sees the
// first one's file. Throws SidecarConflict when it changed, WriteError when it cannot be written.
// Returns the identity of the file written (for the next save).
FileIdentity saveSidecarIfUnchanged(const Sidecar &sidecar, const std::string &path, const FileIdentity &expected);

// Whether the traces now loaded are the ones the sidecar was made from (size and SHA-256; the
// paths may differ: traces get moved).
struct InputCheck {
    bool matches = true;
    std::vector<std::string> problems; // one line each, for the user
};
InputCheck checkInputs(const Sidecar &sidecar, const FileFingerprint &device, const std::optional<FileFingerprint> &host);

} // namespace linkscope::core
