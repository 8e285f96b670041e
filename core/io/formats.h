#pragma once
// The input-format table: every trace format Linkscope can open, one row each — how a file is
// recognised by its content (never by its name) and which reader turns it into a HostTrace or a
// DeviceTrace. Callers never name a reader: they call loadHostTrace / loadDeviceTrace (or the pair
// pipeline, pipeline/pairpipeline.h), which detect and dispatch.
//
// Adding a format (docs/architecture.md, "Adding an input format"): a folder core/io/<format>/ with its
// reader, its detector and a function returning its row (io/kineto/kinetoformat.h is one), and that
// row added to builtInFormats() in core/io/formats.cpp; a test adds its own with inputFormats().add().
// Rows are tried in order; the first whose detector accepts the file reads it. Callers ask a row its
// role, never its kind: a new device format is opened, paired, discovered, offered by the file dialogs
// and named in outputs like a Kineto trace.

#include "io/tracereader.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <list>
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

// The rank of a job a trace belongs to and the job's world size, as the file declares them; -1 when
// it does not.
struct RankHeader {
    std::int64_t rank = -1;
    std::int64_t worldSize = -1;
};

// One row of the table. A row names its readers; a row without one (an output format) is only
// recognised, to say what a file is.
struct InputFormat {
    std::string kind; // short name, unique: `linkscope inspect`'s "kind:" ("Kineto", "host ET")
    TraceRole role = TraceRole::Device;
    std::string name; // for messages: "Kineto trace", "host execution trace"
    bool (*detect)(const FileHead &head) = nullptr;
    HostTrace (*readHost)(const std::string &path, const ProgressFn &progress) = nullptr;     // Host rows (ET+ too)
    DeviceTrace (*readDevice)(const std::string &path, const ProgressFn &progress) = nullptr; // Device rows
    // The same readers from text in memory: a row that has one reads what precedes the cut of a
    // truncated JSON document (io/json/truncation.h); a row without one reports the reader's error.
    HostTrace (*parseHost)(std::string text, const std::string &name, const ProgressFn &progress) = nullptr;
    DeviceTrace (*parseDevice)(std::string text, const std::string &name, const ProgressFn &progress) = nullptr;
    // The file names its files usually have, for the file dialogs (inputFileFilter): "*.json". Never
    // used to recognise a file.
    std::vector<std::string> filePatterns;
    // What is taken off a file name (after ".gz"), in this order, each when present, to name the files
    // made from it (traceBaseName): {".json", ".pt.trace"} makes "rank0.pt.trace.json.gz" "rank0".
    std::vector<std::string> nameSuffixes;
    // The rank and world size the file declares, read from its head (job discovery); null: none.
    RankHeader (*peekRank)(const std::string &path) = nullptr;
};

// The kinds of the built-in rows (what inspect prints, what tests compare).
inline constexpr std::string_view kHostEtKind = "host ET";
inline constexpr std::string_view kKinetoKind = "Kineto";
inline constexpr std::string_view kEtPlusKind = "ET+";
inline constexpr std::string_view kChakraEtKind = "Chakra .et";
inline constexpr std::string_view kUnknownKind = "unknown";

// The table: the built-in rows (core/io/formats.cpp) and any added at run time. Rows are tried in
// order; a row's address stays valid while it is registered (a caller may keep the row it
// detected). Adding or removing rows is not synchronised with detection: do it before files are
// opened (a test registers its toy format first).
class InputFormatTable {
public:
    using Rows = std::list<InputFormat>;
    Rows::const_iterator begin() const { return rows_.begin(); }
    Rows::const_iterator end() const { return rows_.end(); }
    std::size_t size() const { return rows_.size(); }
    // Appends `row` (tried after the others); throws std::invalid_argument when its kind is taken or
    // it has no detector.
    const InputFormat &add(InputFormat row);
    // Removes the row of that kind (a test's own); false when there is none.
    bool remove(std::string_view kind);
    const InputFormat *find(std::string_view kind) const;

private:
    friend InputFormatTable &inputFormats();
    InputFormatTable();
    Rows rows_;
};

InputFormatTable &inputFormats();
// The row that accepts the file, or null when none does. Throws LoadError when it cannot be opened.
const InputFormat *detectInputFormat(const std::string &path);
// The detected row's kind, kUnknownKind when no row accepts the file. Throws as detectInputFormat.
std::string_view sniffTraceKind(const std::string &path);
// The default reader of a role (what reads a file no detector accepted, so that its error names the
// position where it stops being that format).
const InputFormat &defaultInputFormat(TraceRole role);

// The row that reads `path` as a `role` trace: `format` (else the row that detects the file now) when
// it is of that role, else the role's default row. Throws LoadError when the file must be detected
// and cannot be opened.
const InputFormat &inputFormatFor(const std::string &path, TraceRole role, const InputFormat *format = nullptr);

// The rank and world size a device trace declares, asked of `format` (the row discovery detected),
// else of the row that detects it now, else of the device role's default row (the one that would
// read it); {-1, -1} when that row declares none. Throws LoadError when the file cannot be read.
RankHeader peekRankHeader(const std::string &path, const InputFormat *format = nullptr);
// The open dialogs' filter: "Traces (<the patterns of every host and device row>);;All files (*)".
std::string inputFileFilter();
// The base of the names made from a trace file's name: without ".gz", then `format`'s nameSuffixes
// (the device role's default row when null); a name that would be empty is kept whole.
std::string traceBaseName(std::string_view fileName, const InputFormat *format = nullptr);

// Reads `path` with the reader of `format` (the row resolvePairFiles detected), else of the row that
// detects it now; a file no row of that role accepts goes to the role's default reader (its LoadError
// says where the file stops being readable).
//
// A host ET or Kineto trace cut short (io/json/truncation.h) is refused with a LoadError that names the
// byte where it ends, unless `options.allowTruncated`: then what precedes the cut is read, with a
// warning naming both bytes. Only the failure path looks for a cut; a complete file reads as before.
struct LoadOptions {
    bool allowTruncated = false;
};
HostTrace loadHostTrace(const std::string &path, const ProgressFn &progress = {}, const LoadOptions &options = {},
                        const InputFormat *format = nullptr);
DeviceTrace loadDeviceTrace(const std::string &path, const ProgressFn &progress = {}, const LoadOptions &options = {},
                            const InputFormat *format = nullptr);

} // namespace linkscope::core
