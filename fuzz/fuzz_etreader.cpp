// libFuzzer target: any bytes into the Chakra .et reader, from memory and from a file (a memfd).
// A trace that reads must validate and summarise without crashing, serialise back to bytes that
// read as the same nodes (a round trip), and the streamed file summary (summarizeEtFile, what
// `dump --summary` and `inspect` use) must count the same nodes and the same missing dependencies.
// Refusals must be LoadErrors, the same from memory and from the file.
#include "export/chakra/etformat.h"

#include <google/protobuf/stubs/logging.h>
#include <nlohmann/json.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

using namespace linkscope::core;

// Protobuf logs every string field that is not UTF-8; those inputs are refused like any other.
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    std::optional<ChakraTrace> trace;
    std::string error;
    try {
        trace.emplace(parseChakraEt(bytes, "fuzz.et"));
    } catch (const LoadError &e) {
        if (e.file() != "fuzz.et" || e.detail().empty())
            std::abort();
        error = e.detail();
    }

    const int fd = memfd_create("fuzz.et", 0);
    if (fd < 0)
        return 0;
    if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
        close(fd);
        return 0;
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    std::optional<nlohmann::json> fileSummary;
    std::string fileError;
    try {
        fileSummary.emplace(summarizeEtFile(path));
        std::ostringstream dumped;
        dumpEtFile(path, dumped, true);
    } catch (const LoadError &e) {
        fileError = e.detail();
    }
    close(fd);
    if (trace.has_value() != fileSummary.has_value() || error != fileError)
        std::abort();
    if (!trace)
        return 0;

    const EtValidation validation = validateEt(trace->nodes);
    (void)validation.message();
    const nlohmann::json summary = summarizeEt(*trace);
    (void)summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if ((*fileSummary)["nodes"] != summary["nodes"]
        || (*fileSummary)["validation"]["message"] != summary["validation"]["message"])
        std::abort();

    // Round trip: what we write reads back as the same nodes.
    const std::string again = serializeChakraEt(*trace, false);
    ChakraTrace back;
    try {
        back = parseChakraEt(again, "roundtrip.et");
    } catch (const LoadError &) {
        std::abort();
    }
    if (back.nodes.size() != trace->nodes.size())
        std::abort();
    for (std::size_t i = 0; i < back.nodes.size(); ++i)
        if (back.nodes[i].SerializeAsString() != trace->nodes[i].SerializeAsString())
            std::abort();
    return 0;
}
