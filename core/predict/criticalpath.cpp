#include "predict/criticalpath.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

namespace linkscope::core::predict {

std::string_view pathCategoryName(PathCategory c)
{
    switch (c) {
    case PathCategory::Cpu:
        return "cpu";
    case PathCategory::Gpu:
        return "gpu";
    case PathCategory::Comm:
        return "comm";
    case PathCategory::OtherRank:
        return "other_rank";
    case PathCategory::Idle:
        return "idle";
    }
    return "idle";
}

nlohmann::json Breakdown::toJson() const
{
    return {{"cpu_ns", cpuNs}, {"gpu_ns", gpuNs}, {"comm_ns", commNs}, {"other_rank_ns", otherRankNs}, {"idle_ns", idleNs}};
}

RankPath criticalPath(const SimJob &job, const ReplayResult &replay, std::size_t rankIndex)
{
    RankPath path;
    const RankReplay &own = replay.ranks[rankIndex];
    path.rank = own.rank;
    if (!own.finished || job.ranks[rankIndex].nodes.empty())
        return path;
    path.stepNs = own.stepNs();
    // The path covers the rank's step: from its entry (SimJob::entryNs) to its end; what came before
    // its entry on other ranks is cut there.
    const std::int64_t entry = own.entryNs;
    // The last node to finish (the highest position among ties: issued last).
    std::uint32_t last = 0;
    for (std::uint32_t i = 0; i < own.end.size(); ++i)
        if (own.end[i] >= own.end[last])
            last = i;
    const auto ri = static_cast<std::int32_t>(rankIndex);
    // The walk back, handing each stretch to `add` (twice: counted, then kept, so the steps are
    // allocated once).
    auto walk = [&](auto &&add) {
        Cause cur{ri, last};
        std::int64_t reachedAt = own.end[last]; // the path is covered from here to the end
        std::size_t guard = job.nodeCount() + 1;
        while (cur.rank >= 0 && guard-- && reachedAt > entry) {
            const SimRank &rank = job.ranks[static_cast<std::size_t>(cur.rank)];
            const RankReplay &rep = replay.ranks[static_cast<std::size_t>(cur.rank)];
            const SimNode &n = rank.nodes[cur.node];
            const std::int64_t end = rep.end[cur.node];
            if (end < reachedAt)
                add(cur.rank, cur.node, end, reachedAt, PathCategory::Idle);
            Cause next = rep.cause[cur.node];
            std::int64_t from = rep.start[cur.node];
            switch (n.kind) {
            case NodeKind::Cpu:
                add(cur.rank, cur.node, from, end, PathCategory::Cpu);
                break;
            case NodeKind::Gpu:
                add(cur.rank, cur.node, from, end, PathCategory::Gpu);
                break;
            case NodeKind::Skip:
                break;
            case NodeKind::Send:
                add(cur.rank, cur.node, from, end, PathCategory::Comm);
                break;
            case NodeKind::Collective:
            case NodeKind::Recv: {
                const std::size_t c = static_cast<std::size_t>(n.comm);
                const Cause peer = rep.peer[c];
                if (n.kind == NodeKind::Recv && peer.rank < 0) // the message was there: nothing waited
                    break;
                from = rep.transferStart[c];
                // A collective's stretch begins at the last member's arrival: the faithful model's
                // dispatch latency before the transfer is the kernels', not idle time.
                if (n.kind == NodeKind::Collective && peer.rank >= 0)
                    from = std::min(from, replay.ranks[static_cast<std::size_t>(peer.rank)].start[peer.node]);
                add(cur.rank, cur.node, from, end, PathCategory::Comm);
                // A collective's transfer began when the last member arrived, a receive's message when
                // its send was issued: go on from what issued that.
                if (peer.rank >= 0)
                    next = replay.ranks[static_cast<std::size_t>(peer.rank)].cause[peer.node];
                break;
            }
            }
            reachedAt = from;
            cur = next;
        }
        if (reachedAt > entry)
            add(ri, kNoNode, entry, reachedAt, PathCategory::Idle);
    };
    std::size_t count = 0;
    walk([&](std::int32_t, std::uint32_t, std::int64_t from, std::int64_t to, PathCategory) {
        count += to >= std::max(from, entry);
    });
    path.steps.reserve(count);
    walk([&](std::int32_t rank, std::uint32_t node, std::int64_t from, std::int64_t to, PathCategory category) {
        from = std::max(from, entry);
        if (to < from)
            return;
        if ((category == PathCategory::Cpu || category == PathCategory::Gpu) && rank != ri)
            category = PathCategory::OtherRank;
        path.steps.push_back({rank, node, from, to, category});
        switch (category) {
        case PathCategory::Cpu:
            path.breakdown.cpuNs += to - from;
            break;
        case PathCategory::Gpu:
            path.breakdown.gpuNs += to - from;
            break;
        case PathCategory::Comm:
            path.breakdown.commNs += to - from;
            break;
        case PathCategory::OtherRank:
            path.breakdown.otherRankNs += to - from;
            break;
        case PathCategory::Idle:
            path.breakdown.idleNs += to - from;
            break;
        }
    });
    std::reverse(path.steps.begin(), path.steps.end());
    return path;
}

std::vector<OtherRankShare> otherRanksOfPath(const SimJob &job, const RankPath &path)
{
    std::map<std::int32_t, OtherRankShare> by;
    for (const PathStep &s : path.steps) {
        if (s.category != PathCategory::OtherRank || s.node == kNoNode || s.rank < 0)
            continue;
        const SimRank &rank = job.ranks[static_cast<std::size_t>(s.rank)];
        OtherRankShare &share = by[s.rank];
        share.rank = rank.rank;
        (rank.nodes[s.node].kind == NodeKind::Gpu ? share.gpuNs : share.cpuNs) += s.endNs - s.startNs;
    }
    std::vector<OtherRankShare> out;
    out.reserve(by.size());
    for (const auto &[index, share] : by)
        out.push_back(share);
    std::sort(out.begin(), out.end(), [](const OtherRankShare &a, const OtherRankShare &b) {
        return a.totalNs() != b.totalNs() ? a.totalNs() > b.totalNs() : a.rank < b.rank;
    });
    return out;
}

std::vector<PathShare> topOfPath(const SimJob &job, const RankPath &path, std::size_t limit)
{
    std::map<std::tuple<std::int32_t, std::uint32_t, NodeKind>, PathShare> by;
    for (const PathStep &s : path.steps) {
        if (s.node == kNoNode || s.endNs == s.startNs)
            continue;
        const SimRank &rank = job.ranks[static_cast<std::size_t>(s.rank)];
        const SimNode &n = rank.nodes[s.node];
        PathShare &share = by[{s.rank, n.name, n.kind}];
        share.rank = rank.rank;
        share.name = rank.names[n.name];
        share.kind = n.kind;
        share.ns += s.endNs - s.startNs;
        ++share.count;
    }
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

std::vector<std::vector<std::int64_t>> slack(const SimJob &job, const ReplayResult &replay)
{
    constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::max();
    const std::size_t nr = job.ranks.size();
    std::vector<std::vector<std::int64_t>> lateStart(nr), out(nr);
    std::vector<std::vector<std::uint32_t>> nextOnResource(nr);
    for (std::size_t r = 0; r < nr; ++r) {
        lateStart[r].assign(job.ranks[r].nodes.size(), kUnset);
        out[r].assign(job.ranks[r].nodes.size(), -1);
        nextOnResource[r].assign(job.ranks[r].nodes.size(), kNoNode);
    }
    // The order each resource ran its nodes: an edge from each node to the next on its resource.
    std::vector<std::vector<std::uint32_t>> lastOn(nr);
    for (std::size_t r = 0; r < nr; ++r)
        lastOn[r].assign(static_cast<std::size_t>(resourceCount(job.ranks[r], replay.model)), kNoNode);
    for (const auto &[r, node] : replay.issueOrder) {
        const SimRank &rank = job.ranks[static_cast<std::size_t>(r)];
        const int resource = resourceOf(rank, rank.nodes[node], replay.model);
        if (resource < 0)
            continue;
        std::uint32_t &prev = lastOn[static_cast<std::size_t>(r)][static_cast<std::size_t>(resource)];
        if (prev != kNoNode)
            nextOnResource[static_cast<std::size_t>(r)][prev] = node;
        prev = node;
    }
    // Latest finish: the rank's end, or the latest start of what follows (every successor was issued
    // after the node finished, so it comes first in reverse issue order).
    auto lateFinish = [&](std::size_t r, std::uint32_t node) {
        const SimRank &rank = job.ranks[r];
        std::int64_t lf = replay.ranks[r].endNs;
        for (std::uint32_t k = rank.succBegin[node]; k < rank.succBegin[node + 1]; ++k)
            lf = std::min(lf, lateStart[r][rank.succ[k]]);
        if (const std::uint32_t next = nextOnResource[r][node]; next != kNoNode)
            lf = std::min(lf, lateStart[r][next]);
        return lf;
    };
    for (auto it = replay.issueOrder.rbegin(); it != replay.issueOrder.rend(); ++it) {
        const std::size_t r = static_cast<std::size_t>(it->first);
        const std::uint32_t node = it->second;
        const SimNode &n = job.ranks[r].nodes[node];
        const RankReplay &rep = replay.ranks[r];
        if (rep.end[node] < 0)
            continue; // never finished: no slack to speak of
        std::int64_t ls = 0;
        if (n.kind == NodeKind::Collective && rep.meeting[static_cast<std::size_t>(n.comm)] >= 0) {
            // Every member waits for the transfer, which starts when the last one arrives (the
            // faithful model: once the kernels are dispatched, after that).
            std::int64_t lf = kUnset, lastArrival = rep.start[node];
            for (const Cause &m : replay.meetings[static_cast<std::size_t>(rep.meeting[static_cast<std::size_t>(n.comm)])]) {
                lf = std::min(lf, lateFinish(static_cast<std::size_t>(m.rank), m.node));
                lastArrival = std::max(lastArrival, replay.ranks[static_cast<std::size_t>(m.rank)].start[m.node]);
            }
            ls = lf - (rep.end[node] - lastArrival);
        } else if (n.kind == NodeKind::Send && rep.peer[static_cast<std::size_t>(n.comm)].rank >= 0) {
            const Cause recv = rep.peer[static_cast<std::size_t>(n.comm)];
            const std::int64_t lf = std::min(lateFinish(r, node), lateFinish(static_cast<std::size_t>(recv.rank), recv.node));
            ls = lf - (rep.end[node] - rep.start[node]);
        } else {
            ls = lateFinish(r, node) - (rep.end[node] - rep.start[node]);
        }
        lateStart[r][node] = ls;
        out[r][node] = std::max<std::int64_t>(0, ls - rep.start[node]);
    }
    return out;
}

} // namespace linkscope::core::predict
