#include "predict/pathdiff.h"

#include <set>

namespace linkscope::core::predict {

namespace {

using NodeKey = std::pair<std::int32_t, std::uint32_t>; // (rank index, node)

std::set<NodeKey> nodesOf(const RankPath &path)
{
    std::set<NodeKey> out;
    for (const PathStep &s : path.steps)
        if (s.node != kNoNode)
            out.insert({s.rank, s.node});
    return out;
}

// The steps of `path` whose node is not in `other`, named as topOfPath names a path's ops (one
// grouping for both: the dock's top ops and the diff's lists read alike); `count`: their nodes.
std::vector<PathShare> missingFrom(const SimJob &job, const RankPath &path, const std::set<NodeKey> &other, std::size_t limit,
                                   std::size_t &count)
{
    RankPath missing;
    missing.rank = path.rank;
    std::set<NodeKey> nodes;
    for (const PathStep &s : path.steps) {
        if (s.node == kNoNode || s.rank < 0 || static_cast<std::size_t>(s.rank) >= job.ranks.size()
            || s.node >= job.ranks[static_cast<std::size_t>(s.rank)].nodes.size() || other.count({s.rank, s.node}))
            continue;
        missing.steps.push_back(s);
        nodes.insert({s.rank, s.node});
    }
    count = nodes.size();
    return topOfPath(job, missing, limit);
}

} // namespace

PathDiff diffPaths(const SimJob &job, const RankPath &before, const RankPath &after, std::size_t limit)
{
    PathDiff d;
    d.left = missingFrom(job, before, nodesOf(after), limit, d.leftCount);
    d.joined = missingFrom(job, after, nodesOf(before), limit, d.joinedCount);
    return d;
}

} // namespace linkscope::core::predict
