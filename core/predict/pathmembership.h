#pragma once
// Which nodes are on a critical path (PathMembership, predict/whatifmatch.h), built from paths: what
// a what-if's "M of them on the critical path" is counted against (the CLI's predict, the
// opportunity sweep, the GUI's pair and job what-ifs).

#include "predict/criticalpath.h"
#include "predict/whatifmatch.h"

namespace linkscope::core::predict {

// Every node of every rank of `job`, none of them on a path yet.
PathMembership emptyPathMembership(const SimJob &job);
// Marks the nodes `path` runs through (PathStep::rank indexes job.ranks); steps outside `onPath` are skipped.
void markPath(PathMembership &onPath, const RankPath &path);

} // namespace linkscope::core::predict
