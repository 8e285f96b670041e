#include "predict/pathmembership.h"

namespace linkscope::core::predict {

PathMembership emptyPathMembership(const SimJob &job)
{
    PathMembership onPath(job.ranks.size());
    for (std::size_t r = 0; r < job.ranks.size(); ++r)
        onPath[r].assign(job.ranks[r].nodes.size(), 0);
    return onPath;
}

void markPath(PathMembership &onPath, const RankPath &path)
{
    for (const PathStep &s : path.steps)
        if (s.node != kNoNode && s.rank >= 0 && static_cast<std::size_t>(s.rank) < onPath.size()
            && s.node < onPath[static_cast<std::size_t>(s.rank)].size())
            onPath[static_cast<std::size_t>(s.rank)][s.node] = 1;
}

} // namespace linkscope::core::predict
