#include "export/etplus/etplustarget.h"

#include "export/exporter.h"

namespace linkscope::core {

namespace {

std::uint64_t writeEtPlusTarget(ExportContext &c, const std::string &path)
{
    return writeEtPlus(path, *c.graph, *c.host, c.device, c.links, c.request.gzip);
}

std::string etPlusDetails(const ExportReport &r)
{
    return ", " + std::to_string(r.etPlus.hostNodes) + " host + " + std::to_string(r.etPlus.gpuNodes) + " GPU nodes";
}

} // namespace

ExportTarget etPlusExportTarget()
{
    return {.name = std::string(kEtPlusTarget),
            .aliases = {"output-file"},
            .title = "ET+ JSON",
            .metavar = "OUT.json",
            .help = "ET+ JSON (what chakra_trace_link writes)",
            .description = "what chakra_trace_link writes: the host ET with each GPU op under its parent CPU op",
            .defaultSuffix = ".etplus.json",
            .fileFilter = std::string(kJsonOutputFilter),
            .needsHost = true,
            .checkStage = {},
            .check = nullptr,
            .writeStage = "writing ET+ JSON",
            .write = writeEtPlusTarget,
            .details = etPlusDetails};
}

} // namespace linkscope::core
