// linkscope summary HOST KINETO | KINETO | JOB_DIR [--json] [--csv FILE] [--top N] [--jobs N]
//                   [--allow-truncated]
// The whole trace (or every rank of a job) at a glance: top GPU and CPU ops by total time, GPU
// utilisation and exposed communication per stream and GPU, the step times (docs/summary.md).
#include "commands/commands.h"

#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "job/discovery.h"
#include "job/jobrun.h"
#include "pipeline/pairpipeline.h"
#include "report/summaryreport.h"

#include <filesystem>
#include <ostream>
#include <thread>

namespace linkscope::cli {

namespace {

using namespace linkscope::core;

void printSummaryUsage(std::ostream &out)
{
    out << "usage: linkscope summary HOST_ET KINETO | KINETO | JOB_DIR [options]\n"
           "  The whole trace at a glance, without selecting anything: the GPU ops and the CPU ops with the\n"
           "  longest total time, GPU utilisation and communication (collective kernels) per stream and GPU,\n"
           "  with the part not overlapped by computation (exposed), and the step times (ProfilerStep#N).\n"
           "  A folder is a job: one row per rank, the ops summed over the ranks. Definitions: docs/summary.md.\n"
           "  --json             print one JSON object instead of the text\n"
           "  --csv FILE         also write every row as CSV (atomic; '-' for standard output)\n"
           "  --top N            GPU and CPU ops listed (default 10; 0 = all)\n"
           "  --jobs N           a job's ranks read at the same time (default: the cores)\n"
           "  --allow-truncated  read a trace cut short up to its cut (a warning names the byte) instead of\n"
           "                     refusing it\n"
           "The readers' warnings (what `linkscope inspect` lists: events dropped, durations read as 0) go to\n"
           "standard error and into the JSON's \"warnings\" (per rank for a job).\n"
           "Exit status: 0; 1 if a trace cannot be read (or the CSV written); 2 on bad arguments.\n";
}

} // namespace

int runSummary(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> inputs;
    bool json = false;
    bool allowTruncated = false;
    std::string csv;
    std::size_t top = 10;
    std::size_t jobs = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&](std::string &to) {
            if (i + 1 >= args.size()) {
                err << "summary: " << a << " needs a value\n";
                return false;
            }
            to = args[++i];
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            printSummaryUsage(out);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--allow-truncated") {
            allowTruncated = true;
        } else if (a == "--csv") {
            if (!value(csv))
                return 2;
        } else if (a == "--top" || a == "--jobs") {
            if (!value(v))
                return 2;
            if (!parseCount(v, a == "--top" ? top : jobs)) {
                err << "summary: " << a << " wants a count, not '" << v << "'\n";
                return 2;
            }
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            err << "summary: unknown option " << a << '\n';
            printSummaryUsage(err);
            return 2;
        } else {
            inputs.push_back(a);
        }
    }
    if (inputs.empty() || inputs.size() > 2) {
        printSummaryUsage(err);
        return 2;
    }

    SummaryReport report;
    std::vector<NamedFile> inputFiles;
    std::error_code ec;
    if (inputs.size() == 1 && std::filesystem::is_directory(inputs[0], ec)) {
        report.job = true;
        report.folder = inputs[0];
        const job::JobLayout layout = job::discoverJob(inputs);
        for (const std::string &e : layout.errors)
            err << "summary: " << e << '\n';
        if (layout.ranks.empty()) {
            err << "summary: no ranks (host ET + Kineto, or Kineto alone) in " << inputs[0] << '\n';
            return 1;
        }
        job::JobOptions options;
        options.writeEt = false;
        options.checkEt = false;
        options.stats = true;
        options.allowTruncated = allowTruncated;
        options.jobs = static_cast<int>(jobs ? jobs : std::max(1u, std::thread::hardware_concurrency()));
        for (job::RankSummary &s : job::processRanks(layout.ranks, options)) {
            report.parts.push_back({s.rank, s.host, s.device, s.stats, s.error, std::move(s.readerWarnings)});
            inputFiles.push_back({"host trace", s.host});
            inputFiles.push_back({"device trace", s.device});
        }
    } else {
        PairRequest request;
        request.files = {inputs[0], inputs.size() > 1 ? inputs[1] : std::string()};
        request.resolveOrder = true;
        request.allowTruncated = allowTruncated;
        SummaryPart part;
        try {
            const OpenedPair pair = openPair(request);
            part.host = pair.files.host;
            part.device = pair.files.device;
            part.stats = std::make_shared<const TraceStats>(computeTraceStats(*pair.device, *pair.index));
            // The readers' warnings, as `linkscope inspect` lists them (an event dropped, a negative
            // duration read as 0, the file cut short): the numbers above are what was kept.
            part.warnings = pair.device->warnings;
            if (pair.host)
                part.warnings.insert(part.warnings.end(), pair.host->warnings.begin(), pair.host->warnings.end());
        } catch (const std::exception &e) {
            err << "summary: " << e.what() << '\n';
            return 1;
        }
        inputFiles.push_back({"host trace", part.host});
        inputFiles.push_back({"device trace", part.device});
        report.parts.push_back(std::move(part));
    }

    for (const SummaryPart &p : report.parts)
        for (const Diagnostic &d : p.warnings)
            err << "summary: " << (report.job ? "rank " + std::to_string(p.rank) + ": " : std::string())
                << "warning: " << d.toString() << '\n';
    if (json)
        out << summaryJson(report, top).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    else
        out << summaryText(report, top);
    for (const SummaryPart &p : report.parts)
        if (!p.stats && report.job)
            err << "summary: rank " << p.rank << ": " << p.error << '\n';
    if (!csv.empty()) {
        try {
            if (csv == "-") {
                out << summaryCsv(report, top);
            } else {
                checkOutputs({{"--csv output", csv}}, inputFiles);
                writeFileAtomically(csv, summaryCsv(report, top));
            }
        } catch (const std::exception &e) {
            err << "summary: " << e.what() << '\n';
            return 1;
        }
    }
    return report.hasErrors() ? 1 : 0;
}

} // namespace linkscope::cli
