#include "link/exclusivedurations.h"

#include "link/linkcommon.h"

#include <string>

namespace linkscope::core {

namespace {

// One thread's CPU ops in lane order (ts asc, dur desc), children visited in start order so that the
// union grows incrementally: O(n log n). Returns how many went negative (clamped to 0).
std::size_t subtractChildren(const EventView &events, const std::vector<EventIndex> &ops, std::vector<Nanos> &exclusive)
{
    // Each open op carries how far its children's union reaches: a popped op never becomes a parent
    // again (later ops start no earlier), so the value lives on the stack instead of in a map.
    struct OpenOp {
        EventIndex event;
        Nanos end;
        Nanos coveredUntil;
    };
    std::vector<OpenOp> open;
    for (EventIndex event : ops) {
        const DeviceEvent &e = events[event];
        const Nanos end = e.end();
        while (!open.empty() && open.back().end <= e.ts)
            open.pop_back();
        while (!open.empty() && open.back().end < end)
            open.pop_back();
        if (!open.empty()) {
            OpenOp &parent = open.back();
            const Nanos from = std::max(e.ts, parent.coveredUntil);
            const Nanos to = std::min(end, parent.end);
            if (to > from) {
                exclusive[parent.event.get()] -= to - from;
                parent.coveredUntil = to;
            }
        }
        open.push_back(OpenOp{event, end, e.ts});
    }
    std::size_t clamped = 0;
    for (EventIndex event : ops)
        if (exclusive[event.get()] < 0) {
            exclusive[event.get()] = 0;
            ++clamped;
        }
    return clamped;
}

} // namespace

std::vector<Nanos> exclusiveDurations(const DeviceTrace &device, const TraceIndex &index, std::vector<Diagnostic> &warnings)
{
    const EventView events(device.events);
    std::vector<Nanos> exclusive(events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
        exclusive[i] = events[i].dur;
    std::size_t clamped = 0;
    for (const Lane &lane : index.lanes) {
        if (lane.kind != LaneKind::CpuThread)
            continue;
        std::vector<EventIndex> ops;
        for (EventIndex event : lane.events)
            if (isCpuOpCategory(events[event].category))
                ops.push_back(event); // lane order is already (ts asc, dur desc)
        clamped += subtractChildren(events, ops, exclusive);
    }
    if (clamped > 0)
        warnings.push_back(Diagnostic{Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                      std::to_string(clamped) + " negative exclusive durations clamped to 0"});
    return exclusive;
}

} // namespace linkscope::core
