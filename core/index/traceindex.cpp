#include "index/traceindex.h"

#include "base/sortedsegments.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace linkscope::core {

namespace {

LaneKind laneKindOf(const DeviceEvent &e)
{
    if (e.phase != Phase::Complete)
        return LaneKind::Other;
    switch (e.category) {
    case EventCategory::CpuOp:
    case EventCategory::UserAnnotation:
    case EventCategory::PythonFunction:
    case EventCategory::CudaRuntime:
    case EventCategory::CudaDriver:
        return LaneKind::CpuThread;
    case EventCategory::Kernel:
    case EventCategory::GpuMemcpy:
    case EventCategory::GpuMemset:
    case EventCategory::GpuUserAnnotation:
        return LaneKind::GpuStream;
    default:
        return LaneKind::Other;
    }
}

// The same (pid, tid) could in principle carry both CPU and GPU events (a CPU tid equal to a stream id
// in a merged trace), so the lane identity includes its kind.
struct LaneId {
    LaneKind kind;
    ThreadKey key;
    friend auto operator<=>(const LaneId &, const LaneId &) = default;
};

std::string cpuLabel(const DeviceTrace &trace, const ThreadKey &key)
{
    const std::string tid = trace.idText(key.tid);
    auto it = trace.threadNames.find(key);
    if (it == trace.threadNames.end() || it->second.empty())
        return "thread " + tid;
    std::string name = it->second;
    while (!name.empty() && name.back() == ' ')
        name.pop_back();
    // Kineto already writes "thread 1331 (python)"; older traces only the bare name.
    if (name.rfind("thread ", 0) == 0)
        return name;
    return "thread " + tid + " (" + name + ")";
}

std::string gpuLabel(const DeviceTrace &trace, const Lane &lane)
{
    const std::string device = lane.device >= 0 ? std::to_string(lane.device) : trace.idText(lane.key.pid);
    const std::string stream = lane.stream >= 0 ? std::to_string(lane.stream) : trace.idText(lane.key.tid);
    return "GPU " + device + " stream " + stream;
}

} // namespace

TraceIndex buildTraceIndex(const DeviceTrace &trace, std::vector<Diagnostic> *warnings)
{
    TraceIndex index;
    const auto &events = trace.events;
    const auto n = static_cast<std::uint32_t>(events.size());
    index.laneOf.assign(n, kNone);
    index.nestParent.assign(n, kNone);
    index.depth.assign(n, 0);

    // 1. Group events by lane (ordered map: few lanes, many events).
    std::map<LaneId, std::vector<EventIndex>> byLane;
    // Events come in runs on one lane (a thread's ops, a stream's kernels): the last lane found is
    // tried before the map.
    LaneId lastId{};
    std::vector<EventIndex> *lastList = nullptr;
    for (std::uint32_t i = 0; i < n; ++i) {
        const LaneKind kind = laneKindOf(events[i]);
        if (kind == LaneKind::Other)
            continue;
        const LaneId id{kind, trace.threadKey(events[i])};
        if (!lastList || !(id == lastId)) {
            lastList = &byLane[id];
            lastId = id;
        }
        lastList->push_back(EventIndex(i));
    }

    // 2. Order lanes: processes with CPU threads first (by pid), then GPU-only processes (by device);
    //    within a process CPU threads (by thread_sort_index, then tid), then GPU streams (by stream).
    struct Pending {
        LaneId id;
        std::vector<EventIndex> *events;
        std::int32_t device = -1;
        std::int64_t stream = -1;
    };
    std::vector<Pending> pending;
    std::map<TraceId, bool> processHasCpu;
    for (auto &[id, list] : byLane) {
        Pending p{id, &list};
        if (id.kind == LaneKind::GpuStream) {
            const DeviceEvent &first = trace.event(list.front());
            p.device = first.device >= 0 ? first.device : !id.key.pid.isString ? static_cast<std::int32_t>(id.key.pid.value) : -1;
            p.stream = first.stream >= 0 ? first.stream : !id.key.tid.isString ? id.key.tid.value : -1;
        } else {
            processHasCpu[id.key.pid] = true;
        }
        pending.push_back(p);
    }
    auto sortKey = [&](const Pending &p) {
        const bool cpuProcess = processHasCpu.count(p.id.key.pid) > 0;
        std::int64_t within = 0;
        if (p.id.kind == LaneKind::CpuThread) {
            auto it = trace.threadSortIndex.find(p.id.key);
            within = it != trace.threadSortIndex.end() ? it->second : p.id.key.tid.isString ? 0 : p.id.key.tid.value;
        } else {
            within = p.stream;
        }
        return std::make_tuple(cpuProcess ? 0 : 1, p.id.key.pid, p.id.kind == LaneKind::CpuThread ? 0 : 1, within, p.id.key.tid);
    };
    std::stable_sort(pending.begin(), pending.end(), [&](const Pending &a, const Pending &b) { return sortKey(a) < sortKey(b); });

    // 3. Per lane: sort, stack sweep for nesting, prefix max of ends.
    std::size_t partialOverlaps = 0;
    constexpr std::size_t kMaxReportedOverlaps = 20;
    bool anyEvent = false;
    index.lanes.reserve(pending.size());
    for (Pending &p : pending) {
        Lane lane;
        lane.kind = p.id.kind;
        lane.key = p.id.key;
        lane.device = p.device;
        lane.stream = p.stream;
        lane.events = std::move(*p.events);
        auto &list = lane.events;
        // Sort compact keys, not indices into the (large) event records: cache-friendly on big traces.
        // The sweep below reads times from the keys too: a lane's events are scattered through the
        // file, and touching each record again cost more than the sweep itself.
        // At an exact tie (same start and duration) a GPU op sorts after everything else, so that an
        // annotation with exactly its kernel's extent encloses the kernel: GPU ops are leaves.
        struct Key {
            Nanos ts;
            Nanos negDur;
            EventIndex event;
            std::uint8_t gpuOp;
            bool operator<(const Key &o) const
            {
                if (ts != o.ts)
                    return ts < o.ts;
                if (negDur != o.negDur)
                    return negDur < o.negDur;
                return gpuOp != o.gpuOp ? gpuOp < o.gpuOp : event < o.event;
            }
        };
        std::vector<Key> keys;
        keys.reserve(list.size());
        for (EventIndex ev : list) {
            const DeviceEvent &e = trace.event(ev);
            keys.push_back(Key{e.ts, -e.dur, ev, static_cast<std::uint8_t>(isGpuOpCategory(e.category) ? 1 : 0)});
        }
        sortNearlySorted(keys);
        for (std::size_t i = 0; i < keys.size(); ++i)
            list[i] = keys[i].event;
        lane.label = lane.kind == LaneKind::CpuThread ? cpuLabel(trace, lane.key) : gpuLabel(trace, lane);

        const auto laneIndex = LaneIndex::at(index.lanes.size());
        std::vector<EventIndex> open; // enclosing events, outermost first
        std::vector<Nanos> openEnd;   // their ends
        std::uint16_t maxDepth = 0;
        lane.maxEndPrefix.resize(list.size());
        lane.startTs.resize(list.size());
        Nanos runningMaxEnd = std::numeric_limits<Nanos>::min();
        for (std::size_t pos = 0; pos < list.size(); ++pos) {
            const EventIndex ev = list[pos];
            const Nanos ts = keys[pos].ts;
            const Nanos end = ts - keys[pos].negDur;
            index.laneOf[ev.get()] = laneIndex;
            while (!open.empty() && openEnd.back() <= ts) {
                open.pop_back();
                openEnd.pop_back();
            }
            // An open event that ends inside e only partially overlaps it: e becomes its sibling.
            bool partial = false;
            while (!open.empty() && openEnd.back() < end) {
                partial = true;
                open.pop_back();
                openEnd.pop_back();
            }
            if (partial) {
                ++partialOverlaps;
                if (warnings && partialOverlaps <= kMaxReportedOverlaps)
                    warnings->push_back(Diagnostic{Diagnostic::Severity::Warning, trace.path, kUnknownOffset,
                                                   "event '" + std::string(trace.name(trace.event(ev))) + "' at ts "
                                                       + std::to_string(ts) + " ns on " + lane.label
                                                       + " partially overlaps an enclosing event; drawn as its sibling",
                                                   ev});
            }
            if (!open.empty()) {
                index.nestParent[ev.get()] = open.back();
                index.depth[ev.get()] = static_cast<std::uint16_t>(std::min<std::size_t>(open.size(), UINT16_MAX));
            }
            maxDepth = std::max(maxDepth, index.depth[ev.get()]);
            open.push_back(ev);
            openEnd.push_back(end);
            runningMaxEnd = std::max(runningMaxEnd, end);
            lane.maxEndPrefix[pos] = runningMaxEnd;
            lane.startTs[pos] = ts;
            if (!anyEvent) {
                index.minTs = ts;
                index.maxTs = end;
                anyEvent = true;
            } else {
                index.minTs = std::min(index.minTs, ts);
                index.maxTs = std::max(index.maxTs, end);
            }
        }
        lane.rowCount = static_cast<std::uint16_t>(std::min<int>(maxDepth + 1, UINT16_MAX));
        index.lanes.push_back(std::move(lane));
    }
    if (warnings && partialOverlaps > kMaxReportedOverlaps)
        warnings->push_back(Diagnostic{Diagnostic::Severity::Warning, trace.path, kUnknownOffset,
                                       std::to_string(partialOverlaps)
                                           + " events in total partially overlap an enclosing event (first "
                                           + std::to_string(kMaxReportedOverlaps) + " listed)"});
    return index;
}

std::pair<std::size_t, std::size_t> TraceIndex::visibleRange(const Lane &lane, Nanos t0, Nanos t1) const
{
    // Events are sorted by start: everything from `last` on starts at or after t1.
    const std::size_t last = static_cast<std::size_t>(
        std::partition_point(lane.startTs.begin(), lane.startTs.end(), [&](Nanos ts) { return ts < t1; }) - lane.startTs.begin());
    // maxEndPrefix is non-decreasing: before `first` every event ended before t0.
    const std::size_t first = static_cast<std::size_t>(
        std::partition_point(lane.maxEndPrefix.begin(), lane.maxEndPrefix.end(), [&](Nanos end) { return end < t0; })
        - lane.maxEndPrefix.begin());
    return {std::min(first, last), last};
}

std::shared_ptr<const TraceIndex> indexTrace(const DeviceTrace &trace)
{
    auto index = std::make_shared<TraceIndex>();
    std::vector<Diagnostic> warnings;
    *index = buildTraceIndex(trace, &warnings);
    index->warnings = std::move(warnings);
    return index;
}

} // namespace linkscope::core
