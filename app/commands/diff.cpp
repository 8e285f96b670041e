// linkscope diff A B: two runs side by side — the step per rank, GPU busy per stream, the time per
// GPU op family and per CPU op, the communication left exposed, and what moved most
// (report/rundiff.h, docs/diff.md). Each run is a Kineto trace (alone or with its host ET) or a job
// folder; only the Kineto traces are read: everything compared is in them.
#include "commands/commands.h"

#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "job/runread.h"

#include <ostream>

namespace linkscope::cli {

namespace {

using namespace linkscope::core;

void printDiffUsage(std::ostream &out)
{
    out << "usage: linkscope diff A B [options]\n"
           "       linkscope diff --a HOST_ET KINETO --b HOST_ET KINETO [options]\n"
           "  Two runs side by side: the step per rank (the mean ProfilerStep#N, else the trace's extent), GPU busy\n"
           "  per stream, communication and the part of it left exposed, the time per GPU op family and per CPU op\n"
           "  (count, total, mean; names matched without template arguments, parameters or step numbers) and what\n"
           "  moved most, ranked by the absolute change. A and B are each a Kineto trace, a job folder (a trace per\n"
           "  rank: ranks matched by number), or with --a/--b a host ET and its Kineto trace in either order (only\n"
           "  the Kineto trace is read). Definitions: docs/diff.md.\n"
           "  --json             print one JSON object instead of the text\n"
           "  --csv FILE         also write every row as CSV (atomic; '-' for standard output)\n"
           "  --top N            ops and moved rows listed (default 10; 0 = all)\n"
           "  --jobs N           traces read at the same time (default: the cores)\n"
           "  --allow-truncated  read a trace cut short up to its cut instead of refusing it\n"
           "Exit status: 0; 1 if a run or one of its ranks cannot be read (the other ranks are compared), the\n"
           "runs cannot be compared or the CSV cannot be written; 2 on bad arguments.\n";
}

} // namespace

int runDiff(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> positional, sideA, sideB;
    bool json = false, allowTruncated = false;
    std::string csv;
    std::size_t top = 10, jobs = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        std::string v;
        if (a == "--help" || a == "-h") {
            printDiffUsage(out);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--allow-truncated") {
            allowTruncated = true;
        } else if (a == "--a" || a == "--b") {
            std::vector<std::string> &to = a == "--a" ? sideA : sideB;
            while (i + 1 < args.size() && to.size() < 2 && !args[i + 1].starts_with("--"))
                to.push_back(args[++i]);
            if (to.empty()) {
                err << "diff: " << a << " needs a Kineto trace, a pair or a job folder\n";
                return 2;
            }
        } else if (a == "--csv" || a == "--top" || a == "--jobs") {
            if (i + 1 >= args.size()) {
                err << "diff: " << a << " needs a value\n";
                return 2;
            }
            v = args[++i];
            if (a == "--csv")
                csv = v;
            else if (!parseCount(v, a == "--top" ? top : jobs)) {
                err << "diff: " << a << " wants a count, not '" << v << "'\n";
                return 2;
            }
        } else if (a.starts_with("-") && a != "-") {
            err << "diff: unknown option " << a << '\n';
            printDiffUsage(err);
            return 2;
        } else {
            positional.push_back(a);
        }
    }
    std::size_t extra = 0;
    for (const std::string &p : positional)
        if (sideA.empty())
            sideA.push_back(p);
        else if (sideB.empty())
            sideB.push_back(p);
        else
            ++extra;
    if (sideA.empty() || sideB.empty() || extra) {
        err << "diff: give two runs, A and B (a pair with --a HOST KINETO / --b HOST KINETO)\n";
        printDiffUsage(err);
        return 2;
    }

    job::RunPair runs;
    try {
        job::RunReadOptions options;
        options.allowTruncated = allowTruncated;
        options.threads = static_cast<int>(jobs);
        runs = job::readRunPair(sideA, sideB, options);
    } catch (const std::exception &e) {
        err << "diff: " << e.what() << '\n';
        return 1;
    }
    for (const std::string &w : runs.truncated)
        err << "diff: warning: " << w << '\n';
    // A single trace that cannot be read is the run's failure; a job's rank is a warning of the diff.
    if (const std::string problem = job::unreadableRun(runs); !problem.empty()) {
        err << "diff: " << problem << '\n';
        return 1;
    }
    const RunSide &a = runs.a, &b = runs.b;
    const std::vector<NamedFile> &inputFiles = runs.inputs;

    RunDiff diff;
    try {
        diff = diffRuns(a, b);
    } catch (const std::exception &e) {
        err << "diff: " << e.what() << '\n';
        return 1;
    }
    if (json)
        out << runDiffJson(diff, top).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    else
        out << runDiffText(diff, top);
    for (const std::string &w : diff.warnings)
        err << "diff: warning: " << w << '\n';
    if (!csv.empty()) {
        try {
            if (csv == "-") {
                out << runDiffCsv(diff);
            } else {
                checkOutputs({{"--csv output", csv}}, inputFiles);
                writeFileAtomically(csv, runDiffCsv(diff));
            }
        } catch (const std::exception &e) {
            err << "diff: " << e.what() << '\n';
            return 1;
        }
    }
    // A rank that could not be read is left out of the diff, which is printed; the status says so.
    for (const RunSide *side : {&a, &b})
        for (const RunRank &r : side->ranks)
            if (!r.stats)
                return 1;
    return 0;
}

} // namespace linkscope::cli
