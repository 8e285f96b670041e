#include "predict/pathdiff.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

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

// The steps of `path` whose node is not in `other`, grouped as topOfPath groups them; `count`: the nodes.
std::vector<PathShare> missingFrom(const SimJob &job, const RankPath &path, const std::set<NodeKey> &other, std::size_t limit,
                                   std::size_t &count)
{
    std::map<std::tuple<std::int32_t, std::uint32_t, NodeKind>, PathShare> by;
    std::set<NodeKey> counted;
    for (const PathStep &s : path.steps) {
        if (s.node == kNoNode || s.rank < 0 || static_cast<std::size_t>(s.rank) >= job.ranks.size()
            || other.count({s.rank, s.node}))
            continue;
        const SimRank &rank = job.ranks[static_cast<std::size_t>(s.rank)];
        if (s.node >= rank.nodes.size())
            continue;
        const SimNode &n = rank.nodes[s.node];
        PathShare &share = by[{s.rank, n.name, n.kind}];
        share.rank = rank.rank;
        share.name = rank.names[n.name];
        share.kind = n.kind;
        share.ns += s.endNs - s.startNs;
        if (counted.insert({s.rank, s.node}).second)
            ++share.count;
    }
    count = counted.size();
    std::vector<PathShare> out;
    out.reserve(by.size());
    for (auto &[key, share] : by)
        out.push_back(std::move(share));
    std::sort(out.begin(), out.end(),
              [](const PathShare &a, const PathShare &b) { return a.ns != b.ns ? a.ns > b.ns : a.name < b.name; });
    if (out.size() > limit)
        out.resize(limit);
    return out;
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
