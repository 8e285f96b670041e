#include "job/timing.h"

#include <algorithm>
#include <deque>
#include <set>

namespace linkscope::core::job {

namespace {

std::int64_t median(std::vector<std::int64_t> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

JobTiming analyseTiming(const CheckInput &input, const CheckResult &check)
{
    JobTiming t;
    std::map<std::int64_t, const RankCalls *> present;
    for (const RankCalls &r : input.ranks)
        present[r.rank] = &r;

    // Per group, per reference position: each member's call there (matched or substituted).
    struct Slot {
        std::map<std::int64_t, const CollectiveCall *> byRank;
    };
    std::vector<std::vector<Slot>> slots(check.groups.size());
    for (std::size_t g = 0; g < check.groups.size(); ++g) {
        const GroupAlignment &ga = check.groups[g];
        slots[g].resize(ga.length);
        for (std::int64_t r : ga.members) {
            const auto &pos = ga.positionOf.at(r);
            const auto &idx = ga.callIndex.at(r);
            for (std::size_t k = 0; k < pos.size(); ++k)
                if (pos[k] >= 0 && static_cast<std::size_t>(pos[k]) < ga.length)
                    slots[g][static_cast<std::size_t>(pos[k])].byRank[r] = &present[r]->calls[idx[k]];
        }
    }

    // Pairwise end-time differences (b − a) over the collectives two ranks share.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::int64_t>> diffs;
    std::set<std::int64_t> timed;
    for (const auto &group : slots)
        for (const Slot &s : group) {
            std::vector<std::pair<std::int64_t, std::int64_t>> ends;
            for (const auto &[r, c] : s.byRank)
                if (c->endNs != kUnknownTime)
                    ends.emplace_back(r, c->endNs);
            if (ends.size() < 2)
                continue;
            // Against the first member only: enough to chain, linear in the members.
            for (std::size_t k = 1; k < ends.size(); ++k) {
                diffs[{ends[0].first, ends[k].first}].push_back(ends[k].second - ends[0].second);
                timed.insert(ends[0].first);
                timed.insert(ends[k].first);
            }
        }
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> edges; // rank → (other, offset other − rank)
    for (const auto &[key, v] : diffs) {
        const std::int64_t m = median(v);
        edges[key.first].emplace_back(key.second, m);
        edges[key.second].emplace_back(key.first, -m);
    }
    // Breadth-first from the lowest timed rank; each component gets its own reference (the first
    // one's is the job's; ranks in other components are reported unaligned).
    for (std::int64_t start : timed) {
        if (t.clockOffsetNs.count(start))
            continue;
        if (t.referenceRank >= 0)
            break;
        t.referenceRank = start;
        t.clockOffsetNs[start] = 0;
        std::deque<std::int64_t> queue{start};
        while (!queue.empty()) {
            const std::int64_t r = queue.front();
            queue.pop_front();
            auto &adj = edges[r];
            std::sort(adj.begin(), adj.end());
            for (const auto &[o, off] : adj)
                if (!t.clockOffsetNs.count(o)) {
                    t.clockOffsetNs[o] = t.clockOffsetNs[r] + off;
                    queue.push_back(o);
                }
        }
    }
    for (const auto &[r, calls] : present)
        if (!t.clockOffsetNs.count(r))
            t.unaligned.push_back(r);

    std::map<std::int64_t, StragglerCount> counts;
    for (std::size_t g = 0; g < check.groups.size(); ++g) {
        for (std::size_t p = 0; p < slots[g].size(); ++p) {
            const Slot &s = slots[g][p];
            std::int64_t lo = 0, hi = 0, last = -1;
            std::size_t n = 0;
            CallKind kind = CallKind::Unknown;
            for (const auto &[r, c] : s.byRank) {
                auto off = t.clockOffsetNs.find(r);
                if (off == t.clockOffsetNs.end() || c->launchNs == kUnknownTime)
                    continue;
                const std::int64_t at = c->launchNs - off->second;
                if (n == 0 || at < lo)
                    lo = at;
                if (n == 0 || at > hi) {
                    hi = at;
                    last = r;
                }
                kind = c->kind;
                ++n;
            }
            if (n < 2)
                continue;
            t.collectives.push_back({check.groups[g].name, static_cast<std::int64_t>(p), kind, hi - lo, last, n});
            for (const auto &[r, c] : s.byRank)
                if (t.clockOffsetNs.count(r) && c->launchNs != kUnknownTime) {
                    StragglerCount &sc = counts[r];
                    sc.rank = r;
                    ++sc.of;
                    sc.expected += 1.0 / static_cast<double>(n);
                    if (r == last)
                        ++sc.lastArrivals;
                }
        }
    }
    for (auto &[r, sc] : counts) {
        sc.straggler = sc.lastArrivals >= 3 && static_cast<double>(sc.lastArrivals) > 2 * sc.expected;
        t.stragglers.push_back(sc);
    }
    std::stable_sort(t.stragglers.begin(), t.stragglers.end(), [](const StragglerCount &a, const StragglerCount &b) {
        return a.lastArrivals != b.lastArrivals ? a.lastArrivals > b.lastArrivals : a.rank < b.rank;
    });
    return t;
}

} // namespace linkscope::core::job
