#pragma once
// The input-format table: every trace format Linkscope can open, one row each — how a file is
// recognised by its content (never by its name) and which reader turns it into a HostTrace or a
// DeviceTrace. Callers never name a reader: they call loadHostTrace / loadDeviceTrace (or the pair
// pipeline, pipeline/pairpipeline.h), which detect and dispatch.
//
// Adding a format (docs/architecture.md, "Adding an input format"): write its reader in a new file
// under core/io/ (a function `DeviceTrace readXxx(const std::string &path, const ProgressFn &)`),
// and add one row to the table in core/io/formats.cpp (its detector and its reader). Rows are tried
// in order; the first whose detector accepts the file reads it.

#include "io/tracereader.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

// What a trace is to the pipeline.
enum class TraceRole : std::uint8_t {
    Host,   // the CPU op tree (a PyTorch execution trace)
    Device, // the timeline of CPU ops, runtime calls and GPU ops (a Kineto trace)
    Output, // a file Linkscope or Chakra writes (ET+, .et): recognised only to say what it is
};

// The first bytes of a file, decompressed when it is gzip; more on request (read once, kept).
class FileHead {
public:
    explicit FileHead(std::string path);
    const std::string &path() const { return path_; }
    // At least min(n, file size) bytes from the start. Throws LoadError when the file cannot be read.
    std::string_view prefix(std::size_t n) const;
    // The first MiB: what detectors look at unless they need more.
    std::string_view start() const { return prefix(kStart); }
    static constexpr std::size_t kStart = std::size_t(1) << 20;
    // The last min(n, file size) bytes of a plain file, read without the rest; nullopt for a gzip
    // file (its end is only reached by inflating all of it). Throws LoadError as prefix() does.
    std::optional<std::string_view> tail(std::size_t n) const;

private:
    std::string path_;
    mutable std::string bytes_;
    mutable std::size_t asked_ = 0;
    mutable std::string tail_;
    mutable std::size_t tailAsked_ = 0;
};

struct InputFormat {
    TraceKind kind = TraceKind::Unknown;
    TraceRole role = TraceRole::Device;
    std::string_view name; // for messages: "Kineto trace", "host execution trace"
    bool (*detect)(const FileHead &head) = nullptr;
    HostTrace (*readHost)(const std::string &path, const ProgressFn &progress) = nullptr;     // Host rows
    DeviceTrace (*readDevice)(const std::string &path, const ProgressFn &progress) = nullptr; // Device rows
};

// Every row, in detection order.
const std::vector<InputFormat> &inputFormats();
// The row that accepts the file, or null when none does. Throws LoadError when it cannot be opened.
const InputFormat *detectInputFormat(const std::string &path);
// The default reader of a role (what reads a file no detector accepted, so that its error names the
// position where it stops being that format).
const InputFormat &defaultInputFormat(TraceRole role);

// Reads `path` with the reader of the row that detects it; a file no row of that role accepts goes to
// the role's default reader (its LoadError says where the file stops being readable).
//
// A host ET or Kineto trace cut short (io/truncation.h) is refused with a LoadError that names the
// byte where it ends, unless `options.allowTruncated`: then what precedes the cut is read, with a
// warning naming both bytes. Only the failure path looks for a cut; a complete file reads as before.
struct LoadOptions {
    bool allowTruncated = false;
};
HostTrace loadHostTrace(const std::string &path, const ProgressFn &progress = {}, const LoadOptions &options = {});
DeviceTrace loadDeviceTrace(const std::string &path, const ProgressFn &progress = {}, const LoadOptions &options = {});

} // namespace linkscope::core
