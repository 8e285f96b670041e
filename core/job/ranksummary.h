#pragma once
// What one rank of a job contributes to the job report: its files, link counts, declared process
// groups and collective calls. Written beside the rank's `.et` as `<prefix>.<rank>.summary.json`, so
// that `linkscope job --merge` builds the cross-rank report from the summaries of every shard without
// reopening a trace.

#include "analysis/tracestats.h"
#include "export/chakra/etcheck.h"
#include "job/rankoverview.h"
#include "jobmodel/crossrank.h"
#include "jobmodel/processgroups.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace linkscope::core::job {

inline constexpr int kSummaryVersion = 1;

struct RankSummary {
    std::int64_t rank = -1;
    std::string host; // input paths as given
    std::string device;
    std::int64_t declaredRank = -1; // Kineto distributedInfo.rank (-1 none)
    std::int64_t worldSize = -1;    // Kineto distributedInfo.world_size (-1 none)
    std::size_t gpuOps = 0;
    std::size_t linked = 0;                      // GPU ops with a parent CPU op
    std::map<std::string, std::size_t> findings; // link finding kind → count
    std::vector<ProcessGroup> groups;            // this rank's declaration (Kineto + host ET)
    std::vector<CollectiveCall> calls;
    std::string et;           // the .et written (file name in its output folder), empty if none
    std::string note;         // why no .et, corrections applied, …
    bool hostDerived = false; // no host ET: the .et was exported from one derived from the Kineto trace (pipeline/derivedhost.h)
    std::string error;        // the rank could not be read or linked: the message (then no calls)
    // What the export made of the rank (exportSummary): measured time, blocked time taken out, the
    // dependencies per kind; null when no .et was written.
    nlohmann::json exportStats;
    // What identifies the run that made the summary: the Linkscope version, the .et target, the policy
    // and the inputs' fingerprints (job/summaryrun.h); null in a summary of an older Linkscope.
    nlohmann::json run;
    // Not part of the summary file: the file it was read from (readSummaries; empty when made in this
    // process), and why it no longer describes the traces on disk (checkSummaryRuns; empty: it does).
    std::string file;
    std::string stale;
    // The check of the .et as written (JobOptions::checkEt); not part of the summary file: a merge of
    // shards checks the .et files again.
    std::shared_ptr<const EtFileCheck> etCheck;
    // What the job overview draws (JobOptions::overview); not part of the summary file either.
    std::shared_ptr<const RankOverview> overview;
    // The rank's trace-wide statistics (JobOptions::stats or overview; analysis/tracestats.h): the
    // Summary dock's and `linkscope summary`'s per-rank rows. Not part of the summary file.
    std::shared_ptr<const TraceStats> stats;
    // Where the rank's host ET and Kineto trace end when they were read up to a cut
    // (JobOptions::allowTruncated, io/json/truncation.h cutOffset); kUnknownOffset: read whole. What the
    // GUI's notice names; not part of the summary file.
    std::uint64_t hostCutAt = kUnknownOffset;
    std::uint64_t deviceCutAt = kUnknownOffset;
    // With JobOptions::stats: the readers' warnings (device, then host), as `linkscope inspect` lists
    // them. Not part of the summary file.
    std::vector<Diagnostic> readerWarnings;

    nlohmann::json toJson() const;
    // Throws std::runtime_error naming `where` for a summary that is not one.
    static RankSummary fromJson(const nlohmann::json &j, const std::string &where);
};

// Atomic write; throws WriteError.
void writeRankSummary(const std::string &path, const RankSummary &summary);
// Throws std::runtime_error naming the file.
RankSummary readRankSummary(const std::string &path);

} // namespace linkscope::core::job
