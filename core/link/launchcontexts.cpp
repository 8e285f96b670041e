#include "link/launchcontexts.h"

#include "link/linkcommon.h"

#include <algorithm>

namespace linkscope::core {

const FlowIndex &LazyFallbackIndexes::flows()
{
    if (flows_)
        return *flows_;
    FlowIndex &flows = flows_.emplace();
    const EventView events(device_.events);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const DeviceEvent &e = events[i];
        if (e.category != EventCategory::Flow || e.flowId == kNoId)
            continue;
        if (e.phase == Phase::FlowStart)
            flows.startOfFlow.emplace(e.flowId, EventIndex::at(i));
        else if (e.phase == Phase::FlowFinish)
            flows.finishesByThread[device_.threadKey(e)].emplace_back(e.ts, e.flowId);
    }
    for (auto &[thread, list] : flows.finishesByThread)
        sortValues(list);
    return flows;
}

const std::unordered_map<std::int64_t, EventIndex> &LazyFallbackIndexes::cpuOpByExternalId()
{
    if (cpuOpByExternalId_)
        return *cpuOpByExternalId_;
    auto &byExternalId = cpuOpByExternalId_.emplace();
    const EventView events(device_.events);
    for (EventIndex event : chakraInTimeOrder_)
        if (events[event].category == EventCategory::CpuOp && events[event].externalId != kNoId)
            byExternalId.emplace(events[event].externalId, event);
    return byExternalId;
}

namespace {

class LaunchContextFinder {
public:
    LaunchContextFinder(const DeviceTrace &device, const TraceIndex &index, const LaunchIndex &launches,
                        const std::vector<EventIndex> &chakraInTimeOrder)
        : device_(device), events_(device.events), index_(index), launches_(launches), fallback_(device, chakraInTimeOrder)
    {
    }

    LaunchContext contextOf(const DeviceEvent &gpu)
    {
        if (hasCorrelation(gpu.correlation))
            if (LaunchContext context = byCorrelation(gpu); context.found)
                return context;
        // Flow maps are only needed when a correlation lookup fails.
        if (LaunchContext context = byFlow(gpu); context.found)
            return context;
        // External id names the enclosing cpu_op, unless the trace copies the correlation into it (old Kineto).
        if (gpu.externalId > 0 && gpu.externalId != gpu.correlation)
            return byExternalId(gpu);
        return LaunchContext{};
    }

private:
    LaunchContext byCorrelation(const DeviceEvent &gpu) const
    {
        LaunchContext context;
        const EventIndex launch = launches_.pickLaunch(gpu.correlation, gpu.ts,
                                                       launches_.ownerOfDevice(device_.threadKey(gpu).pid));
        if (launch.valid()) {
            context.found = true;
            context.event = launch;
            context.thread = device_.threadKey(events_[launch]);
            context.ts = events_[launch].ts;
            context.end = events_[launch].end();
            context.match = LaunchMatch::Correlation;
        }
        return context;
    }

    // ac2g flow: its finish sits on the GPU op, its start on the launching thread at launch time.
    LaunchContext byFlow(const DeviceEvent &gpu)
    {
        LaunchContext context;
        const FlowIndex &flows = fallback_.flows();
        auto finishes = flows.finishesByThread.find(device_.threadKey(gpu));
        if (finishes == flows.finishesByThread.end())
            return context;
        const auto &list = finishes->second;
        auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(gpu.ts, std::int64_t(kNoId)));
        for (; it != list.end() && it->first == gpu.ts; ++it) {
            auto startIt = flows.startOfFlow.find(it->second);
            if (startIt == flows.startOfFlow.end())
                continue;
            const DeviceEvent &start = events_[startIt->second];
            context.found = true;
            context.thread = device_.threadKey(start);
            context.ts = start.ts;
            context.event = runtimeEventAt(device_.threadKey(start), start.ts);
            context.end = context.event.valid() ? events_[context.event].end() : start.ts;
            context.match = LaunchMatch::Flow;
            return context;
        }
        return context;
    }

    LaunchContext byExternalId(const DeviceEvent &gpu)
    {
        LaunchContext context;
        const auto &cpuOps = fallback_.cpuOpByExternalId();
        auto it = cpuOps.find(gpu.externalId);
        if (it != cpuOps.end()) {
            context.found = true;
            context.externalIdOp = it->second;
            context.thread = device_.threadKey(events_[it->second]);
            context.match = LaunchMatch::ExternalId;
        }
        return context;
    }

    EventIndex runtimeEventAt(const ThreadKey &thread, Nanos ts) const
    {
        for (const Lane &lane : index_.lanes) {
            if (lane.kind != LaneKind::CpuThread || !(lane.key == thread))
                continue;
            auto it = std::lower_bound(lane.startTs.begin(), lane.startTs.end(), ts);
            for (; it != lane.startTs.end() && *it == ts; ++it) {
                const EventIndex event = lane.events[static_cast<std::size_t>(it - lane.startTs.begin())];
                if (isRuntimeCategory(events_[event].category))
                    return event;
            }
        }
        return kNone;
    }

    const DeviceTrace &device_;
    EventView events_;
    const TraceIndex &index_;
    const LaunchIndex &launches_;
    LazyFallbackIndexes fallback_;
};

} // namespace

std::vector<LaunchContext> findLaunchContexts(const DeviceTrace &device, const TraceIndex &index, const LaunchIndex &launches,
                                              const std::vector<EventIndex> &chakraInTimeOrder,
                                              const std::function<void(std::size_t done)> &progress)
{
    LaunchContextFinder finder(device, index, launches, chakraInTimeOrder);
    std::vector<LaunchContext> contexts;
    for (const DeviceEvent &gpu : device.events) {
        if (gpu.phase != Phase::Complete || !isGpuOpCategory(gpu.category))
            continue;
        contexts.push_back(finder.contextOf(gpu));
        if ((contexts.size() & 0xFFF) == 0)
            progress(contexts.size());
    }
    return contexts;
}

} // namespace linkscope::core
