#include "io/tracereader.h"

#include "io/hostreader.h"
#include "io/inputtext.h"
#include "io/jsonscan.h"
#include "io/kinetoreader.h"

namespace linkscope::core {

std::string_view traceKindName(TraceKind k)
{
    switch (k) {
    case TraceKind::HostEt: return "host ET";
    case TraceKind::Kineto: return "Kineto";
    case TraceKind::EtPlus: return "ET+";
    case TraceKind::ChakraEt: return "Chakra .et";
    case TraceKind::Unknown: break;
    }
    return "unknown";
}

namespace {

// Chakra .et: a varint length, then a GlobalMetadata message whose fields are tagged 1..(small).
bool looksLikeChakraProtobuf(const std::string &head)
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

TraceKind sniffJson(const std::string &head)
{
    io::JsonScanner scanner(head);
    std::size_t pos = scanner.skipWhitespace(0);
    if (scanner.at(pos) == '[')
        return TraceKind::Kineto; // Chrome "JSON Array Format"
    if (scanner.at(pos) != '{')
        return TraceKind::Unknown;
    try {
        pos = scanner.skipWhitespace(pos + 1);
        while (scanner.at(pos) == '"') {
            const std::size_t keyEnd = scanner.skipString(pos);
            const std::string_view key(head.data() + pos + 1, keyEnd - pos - 2);
            pos = scanner.skipWhitespace(scanner.expect(keyEnd, ':', ""));
            if (key == "traceEvents")
                return TraceKind::Kineto;
            if (key == "nodes") {
                // ET+ nodes carry device-side timing that a plain host ET does not have.
                const std::string_view rest(head.data() + pos, head.size() - pos);
                for (std::string_view marker : {"\"inclusive_dur\"", "\"exclusive_dur\"", "\"ph\"", "\"cat\""})
                    if (rest.find(marker) != std::string_view::npos)
                        return TraceKind::EtPlus;
                return TraceKind::HostEt;
            }
            pos = scanner.skipWhitespace(scanner.skipValue(pos));
            if (scanner.at(pos) != ',')
                break;
            pos = scanner.skipWhitespace(pos + 1);
        }
    } catch (const io::ScanError &) {
        // The prefix ended inside a value: nothing more to learn.
    }
    return TraceKind::Unknown;
}

// The readers' simdjson kernels were compiled for AVX2 (io/readers.cmake).
void requireReaderCpu(const std::string &name)
{
#if defined(LINKSCOPE_READERS_NEED_AVX2) && (defined(__GNUC__) || defined(__clang__))
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")
        && __builtin_cpu_supports("popcnt");
    if (!supported)
        throw LoadError(name, kUnknownOffset,
                        "this build of Linkscope needs a CPU with AVX2 to read JSON traces; rebuild with "
                        "-DLINKSCOPE_SIMD_READERS=OFF");
#else
    (void)name;
#endif
}

} // namespace

TraceKind sniffTraceKind(const std::string &path)
{
    const std::string head = io::readInputPrefix(path, 1u << 20);
    const TraceKind json = sniffJson(head);
    if (json == TraceKind::HostEt && head.size() == (1u << 20)) {
        // Older ET+ files (PARAM's linker) append their GPU nodes late in the file: look further.
        const std::string more = io::readInputPrefix(path, 64u << 20);
        for (std::string_view marker : {"\"inclusive_dur\"", "\"exclusive_dur\"", "\"ph\"", "\"cat\""})
            if (more.find(marker) != std::string::npos)
                return TraceKind::EtPlus;
    }
    if (json != TraceKind::Unknown)
        return json;
    std::size_t i = 0;
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    if (i == 0 && looksLikeChakraProtobuf(head))
        return TraceKind::ChakraEt;
    return TraceKind::Unknown;
}

HostTrace readHostTrace(const std::string &path, const ProgressFn &progress)
{
    requireReaderCpu(path);
    io::ProgressReporter reporter(progress);
    // A plain host ET stays in its file (node spans are read back from it when exporting).
    io::InputText input = io::readInputFile(path, reporter, io::TextUse::FileBackedOrRetained);
    HostTrace trace = io::parseHost(std::move(input), path, reporter);
    reporter.report(reporter.total());
    return trace;
}

DeviceTrace readKinetoTrace(const std::string &path, const ProgressFn &progress)
{
    requireReaderCpu(path);
    io::ProgressReporter reporter(progress);
    // The Kineto reader keeps only the events and their args: the text is streamed through.
    io::InputText input = io::readInputFile(path, reporter, io::TextUse::Streamed);
    DeviceTrace trace = io::parseKineto(std::move(input), path, reporter);
    reporter.report(reporter.total());
    return trace;
}

HostTrace parseHostTrace(std::string data, const std::string &name, const ProgressFn &progress)
{
    requireReaderCpu(name);
    io::ProgressReporter reporter(progress);
    io::InputText input = io::decodeInput(std::move(data), name, reporter);
    HostTrace trace = io::parseHost(std::move(input), name, reporter);
    reporter.report(reporter.total());
    return trace;
}

DeviceTrace parseKinetoTrace(std::string data, const std::string &name, const ProgressFn &progress)
{
    requireReaderCpu(name);
    io::ProgressReporter reporter(progress);
    io::InputText input = io::decodeInput(std::move(data), name, reporter);
    DeviceTrace trace = io::parseKineto(std::move(input), name, reporter);
    reporter.report(reporter.total());
    return trace;
}

} // namespace linkscope::core
