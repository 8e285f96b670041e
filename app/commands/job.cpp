// linkscope job DIR|FILE... --out OUTDIR [--jobs N] [--policy P] [--prefix NAME] [--report FILE]
//               [--strict] [--ranks LIST] [--no-et]
// linkscope job --merge OUTDIR... [--out DIR] [--report FILE] [--strict]
#include "commands/commands.h"

#include "edit/sidecar.h"
#include "export/chakra/etcheck.h"
#include "export/exportrequest.h"
#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "job/discovery.h"
#include "job/jobrun.h"
#include "job/summaryrun.h"
#include "link/linkset.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace linkscope::cli {

namespace {

namespace fs = std::filesystem;
using namespace core::job;

void printJobUsage(std::ostream &out)
{
    out << "usage: linkscope job DIR|FILE... --out OUTDIR [options]\n"
           "       linkscope job --merge OUTDIR... [--out DIR] [--report FILE] [--strict]\n"
           "  Every rank of a distributed job at once: discovers the ranks (host ET + Kineto per rank, or\n"
           "  Kineto alone; rank numbers from the file names, confirmed by distributedInfo.rank), links and\n"
           "  exports them in parallel, checks the collectives across ranks and writes\n"
           "  OUTDIR/<prefix>.<rank>.et, OUTDIR/comm_group.json (ASTRA-sim --comm-group-configuration),\n"
           "  OUTDIR/<prefix>.<rank>.summary.json and the job report (docs/job-report.md).\n"
           "  --out OUTDIR          output folder (created)\n"
           "  --jobs N              ranks processed at the same time (default: the number of cores); memory\n"
           "                        is about N ranks' worth\n"
           "  --policy P            nesting (default), external-id, ev-idx (a rank's sidecar policy otherwise)\n"
           "  --prefix NAME         output name prefix (default trace: trace.0.et, trace.1.et, ...)\n"
           "  --report FILE         the job report (default OUTDIR/job-report.json)\n"
           "  --strict              exit 3 when an error-severity finding exists\n"
           "  --ranks LIST          process only these ranks (e.g. 0-511 or 0-3,8): a shard. Writes the ranks'\n"
           "                        .et and summaries only; build the report with --merge\n"
           "  --merge OUTDIR...     the report and comm_group.json from the summaries in these folders alone\n"
           "  --no-et               check only: no .et files\n"
           "  --allow-truncated     read a rank's trace cut short up to its cut instead of failing the rank\n"
           "  --target T            .et flavour: astra-sim (default: runs in ASTRA-sim, docs/astra-sim-export.md)\n"
           "                        or chakra (what chakra_converter writes)\n"
           "The .et files written are checked as `linkscope check` does (against comm_group.json).\n"
           "Exit status: 0; 1 if an input cannot be read (or a discovery conflict); 2 for usage; 3 with --strict\n"
           "and an error-severity finding (of the job or of the .et check).\n";
}

bool parseRankList(const std::string &text, std::vector<std::pair<std::int64_t, std::int64_t>> &ranges)
{
    std::size_t p = 0;
    while (p <= text.size()) {
        const std::size_t comma = std::min(text.find(',', p), text.size());
        const std::string part = text.substr(p, comma - p);
        const std::size_t dash = part.find('-');
        try {
            std::size_t used = 0;
            if (dash == std::string::npos) {
                const std::int64_t v = std::stoll(part, &used);
                if (used != part.size() || v < 0)
                    return false;
                ranges.emplace_back(v, v);
            } else {
                const std::string a = part.substr(0, dash), b = part.substr(dash + 1);
                std::size_t ua = 0, ub = 0;
                const std::int64_t lo = std::stoll(a, &ua), hi = std::stoll(b, &ub);
                if (ua != a.size() || ub != b.size() || lo < 0 || hi < lo)
                    return false;
                ranges.emplace_back(lo, hi);
            }
        } catch (const std::exception &) {
            return false;
        }
        p = comma + 1;
    }
    return !ranges.empty();
}

// One line per refresh: a bar per rank in progress, and how many are done.
class ProgressLine {
public:
    ProgressLine(std::ostream &err, std::size_t total, bool enabled) : err_(err), total_(total), enabled_(enabled) { }
    bool update(const RankProgress &p)
    {
        std::lock_guard lock(mutex_);
        if (p.stage == "done" || p.stage == "failed") {
            active_.erase(p.rank);
            ++finished_;
        } else {
            active_[p.rank] = {std::string(p.stage), p.fraction};
        }
        const auto now = std::chrono::steady_clock::now();
        if (enabled_ && (now - last_ > std::chrono::milliseconds(100) || finished_ == total_)) {
            last_ = now;
            std::string line = "\r" + std::to_string(finished_) + "/" + std::to_string(total_) + " ranks";
            std::size_t shown = 0;
            for (const auto &[rank, state] : active_) {
                if (++shown > 6)
                    break;
                const int filled = static_cast<int>(state.second * 10 + 0.5);
                line += "  r" + std::to_string(rank) + " " + state.first + " ["
                        + std::string(static_cast<std::size_t>(std::clamp(filled, 0, 10)), '#')
                        + std::string(static_cast<std::size_t>(10 - std::clamp(filled, 0, 10)), ' ') + "]";
            }
            line += "\033[K";
            err_ << line << std::flush;
            drawn_ = true;
        }
        return true;
    }
    void finish()
    {
        std::lock_guard lock(mutex_);
        if (drawn_)
            err_ << "\r\033[K" << std::flush;
    }

private:
    std::ostream &err_;
    std::size_t total_;
    bool enabled_;
    std::mutex mutex_;
    std::map<std::int64_t, std::pair<std::string, double>> active_;
    std::size_t finished_ = 0;
    std::chrono::steady_clock::time_point last_{};
    bool drawn_ = false;
};

// Kernel time that ran beside another stream's kernel, which the astra-sim .et cuts (ASTRA-sim runs
// one kernel at a time): the rank with the most, and a warning when it matters.
void printStreamOverlap(const JobReport &report, std::ostream &out)
{
    const RankSummary *worst = nullptr;
    double worstPct = -1;
    for (const RankSummary &s : report.ranks) {
        if (!s.exportStats.is_object() || !s.exportStats.contains("stream_overlap_ns"))
            continue;
        const double pct = s.exportStats.value("stream_overlap_pct", 0.0);
        if (pct > worstPct) {
            worstPct = pct;
            worst = &s;
        }
    }
    if (!worst)
        return;
    const core::Nanos overlap = worst->exportStats.value("stream_overlap_ns", core::Nanos(0));
    const core::Nanos busy = worst->exportStats.value("gpu_busy_ns", core::Nanos(0));
    char line[160];
    std::snprintf(line, sizeof line, "stream overlap: at most %.3f ms (%.1f %% of GPU busy) on rank %lld\n",
                  double(overlap) / 1e6, worstPct, static_cast<long long>(worst->rank));
    out << line;
    if (const std::string warning = core::streamOverlapWarning(overlap, busy); !warning.empty())
        out << "  warning: rank " << worst->rank << ": " << warning << '\n';
}

void printReport(const JobReport &report, std::ostream &out)
{
    std::size_t ets = 0;
    for (const RankSummary &s : report.ranks)
        ets += s.et.empty() ? 0 : 1;
    out << "job: " << report.ranks.size() << " ranks";
    if (report.worldSize > 0)
        out << " (world size " << report.worldSize << ")";
    out << ", " << report.groups.size() << (report.groups.size() == 1 ? " process group, " : " process groups, ") << ets
        << (ets == 1 ? " .et file\n" : " .et files\n");
    out << "  rank  gpu_ops   linked  collectives  p2p  et\n";
    for (const RankSummary &s : report.ranks) {
        std::size_t coll = 0;
        for (const CollectiveCall &c : s.calls)
            coll += isP2P(c.kind) ? 0 : 1;
        char line[160];
        std::snprintf(line, sizeof line, "  %4lld %8zu %8zu %12zu %4zu  ", static_cast<long long>(s.rank), s.gpuOps, s.linked,
                      coll, s.calls.size() - coll);
        out << line << (s.error.empty() ? (s.et.empty() ? "-" : s.et) : "unreadable: " + s.error) << '\n';
    }
    out << "process groups:";
    for (const ProcessGroup &g : report.groups) {
        auto it = report.collectivesPerGroup.find(g.name);
        out << "\n  " << g.name << " (id " << processGroupId(g.name) << (g.desc.empty() ? "" : ", " + g.desc)
            << "): " << g.ranks.size() << " ranks, " << (it == report.collectivesPerGroup.end() ? 0 : it->second)
            << " collectives";
    }
    out << '\n';
    const NetworkFit &net = report.network;
    if (net.fitted) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "network (fitted from %zu collectives' transfers): ring of %lld, %.4g GB/s, %.4g ns latency; "
                      "mean error %.1f %%, total %+.1f %%\n",
                      net.samples, static_cast<long long>(net.npus), net.bandwidthGBps, net.latencyNs, net.meanAbsErrorPct,
                      net.totalErrorPct);
        out << line;
    } else {
        out << "network: not fitted (" << net.reason << ")\n";
    }
    printStreamOverlap(report, out);
    std::size_t errors = 0, warnings = 0;
    for (const JobFinding &f : report.findings)
        (f.severity == Severity::Error ? errors : warnings) += 1;
    if (report.findings.empty()) {
        out << "cross-rank findings: none\n";
    } else {
        // The true totals; the list capped per kind (JobReport::listedFindings).
        out << "cross-rank findings: " << errors << " errors, " << warnings << " warnings\n";
        for (const JobFinding &f : report.listedFindings())
            out << "  " << severityName(f.severity) << " " << f.kind << ": " << f.message << '\n';
    }
    if (!report.timing.stragglers.empty()) {
        out << "stragglers (last to launch):";
        std::size_t shown = 0;
        for (const StragglerCount &s : report.timing.stragglers) {
            if (++shown > 5)
                break;
            out << " rank " << s.rank << " " << s.lastArrivals << "/" << s.of << ";";
        }
        std::int64_t worst = 0;
        for (const CollectiveTiming &c : report.timing.collectives)
            worst = std::max(worst, c.skewNs);
        out << " largest arrival skew " << worst / 1000.0 << " us\n";
    }
}

} // namespace

// `linkscope check` on the .et files the job wrote, against its comm_group.json. Returns the number
// of errors; prints each finding.
// The files checked as they were written (RankSummary::etCheck) are not read again; the others (a
// merge of shards) are, `jobs` at a time.
std::size_t preflight(const JobReport &report, const std::string &outDir, const std::string &commGroup, int jobs,
                      std::ostream &out)
{
    std::vector<core::EtFileCheck> checked;
    std::vector<std::string> files;
    bool allChecked = true;
    for (const RankSummary &s : report.ranks)
        if (!s.et.empty() && s.stale.empty()) {   // a stale summary's .et is as old as it (reported once, as stale)
            files.push_back(etPathOf(s, outDir)); // beside its summary: each shard's folder in a merge
            allChecked = allChecked && s.etCheck;
            if (s.etCheck)
                checked.push_back(*s.etCheck);
        }
    if (files.empty())
        return 0;
    const core::EtCheckResult check = allChecked ? core::checkEtJob(std::move(checked), commGroup)
                                                 : core::checkEtFiles(files, commGroup, jobs);
    for (const auto &f : check.findings)
        out << "check: " << f.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out << "check: " << check.files << " .et files, " << check.nodes << " nodes, " << check.errors() << " errors\n";
    return check.errors();
}

namespace {

// What the command line asks for.
struct JobArgs {
    std::vector<std::string> inputs, mergeDirs;
    std::string outDir, reportPath, policyText, prefix = "trace", rankText;
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    bool strict = false, merge = false, noEt = false, allowTruncated = false;
    core::EtTarget target = core::EtTarget::AstraSim;
};

// Reads the arguments into `a`; an exit status when the command ends here (--help, a usage error,
// said on `err`).
std::optional<int> parseJobArgs(const Args &args, JobArgs &a, std::ostream &out, std::ostream &err)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        auto value = [&](std::string &v) {
            if (i + 1 >= args.size()) {
                err << "job: " << arg << " needs a value\n";
                return false;
            }
            v = args[++i];
            return true;
        };
        std::string v;
        if (arg == "--help" || arg == "-h") {
            printJobUsage(out);
            return 0;
        } else if (arg == "--out") {
            if (!value(a.outDir))
                return 2;
        } else if (arg == "--report") {
            if (!value(a.reportPath))
                return 2;
        } else if (arg == "--policy") {
            if (!value(a.policyText))
                return 2;
        } else if (arg == "--prefix") {
            if (!value(a.prefix))
                return 2;
            if (a.prefix.empty() || a.prefix.find('/') != std::string::npos) {
                err << "job: --prefix wants a file name prefix without '/'\n";
                return 2;
            }
        } else if (arg == "--jobs") {
            if (!value(v))
                return 2;
            try {
                std::size_t used = 0;
                a.jobs = std::stoi(v, &used);
                if (used != v.size() || a.jobs < 1)
                    throw std::invalid_argument(v);
            } catch (const std::exception &) {
                err << "job: --jobs wants a positive integer\n";
                return 2;
            }
        } else if (arg == "--ranks") {
            if (!value(a.rankText))
                return 2;
        } else if (arg == "--strict") {
            a.strict = true;
        } else if (arg == "--target") {
            if (!value(v))
                return 2;
            const auto t = core::etTargetFromName(v);
            if (!t) {
                err << "job: unknown --target '" << v << "' (astra-sim, chakra)\n";
                return 2;
            }
            a.target = *t;
        } else if (arg == "--no-et") {
            a.noEt = true;
        } else if (arg == "--allow-truncated") {
            a.allowTruncated = true;
        } else if (arg == "--merge") {
            a.merge = true;
        } else if (!arg.empty() && arg[0] == '-') {
            err << "job: unknown option " << arg << "\n";
            printJobUsage(err);
            return 2;
        } else {
            (a.merge ? a.mergeDirs : a.inputs).push_back(arg);
        }
    }
    return std::nullopt;
}

// The report and comm_group.json (and the fitted network) written and printed, then the .et files
// checked; `took` ends the "wrote" line. The exit status: 1 when a rank was `unreadable`, 3 with
// --strict and an error of the job or of the check, else 0.
int writeAndCheckReport(const JobReport &report, const JobArgs &a, const std::string &commGroup, const std::string &took,
                        bool unreadable, std::ostream &out)
{
    writeJobOutputs(report, commGroup, a.reportPath);
    printReport(report, out);
    out << "wrote " << commGroup << (report.network.fitted ? ", " + networkFilePath(commGroup) : std::string()) << ", "
        << a.reportPath << took << '\n';
    const std::size_t etErrors = preflight(report, a.outDir, commGroup, a.jobs, out);
    if (unreadable)
        return 1;
    return a.strict && (report.hasErrors() || etErrors) ? 3 : 0;
}

// --merge: the report and comm_group.json from the shards' summaries.
int runMerge(JobArgs a, std::ostream &out, std::ostream &err)
{
    if (!a.inputs.empty() || a.mergeDirs.empty()) {
        err << "job: --merge takes the output folders of the shards (and no trace inputs)\n";
        return 2;
    }
    if (a.outDir.empty())
        a.outDir = a.mergeDirs.front();
    try {
        // Everything read and checked before anything is created or written: a merge with no
        // summaries, or whose outputs would replace one of its inputs, writes nothing.
        std::vector<JobFinding> notRead; // *.summary.json that are not regular files
        std::vector<RankSummary> summaries = readSummaries(a.mergeDirs, &notRead);
        for (const JobFinding &f : notRead)
            err << "job: skipped " << f.message << '\n';
        if (a.reportPath.empty())
            a.reportPath = (fs::path(a.outDir) / "job-report.json").string();
        const std::string commGroup = (fs::path(a.outDir) / "comm_group.json").string();
        try {
            checkMergeOutputs(summaries, commGroup, a.reportPath);
        } catch (const std::exception &e) {
            err << "job: " << e.what() << "\njob: nothing written\n";
            return 1;
        }
        // Summaries left from another run, or made from traces that changed since (job/summaryrun.h).
        SummaryRunCheck runs = checkSummaryRuns(summaries);
        for (const std::string &note : runs.notes)
            err << "job: " << note << '\n';
        fs::create_directories(a.outDir);
        // The merge is a run of its own; the report names the runs whose summaries it read.
        std::set<std::string> fromRuns;
        for (const RankSummary &s : summaries)
            if (s.run.is_object() && s.run.contains("job_run"))
                if (const auto id = JobRunId::fromJson(s.run["job_run"]))
                    fromRuns.insert(id->id);
        JobReport report = buildJobReport(std::move(summaries));
        report.jobRun = newJobRunId();
        report.fromRuns.assign(fromRuns.begin(), fromRuns.end());
        if (!runs.findings.empty() || !notRead.empty()) {
            report.findings.insert(report.findings.end(), runs.findings.begin(), runs.findings.end());
            report.findings.insert(report.findings.end(), notRead.begin(), notRead.end());
            sortFindings(report.findings);
        }
        const bool unreadable = std::any_of(report.ranks.begin(), report.ranks.end(),
                                            [](const RankSummary &s) { return !s.error.empty() || !s.stale.empty(); });
        return writeAndCheckReport(report, a, commGroup, "", unreadable, out);
    } catch (const std::exception &e) {
        err << "job: " << e.what() << '\n';
        return 1;
    }
}

// The job's options from the arguments; std::nullopt after saying what is wrong (a usage error).
std::optional<JobOptions> jobOptions(const JobArgs &a, std::ostream &err)
{
    JobOptions options;
    options.outDir = a.outDir;
    options.prefix = a.prefix;
    options.jobs = a.jobs;
    options.chakra.target = a.target;
    options.writeEt = !a.noEt;
    options.allowTruncated = a.allowTruncated;
    if (!a.policyText.empty()) {
        auto policy = core::policyFromName(a.policyText);
        if (!policy) {
            err << "job: unknown policy '" << a.policyText << "' (nesting, external-id, ev-idx)\n";
            return std::nullopt;
        }
        options.link.policy = *policy;
        options.policyGiven = true;
    }
    return options;
}

// The ranks processed (a shard's, with --ranks), then the report, comm_group.json and the .et check.
int runRanks(JobArgs a, std::ostream &out, std::ostream &err)
{
    if (a.inputs.empty() || a.outDir.empty()) {
        err << "job: give the job's folder or files and --out OUTDIR\n";
        printJobUsage(err);
        return 2;
    }
    std::optional<JobOptions> options = jobOptions(a, err);
    if (!options)
        return 2;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    if (!a.rankText.empty() && !parseRankList(a.rankText, ranges)) {
        err << "job: --ranks wants ranks and ranges such as 0-511 or 0-3,8\n";
        return 2;
    }

    auto inShard = [&](std::int64_t rank) {
        return std::any_of(ranges.begin(), ranges.end(), [&](const auto &r) { return rank >= r.first && rank <= r.second; });
    };
    JobLayout layout = ranges.empty() ? discoverJob(a.inputs) : discoverJob(a.inputs, inShard);
    for (const std::string &s : layout.skipped)
        err << "job: skipped " << s << '\n';
    if (!layout.errors.empty()) {
        for (const std::string &e : layout.errors)
            err << "job: error: " << e << '\n';
        err << "job: nothing written\n";
        return 1;
    }
    const std::vector<RankFiles> &todo = layout.ranks;
    if (todo.empty()) {
        err << "job: no ranks to process" << (ranges.empty() ? "" : " in --ranks " + a.rankText) << '\n';
        return 1;
    }

    // No output may replace an input (a rank's traces or its sidecar) or another output: checked
    // for every file before anything is written.
    try {
        checkJobOutputs(todo, *options, ranges.empty(), a.reportPath);
    } catch (const std::exception &e) {
        err << "job: " << e.what() << "\njob: nothing written\n";
        return 1;
    }

    try {
        fs::create_directories(a.outDir);
        const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
        ProgressLine progress(err, todo.size(), terminal);
        options->progress = [&](const RankProgress &p) { return progress.update(p); };
        const auto start = std::chrono::steady_clock::now();
        options->jobRun = newJobRunId(); // every file this run writes names it (job/runid.h)
        std::vector<RankSummary> summaries = processRanks(todo, *options);
        progress.finish();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        bool unreadable = false;
        for (const RankSummary &s : summaries)
            if (!s.error.empty()) {
                err << "job: rank " << s.rank << ": " << s.error << '\n';
                unreadable = true;
            }
        if (!ranges.empty()) {
            out << "job: shard of " << summaries.size() << " ranks (" << a.rankText << ") in " << seconds << " s; summaries in "
                << a.outDir << " (build the report with: linkscope job --merge OUTDIR...)\n";
            return unreadable ? 1 : 0;
        }
        JobReport report = buildJobReport(std::move(summaries), layout.worldSize);
        report.jobRun = options->jobRun;
        if (a.reportPath.empty())
            a.reportPath = (fs::path(a.outDir) / "job-report.json").string();
        const std::string commGroup = (fs::path(a.outDir) / "comm_group.json").string();
        std::ostringstream took;
        took << " in " << seconds << " s";
        return writeAndCheckReport(report, a, commGroup, took.str(), unreadable, out);
    } catch (const core::Cancelled &) {
        err << "job: cancelled\n";
    } catch (const std::exception &e) {
        err << "job: " << e.what() << '\n';
    }
    return 1;
}

} // namespace

int runJob(const Args &args, std::ostream &out, std::ostream &err)
{
    JobArgs a;
    if (const std::optional<int> status = parseJobArgs(args, a, out, err))
        return *status;
    return a.merge ? runMerge(std::move(a), out, err) : runRanks(std::move(a), out, err);
}

} // namespace linkscope::cli
