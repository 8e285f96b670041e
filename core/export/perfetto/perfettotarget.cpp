#include "export/perfetto/perfettotarget.h"

#include "export/exporter.h"

namespace linkscope::core {

namespace {

std::uint64_t writePerfettoTarget(ExportContext &c, const std::string &path)
{
    return writePerfettoTrace(path, c.device, c.links, c.host, c.request.gzip);
}

} // namespace

ExportTarget perfettoExportTarget()
{
    return {.name = std::string(kPerfettoTarget),
            .aliases = {},
            .title = "Perfetto JSON",
            .metavar = "OUT.json",
            .help = "Chrome/Perfetto trace with an arrow per GPU op -> parent link (a Kineto trace alone is enough)",
            .description = "the Kineto trace with an arrow per GPU op \u2192 parent link (ui.perfetto.dev, chrome://tracing)",
            .defaultSuffix = ".perfetto.json",
            .fileFilter = std::string(kJsonOutputFilter),
            .needsHost = false,
            .checkStage = {},
            .check = nullptr,
            .writeStage = "writing the Perfetto trace",
            .write = writePerfettoTarget,
            .details = nullptr};
}

} // namespace linkscope::core
