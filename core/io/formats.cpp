#include "io/formats.h"

#include "io/truncation.h"

#include "io/inputtext.h"
#include "io/jsonscan.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

namespace linkscope::core {

FileHead::FileHead(std::string path) : path_(std::move(path)) { }

std::string_view FileHead::prefix(std::size_t n) const
{
    if (n > asked_) {
        bytes_ = io::readInputPrefix(path_, n);
        asked_ = n;
    }
    return std::string_view(bytes_).substr(0, n);
}

std::optional<std::string_view> FileHead::tail(std::size_t n) const
{
    if (n > tailAsked_) {
        io::InputFile file(path_);
        unsigned char magic[2] = {0, 0};
        if (::pread(file.fd(), magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
            return std::nullopt; // start() is the inflated text; the raw bytes say gzip
        const std::uint64_t size = file.size();
        const std::uint64_t from = size > n ? size - n : 0;
        tail_.resize(static_cast<std::size_t>(size - from));
        std::size_t done = 0;
        while (done < tail_.size()) {
            const ssize_t got = ::pread(file.fd(), tail_.data() + done, tail_.size() - done, static_cast<off_t>(from + done));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                tail_.resize(done); // shrank or failed: what was read is all there is
                break;
            }
            done += static_cast<std::size_t>(got);
        }
        tailAsked_ = n;
    }
    return std::string_view(tail_).substr(tail_.size() > n ? tail_.size() - n : 0);
}

namespace {

// ---- detectors ---------------------------------------------------------------------------------

// Chakra .et: a varint length, then a GlobalMetadata message whose fields are tagged 1..(small).
bool looksLikeChakraProtobuf(std::string_view head)
{
    if (head.empty())
        return false;
    std::uint64_t length = 0;
    std::size_t i = 0;
    int shift = 0;
    for (; i < head.size() && i < 5; ++i) {
        const auto b = static_cast<unsigned char>(head[i]);
        length |= std::uint64_t(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    if (i >= head.size() || i >= 5)
        return false;
    ++i;
    if (length == 0)
        return i < head.size(); // an empty GlobalMetadata followed by a node
    if (i >= head.size())
        return false;
    const auto tag = static_cast<unsigned char>(head[i]);
    const unsigned field = tag >> 3, wire = tag & 7;
    // GlobalMetadata: version (1, string) or attr (2, message); both length-delimited.
    return (field == 1 || field == 2) && wire == 2 && length < (1u << 30);
}

// What the top-level JSON object of the head says: its first "traceEvents" or "nodes" key.
enum class JsonShape { Array, TraceEvents, Nodes, Other };
struct JsonHead {
    JsonShape shape = JsonShape::Other;
    std::size_t valueAt = 0; // where the "nodes" value starts
};

JsonHead jsonHead(std::string_view head)
{
    const std::string_view text = head;
    io::JsonScanner scanner(text);
    std::size_t pos = scanner.skipWhitespace(io::byteOrderMarkLength(text)); // a UTF-8 BOM is skipped
    if (scanner.at(pos) == '[')
        return {JsonShape::Array, 0}; // Chrome "JSON Array Format"
    if (scanner.at(pos) != '{')
        return {};
    try {
        pos = scanner.skipWhitespace(pos + 1);
        while (scanner.at(pos) == '"') {
            const std::size_t keyEnd = scanner.skipString(pos);
            const std::string_view key(text.data() + pos + 1, keyEnd - pos - 2);
            pos = scanner.skipWhitespace(scanner.expect(keyEnd, ':', ""));
            if (key == "traceEvents")
                return {JsonShape::TraceEvents, pos};
            if (key == "nodes")
                return {JsonShape::Nodes, pos};
            pos = scanner.skipWhitespace(scanner.skipValue(pos));
            if (scanner.at(pos) != ',')
                break;
            pos = scanner.skipWhitespace(pos + 1);
        }
    } catch (const io::ScanError &) {
        // The prefix ended inside a value: nothing more to learn.
    }
    return {};
}

// ET+ nodes carry device-side timing that a plain host ET does not have. A plain host ET is
// scanned to the end of its 64 MiB prefix for each marker, so the search is memmem's (glibc: a
// two-way search over the whole text) rather than string_view::find's, which stops at every '"'
// (a JSON text is full of them) to compare the marker: 10% of a job's CPU went there.
bool hasDeviceTiming(std::string_view text)
{
    for (std::string_view marker : {"\"inclusive_dur\"", "\"exclusive_dur\"", "\"ph\"", "\"cat\""})
        if (memmem(text.data(), text.size(), marker.data(), marker.size()) != nullptr)
            return true;
    return false;
}

bool isEtPlus(const FileHead &head)
{
    const JsonHead json = jsonHead(head.start());
    if (json.shape != JsonShape::Nodes)
        return false;
    if (hasDeviceTiming(head.start().substr(json.valueAt)))
        return true;
    if (head.start().size() < FileHead::kStart)
        return false; // the whole file was seen
    // Older ET+ files (PARAM's linker) append their GPU nodes at the end of the nodes array: look at
    // the end of a plain file (the last 8 MiB, read on their own: a job sniffs every rank's host ET,
    // and scanning a 64 MiB prefix of each was 8% of its CPU); a gzip file's end is
    // not reachable without inflating it all, so its first 64 MiB are looked at instead.
    if (const auto tail = head.tail(std::size_t(8) << 20))
        return hasDeviceTiming(*tail);
    return hasDeviceTiming(head.prefix(std::size_t(64) << 20));
}

bool isHostEt(const FileHead &head) { return jsonHead(head.start()).shape == JsonShape::Nodes && !isEtPlus(head); }

bool isKineto(const FileHead &head)
{
    const JsonShape shape = jsonHead(head.start()).shape;
    return shape == JsonShape::Array || shape == JsonShape::TraceEvents;
}

bool isChakraEt(const FileHead &head)
{
    const std::string_view bytes = head.start();
    // JSON of any kind starts with whitespace, '{' or '['; a .et starts with its varint length.
    if (!bytes.empty() && (bytes[0] == ' ' || bytes[0] == '\n' || bytes[0] == '\r' || bytes[0] == '\t'))
        return false;
    // '{' is also the varint 123 and "{\n" a GlobalMetadata of 123 bytes whose field 1 follows: JSON
    // cut short before its first key reads that way. A .et's first bytes hold a byte below 0x20 (the
    // version string's length, an empty metadata's 0, a node's id tag 0x08); text has none.
    if (!bytes.empty() && (bytes[0] == '{' || bytes[0] == '[')) {
        const std::string_view first = bytes.substr(0, 64);
        if (std::none_of(first.begin(), first.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r'; }))
            return false;
    }
    return jsonHead(bytes).shape == JsonShape::Other && looksLikeChakraProtobuf(bytes);
}

// ---- the table -------------------------------------------------------------------------------------

// The built-in rows, in detection order.
std::list<InputFormat> builtInFormats()
{
    std::list<InputFormat> rows;
    // ET+ before the host ET: both are {"nodes": [...]}, ET+ has device timing in its nodes. Its
    // nodes are a host ET's: inspect reads them with the host reader; a pair never opens it.
    rows.push_back({std::string(kEtPlusKind), TraceRole::Output, "ET+ (chakra_trace_link output)", isEtPlus, readHostTrace,
                    nullptr, nullptr, nullptr});
    rows.push_back({std::string(kHostEtKind), TraceRole::Host, "host execution trace", isHostEt, readHostTrace, nullptr,
                    parseHostTrace, nullptr});
    rows.push_back({std::string(kKinetoKind), TraceRole::Device, "Kineto trace", isKineto, nullptr, readKinetoTrace, nullptr,
                    parseKinetoTrace});
    rows.push_back({std::string(kChakraEtKind), TraceRole::Output, "Chakra .et", isChakraEt, nullptr, nullptr, nullptr, nullptr});
    return rows;
}

} // namespace

InputFormatTable::InputFormatTable() : rows_(builtInFormats()) { }

const InputFormat &InputFormatTable::add(InputFormat row)
{
    if (!row.detect)
        throw std::invalid_argument("input format '" + row.kind + "' has no detector");
    if (row.kind.empty() || row.kind == kUnknownKind || find(row.kind))
        throw std::invalid_argument("input format kind '" + row.kind + "' is empty or taken");
    rows_.push_back(std::move(row));
    return rows_.back();
}

bool InputFormatTable::remove(std::string_view kind)
{
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const InputFormat &f) { return f.kind == kind; });
    if (it == rows_.end())
        return false;
    rows_.erase(it);
    return true;
}

const InputFormat *InputFormatTable::find(std::string_view kind) const
{
    for (const InputFormat &format : rows_)
        if (format.kind == kind)
            return &format;
    return nullptr;
}

InputFormatTable &inputFormats()
{
    static InputFormatTable table;
    return table;
}

const InputFormat *detectInputFormat(const std::string &path)
{
    const FileHead head(path);
    for (const InputFormat &format : inputFormats())
        if (format.detect(head))
            return &format;
    return nullptr;
}

std::string_view sniffTraceKind(const std::string &path)
{
    const InputFormat *format = detectInputFormat(path);
    return format ? std::string_view(format->kind) : kUnknownKind;
}

const InputFormat &defaultInputFormat(TraceRole role)
{
    for (const InputFormat &format : inputFormats())
        if (format.role == role && (role != TraceRole::Host || format.readHost)
            && (role != TraceRole::Device || format.readDevice))
            return format;
    throw std::logic_error("no input format for this role");
}

namespace {

bool isEmptyTrace(const HostTrace &t) { return t.nodes.empty(); }
bool isEmptyTrace(const DeviceTrace &t) { return t.events.empty(); }

// The reader failed with `error`: when the file is a JSON document cut short, either the refusal says
// so (and where), or what precedes the cut is read with `parse` and a warning. Otherwise rethrows.
template <typename Trace, typename Parse>
Trace recoverTruncated(const std::string &path, const LoadError &error, const ProgressFn &progress, const LoadOptions &options,
                       Parse parse)
{
    if (const auto *bomb = dynamic_cast<const io::GzipLimitError *>(&error))
        throw *bomb; // inflates past its limit: nothing was cut, and reading it again costs as much
    bool wasGzip = false;
    std::string text;
    try {
        text = io::readTextForRecovery(path, &wasGzip);
    } catch (const LoadError &) {
        throw error;
    }
    const auto cut = io::findTruncation(text);
    if (!cut)
        throw error;
    if (!options.allowTruncated)
        throw LoadError(path, cut->size, io::truncationRefusal(*cut, wasGzip));
    text.resize(cut->keep);
    text += cut->closers;
    Trace trace = parse(std::move(text), path, progress);
    if (isEmptyTrace(trace))
        throw error; // nothing complete precedes the cut: nothing to open
    trace.warnings.insert(trace.warnings.begin(),
                          Diagnostic{Diagnostic::Severity::Warning, path, cut->size, io::truncationWarning(*cut, wasGzip)});
    return trace;
}

} // namespace

HostTrace loadHostTrace(const std::string &path, const ProgressFn &progress, const LoadOptions &options,
                        const InputFormat *format)
{
    if (!format)
        format = detectInputFormat(path);
    if (!format || format->role != TraceRole::Host)
        format = &defaultInputFormat(TraceRole::Host);
    HostTrace trace;
    try {
        trace = format->readHost(path, progress);
    } catch (const LoadError &e) {
        if (!format->parseHost)
            throw;
        return recoverTruncated<HostTrace>(path, e, progress, options, format->parseHost);
    }
    // The host ET reader closes a cut "nodes" array itself (HostTrace::recoveredTruncation, its
    // warning names the byte); a caller that did not ask for it gets the refusal a cut Kineto trace gets.
    if (trace.recoveredTruncation && !options.allowTruncated) {
        std::string note = "the file is truncated: it ends at byte " + std::to_string(trace.sourceBytes)
                           + " inside its JSON document";
        for (const Diagnostic &d : trace.warnings)
            if (d.offset != kUnknownOffset
                && (d.message.find("cut off") != std::string::npos || d.message.find("kept all") != std::string::npos)) {
                note += " (" + d.message + ", at byte " + std::to_string(d.offset) + ")";
                break;
            }
        throw LoadError(path, trace.sourceBytes,
                        note + (trace.wasGzip ? " (bytes of the decompressed text)" : "")
                            + "; --allow-truncated reads what precedes the cut");
    }
    return trace;
}

DeviceTrace loadDeviceTrace(const std::string &path, const ProgressFn &progress, const LoadOptions &options,
                            const InputFormat *format)
{
    if (!format)
        format = detectInputFormat(path);
    if (!format || format->role != TraceRole::Device)
        format = &defaultInputFormat(TraceRole::Device);
    try {
        return format->readDevice(path, progress);
    } catch (const LoadError &e) {
        if (!format->parseDevice)
            throw;
        return recoverTruncated<DeviceTrace>(path, e, progress, options, format->parseDevice);
    }
}

} // namespace linkscope::core
