#include "link/chakraupdate.h"

#include "base/cowdiff.h"
#include "link/rules.h"

#include <algorithm>

namespace linkscope::core {

namespace {

void setMember(std::vector<EventIndex> &sorted, EventIndex event, bool member)
{
    auto at = std::lower_bound(sorted.begin(), sorted.end(), event);
    const bool present = at != sorted.end() && *at == event;
    if (member && !present)
        sorted.insert(at, event);
    else if (!member && present)
        sorted.erase(at);
}

// Our sync edges, as compareLinkSets counts them, are the same in both link sets.
bool sameSyncEdges(const LinkSet &a, const LinkSet &b)
{
    if (a.edges.size() != b.edges.size())
        return false;
    for (const auto &[begin, end] : unsharedRanges(a.edges, b.edges))
        for (std::size_t j = begin; j < end; ++j) {
            const Edge &x = a.edges[j], &y = b.edges[j];
            if ((x.kind == EdgeKind::Sync || y.kind == EdgeKind::Sync) && (x.kind != y.kind || x.from != y.from || x.to != y.to))
                return false;
        }
    return true;
}

} // namespace

std::optional<RuleComparison> updateComparison(const DeviceTrace &trace, const RuleComparison &before, const LinkSet &oursBefore,
                                               const LinkSet &oursNow, const LinkSet &theirs,
                                               const std::vector<GpuLinkIndex> &changedLinks)
{
    const std::size_t n = std::min(oursNow.gpuLinks.size(), theirs.gpuLinks.size());
    if (oursBefore.gpuLinks.size() != oursNow.gpuLinks.size() || before.gpuOps != n || before.policy != theirs.policy
        || !oursNow.gpuLinkOf.sharedWith(oursBefore.gpuLinkOf) || !sameSyncEdges(oursBefore, oursNow))
        return std::nullopt;
    RuleComparison c = before;
    for (GpuLinkIndex i : changedLinks) {
        if (!i.in(n))
            continue;
        const GpuLink &was = oursBefore.gpuLinks[i];
        const GpuLink &our = oursNow.gpuLinks[i];
        const GpuLink &their = theirs.gpuLinks[i];
        if (was.gpuEvent != our.gpuEvent)
            return std::nullopt;
        ChakraDropReason reason{};
        if (chakraDrops(trace, their, &reason)) {
            const bool droppedBefore = was.parent.valid(), droppedNow = our.parent.valid();
            if (droppedBefore != droppedNow) {
                setMember(c.dropped, our.gpuEvent, droppedNow);
                c.droppedBy[static_cast<std::size_t>(reason)] += droppedNow ? 1 : -1;
            }
            continue;
        }
        const bool different = their.parent != our.parent;
        setMember(c.differentParent, our.gpuEvent, different);
        const bool collective = different && isCollectiveKernel(trace, trace.event(our.gpuEvent))
                                && trace.name(trace.event(their.parent)) == "record_param_comms";
        setMember(c.collectiveOnRecordParamComms, our.gpuEvent, collective);
    }
    return c;
}

} // namespace linkscope::core
