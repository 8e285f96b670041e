#include "export/blockedtime.h"

#include "export/exporter.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

namespace linkscope::core {

Nanos BlockedTimeStats::removedCallNs() const
{
    Nanos sum = 0;
    for (const BlockedKindStats &k : kinds)
        sum += k.removedNs;
    return sum;
}

Nanos BlockedTimeStats::removedNs() const { return removedCallNs() + threadWaitNs + idleWaitNs; }

Nanos BlockedTimeStats::callNs() const
{
    Nanos sum = unresolvedNs;
    for (const BlockedKindStats &k : kinds)
        sum += k.callNs;
    return sum;
}

nlohmann::json BlockedTimeStats::toJson() const
{
    nlohmann::json byKind = nlohmann::json::object();
    for (int k = 0; k < kBlockingKindCount; ++k) {
        const BlockedKindStats &s = kinds[static_cast<std::size_t>(k)];
        byKind[std::string(blockingKindName(static_cast<BlockingKind>(k)))] = {
            {"calls", s.calls}, {"call_ns", s.callNs}, {"removed_ns", s.removedNs}};
    }
    return {{"removed_ns", removedNs()},
            {"kept_ns", keptNs()},
            {"call_ns", callNs()},
            {"by_kind", byKind},
            {"unresolved_calls", unresolvedCalls},
            {"unresolved_ns", unresolvedNs},
            {"thread_waits", threadWaits},
            {"thread_wait_ns", threadWaitNs},
            {"idle_waits", idleWaits},
            {"idle_wait_ns", idleWaitNs}};
}

void normaliseIntervals(BlockedIntervals &intervals)
{
    for (auto &[thread, list] : intervals) {
        std::sort(list.begin(), list.end(), [](const BlockedInterval &a, const BlockedInterval &b) {
            return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
        });
        std::vector<BlockedInterval> merged;
        for (const BlockedInterval &b : list) {
            if (b.end <= b.begin)
                continue;
            if (!merged.empty() && b.begin <= merged.back().end)
                merged.back().end = std::max(merged.back().end, b.end);
            else
                merged.push_back(b);
        }
        list.swap(merged);
    }
}

BlockedIntervals blockedCallIntervals(const DeviceTrace &device, const LinkSet &links, BlockedTimeStats &stats, Nanos windowBegin,
                                      Nanos windowEnd)
{
    auto inWindow = [&](Nanos from, Nanos to) {
        return std::max<Nanos>(0, std::min(to, windowEnd) - std::max(from, windowBegin));
    };
    BlockedIntervals out;
    std::unordered_set<std::uint32_t> resolved;
    if (links.blocking) {
        const std::vector<BlockingWait> &waits = *links.blocking;
        for (std::size_t i = 0; i < waits.size();) {
            const EventIndex call = waits[i].call;
            Nanos awaitedEnd = std::numeric_limits<Nanos>::min();
            const BlockingKind kind = waits[i].kind;
            for (; i < waits.size() && waits[i].call == call; ++i)
                if (device.contains(waits[i].awaited))
                    awaitedEnd = std::max(awaitedEnd, device.event(waits[i].awaited).end());
            if (!device.contains(call))
                continue;
            resolved.insert(call.get());
            const DeviceEvent &c = device.event(call);
            const Nanos callEnd = c.ts + std::max<Nanos>(c.dur, 0);
            BlockedKindStats &s = stats.kinds[static_cast<std::size_t>(kind)];
            if (inWindow(c.ts, callEnd) <= 0 && callEnd > c.ts)
                continue; // outside what is exported and measured
            ++s.calls;
            s.callNs += inWindow(c.ts, callEnd);
            const Nanos blockedEnd = std::min(callEnd, awaitedEnd);
            if (blockedEnd > c.ts) {
                s.removedNs += inWindow(c.ts, blockedEnd);
                out[c.thread].push_back({c.ts, blockedEnd});
            }
        }
    }
    // Synchronising calls the linker found nothing to wait for: their time stays CPU time.
    for (EventIndex e{0}; device.contains(e); ++e) {
        const DeviceEvent &ev = device.event(e);
        if (ev.phase != Phase::Complete || !isRuntimeCategory(ev.category) || resolved.count(e.get()))
            continue;
        const std::string_view name = device.name(ev);
        if (name.find("Synchronize") == std::string_view::npos || inWindow(ev.ts, ev.ts + std::max<Nanos>(ev.dur, 0)) <= 0)
            continue;
        ++stats.unresolvedCalls;
        stats.unresolvedNs += inWindow(ev.ts, ev.ts + std::max<Nanos>(ev.dur, 0));
    }
    normaliseIntervals(out);
    return out;
}

namespace {

struct ChainOp {
    Nanos ts, end;
    std::uint32_t node;
    std::uint32_t chain;
};

} // namespace

ThreadDeps threadWaits(const EtPlusGraph &graph, const DeviceTrace &device, std::span<const std::uint32_t> chainBegin,
                       std::span<const std::uint32_t> chainList, BlockedIntervals &into, BlockedTimeStats &stats, Nanos minWait)
{
    ThreadDeps deps;
    const std::size_t chains = chainBegin.empty() ? 0 : chainBegin.size() - 1;
    if (chains < 2)
        return deps;
    std::vector<ChainOp> all; // every timed op of every chain, by start
    std::vector<std::vector<ChainOp>> perChain(chains);
    std::vector<ThreadIndex> threadOf(chains);
    for (std::size_t c = 0; c < chains; ++c) {
        for (std::uint32_t k = chainBegin[c]; k < chainBegin[c + 1]; ++k) {
            const std::uint32_t node = chainList[k];
            const EventIndex event = graph.nodes[node].event;
            if (!device.contains(event))
                continue;
            const DeviceEvent &e = device.event(event);
            const ChainOp op{e.ts, e.ts + std::max<Nanos>(e.dur, 0), node, static_cast<std::uint32_t>(c)};
            perChain[c].push_back(op);
            all.push_back(op);
            threadOf[c] = e.thread;
        }
        std::sort(perChain[c].begin(), perChain[c].end(), [](const ChainOp &a, const ChainOp &b) {
            return std::tie(a.ts, b.end, a.node) < std::tie(b.ts, a.end, b.node);
        });
    }
    std::sort(all.begin(), all.end(),
              [](const ChainOp &a, const ChainOp &b) { return std::tie(a.ts, a.node) < std::tie(b.ts, b.node); });
    std::vector<ChainOp> byEnd = all;
    std::sort(byEnd.begin(), byEnd.end(),
              [](const ChainOp &a, const ChainOp &b) { return std::tie(a.end, a.node) < std::tie(b.end, b.node); });

    auto hasCpuChild = [&](std::uint32_t node) {
        for (std::uint32_t k = graph.childBegin[node]; k < graph.childBegin[node + 1]; ++k)
            if (!graph.nodes[graph.childList[k]].gpu)
                return true;
        return false;
    };

    for (std::size_t c = 0; c < chains; ++c) {
        const std::vector<ChainOp> &ops = perChain[c];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const ChainOp &o = ops[i];
            // A waiting op: no child of its own thread, long, and no other op of its thread inside it.
            if (o.end - o.ts < minWait || hasCpuChild(o.node) || (i + 1 < ops.size() && ops[i + 1].ts < o.end))
                continue;
            auto it = std::upper_bound(all.begin(), all.end(), o.ts, [](Nanos t, const ChainOp &x) { return t < x.ts; });
            Nanos covered = 0, coverFrom = 0, coverTo = std::numeric_limits<Nanos>::min();
            Nanos first = std::numeric_limits<Nanos>::max();
            const ChainOp *last = nullptr;
            for (; it != all.end() && it->ts < o.end; ++it) {
                if (it->chain == c)
                    continue;
                const Nanos end = std::min(it->end, o.end);
                first = std::min(first, it->ts);
                if (it->ts >= coverTo) { // a new stretch of the union
                    if (coverTo > coverFrom)
                        covered += coverTo - coverFrom;
                    coverFrom = it->ts;
                    coverTo = end;
                } else {
                    coverTo = std::max(coverTo, end);
                }
                if (!last || std::tie(it->end, it->ts) > std::tie(last->end, last->ts))
                    last = &*it;
            }
            if (coverTo > coverFrom)
                covered += coverTo - coverFrom;
            if (!last || 2 * covered < o.end - o.ts)
                continue;
            const Nanos blockedEnd = std::min(o.end, last->end);
            if (blockedEnd <= first)
                continue;
            into[threadOf[c]].push_back({first, blockedEnd});
            ++stats.threadWaits;
            stats.threadWaitNs += blockedEnd - first;
            // The op that continues on this thread (the next to start) waits for the other thread's last op.
            if (i + 1 < ops.size() && last->ts < ops[i + 1].ts)
                deps.waits.emplace_back(ops[i + 1].node, last->node);
        }
        // Work that starts after the thread was idle follows the last op another thread ended before it.
        Nanos topEnd = std::numeric_limits<Nanos>::min();
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const ChainOp &o = ops[i];
            if (o.ts < topEnd) { // nested in an earlier op of the thread
                topEnd = std::max(topEnd, o.end);
                continue;
            }
            const bool afterIdle = i == 0 || o.ts - topEnd >= minWait;
            const Nanos idleFrom = i == 0 ? o.ts : topEnd;
            topEnd = o.end;
            if (!afterIdle)
                continue;
            // The op of another thread that started last before it and still runs (the main thread's
            // `## backward ##` that hands the autograd thread its work): when it started after
            // every op another thread ended before this one, it is what this op followed.
            const ChainOp *running = nullptr;
            {
                auto s = std::lower_bound(all.begin(), all.end(), o.ts, [](const ChainOp &x, Nanos t) { return x.ts < t; });
                for (int scanned = 0; s != all.begin() && scanned < 256; ++scanned) {
                    --s;
                    if (s->chain != c && s->end > o.ts) {
                        running = &*s;
                        break;
                    }
                }
            }
            const ChainOp *ended = nullptr;
            auto at = std::upper_bound(byEnd.begin(), byEnd.end(), o.ts, [](Nanos t, const ChainOp &x) { return t < x.end; });
            for (int scanned = 0; at != byEnd.begin() && scanned < 256; ++scanned) {
                --at;
                if (at->chain != c && at->ts < o.ts) {
                    ended = &*at;
                    break;
                }
            }
            if (running && (!ended || running->ts >= ended->end)) {
                deps.starts.emplace_back(o.node, running->node);
                // Idle until it started: its own time before this op is the hand-over.
                if (running->ts > idleFrom) {
                    into[threadOf[c]].push_back({idleFrom, running->ts});
                    ++stats.idleWaits;
                    stats.idleWaitNs += running->ts - idleFrom;
                }
            } else if (ended) {
                deps.starts.emplace_back(o.node, ended->node);
                // Idle until that op ended (a worker thread waiting for work): not CPU time.
                if (ended->end > idleFrom) {
                    into[threadOf[c]].push_back({idleFrom, ended->end});
                    ++stats.idleWaits;
                    stats.idleWaitNs += ended->end - idleFrom;
                }
            }
        }
    }
    return deps;
}

} // namespace linkscope::core
