#include "export/targets.h"

namespace linkscope::core {

namespace {

void writeEtPlusTarget(ExportContext &c, const std::string &path)
{
    c.report.etPlusBytes = writeEtPlus(path, c.graph, c.host, c.device, c.links, c.request.gzip);
}

void checkChakraTarget(ExportContext &c)
{
    c.chakraPlan = planChakra(c.graph, c.host, c.device, c.links, c.request.chakra);
    const EtValidation validation = validateChakraPlan(c.chakraPlan, c.graph, c.host, c.device);
    if (!validation.ok())
        throw ExportError(c.request.etPath + ": refusing to write an invalid Chakra graph: " + validation.message());
}

void writeChakraTarget(ExportContext &c, const std::string &path)
{
    c.report.etBytes = writeChakraPlan(path, c.chakraPlan, c.graph, c.host, c.device, c.links, c.request.chakra, c.request.gzip,
                                       c.report.chakra, c.report.warnings);
}

void writePerfettoTarget(ExportContext &c, const std::string &path)
{
    c.report.perfettoBytes = writePerfettoTrace(path, c.device, c.links, &c.host, c.request.gzip);
}

const std::vector<ExportTarget> kTargets = {
    {"etplus", &ExportRequest::etPlusPath, {}, nullptr, "writing ET+ JSON", writeEtPlusTarget},
    {"et", &ExportRequest::etPath, "checking the Chakra graph", checkChakraTarget, "writing the Chakra .et", writeChakraTarget},
    {"perfetto", &ExportRequest::perfettoPath, {}, nullptr, "writing the Perfetto trace", writePerfettoTarget},
};

} // namespace

const std::vector<ExportTarget> &exportTargets() { return kTargets; }

} // namespace linkscope::core
