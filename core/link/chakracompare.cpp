#include "link/chakracompare.h"

#include "link/linker.h"
#include "link/rules.h"

#include <algorithm>
#include <future>
#include <utility>

namespace linkscope::core {

std::string_view chakraDropReasonName(ChakraDropReason reason)
{
    switch (reason) {
    case ChakraDropReason::Memset:
        return "memset";
    case ChakraDropReason::NoLaunchEvent:
        return "no_launch_event";
    case ChakraDropReason::UnknownLaunchApi:
        return "unknown_launch_api";
    case ChakraDropReason::NoEnclosingOp:
        return "no_enclosing_op";
    case ChakraDropReason::NoHostNode:
        return "no_host_node";
    }
    return "unknown";
}

std::vector<EventIndex> RuleComparison::affected() const
{
    std::vector<EventIndex> all;
    all.reserve(differentParent.size() + dropped.size() + syncLostGpuOps.size());
    all.insert(all.end(), differentParent.begin(), differentParent.end());
    all.insert(all.end(), dropped.begin(), dropped.end());
    all.insert(all.end(), syncLostGpuOps.begin(), syncLostGpuOps.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

bool chakraDrops(const DeviceTrace &trace, const GpuLink &theirs, ChakraDropReason *reason)
{
    auto drop = [&](ChakraDropReason r) {
        if (reason)
            *reason = r;
        return true;
    };
    const DeviceEvent &gpu = trace.events.at(theirs.gpuEvent.get());
    if (!chakraSeesGpuOp(gpu.category))
        return drop(ChakraDropReason::Memset);
    if (theirs.launch.isNone() || theirs.launchMatch != LaunchMatch::Correlation)
        return drop(ChakraDropReason::NoLaunchEvent);
    if (!chakraKnowsLaunchApi(trace.name(trace.events.at(theirs.launch.get()))))
        return drop(ChakraDropReason::UnknownLaunchApi);
    if (theirs.parent.isNone())
        return drop(theirs.orphan == OrphanReason::NoHostNode ? ChakraDropReason::NoHostNode : ChakraDropReason::NoEnclosingOp);
    return false;
}

RuleComparison compareLinkSets(const DeviceTrace &trace, const LinkSet &ours, const LinkSet &theirs)
{
    RuleComparison c;
    c.policy = theirs.policy;
    const std::size_t n = std::min(ours.gpuLinks.size(), theirs.gpuLinks.size());
    c.gpuOps = n;
    std::vector<bool> droppedByThem(trace.events.size(), false);
    for (std::size_t i = 0; i < n; ++i) {
        const GpuLink &our = ours.gpuLinks[i];
        const GpuLink &their = theirs.gpuLinks[i];
        if (their.parent.valid()) {
            ++c.linked;
            if (!isPrimaryRule(theirs.policy, their.rule))
                c.fallback.push_back(their.gpuEvent);
        }
        ChakraDropReason reason{};
        if (chakraDrops(trace, their, &reason)) {
            droppedByThem[their.gpuEvent.get()] = true;
            if (our.parent.valid()) {
                c.dropped.push_back(our.gpuEvent);
                ++c.droppedBy[static_cast<std::size_t>(reason)];
            }
            continue;
        }
        if (their.parent == our.parent)
            continue;
        c.differentParent.push_back(our.gpuEvent);
        const DeviceEvent &gpu = trace.event(our.gpuEvent);
        if (isCollectiveKernel(trace, gpu) && trace.name(trace.event(their.parent)) == "record_param_comms")
            c.collectiveOnRecordParamComms.push_back(our.gpuEvent);
    }

    // Sync edges: ours that its link set does not have, or that end on a GPU op it drops.
    std::vector<std::pair<EventIndex, EventIndex>> theirSync;
    for (const Edge &e : theirs.edges)
        if (e.kind == EdgeKind::Sync)
            theirSync.emplace_back(e.from, e.to);
    std::sort(theirSync.begin(), theirSync.end());
    auto isDroppedGpuOp = [&](EventIndex event) { return event.in(droppedByThem.size()) && droppedByThem[event.get()]; };
    auto isGpuOp = [&](EventIndex event) { return event.in(ours.gpuLinkOf.size()) && ours.gpuLinkOf[event].valid(); };
    for (const Edge &e : ours.edges) {
        if (e.kind != EdgeKind::Sync)
            continue;
        ++c.syncEdges;
        const bool kept = !isDroppedGpuOp(e.from) && !isDroppedGpuOp(e.to)
                          && std::binary_search(theirSync.begin(), theirSync.end(), std::make_pair(e.from, e.to));
        if (kept)
            continue;
        ++c.syncEdgesLost;
        for (EventIndex end : {e.from, e.to})
            if (isGpuOp(end))
                c.syncLostGpuOps.push_back(end);
    }
    std::sort(c.syncLostGpuOps.begin(), c.syncLostGpuOps.end());
    c.syncLostGpuOps.erase(std::unique(c.syncLostGpuOps.begin(), c.syncLostGpuOps.end()), c.syncLostGpuOps.end());
    return c;
}

ChakraLinks linkUnderChakra(const DeviceTrace &trace, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                            const LinkOptions &options)
{
    LinkOptions head = options;
    head.progress = {};
    head.policy = Policy::ExternalId;
    LinkOptions pre = head;
    pre.policy = Policy::EvIdx;
    // The two links are independent reads of the same traces and index: one on another thread.
    auto headLinks = std::async(std::launch::async, [&] { return linkWithIndex(trace, host, index, head); });
    ChakraLinks links;
    links.pre185 = std::make_shared<const LinkSet>(linkWithIndex(trace, host, index, pre));
    links.chakra10 = std::make_shared<const LinkSet>(headLinks.get());
    return links;
}

ChakraComparison compareWithChakra(const DeviceTrace &trace, const ChakraLinks &chakra, const LinkSet &ours)
{
    ChakraComparison result;
    result.chakra10 = compareLinkSets(trace, ours, *chakra.chakra10);
    result.pre185 = compareLinkSets(trace, ours, *chakra.pre185);
    return result;
}

ChakraComparison compareWithChakra(const DeviceTrace &trace, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                                   const LinkSet &ours, const LinkOptions &options)
{
    return compareWithChakra(trace, linkUnderChakra(trace, host, std::move(index), options), ours);
}

} // namespace linkscope::core
