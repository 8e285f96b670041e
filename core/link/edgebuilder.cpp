#include "link/edgebuilder.h"

#include "link/linkcommon.h"

#include <algorithm>
#include <string_view>

namespace linkscope::core {

namespace {

std::uint64_t pairKey(EventIndex a, EventIndex b) { return (static_cast<std::uint64_t>(a.value) << 32) | b.value; }

} // namespace

EdgeBuilder::EdgeBuilder(const DeviceTrace &device, const TraceIndex &index, const ThreadCandidates &candidates,
                         const LaunchIndex &launches, const std::vector<HostNodeIndex> &hostOfEvent, bool requireHostNode)
    : device_(device), index_(index), candidates_(candidates), launches_(launches), hostOfEvent_(hostOfEvent),
      requireHostNode_(requireHostNode), launchesOfThread_(candidates.threads().size()),
      eventRecordsOfThread_(candidates.threads().size())
{
}

LinkEdges EdgeBuilder::build(const CowVector<GpuLink> &gpuLinks, const std::vector<LaunchContext> &contexts,
                             const LinkOptions &options)
{
    addLaunchAndStreamEdges(gpuLinks, contexts);
    addSyncEdges(gpuLinks);
    if (options.interThreadDeps)
        addInterThreadEdges(options.interThreadGap);
    return std::move(result_);
}

void EdgeBuilder::addLaunchAndStreamEdges(const CowVector<GpuLink> &gpuLinks, const std::vector<LaunchContext> &contexts)
{
    const EventView events(device_.events);
    for (std::size_t i = 0; i < gpuLinks.size(); ++i) {
        const GpuLink &link = gpuLinks[i];
        if (link.launch.valid())
            result_.edges.push_back(Edge{link.launch, link.gpuEvent, EdgeKind::Launch});
        const LaunchContext &context = contexts[i];
        if (context.hasTime()) {
            if (const ThreadOps *thread = candidates_.find(context.thread))
                launchesOfThread_[thread->slot].emplace_back(context.ts, link.gpuEvent);
            launchesOfStream_[index_.laneOfEvent(link.gpuEvent)].emplace_back(context.ts, link.gpuEvent);
        }
    }
    for (Launches &list : launchesOfThread_)
        sortValues(list);
    for (auto &[lane, list] : launchesOfStream_)
        sortValues(list);

    for (const Lane &lane : index_.lanes) {
        if (lane.kind != LaneKind::GpuStream)
            continue;
        std::vector<EventIndex> ops;
        for (EventIndex event : lane.events)
            if (isGpuOpCategory(events[event].category))
                ops.push_back(event);
        // Lane order is (ts asc, dur desc, file order): only equal starts need putting in file order.
        sortRuns(
            ops, [&](EventIndex a, EventIndex b) { return events[a].ts == events[b].ts; },
            [](EventIndex a, EventIndex b) { return a < b; });
        for (std::size_t i = 1; i < ops.size(); ++i)
            result_.edges.push_back(Edge{ops[i - 1], ops[i], EdgeKind::StreamOrder});
    }
}

// Last GPU op launched strictly before `ts` from a list sorted by launch time.
EventIndex EdgeBuilder::lastLaunchedBefore(const Launches &list, Nanos ts)
{
    auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(ts, EventIndex(0)));
    return it == list.begin() ? EventIndex(kNone) : std::prev(it)->second;
}

EventIndex EdgeBuilder::lastLaunchedOnLaneBefore(LaneIndex lane, Nanos ts) const
{
    auto it = launchesOfStream_.find(lane);
    return it == launchesOfStream_.end() ? EventIndex(kNone) : lastLaunchedBefore(it->second, ts);
}

// The CPU side of a sync edge: the first op on the waiting thread that starts once the wait returned
// (ET-linked when a host trace is joined: the continuation, docs/linking.md, Edges), else the waiting call itself. Never
// the op blocked in the wait: it started before the GPU op finished, so an edge to it is not causal.
EventIndex EdgeBuilder::syncTarget(EventIndex call) const
{
    const DeviceEvent &r = device_.events[call.get()];
    if (const ThreadOps *thread = candidates_.find(device_.threadKey(r))) {
        auto position = static_cast<std::size_t>(std::lower_bound(thread->nestStart.begin(), thread->nestStart.end(), r.end())
                                                 - thread->nestStart.begin());
        for (std::size_t scanned = 0; position < thread->nest.size() && scanned < 64; ++position, ++scanned)
            if (!requireHostNode_ || hostOfEvent_[thread->nest[position].get()].valid())
                return thread->nest[position];
    }
    return call;
}

void EdgeBuilder::addSyncEdge(EventIndex from, EventIndex to)
{
    if (from.isNone() || to.isNone())
        return;
    if (syncEdgeSeen_.insert(pairKey(from, to)).second)
        result_.edges.push_back(Edge{from, to, EdgeKind::Sync});
}

// A blocking call waits for `awaited`: the Sync edge to the op that continues after it, and the
// record the export needs to take the blocked time out of the CPU work.
// `edge` false: only the record (calls the edges of docs/linking.md did not cover before, so the
// Chakra target's output stays what it was; the astra-sim target makes their dependencies itself).
void EdgeBuilder::addWait(EventIndex call, EventIndex awaited, BlockingKind kind, EventIndex target, bool edge)
{
    if (call.isNone() || awaited.isNone())
        return;
    if (edge)
        addSyncEdge(awaited, target);
    result_.blocking.push_back(BlockingWait{call, awaited, kind});
}

void EdgeBuilder::syncAllStreamsOfDevice(std::int32_t device, EventIndex call, EventIndex target, BlockingKind kind, bool edge)
{
    for (const auto &[lane, list] : launchesOfStream_)
        if (index_.lane(lane).device == device)
            addWait(call, lastLaunchedBefore(list, device_.events[call.get()].ts), kind, target, edge);
}

// Calls that block without a sync of their own (docs/linking.md, Blocking calls): synchronous
// copies and copies into pageable host memory wait for their copy; frees synchronise the device.
// Run whichever way the syncs are found (CUPTI records no sync event for these).
void EdgeBuilder::addImplicitWaits(const CowVector<GpuLink> &gpuLinks)
{
    const EventView events(device_.events);
    std::unordered_map<std::uint32_t, EventIndex> copyOfLaunch;
    for (std::size_t i = 0; i < gpuLinks.size(); ++i) {
        const GpuLink &link = gpuLinks[i];
        if (link.launch.valid() && events[link.gpuEvent].category == EventCategory::GpuMemcpy)
            copyOfLaunch.emplace(link.launch.get(), link.gpuEvent);
    }
    for (EventIndex i{0}; i.get() < events.size(); ++i) {
        const DeviceEvent &e = events[i];
        if (e.phase != Phase::Complete || !isRuntimeCategory(e.category))
            continue;
        const std::string_view name = device_.name(e);
        if (name.find("Memcpy") != std::string_view::npos || name.find("memcpy") != std::string_view::npos) {
            auto it = copyOfLaunch.find(i.get());
            if (it == copyOfLaunch.end())
                continue;
            const bool async = name.find("Async") != std::string_view::npos;
            const std::string_view copy = device_.name(events[it->second]);
            const bool toPageable = copy.find("Pageable") != std::string_view::npos
                                    && (copy.find("DtoH") != std::string_view::npos
                                        || copy.find("Device -> Pageable") != std::string_view::npos);
            if (!async || toPageable)
                addWait(i, it->second, BlockingKind::BlockingCopy, syncTarget(i), false);
        } else if (name == "cudaFree" || name == "cudaFreeHost" || name == "hipFree" || name == "hipHostFree"
                   || name.starts_with("cuMemFree")) {
            const ThreadOps *thread = candidates_.find(device_.threadKey(e));
            const EventIndex lastOwn = thread ? lastLaunchedBefore(launchesOfThread_[thread->slot], e.ts) : EventIndex(kNone);
            if (lastOwn.valid())
                syncAllStreamsOfDevice(index_.lane(index_.laneOfEvent(lastOwn)).device, i, syncTarget(i),
                                       BlockingKind::ImplicitSync, false);
        }
    }
}

EventIndex EdgeBuilder::firstLaunchAfter(const ThreadOps &thread, Nanos ts, LaneIndex lane) const
{
    const Launches &launches = launchesOfThread_[thread.slot];
    // Past every launch at `ts` (the none index is the largest).
    auto it = std::upper_bound(launches.begin(), launches.end(), std::make_pair(ts, EventIndex(kNone)));
    for (std::size_t scanned = 0; it != launches.end() && scanned < 256; ++it, ++scanned)
        if (lane.isNone() || index_.laneOfEvent(it->second) == lane)
            return it->second;
    return kNone;
}

LaneIndex EdgeBuilder::laneOfStream(std::int32_t device, std::int64_t stream) const
{
    for (std::size_t i = 0; i < index_.lanes.size(); ++i) {
        const Lane &lane = index_.lanes[i];
        if (lane.kind == LaneKind::GpuStream && lane.device == device && lane.stream == stream)
            return LaneIndex::at(i);
    }
    return kNone;
}

// Sync edges (docs/linking.md, Edges), natively and over the whole trace: cuda_sync events when the trace has them, else the
// synchronizing runtime calls themselves.
void EdgeBuilder::addSyncEdges(const CowVector<GpuLink> &gpuLinks)
{
    const bool haveSyncEvents = std::any_of(device_.events.begin(), device_.events.end(), [](const DeviceEvent &e) {
        return e.category == EventCategory::CudaSync && e.phase == Phase::Complete;
    });
    if (haveSyncEvents)
        addSyncEdgesFromSyncEvents();
    else
        addSyncEdgesFromRuntimeCalls();
    addImplicitWaits(gpuLinks);
    std::stable_sort(result_.blocking.begin(), result_.blocking.end(),
                     [](const BlockingWait &a, const BlockingWait &b) { return a.call < b.call; });
}

// The GPU op the event recorded by `record` (a cudaEventRecord call) stands for.
EventIndex EdgeBuilder::recordedOp(EventIndex record, LaneIndex recordedLane) const
{
    if (record.isNone())
        return kNone;
    const Nanos ts = device_.events[record.get()].ts;
    if (recordedLane.valid())
        return lastLaunchedOnLaneBefore(recordedLane, ts);
    const ThreadOps *thread = candidates_.find(device_.threadKey(device_.events[record.get()]));
    return thread ? lastLaunchedBefore(launchesOfThread_[thread->slot], ts) : EventIndex(kNone);
}

void EdgeBuilder::addSyncEdgesFromRuntimeCalls()
{
    const EventView events(device_.events);
    std::vector<EventIndex> calls;
    for (EventIndex i{0}; i.get() < events.size(); ++i) {
        const DeviceEvent &e = events[i];
        if (e.phase != Phase::Complete || !isRuntimeCategory(e.category))
            continue;
        const std::string_view name = device_.name(e);
        if (name == "cudaEventRecord" || name == "hipEventRecord" || name == "cudaEventRecordWithFlags") {
            if (const ThreadOps *thread = candidates_.find(device_.threadKey(e)))
                eventRecordsOfThread_[thread->slot].emplace_back(e.ts, i);
        } else if (name.find("Synchronize") != std::string_view::npos || name.find("StreamWaitEvent") != std::string_view::npos) {
            calls.push_back(i);
        }
    }
    for (Launches &list : eventRecordsOfThread_)
        sortValues(list);
    for (EventIndex call : calls)
        if (const ThreadOps *thread = candidates_.find(device_.threadKey(events[call])))
            addWaitOfRuntimeCall(call, *thread);
}

// One synchronizing runtime/driver call made from `thread`.
void EdgeBuilder::addWaitOfRuntimeCall(EventIndex call, const ThreadOps &thread)
{
    const DeviceEvent &r = device_.events[call.get()];
    const std::string_view name = device_.name(r);
    const EventIndex lastOwn = lastLaunchedBefore(launchesOfThread_[thread.slot], r.ts);
    // The driver API's spellings are recorded, not drawn: the edges stay what docs/linking.md lists.
    const bool driver = name.starts_with("cu") && !name.starts_with("cuda");
    if (name == "cudaDeviceSynchronize" || name == "hipDeviceSynchronize" || name.starts_with("cuCtxSynchronize")) {
        if (lastOwn.valid())
            syncAllStreamsOfDevice(index_.lane(index_.laneOfEvent(lastOwn)).device, call, syncTarget(call),
                                   BlockingKind::DeviceSync, !driver);
    } else if (name == "cudaStreamSynchronize" || name == "hipStreamSynchronize" || name.starts_with("cuStreamSynchronize")) {
        // The call names no stream in the trace: the stream this thread launched to last.
        if (lastOwn.valid())
            addWait(call, lastLaunchedOnLaneBefore(index_.laneOfEvent(lastOwn), r.ts), BlockingKind::StreamSync, syncTarget(call),
                    !driver);
    } else if (name == "cudaEventSynchronize" || name == "hipEventSynchronize" || name.starts_with("cuEventSynchronize")) {
        const EventIndex record = lastLaunchedBefore(eventRecordsOfThread_[thread.slot], r.ts);
        addWait(call, recordedOp(record, kNone), BlockingKind::EventSync, syncTarget(call), !driver);
    } else if (name == "cudaStreamWaitEvent" || name == "hipStreamWaitEvent") {
        const EventIndex source = recordedOp(lastLaunchedBefore(eventRecordsOfThread_[thread.slot], r.ts), kNone);
        const EventIndex waiter = firstLaunchAfter(thread, r.ts, kNone);
        if (source.valid() && waiter.valid() && index_.laneOfEvent(source) != index_.laneOfEvent(waiter))
            addSyncEdge(source, waiter);
    }
}

void EdgeBuilder::addSyncEdgesFromSyncEvents()
{
    const EventView events(device_.events);
    for (EventIndex i{0}; i.get() < events.size(); ++i) {
        const DeviceEvent &s = events[i];
        if (s.category != EventCategory::CudaSync || s.phase != Phase::Complete)
            continue;
        const SyncArgs *waits = device_.syncArgsOf(i);
        const std::int64_t waitOnStream = waits ? waits->waitOnStream : kNoId;
        const std::int64_t recordCorrelation = waits ? waits->recordCorrelation : kNoId;
        const EventIndex call = hasCorrelation(s.correlation) ? launches_.pickLaunch(s.correlation, s.ts) : EventIndex(kNone);
        if (call.isNone())
            continue;
        const TraceId pid = device_.threadKey(s).pid;
        const std::int32_t device = s.device >= 0 ? s.device : !pid.isString ? static_cast<std::int32_t>(pid.value) : -1;
        const std::string_view kind = device_.name(s);
        EventIndex record;
        if (hasCorrelation(recordCorrelation))
            record = launches_.pickLaunch(recordCorrelation, events[call].ts);
        if (kind == "Context Sync") {
            syncAllStreamsOfDevice(device, call, syncTarget(call));
        } else if (kind == "Stream Sync") {
            const LaneIndex lane = laneOfStream(device, s.stream);
            if (lane.valid())
                addWait(call, lastLaunchedOnLaneBefore(lane, events[call].ts), BlockingKind::StreamSync, syncTarget(call));
        } else if (kind == "Event Sync") {
            const LaneIndex lane = waitOnStream != kNoId ? laneOfStream(device, waitOnStream) : LaneIndex(kNone);
            addWait(call, recordedOp(record, lane), BlockingKind::EventSync, syncTarget(call));
        } else if (kind == "Stream Wait Event") {
            const LaneIndex lane = waitOnStream != kNoId ? laneOfStream(device, waitOnStream) : LaneIndex(kNone);
            const EventIndex source = recordedOp(record, lane);
            const ThreadOps *thread = candidates_.find(device_.threadKey(events[call]));
            const LaneIndex waiterLane = laneOfStream(device, s.stream);
            const EventIndex waiter = thread ? firstLaunchAfter(*thread, events[call].ts, waiterLane) : EventIndex(kNone);
            if (source.valid() && waiter.valid() && index_.laneOfEvent(source) != index_.laneOfEvent(waiter))
                addSyncEdge(source, waiter);
        }
    }
}

// Chakra's enforce_inter_thread_order: at the first op of a thread and after every gap larger than the
// threshold (measured from the previous op's end in start order), the latest-starting CPU op on any other
// thread before it becomes the dependency of every op up to the next gap.
void EdgeBuilder::addInterThreadEdges(Nanos gap)
{
    const EventView events(device_.events);
    for (const ThreadOps &thread : candidates_.threads()) {
        EventIndex dependency;
        for (std::size_t i = 0; i < thread.chakra.size(); ++i) {
            const DeviceEvent &op = events[thread.chakra[i]];
            if (i == 0 || op.ts - events[thread.chakra[i - 1]].end() > gap)
                dependency = latestOnOtherThreads(thread.slot, op.ts);
            if (dependency.valid())
                result_.edges.push_back(Edge{dependency, thread.chakra[i], EdgeKind::InterThread});
        }
    }
}

EventIndex EdgeBuilder::latestOnOtherThreads(std::uint32_t excludedSlot, Nanos ts) const
{
    const EventView events(device_.events);
    EventIndex best;
    for (const ThreadOps &thread : candidates_.threads()) {
        if (thread.slot == excludedSlot)
            continue;
        auto before = std::lower_bound(thread.chakraStart.begin(), thread.chakraStart.end(), ts) - thread.chakraStart.begin();
        if (before == 0)
            continue;
        const EventIndex candidate = thread.chakra[static_cast<std::size_t>(before - 1)];
        if (best.isNone() || events[candidate].ts > events[best].ts)
            best = candidate;
    }
    return best;
}

} // namespace linkscope::core
