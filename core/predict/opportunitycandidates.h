#pragma once
// The candidates of the opportunity sweep (predict/opportunities.h), read off the job's critical paths
// before any change: which kernel families, streams, CPU ops and ranks are on them.

#include "predict/opportunities.h"
#include "predict/whatifmatch.h"

#include <cstdint>
#include <vector>

namespace linkscope::core::predict {

// A distinct (rank, name, kind, stream) of a critical path and its time on it.
struct PathEntry {
    std::size_t rank = 0; // index into SimJob::ranks
    std::uint32_t name = 0;
    NodeKind kind = NodeKind::Cpu;
    std::int64_t stream = -1;
    std::int64_t ns = 0;
};
std::vector<PathEntry> pathEntries(const SimJob &job, const RankPath &path);

// The path by the kind of work, whichever rank did it: CPU, GPU, transfers, idle (otherRankNs 0).
Breakdown workOfPath(const SimJob &job, const RankPath &path);

// Ranks whose CPU work is at least `share` of the path (`entries`, of a path `stepNs` long).
std::vector<std::int64_t> findStragglers(const SimJob &job, const std::vector<PathEntry> &entries, std::int64_t stepNs,
                                         double share);

struct CandidateInputs {
    const PathMembership *onPath = nullptr;          // nodes on some rank's critical path
    const std::vector<PathEntry> *jobPath = nullptr; // the job's critical path
    std::int64_t makespanNs = 0;
    std::vector<std::int64_t> stragglers;
    std::size_t syncWaits = 0; // CPU ops on the job's path that waited for a GPU op (a sync)
};

// The candidates (whatIf, args, title set; not replayed), and what is not offered.
std::vector<Opportunity> opportunityCandidates(const SimJob &job, const CandidateInputs &in, const OpportunityOptions &options,
                                               std::vector<NotOffered> &notOffered);

} // namespace linkscope::core::predict
