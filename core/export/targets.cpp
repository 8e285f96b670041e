#include "export/targets.h"

#include "export/exporter.h"

#include <algorithm>
#include <stdexcept>

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

std::uint64_t writePerfettoTarget(ExportContext &c, const std::string &path)
{
    return writePerfettoTrace(path, c.device, c.links, c.host, c.request.gzip);
}

const char *const kJsonFilter = "JSON (*.json *.json.gz);;All files (*)";

} // namespace

ExportTargetTable::ExportTargetTable()
{
    rows_.push_back({.name = std::string(kEtPlusTarget),
                     .aliases = {"output-file"},
                     .title = "ET+ JSON",
                     .metavar = "OUT.json",
                     .help = "ET+ JSON (what chakra_trace_link writes)",
                     .description = "what chakra_trace_link writes: the host ET with each GPU op under its parent CPU op",
                     .defaultSuffix = ".etplus.json",
                     .fileFilter = kJsonFilter,
                     .needsHost = true,
                     .checkStage = {},
                     .check = nullptr,
                     .writeStage = "writing ET+ JSON",
                     .write = writeEtPlusTarget,
                     .details = etPlusDetails});
    rows_.push_back({.name = std::string(kEtTarget),
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
                     .details = chakraDetails});
    rows_.push_back(
        {.name = std::string(kPerfettoTarget),
         .aliases = {},
         .title = "Perfetto JSON",
         .metavar = "OUT.json",
         .help = "Chrome/Perfetto trace with an arrow per GPU op -> parent link (a Kineto trace alone is enough)",
         .description = "the Kineto trace with an arrow per GPU op \u2192 parent link (ui.perfetto.dev, chrome://tracing)",
         .defaultSuffix = ".perfetto.json",
         .fileFilter = kJsonFilter,
         .needsHost = false,
         .checkStage = {},
         .check = nullptr,
         .writeStage = "writing the Perfetto trace",
         .write = writePerfettoTarget,
         .details = nullptr});
}

const ExportTarget &ExportTargetTable::add(ExportTarget target)
{
    if (!target.write)
        throw std::invalid_argument("export target '" + target.name + "' has no writer");
    std::vector<std::string> names = target.aliases;
    names.push_back(target.name);
    for (const std::string &name : names)
        if (name.empty() || find(name))
            throw std::invalid_argument("export target name '" + name + "' is empty or taken");
    rows_.push_back(std::move(target));
    return rows_.back();
}

bool ExportTargetTable::remove(std::string_view name)
{
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const ExportTarget &t) { return t.name == name; });
    if (it == rows_.end())
        return false;
    rows_.erase(it);
    return true;
}

const ExportTarget *ExportTargetTable::find(std::string_view nameOrAlias) const
{
    for (const ExportTarget &target : rows_)
        if (target.name == nameOrAlias
            || std::find(target.aliases.begin(), target.aliases.end(), nameOrAlias) != target.aliases.end())
            return &target;
    return nullptr;
}

ExportTargetTable &exportTargets()
{
    static ExportTargetTable table;
    return table;
}

} // namespace linkscope::core
