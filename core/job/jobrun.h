#pragma once
// Running a job: every rank opened through the pair pipeline (pipeline/pairpipeline.h: loaded,
// linked, corrected by its own sidecar) and exported in parallel
// with a bound on memory — a worker holds one rank at a time and releases its traces once the
// rank's `.et` and summary are written, so N ranks run in the memory of `jobs` ranks — then the
// cross-rank report and comm_group.json built from the summaries alone (the same code path
// `linkscope job --merge` takes on the summaries of several shards).

#include "export/exportrequest.h"
#include "job/discovery.h"
#include "job/networkfit.h"
#include "job/ranksummary.h"
#include "job/runid.h"
#include "job/timing.h"
#include "jobmodel/crossrank.h"
#include "link/linkset.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace linkscope::core::job {

struct RankProgress {
    std::int64_t rank = -1;
    std::string_view stage; // "load", "link", "export", "done", "failed"
    double fraction = 0;    // of the stage, 0..1
};

inline ChakraOptions astraSimDefaults()
{
    ChakraOptions o;
    o.target = EtTarget::AstraSim;
    return o;
}

struct JobOptions {
    std::string outDir;           // created if missing
    std::string prefix = "trace"; // OUTDIR/<prefix>.<rank>.et, OUTDIR/<prefix>.<rank>.summary.json
    int jobs = 1;                 // ranks processed at the same time
    LinkOptions link;             // policy etc. (a rank's sidecar policy wins unless policyGiven)
    bool policyGiven = false;
    ChakraOptions chakra = astraSimDefaults(); // the .et flavour: ASTRA-sim's unless told otherwise
    bool writeEt = true;
    // With writeEt: each rank's .et bytes go to the sink this returns for the rank (ExportRequest::
    // etSink) instead of OUTDIR/<prefix>.<rank>.et, and nothing is written unless outDir is given
    // (`linkscope predict` builds its graph from the bytes: predict/rankstream.h). Called on the
    // rank's worker thread; the summary's `et` names the file it would have been.
    std::function<std::function<void(std::string_view)>(std::int64_t rank)> etSinkFor;
    // Read every .et back as it is written and check it (export/chakra/etcheck.h checkEtFile) in the same
    // worker: RankSummary::etCheck, for checkEtJob once every rank is done.
    bool checkEt = true;
    // Record in each summary which inputs made it (RankSummary::run: each input's SHA-256, job/summaryrun.h)
    // when an output folder is written. Off for predict's private export, read back and removed at
    // once: hashing a 300 MB trace is a tenth of its prediction.
    bool identifyRun = true;
    // This run's id (job/runid.h), written into each summary's run with identifyRun; empty: none.
    JobRunId jobRun;
    // Keep what the job overview draws of each rank (RankSummary::overview), computed before the
    // rank's traces are released.
    bool overview = false;
    // Keep the rank's trace-wide statistics (RankSummary::stats, analysis/tracestats.h); also made
    // with `overview`, so the GUI's job has them for its Summary dock.
    bool stats = false;
    // Read a truncated trace up to its cut (a warning names the byte) instead of failing the rank.
    bool allowTruncated = false;
    // Called from worker threads (serialise inside). Return false to stop: ranks not started are
    // left out, the current ones stop at their next stage.
    std::function<bool(const RankProgress &)> progress;
};

std::string etFileName(const std::string &prefix, std::int64_t rank);      // "<prefix>.<rank>.et"
std::string summaryFileName(const std::string &prefix, std::int64_t rank); // "<prefix>.<rank>.summary.json"

// One rank: never throws for bad input (the summary's `error` says what failed); throws WriteError
// when an output cannot be written.
RankSummary processRank(const RankFiles &files, const JobOptions &options);

// Every rank of `ranks`, `options.jobs` at a time; summaries in rank order. Each summary is also
// written to OUTDIR/<prefix>.<rank>.summary.json — unless outDir is empty (with writeEt false):
// then nothing is written (the GUI's open of a job).
std::vector<RankSummary> processRanks(const std::vector<RankFiles> &ranks, const JobOptions &options);

// Refuses (throws std::runtime_error naming both) before anything is written when an output of the
// job — a rank's .et or summary, and with `whole` comm_group.json and the report (`reportPath`, empty:
// OUTDIR/job-report.json) — would replace an input (a rank's traces or sidecar) or another output.
void checkJobOutputs(const std::vector<RankFiles> &ranks, const JobOptions &options, bool whole, const std::string &reportPath);
// OUTDIR/job-report.json unless `reportPath` says otherwise.
std::string jobReportPath(const JobOptions &options, const std::string &reportPath);

// The report lists at most this many findings of one kind (job-report.json and the text summary);
// the rest are counted (listedFindings).
inline constexpr std::size_t kListedFindingsPerKind = 100;

struct JobReport {
    std::int64_t worldSize = -1;
    std::vector<RankSummary> ranks;                         // rank order (calls kept for the checks, not reported)
    std::vector<ProcessGroup> groups;                       // id order
    std::map<std::string, std::size_t> collectivesPerGroup; // reference sequence length
    std::vector<JobFinding> findings; // job-level (missing ranks, unreadable ranks, group conflicts) + cross-rank
    JobTiming timing;
    std::vector<GroupAlignment> alignments; // per group: where each member's calls sit in its sequence
    NetworkFit network;                     // fitted from the collectives' transfers (job/networkfit.h)
    JobRunId jobRun;                        // the run writing the report (job/runid.h); empty: none
    std::vector<std::string> fromRuns;      // a merge: the runs of the summaries it read
    nlohmann::json toJson() const;          // docs/job-report.md
    bool hasErrors() const;
    // The findings as the report lists them: the first kListedFindingsPerKind of each kind (in
    // `findings` order), then, per kind with more, one finding of that kind saying how many more
    // there are (its `count`), so that 30,000 findings of one kind cost a few lines. `findings`
    // keeps them all.
    std::vector<JobFinding> listedFindings() const;

    // The same collective on every member: (rank, index into that rank's RankSummary::calls) for
    // position `index` of group `group`'s sequence, ascending rank; empty when unknown.
    std::vector<std::pair<std::int64_t, std::size_t>> callsAt(const std::string &group, std::int64_t index) const;
    // Where call `call` of rank `rank` sits: its group and position; index -1 when the call is not
    // in its group's reference sequence (one the other ranks did not issue, or a P2P call).
    std::pair<std::string, std::int64_t> positionOf(std::int64_t rank, std::size_t call) const;
    const RankSummary *rank(std::int64_t rank) const;
};

// The cross-rank report from summaries alone (any order; each rank once — a rank twice is an error
// finding and its later summary is dropped). `worldSizeHint` (-1) adds to the declared world sizes.
JobReport buildJobReport(std::vector<RankSummary> summaries, std::int64_t worldSizeHint = -1);

// The summaries in folders (every *.summary.json in each; RankSummary::file says which). Throws
// std::runtime_error naming a bad file, a folder that cannot be listed or one without summaries.
// A *.summary.json that is not a regular file (a FIFO, a folder) is not read: `notRead` gets a
// `summary_not_read` warning naming it and why.
std::vector<RankSummary> readSummaries(const std::vector<std::string> &dirs, std::vector<JobFinding> *notRead = nullptr);
// Where a summary's .et is: beside the summary it was read from, else in `outDir`; empty if none.
std::string etPathOf(const RankSummary &summary, const std::string &outDir);
// `linkscope job --merge`'s refusal (as checkJobOutputs) before anything is written: comm_group.json,
// network.yml beside it or the report would replace a summary read, a rank's .et or its traces or
// sidecar.
void checkMergeOutputs(const std::vector<RankSummary> &summaries, const std::string &commGroupPath,
                       const std::string &reportPath);

// Writes OUTDIR/comm_group.json, the report (path) and, when the network was fitted, OUTDIR/network.yml
// (beside comm_group.json) atomically.
void writeJobOutputs(const JobReport &report, const std::string &commGroupPath, const std::string &reportPath);
// network.yml beside comm_group.json.
std::string networkFilePath(const std::string &commGroupPath);

} // namespace linkscope::core::job
