#include "export/chakra/chakratarget.h"

#include "export/exporter.h"

namespace linkscope::core {

namespace {

void checkChakraTarget(ExportContext &c)
{
    c.chakraPlan = planChakra(*c.graph, *c.host, c.device, c.links, c.request.chakra);
    const EtValidation validation = validateChakraPlan(c.chakraPlan, *c.graph, *c.host, c.device);
    if (!validation.ok())
        throw ExportError(c.request.path(kEtTarget) + ": refusing to write an invalid Chakra graph: " + validation.message());
}

std::uint64_t writeChakraTarget(ExportContext &c, const std::string &path)
{
    if (c.request.etSink)
        return streamChakraPlan(c.request.etSink, c.chakraPlan, *c.graph, *c.host, c.device, c.links, c.request.chakra,
                                c.report.chakra, c.report.warnings);
    return writeChakraPlan(path, c.chakraPlan, *c.graph, *c.host, c.device, c.links, c.request.chakra, c.request.gzip,
                           c.report.chakra, c.report.warnings);
}

std::string chakraDetails(const ExportReport &r)
{
    return ", " + std::to_string(r.chakra.nodes) + " nodes: " + std::to_string(r.chakra.commColl) + " COMM_COLL, "
           + std::to_string(r.chakra.commSend) + " COMM_SEND, " + std::to_string(r.chakra.commRecv) + " COMM_RECV";
}

} // namespace

ExportTarget chakraExportTarget()
{
    return {.name = std::string(kEtTarget),
            .aliases = {},
            .title = "Chakra .et",
            .metavar = "OUT.et",
            .help = "Chakra protobuf trace (--target says for what)",
            .description = "what chakra_converter writes from it (protobuf), for Chakra tools or ASTRA-sim",
            .defaultSuffix = ".et",
            .fileFilter = "Chakra trace (*.et *.et.gz);;All files (*)",
            .needsHost = true,
            .checkStage = "checking the Chakra graph",
            .check = checkChakraTarget,
            .writeStage = "writing the Chakra .et",
            .write = writeChakraTarget,
            .details = chakraDetails};
}

} // namespace linkscope::core
