#pragma once
// What a change did to a critical path (docs/prediction.md, "What-if"): the ops on the path before
// it and not after (they left the path: the change shortened them, or something else now sets the
// step) and those on it after and not before (they joined it). The GUI's what-if shows both beside
// the baseline's path.

#include "predict/criticalpath.h"

#include <cstddef>
#include <vector>

namespace linkscope::core::predict {

struct PathDiff {
    std::size_t leftCount = 0;   // nodes on `before` and not on `after`
    std::size_t joinedCount = 0; // nodes on `after` and not on `before`
    // The same nodes named as topOfPath names a path's ops: by (rank, name, kind), longest first, at
    // most `limit` each; the time is the nodes' on the path they were on (`before` for left, `after`
    // for joined), `count` their stretches on it; a node with no time on it is counted, not named.
    std::vector<PathShare> left, joined;
};

// Both paths of `job` (PathStep::rank indexes job.ranks); idle stretches (no node) are not ops.
PathDiff diffPaths(const SimJob &job, const RankPath &before, const RankPath &after, std::size_t limit);

} // namespace linkscope::core::predict
