// libFuzzer target: any bytes into the Kineto reader. It must either return a trace whose spans
// stay inside its args text, or throw LoadError; anything else (crash, hang, other exception) is a bug.
#include "io/tracereader.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace linkscope::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    try {
        const DeviceTrace t = parseKinetoTrace(std::string(reinterpret_cast<const char *>(data), size), "fuzz.json");
        if (!t.argsStore || !t.argsStore->inMemoryText())
            std::abort();
        for (const DeviceEvent &e : t.events) {
            if (!e.args.empty()) {
                if (e.args.offset + e.args.length > t.argsStore->sizeBytes())
                    std::abort();
                const std::string args = t.argsJson(e);
                if (args.front() != '{' || args.back() != '}')
                    std::abort();
            }
            if (e.name >= t.strings.size() || e.categoryText >= t.strings.size())
                std::abort();
            if (e.collective != kNoIndex && e.collective >= t.collectives.size())
                std::abort();
            if (e.phase == Phase::Complete && e.dur < 0)
                std::abort();
        }
        for (const Diagnostic &d : t.warnings)
            if (d.message.empty())
                std::abort();
    } catch (const LoadError &) {
    }
    return 0;
}
