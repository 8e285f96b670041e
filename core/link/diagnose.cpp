#include "link/diagnose.h"

#include <charconv>

namespace linkscope::core {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

class Diagnoser {
public:
    Diagnoser(const DeviceTrace &trace, const LinkSet &links, std::vector<Finding> &out)
        : dev_(trace), links_(links), evidence_(*links.evidence), out_(out)
    {
    }

    void run(GpuLinkIndex linkIndex)
    {
        const GpuLink &link = links_.gpuLinks[linkIndex];
        const LaunchEvidence &launch = evidence_.launches[linkIndex.get()];
        if (link.orphan != OrphanReason::None)
            reportOrphan(link);
        reportLinkFindings(link, launch);
    }

private:
    std::string describe(EventIndex event) const { return describeEvent(dev_, event); }

    void addFinding(FindingKind kind, FindingSeverity severity, EventIndex subject, std::string message, std::string suggestion,
                    EventIndex suggestedParent = kNone)
    {
        out_.push_back(Finding{kind, severity, SubjectKind::DeviceEvent, subject, kNone, std::move(message),
                               std::move(suggestion), suggestedParent});
    }

    EventIndex opParent(EventIndex event) const
    {
        return event.in(evidence_.opParent.size()) ? evidence_.opParent[event.get()] : EventIndex(kNone);
    }

    bool isOpAncestor(EventIndex ancestor, EventIndex event) const
    {
        for (EventIndex p = opParent(event); p.valid(); p = opParent(p))
            if (p == ancestor)
                return true;
        return false;
    }

    bool externalIdAgrees(EventIndex parent, EventIndex externalOp) const
    {
        if (parent == externalOp)
            return true;
        // User-scope refinement: a user_annotation (nccl:*, record_function) nested in the External-id op.
        return dev_.event(parent).category == EventCategory::UserAnnotation && isOpAncestor(externalOp, parent);
    }

    void reportOrphan(const GpuLink &link)
    {
        const DeviceEvent &gpu = dev_.event(link.gpuEvent);
        std::string why, suggestion;
        switch (link.orphan) {
        case OrphanReason::NoCorrelation:
            why = "it has no usable correlation (absent, -1 or 0) and neither an ac2g flow nor its External id names a launch";
            suggestion = "attach it by hand to the CPU op that launched it";
            break;
        case OrphanReason::NoLaunchEvent:
            why = "no runtime/driver event has correlation " + std::to_string(gpu.correlation)
                  + " (the launch is probably outside the trace window)";
            suggestion = "attach it by hand, or capture a wider profiling window";
            break;
        case OrphanReason::NoEnclosingOp:
            why = "its launch " + describe(link.launch) + " is not inside any CPU op on its thread";
            suggestion = "attach it by hand to the op that issued it";
            break;
        case OrphanReason::NoHostNode:
            why = "its enclosing op " + describe(link.innermost) + " and every enclosing op have no ET node";
            suggestion = "check the host/device join (rf_id coverage), or attach it by hand";
            break;
        default:
            return;
        }
        addFinding(FindingKind::OrphanGpuOp, FindingSeverity::Warning, link.gpuEvent,
                   "GPU op " + describe(link.gpuEvent) + " has no parent: " + why, suggestion,
                   link.orphan == OrphanReason::NoHostNode ? link.innermost : EventIndex(kNone));
    }

    // The nccl:* user_annotation between the innermost enclosing op and `parent`, if any.
    EventIndex ncclAnnotationBelow(EventIndex innermost, EventIndex parent) const
    {
        for (EventIndex p = innermost; p.valid() && p != parent; p = opParent(p))
            if (dev_.event(p).category == EventCategory::UserAnnotation && startsWith(dev_.name(dev_.event(p)), "nccl:"))
                return p;
        return kNone;
    }

    void reportLinkFindings(const GpuLink &link, const LaunchEvidence &launch)
    {
        const EventIndex g = link.gpuEvent;
        const DeviceEvent &gpu = dev_.event(g);
        if (link.launch.valid() && gpu.ts < dev_.event(link.launch).ts)
            addFinding(FindingKind::GpuBeforeLaunch, FindingSeverity::Warning, g,
                       "GPU op " + describe(g) + " starts " + std::to_string(dev_.event(link.launch).ts - gpu.ts)
                           + " ns before its launch " + describe(link.launch),
                       "check the clock alignment of the trace; the correlation link itself is kept");
        const EventIndex nestingChoice = link.byPolicy[static_cast<std::size_t>(Policy::Nesting)];
        if (link.parent.isNone())
            return;
        const DeviceEvent &parent = dev_.event(link.parent);
        if (launch.hasTime && (launch.ts < parent.ts || launch.ts > parent.end()))
            addFinding(FindingKind::LaunchOutsideParent, FindingSeverity::Warning, g,
                       "the launch of " + describe(g) + " at " + std::to_string(launch.ts) + " ns is outside its parent "
                           + describe(link.parent) + " [" + std::to_string(parent.ts) + ", " + std::to_string(parent.end()) + ")",
                       nestingChoice.valid() && nestingChoice != link.parent
                           ? "re-parent to the enclosing op " + describe(nestingChoice)
                           : "re-parent to the op that encloses the launch",
                       nestingChoice != link.parent ? nestingChoice : EventIndex(kNone));
        if (dev_.name(parent) == "record_param_comms" && link.innermost.valid()) {
            const EventIndex nccl = ncclAnnotationBelow(link.innermost, link.parent);
            if (nccl.valid())
                addFinding(FindingKind::NcclParentIsRecordParamComms, FindingSeverity::Warning, g,
                           "GPU op " + describe(g) + " is attached to record_param_comms while " + describe(nccl)
                               + " encloses its launch (Chakra issue #196)",
                           "re-parent to " + describe(nccl), nccl);
        }
        // Policies disagreeing beyond the expected user-scope refinement (nccl:* inside its External-id op).
        const EventIndex head = link.byPolicy[static_cast<std::size_t>(Policy::ExternalId)];
        const EventIndex pre = link.byPolicy[static_cast<std::size_t>(Policy::EvIdx)];
        const EventIndex externalOp = launch.externalOp;
        const bool headDiffers = head != nestingChoice
                                 && !(nestingChoice.valid() && head.valid() && head == externalOp
                                      && externalIdAgrees(nestingChoice, head));
        const bool preDiffers = launch.hasTime && pre != nestingChoice;
        if (headDiffers || preDiffers)
            addFinding(FindingKind::PolicyDisagreement, FindingSeverity::Info, g,
                       "policies disagree for " + describe(g) + ": nesting → " + describe(nestingChoice) + ", external-id → "
                           + describe(head) + ", ev-idx → " + describe(pre),
                       nestingChoice.valid() ? "the nesting choice " + describe(nestingChoice) + " encloses the launch"
                                             : "compare the candidates on the timeline",
                       links_.policy != Policy::Nesting && nestingChoice != link.parent ? nestingChoice : EventIndex(kNone));
    }

    const DeviceTrace &dev_;
    const LinkSet &links_;
    const LinkEvidence &evidence_;
    std::vector<Finding> &out_;
};

} // namespace

std::string describeEvent(const DeviceTrace &trace, EventIndex event)
{
    if (event.isNone())
        return "(none)";
    // Called for every finding (several per GPU op on some traces): one buffer, no temporaries.
    const DeviceEvent &e = trace.event(event);
    const std::string_view name = trace.name(e);
    char number[24];
    std::string text;
    text.reserve(name.size() + 48);
    text += '\'';
    text += name;
    text += "' at ";
    text.append(number, static_cast<std::size_t>(std::to_chars(number, number + sizeof number, e.ts).ptr - number));
    text += " ns";
    if (e.evIdx != kNoId) {
        text += " (Ev Idx ";
        text.append(number, static_cast<std::size_t>(std::to_chars(number, number + sizeof number, e.evIdx).ptr - number));
        text += ')';
    }
    return text;
}

void diagnoseGpuOp(const DeviceTrace &trace, const LinkSet &links, GpuLinkIndex linkIndex, std::vector<Finding> &out)
{
    if (!links.evidence)
        return;
    Diagnoser(trace, links, out).run(linkIndex);
}

void diagnoseEveryGpuOp(const DeviceTrace &trace, const LinkSet &links, std::vector<Finding> &perOp,
                        std::vector<std::uint32_t> &begin)
{
    begin.reserve(links.gpuLinks.size() + 1);
    begin.push_back(0);
    for (GpuLinkIndex i{0}; i.get() < links.gpuLinks.size(); ++i) {
        diagnoseGpuOp(trace, links, i, perOp);
        begin.push_back(static_cast<std::uint32_t>(perOp.size()));
    }
}

FindingList diagnoseAll(const DeviceTrace &trace, const LinkSet &links)
{
    std::vector<Finding> perOp;
    std::vector<std::uint32_t> begin;
    diagnoseEveryGpuOp(trace, links, perOp, begin);
    return FindingList(links.findings.traceWide(), std::move(perOp), std::move(begin), links.findings.hostSide());
}

void rediagnoseGpuOp(const DeviceTrace &trace, LinkSet &links, GpuLinkIndex linkIndex)
{
    // Without the linker's evidence (a link set made by hand) there is nothing to judge by: the
    // findings stay as they were.
    if (!links.evidence || !linkIndex.in(links.findings.gpuOpCount()))
        return;
    std::vector<Finding> now;
    diagnoseGpuOp(trace, links, linkIndex, now);
    links.findings.replaceGpuOp(linkIndex.get(), std::move(now));
}

} // namespace linkscope::core
