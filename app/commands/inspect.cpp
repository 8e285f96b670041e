// linkscope inspect FILE... [--json] — what each trace holds and how well host/device pairs join.
#include "commands/commands.h"

#include "report/inspect.h"

#include <ostream>

namespace linkscope::cli {

namespace {

void printInspectUsage(std::ostream &out)
{
    out << "usage: linkscope inspect FILE... [--json]\n"
           "  For each trace (host ET, Kineto, ET+, Chakra .et; plain or gzip, told by content): kind,\n"
           "  schema, events per category, threads and streams, time span and every warning. Host and\n"
           "  Kineto traces of the same pid (else in argument order) are joined and the coverage shown.\n"
           "  --json   print the same as one JSON object\n"
           "Exit status: 0 if every file loaded, 1 if one could not be read, 2 on bad arguments.\n";
}

} // namespace

int runInspect(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> files;
    bool json = false;
    for (const std::string &a : args) {
        if (a == "--help" || a == "-h") {
            printInspectUsage(out);
            return 0;
        }
        if (a == "--json") {
            json = true;
        } else if (!a.empty() && a[0] == '-') {
            err << "inspect: unknown option " << a << '\n';
            printInspectUsage(err);
            return 2;
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) {
        printInspectUsage(err);
        return 2;
    }
    const core::InspectReport report = core::inspectTraces(files);
    if (json)
        out << core::inspectToJson(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    else
        out << core::formatInspectText(report);
    for (const core::TraceSummary &s : report.traces)
        if (!s.loaded)
            err << "inspect: " << s.error << '\n';
    return report.allLoaded() ? 0 : 1;
}

} // namespace linkscope::cli
