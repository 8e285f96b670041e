#include "link/rules.h"

#include <algorithm>

namespace linkscope::core {

namespace {

char lowerAscii(char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); }

bool containsNoCase(std::string_view text, std::string_view needle)
{
    if (needle.size() > text.size())
        return false;
    for (std::size_t i = 0; i + needle.size() <= text.size(); ++i) {
        std::size_t k = 0;
        while (k < needle.size() && lowerAscii(text[i + k]) == needle[k])
            ++k;
        if (k == needle.size())
            return true;
    }
    return false;
}

} // namespace

bool isCollectiveKernelName(std::string_view name)
{
    // Every GPU op passes here: look for the usual spellings before a case-blind scan.
    const bool mayBe = name.find("ccl") != std::string_view::npos || name.find("CCL") != std::string_view::npos;
    return mayBe && (containsNoCase(name, "nccl") || containsNoCase(name, "rccl"));
}

bool isCollectiveKernel(const DeviceTrace &trace, const DeviceEvent &event)
{
    return event.hasCollective() || isCollectiveKernelName(trace.name(event));
}

bool chakraSaysNccl(std::string_view name) { return containsNoCase(name, "nccl"); }

bool chakraKnowsLaunchApi(std::string_view launchName)
{
    static constexpr std::string_view kLaunchApis[] = {
        "cuLaunchKernel",        "cuLaunchKernelEx",    "cudaLaunchKernel",
        "cudaLaunchKernelExC",   "cudaMemcpy",          "cudaMemcpyAsync",
        "cudaMemcpyFromSymbol",  "cudaMemcpyToSymbol",  "cudaLaunchCooperativeKernel",
        "hipLaunchKernel",       "hipExtLaunchKernel",  "hipExtModuleLaunchKernel",
        "hipModuleLaunchKernel", "hipMemcpyWithStream", "hipMemcpyAsync",
    };
    return std::find(std::begin(kLaunchApis), std::end(kLaunchApis), launchName) != std::end(kLaunchApis);
}

bool chakraSeesGpuOp(EventCategory category) { return category == EventCategory::Kernel || category == EventCategory::GpuMemcpy; }

bool isPrimaryRule(Policy policy, ParentRule rule)
{
    switch (policy) {
    case Policy::Nesting:
        return rule == ParentRule::Nesting || rule == ParentRule::NestingAncestor;
    case Policy::ExternalId:
        return rule == ParentRule::ExternalId;
    case Policy::EvIdx:
        return rule == ParentRule::LatestStarting;
    }
    return false;
}

ReparentCheck checkReparent(const DeviceTrace &trace, const LinkSet &links, EventIndex gpuEvent, EventIndex newParent)
{
    auto describe = [&](EventIndex e) { return "'" + std::string(trace.name(trace.event(e))) + "'"; };
    if (!gpuEvent.in(links.gpuLinkOf.size()) || links.gpuLinkOf[gpuEvent].isNone())
        return {ReparentRefusal::NotAGpuOp, "event " + std::to_string(gpuEvent.value) + " is not a linked GPU op"};
    if (!trace.contains(newParent))
        return {ReparentRefusal::NoSuchEvent, "the new parent is not an event of this trace"};
    const DeviceEvent &target = trace.event(newParent);
    if (!isCpuOpCategory(target.category))
        return {ReparentRefusal::NotACpuOp, describe(newParent) + " is not a CPU op (cpu_op or user_annotation) but "
                                                + std::string(categoryName(target.category))};
    // The process that launched the GPU op: its launch call's, else its current parent's.
    const GpuLink &link = links.gpuLinks[links.gpuLinkOf[gpuEvent]];
    const EventIndex launcher = trace.contains(link.launch)   ? link.launch
                                : trace.contains(link.parent) ? link.parent
                                                              : EventIndex(kNone);
    if (launcher.valid() && !(trace.threadKey(trace.event(launcher)).pid == trace.threadKey(target).pid))
        return {ReparentRefusal::OtherProcess, describe(newParent) + " is in process " + trace.idText(trace.threadKey(target).pid)
                                                   + ", the GPU op was launched from process "
                                                   + trace.idText(trace.threadKey(trace.event(launcher)).pid)};
    return {};
}

std::vector<EventIndex> reparentCandidates(const DeviceTrace &trace, const LinkSet &links, EventIndex gpuEvent,
                                           EventIndex linkerParent)
{
    std::vector<EventIndex> out;
    if (!gpuEvent.in(links.gpuLinkOf.size()) || links.gpuLinkOf[gpuEvent].isNone())
        return out;
    const GpuLink &link = links.gpuLinks[links.gpuLinkOf[gpuEvent]];
    auto add = [&](EventIndex e) {
        if (trace.contains(e) && isCpuOpCategory(trace.event(e).category) && std::find(out.begin(), out.end(), e) == out.end()
            && checkReparent(trace, links, gpuEvent, e).allowed())
            out.push_back(e);
    };
    const TraceIndex &index = *links.index;
    // The CPU ops enclosing the launch on its thread, innermost first.
    if (link.launch.in(index.nestParent.size()))
        for (EventIndex e = index.nestParentOf(link.launch); e.valid(); e = index.nestParentOf(e))
            add(e);
    add(link.innermost);
    for (EventIndex choice : link.byPolicy)
        add(choice);
    add(linkerParent);
    return out;
}

std::vector<EventIndex> findEvents(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links, EventKey key,
                                   std::int64_t value)
{
    std::vector<EventIndex> out;
    const TraceIndex &index = *links.index;
    auto onLane = [&](EventIndex e) { return index.laneOfEvent(e).valid(); };
    for (EventIndex e{0}; e.get() < trace.events.size(); ++e) {
        const DeviceEvent &event = trace.event(e);
        bool hit = false;
        switch (key) {
        case EventKey::RecordFunctionId:
            hit = value > 0 && event.rfId == static_cast<std::uint64_t>(value);
            break;
        case EventKey::ExternalId:
            hit = event.externalId == value;
            break;
        case EventKey::Correlation:
            hit = event.correlation == value;
            break;
        case EventKey::EvIdx:
            hit = event.evIdx == value;
            break;
        }
        if (hit && onLane(e))
            out.push_back(e);
    }
    // Traces without "Record function id" in Kineto are joined to the ET by another key; the ET
    // node's rf_id still finds its event.
    if (key == EventKey::RecordFunctionId && host && value > 0) {
        const auto &eventOfHost = links.eventOfHost;
        for (HostNodeIndex n{0}; n.get() < host->nodes.size() && n.get() < eventOfHost.size(); ++n)
            if (host->node(n).rfId == static_cast<std::uint64_t>(value) && eventOfHost[n].valid() && onLane(eventOfHost[n]))
                out.push_back(eventOfHost[n]);
    }
    std::sort(out.begin(), out.end(), [&](EventIndex a, EventIndex b) {
        return trace.event(a).ts != trace.event(b).ts ? trace.event(a).ts < trace.event(b).ts : a < b;
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

EventIndex findCpuOp(const DeviceTrace &trace, EventKey key, std::int64_t value)
{
    for (EventIndex i{0}; i.get() < trace.events.size(); ++i) {
        const DeviceEvent &e = trace.event(i);
        if (!isCpuOpCategory(e.category))
            continue;
        if ((key == EventKey::RecordFunctionId && value >= 0 && e.rfId == static_cast<std::uint64_t>(value))
            || (key == EventKey::EvIdx && e.evIdx == value) || (key == EventKey::ExternalId && e.externalId == value)
            || (key == EventKey::Correlation && e.correlation == value))
            return i;
    }
    return kNone;
}

} // namespace linkscope::core
