#include "io/formats.h"

#include "io/chakraet/chakraetformat.h"
#include "io/file/inputtext.h"
#include "io/hostet/hostetformat.h"
#include "io/json/truncation.h"
#include "io/kineto/kinetoformat.h"

#include <algorithm>
#include <cerrno>
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

// The built-in rows, in detection order: each format's folder gives its row.
std::list<InputFormat> builtInFormats()
{
    // ET+ before the host ET: both are {"nodes": [...]}, ET+ has device timing in its nodes.
    return {io::etPlusInputFormat(), io::hostEtInputFormat(), io::kinetoInputFormat(), io::chakraEtInputFormat()};
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

const InputFormat &inputFormatFor(const std::string &path, TraceRole role, const InputFormat *format)
{
    if (!format)
        format = detectInputFormat(path);
    return format && format->role == role ? *format : defaultInputFormat(role);
}

RankHeader peekRankHeader(const std::string &path, const InputFormat *format)
{
    const InputFormat &row = inputFormatFor(path, TraceRole::Device, format);
    return row.peekRank ? row.peekRank(path) : RankHeader{};
}

std::string inputFileFilter()
{
    std::vector<std::string> patterns;
    for (const InputFormat &format : inputFormats())
        if (format.role == TraceRole::Host || format.role == TraceRole::Device)
            for (const std::string &pattern : format.filePatterns)
                if (std::find(patterns.begin(), patterns.end(), pattern) == patterns.end())
                    patterns.push_back(pattern);
    std::string filter = "Traces (";
    for (std::size_t i = 0; i < patterns.size(); ++i)
        filter += (i ? " " : "") + patterns[i];
    return filter + ");;All files (*)";
}

namespace {

bool stripSuffix(std::string &name, std::string_view suffix)
{
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    name.resize(name.size() - suffix.size());
    return true;
}

} // namespace

std::string traceBaseName(std::string_view fileName, const InputFormat *format)
{
    if (!format)
        format = &defaultInputFormat(TraceRole::Device);
    std::string name(fileName);
    stripSuffix(name, ".gz"); // any format may be gzip'ed (FileHead reads through it)
    for (const std::string &suffix : format->nameSuffixes)
        stripSuffix(name, suffix);
    return name;
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
    format = &inputFormatFor(path, TraceRole::Host, format);
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
    format = &inputFormatFor(path, TraceRole::Device, format);
    try {
        return format->readDevice(path, progress);
    } catch (const LoadError &e) {
        if (!format->parseDevice)
            throw;
        return recoverTruncated<DeviceTrace>(path, e, progress, options, format->parseDevice);
    }
}

} // namespace linkscope::core
