#include "link/gpuoplinker.h"

#include "link/linkcommon.h"

#include <tuple>

namespace linkscope::core {

GpuOpLinker::GpuOpLinker(const DeviceTrace &device, const ThreadCandidates &candidates, const LaunchIndex &launches,
                         const std::vector<HostNodeIndex> &hostOfEvent, bool requireHostNode, const LinkOptions &options)
    : device_(device), candidates_(candidates), launches_(launches), hostOfEvent_(hostOfEvent), requireHostNode_(requireHostNode),
      options_(options), search_(device, candidates, options.enclosureTolerance)
{
}

GpuOpLinker::Result GpuOpLinker::link(EventIndex gpuEvent, const LaunchContext &context)
{
    const EventView events(device_.events);
    const DeviceEvent &gpu = events[gpuEvent];
    Result result;
    GpuLink &link = result.link;
    link.gpuEvent = gpuEvent;
    link.launch = context.event;
    link.launchMatch = context.match;
    if (!context.found) {
        link.orphan = hasCorrelation(gpu.correlation) ? OrphanReason::NoLaunchEvent : OrphanReason::NoCorrelation;
        return result;
    }
    const ThreadOps *thread = candidates_.find(context.thread);
    applyPolicy(link, choose(thread, context, gpu), context.match);
    if (link.parent.valid())
        link.hostNode = hostOfEvent_[link.parent.get()];

    // docs/linking.md, step 5: the External-id cross-check and the gpu_user_annotation corroboration.
    const std::int64_t launchExternalId = context.event.valid() ? events[context.event].externalId : gpu.externalId;
    EventIndex externalOp;
    if (thread && launchExternalId != kNoId && launchExternalId != gpu.correlation)
        externalOp = search_.cpuOpWithExternalId(*thread, launchExternalId);
    if (link.parent.valid() && events[link.parent].category == EventCategory::UserAnnotation)
        link.annotationEvidence = launches_.corroboratingAnnotation(gpu, events[link.parent].externalId);
    link.confidence = confidenceOf(link, context, externalOp);
    result.evidence = LaunchEvidence{context.ts, externalOp, context.hasTime()};
    return result;
}

GpuOpLinker::PolicyChoices GpuOpLinker::choose(const ThreadOps *thread, const LaunchContext &context, const DeviceEvent &gpu)
{
    PolicyChoices choices;
    if (context.externalIdOp.valid()) {
        choices.innermost = choices.chakraHead = context.externalIdOp;
        choices.chakraHeadMatchedExternalId = true;
    } else if (thread) {
        choices.innermost = search_.innermostEnclosing(*thread, context.ts);
        std::tie(choices.chakraHead, choices.chakraHeadMatchedExternalId) = search_.chakraHead(*thread, context.ts, gpu);
        choices.chakraPre185 = search_.chakraPre185(*thread, context.ts, gpu);
    }
    return choices;
}

// Every policy's parent (after the ET-node requirement) in byPolicy; the chosen one's parent, rule
// or orphan reason.
void GpuOpLinker::applyPolicy(GpuLink &link, const PolicyChoices &choices, LaunchMatch match) const
{
    link.innermost = choices.innermost;
    const EventIndex nestingParent = choices.innermost.isNone() ? EventIndex(kNone) : withHostNode(choices.innermost);
    link.byPolicy[static_cast<std::size_t>(Policy::Nesting)] = nestingParent;
    link.byPolicy[static_cast<std::size_t>(Policy::ExternalId)] = chakraEffective(choices.chakraHead);
    link.byPolicy[static_cast<std::size_t>(Policy::EvIdx)] = chakraEffective(choices.chakraPre185);

    switch (options_.policy) {
    case Policy::Nesting:
        link.parent = nestingParent;
        if (choices.innermost.isNone())
            link.orphan = OrphanReason::NoEnclosingOp;
        else if (nestingParent.isNone())
            link.orphan = OrphanReason::NoHostNode;
        else if (match == LaunchMatch::ExternalId)
            link.rule = ParentRule::ExternalId;
        else
            link.rule = nestingParent == choices.innermost ? ParentRule::Nesting : ParentRule::NestingAncestor;
        break;
    case Policy::ExternalId:
    case Policy::EvIdx: {
        const EventIndex raw = options_.policy == Policy::ExternalId ? choices.chakraHead : choices.chakraPre185;
        link.parent = chakraEffective(raw);
        if (raw.isNone())
            link.orphan = OrphanReason::NoEnclosingOp;
        else if (link.parent.isNone())
            link.orphan = OrphanReason::NoHostNode;
        else
            link.rule = (options_.policy == Policy::ExternalId && choices.chakraHeadMatchedExternalId)
                            ? ParentRule::ExternalId
                            : ParentRule::LatestStarting;
        break;
    }
    }
}

// docs/linking.md, step 4: nearest op (itself or an enclosing one) that has an ET node.
EventIndex GpuOpLinker::withHostNode(EventIndex event) const
{
    if (!requireHostNode_)
        return event;
    for (EventIndex parent = event; parent.valid(); parent = candidates_.nestParentOf(parent))
        if (hasHostNode(parent))
            return parent;
    return kNone;
}

// Chakra drops a GPU op whose parent has no ET counterpart.
EventIndex GpuOpLinker::chakraEffective(EventIndex choice) const
{
    return (choice.valid() && requireHostNode_ && !hasHostNode(choice)) ? EventIndex(kNone) : choice;
}

bool GpuOpLinker::externalIdAgrees(EventIndex parent, EventIndex externalOp) const
{
    if (parent == externalOp)
        return true;
    // User-scope refinement: a user_annotation (nccl:*, record_function) nested in the External-id op.
    return device_.events[parent.get()].category == EventCategory::UserAnnotation
           && candidates_.isNestAncestor(externalOp, parent);
}

float GpuOpLinker::confidenceOf(const GpuLink &link, const LaunchContext &context, EventIndex externalOp) const
{
    if (link.parent.isNone())
        return 0.0f;
    const EventView events(device_.events);
    float launchFactor = context.match == LaunchMatch::Correlation ? 1.0f : context.match == LaunchMatch::Flow ? 0.8f : 0.5f;
    float ruleFactor = 0.5f;
    switch (link.rule) {
    case ParentRule::Nesting:
    case ParentRule::NestingAncestor:
        if (externalOp.valid())
            ruleFactor = externalIdAgrees(link.parent, externalOp) ? 1.0f : 0.6f;
        else
            ruleFactor = link.annotationEvidence.valid() ? 0.95f : 0.85f;
        if (link.rule == ParentRule::NestingAncestor)
            ruleFactor *= 0.9f;
        break;
    case ParentRule::ExternalId:
        ruleFactor = 0.9f;
        break;
    case ParentRule::LatestStarting:
        ruleFactor = (context.hasTime() && events[link.parent].ts <= context.ts && events[link.parent].end() >= context.ts)
                         ? 0.5f
                         : 0.3f;
        break;
    default:
        break;
    }
    return launchFactor * ruleFactor;
}

} // namespace linkscope::core
