#pragma once
// Where and when each GPU op was launched (docs/linking.md, step 1): its runtime/driver call by
// correlation id, else the ac2g flow that ends on it, else the cpu_op its External id names.

#include "index/traceindex.h"
#include "link/launchindex.h"
#include "link/linkset.h"
#include "model/devicetrace.h"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace linkscope::core {

// Where and when a GPU op was launched.
struct LaunchContext {
    bool found = false;
    EventIndex event; // the runtime/driver event (none for a flow-only launch)
    ThreadKey thread;
    Nanos ts = 0;
    Nanos end = 0;
    LaunchMatch match = LaunchMatch::None;
    EventIndex externalIdOp; // External-id fallback: the cpu_op itself, launch time unknown
    bool hasTime() const { return found && externalIdOp.isNone(); }
};

// The ac2g flows: starts by flow id, finishes per thread as (ts, flow id), sorted.
struct FlowIndex {
    std::unordered_map<std::int64_t, EventIndex> startOfFlow;
    std::map<ThreadKey, std::vector<std::pair<Nanos, std::int64_t>>> finishesByThread;
};

// The indexes only a failed correlation lookup needs, each built the first time it is asked for: the
// accessors are not const because they may build; what they return is.
class LazyFallbackIndexes {
public:
    // `chakraInTimeOrder`: ThreadCandidates::chakraInTimeOrder() (the External id's first cpu_op wins).
    LazyFallbackIndexes(const DeviceTrace &device, const std::vector<EventIndex> &chakraInTimeOrder)
        : device_(device), chakraInTimeOrder_(chakraInTimeOrder)
    {
    }
    const FlowIndex &flows();
    const std::unordered_map<std::int64_t, EventIndex> &cpuOpByExternalId();

private:
    const DeviceTrace &device_;
    const std::vector<EventIndex> &chakraInTimeOrder_;
    std::optional<FlowIndex> flows_;
    std::optional<std::unordered_map<std::int64_t, EventIndex>> cpuOpByExternalId_;
};

// The launch context of every GPU op (complete kernel, memcpy, memset), in event order: parallel to
// LinkSet::gpuLinks. `progress(done)` is called every few thousand GPU ops (it may throw Cancelled).
std::vector<LaunchContext> findLaunchContexts(const DeviceTrace &device, const TraceIndex &index, const LaunchIndex &launches,
                                              const std::vector<EventIndex> &chakraInTimeOrder,
                                              const std::function<void(std::size_t done)> &progress);

} // namespace linkscope::core
