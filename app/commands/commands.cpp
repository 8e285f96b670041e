#include "commands/commands.h"

#include <ostream>

namespace linkscope::cli {

const std::vector<Command> &commands()
{
    static const std::vector<Command> all = {
        {"inspect", "summarise traces: kind, schema, events, threads, streams, warnings, join coverage", runInspect},
        {"summary", "the whole trace or job at a glance: top GPU/CPU ops, GPU utilisation, exposed comm, steps", runSummary},
        {"diff", "two runs side by side: step per rank, GPU busy, op families, exposed comm, what moved most", runDiff},
        {"link", "link GPU ops to their CPU parents and report findings", runLink},
        {"export", "write corrected ET+ JSON, Chakra .et and a Perfetto trace", runExport},
        {"dump", "print a Chakra .et file as JSON", runDump},
        {"job", "every rank of a distributed job: link, export, check collectives across ranks", runJob},
        {"check", "pre-flight a job's .et files for ASTRA-sim (dependencies, node types, groups, collectives)", runCheck},
        {"whatif", "a job export with a change applied: kernels or transfers scaled, a rank delayed", runWhatIf},
        {"predict", "predict each rank's step, its critical path and what-ifs, without ASTRA-sim", runPredict},
    };
    return all;
}

void printUsage(std::ostream &out)
{
    out << "usage: linkscope [HOST_ET DEVICE_TRACE | DEVICE_TRACE]      open the GUI\n"
           "       linkscope <command> [options]                         run headless\n\n"
           "commands:\n";
    for (const Command &c : commands())
        out << "  " << c.name << std::string(10 - std::string(c.name).size(), ' ') << c.summary << '\n';
    out << "\nRun 'linkscope <command> --help' for a command's options; 'linkscope --version' for the\n"
           "version and the JSON reader kernel chosen for this CPU.\n";
}

bool parseCount(const std::string &text, std::size_t &out)
{
    try {
        std::size_t used = 0;
        const long long v = std::stoll(text, &used);
        if (used != text.size() || v < 0)
            return false;
        out = static_cast<std::size_t>(v);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace linkscope::cli
