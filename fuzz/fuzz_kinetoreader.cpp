// libFuzzer target: any bytes into the Kineto reader, three times: from memory and from a file (a
// memfd, so readKinetoTrace maps it, streams it and reads args back by position), both split into
// chunks parsed by three threads, and from memory by one thread. Each must either return a trace
// whose spans stay inside its args source, or throw LoadError; the two chunked reads must agree
// (same events, same args, same error offset) and the chunked read must be exactly the one-thread
// read (tests/readerdigest.h: every field, the warnings, the error message). Anything else (crash,
// hang, disagreement) is a bug.
#include "fuzzsupport.h"
#include "io/tracereader.h"
#include "readerdigest.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace linkscope::core;

namespace {

void checkTrace(const DeviceTrace &t)
{
    if (!t.argsStore)
        std::abort();
    for (const DeviceEvent &e : t.events) {
        if (!e.args.empty()) {
            if (e.args.offset + e.args.length > t.argsStore->sizeBytes())
                std::abort();
            const std::string args = t.argsJson(e);
            if (args.size() != e.args.length || args.front() != '{' || args.back() != '}')
                std::abort();
        }
        if (e.name >= t.strings.size() || e.categoryText >= t.strings.size())
            std::abort();
        const EventIndex index = EventIndex::at(static_cast<std::size_t>(&e - t.events.data()));
        if (e.hasCollective() != (t.collectiveOf(index) != nullptr))
            std::abort();
        if (e.hasGraphId() != (t.graphIdOf(index) != kNoId))
            std::abort();
        if (!e.thread.in(t.threads.size()))
            std::abort();
        if (e.phase == Phase::Complete && e.dur < 0)
            std::abort();
    }
    for (std::size_t i = 0; i < t.syncArgs.size(); ++i)
        if (!t.contains(t.syncArgs[i].event) || (i > 0 && t.syncArgs[i - 1].event >= t.syncArgs[i].event))
            std::abort();
    for (std::size_t i = 0; i < t.collectives.size(); ++i)
        if (!t.contains(t.collectives[i].event) || (i > 0 && t.collectives[i - 1].event >= t.collectives[i].event))
            std::abort();
    for (std::size_t i = 0; i < t.graphIds.size(); ++i)
        if (!t.contains(t.graphIds[i].event) || (i > 0 && t.graphIds[i - 1].event >= t.graphIds[i].event))
            std::abort();
    for (const Diagnostic &d : t.warnings)
        if (d.message.empty())
            std::abort();
}

std::string digestOf(const std::string &bytes)
{
    try {
        return linkscope::test::readerDigest(parseKinetoTrace(bytes, "fuzz.json"));
    } catch (const LoadError &e) {
        return std::string("error: ") + e.what();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    setReaderThreads({1, 1});
    const std::string oneThread = digestOf(bytes);
    // Chunks of at least 64 bytes: most inputs with a few events are split.
    setReaderThreads({3, 64});
    if (digestOf(bytes) != oneThread)
        std::abort();
    const auto outcomes = linkscope::fuzz::readBothWays(
        data, size, [](const std::string &bytes) { return parseKinetoTrace(bytes, "fuzz.json"); },
        [](const std::string &path) { return readKinetoTrace(path); }, checkTrace);
    if (!outcomes || !outcomes->first.trace)
        return 0;
    const DeviceTrace &a = *outcomes->first.trace, &b = *outcomes->second.trace;
    if (a.events.size() != b.events.size() || a.warnings.size() != b.warnings.size() || a.syncArgs.size() != b.syncArgs.size())
        std::abort();
    for (std::size_t i = 0; i < a.events.size(); ++i)
        if (a.events[i].ts != b.events[i].ts || a.events[i].dur != b.events[i].dur
            || a.argsJson(a.events[i]) != b.argsJson(b.events[i]))
            std::abort();
    return 0;
}
