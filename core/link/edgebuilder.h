#pragma once
// The edges of a link set (docs/linking.md, "Edges") besides the parents: launch, stream order, sync
// (with the blocking calls they come from, docs/linking.md, "Blocking calls") and Chakra's
// inter-thread order.

#include "base/cowvector.h"
#include "index/traceindex.h"
#include "link/launchcontexts.h"
#include "link/launchindex.h"
#include "link/linkset.h"
#include "link/threadcandidates.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace linkscope::core {

struct LinkEdges {
    CowVector<Edge> edges;
    std::vector<BlockingWait> blocking; // call order
};

class EdgeBuilder {
public:
    // `contexts` parallel to `gpuLinks`; `hostOfEvent` the host join's; `requireHostNode` as the links'.
    EdgeBuilder(const DeviceTrace &device, const TraceIndex &index, const ThreadCandidates &candidates,
                const LaunchIndex &launches, const std::vector<HostNodeIndex> &hostOfEvent, bool requireHostNode);

    LinkEdges build(const CowVector<GpuLink> &gpuLinks, const std::vector<LaunchContext> &contexts, const LinkOptions &options);

private:
    using Launches = std::vector<std::pair<Nanos, EventIndex>>; // (launch ts, GPU op) or (ts, call), sorted

    void addLaunchAndStreamEdges(const CowVector<GpuLink> &gpuLinks, const std::vector<LaunchContext> &contexts);
    void addSyncEdges(const CowVector<GpuLink> &gpuLinks);
    void addSyncEdgesFromSyncEvents();
    void addSyncEdgesFromRuntimeCalls();
    void addWaitOfRuntimeCall(EventIndex call, const ThreadOps &thread);
    void addImplicitWaits(const CowVector<GpuLink> &gpuLinks);
    void addInterThreadEdges(Nanos gap);

    static EventIndex lastLaunchedBefore(const Launches &list, Nanos ts);
    EventIndex lastLaunchedOnLaneBefore(LaneIndex lane, Nanos ts) const;
    EventIndex syncTarget(EventIndex call) const;
    void addSyncEdge(EventIndex from, EventIndex to);
    void addWait(EventIndex call, EventIndex awaited, BlockingKind kind, EventIndex target, bool edge = true);
    void syncAllStreamsOfDevice(std::int32_t device, EventIndex call, EventIndex target,
                                BlockingKind kind = BlockingKind::DeviceSync, bool edge = true);
    EventIndex firstLaunchAfter(const ThreadOps &thread, Nanos ts, LaneIndex lane) const;
    LaneIndex laneOfStream(std::int32_t device, std::int64_t stream) const;
    EventIndex recordedOp(EventIndex record, LaneIndex recordedLane) const;
    EventIndex latestOnOtherThreads(std::uint32_t excludedSlot, Nanos ts) const;

    const DeviceTrace &device_;
    const TraceIndex &index_;
    const ThreadCandidates &candidates_;
    const LaunchIndex &launches_;
    const std::vector<HostNodeIndex> &hostOfEvent_;
    bool requireHostNode_;
    LinkEdges result_;
    std::vector<Launches> launchesOfThread_;     // by ThreadOps::slot: launches made from the thread
    std::vector<Launches> eventRecordsOfThread_; // by ThreadOps::slot: cudaEventRecord calls (ts, call)
    std::unordered_map<LaneIndex, Launches> launchesOfStream_;
    std::unordered_set<std::uint64_t> syncEdgeSeen_; // (from, to) pairs
};

} // namespace linkscope::core
