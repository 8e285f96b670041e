#include "link/parentsearch.h"

#include "base/nearsearch.h"
#include "link/linkcommon.h"
#include "link/rules.h"

namespace linkscope::core {

ParentSearch::ParentSearch(const DeviceTrace &device, const ThreadCandidates &candidates, Nanos enclosureTolerance)
    : device_(device), candidates_(candidates), enclosureTolerance_(enclosureTolerance),
      fingersOfThread_(candidates.threads().size())
{
}

EventIndex ParentSearch::innermostEnclosing(const ThreadOps &thread, Nanos ts)
{
    const EventView events(device_.events);
    const Nanos eps = enclosureTolerance_;
    const std::size_t upper = upperBoundNear(thread.nestStart, ts + eps, fingersOfThread_[thread.slot].nestStart);
    if (upper == 0)
        return kNone;
    EventIndex loose;
    for (auto position = static_cast<std::uint32_t>(upper - 1); position != kNoPosition; position = thread.nestParent[position]) {
        const DeviceEvent &e = events[thread.nest[position]];
        if (e.end() + eps < ts)
            continue;
        if (e.ts <= ts && e.end() >= ts)
            return thread.nest[position];
        if (loose.isNone())
            loose = thread.nest[position];
    }
    return loose;
}

// Per interned name: kernel names repeat, and are long.
bool ParentSearch::isNcclName(StringId name)
{
    if (ncclByName_.size() <= name)
        ncclByName_.resize(device_.strings.size(), -1);
    if (ncclByName_[name] < 0)
        ncclByName_[name] = chakraSaysNccl(device_.strings.at(name)) ? 1 : 0;
    return ncclByName_[name] == 1;
}

bool ParentSearch::skipForNccl(bool ncclGpu, EventIndex event) const
{
    return ncclGpu && device_.name(device_.events[event.get()]) == "nccl:coalesced";
}

std::pair<EventIndex, bool> ParentSearch::chakraHead(const ThreadOps &thread, Nanos launchTs, const DeviceEvent &gpu)
{
    Fingers &fingers = fingersOfThread_[thread.slot];
    const bool nccl = isNcclName(gpu.name);
    const auto before = static_cast<std::uint32_t>(lowerBoundNear(thread.chakraStart, launchTs, fingers.chakraStart));
    // Latest same-thread op before the launch carrying the GPU op's External id.
    auto p = thread.chakraByExternalId.begin()
             + static_cast<std::ptrdiff_t>(
                 lowerBoundNear(thread.chakraByExternalId, std::make_pair(gpu.externalId, before), fingers.chakraByExternalId));
    while (p != thread.chakraByExternalId.begin() && std::prev(p)->first == gpu.externalId) {
        --p;
        if (!skipForNccl(nccl, thread.chakra[p->second]))
            return {thread.chakra[p->second], true};
    }
    for (std::uint32_t position = before; position-- > 0;)
        if (!skipForNccl(nccl, thread.chakra[position]))
            return {thread.chakra[position], false};
    return {kNone, false};
}

EventIndex ParentSearch::chakraPre185(const ThreadOps &thread, Nanos launchTs, const DeviceEvent &gpu)
{
    const EventView events(device_.events);
    const std::size_t inTimeOrder = lowerBoundNear(candidates_.chakraStartsInTimeOrder(), launchTs, chakraInTimeOrderFinger_);
    if (inTimeOrder == 0)
        return kNone;
    const EventIndex closest = candidates_.chakraInTimeOrder()[inTimeOrder - 1];
    const bool closestOnThread = device_.threadKey(events[closest]) == thread.key;
    const bool nccl = isNcclName(gpu.name);
    const auto before = static_cast<std::uint32_t>(
        lowerBoundNear(thread.chakraStart, launchTs, fingersOfThread_[thread.slot].chakraStart));
    if (nccl && device_.name(events[closest]) == "nccl:coalesced") {
        // Ops of the thread before `closest` in the all-thread order.
        const std::uint32_t from = closestOnThread ? before - 1 : before;
        for (std::uint32_t position = from; position-- > 0;)
            if (device_.name(events[thread.chakra[position]]) != "nccl:coalesced")
                return thread.chakra[position];
    }
    if (closestOnThread)
        return closest;
    for (std::uint32_t position = before; position-- > 0;)
        if (!skipForNccl(nccl, thread.chakra[position]))
            return thread.chakra[position];
    return kNone;
}

EventIndex ParentSearch::cpuOpWithExternalId(const ThreadOps &thread, std::int64_t externalId)
{
    const EventView events(device_.events);
    auto p = thread.chakraByExternalId.begin()
             + static_cast<std::ptrdiff_t>(lowerBoundNear(thread.chakraByExternalId, std::make_pair(externalId, std::uint32_t(0)),
                                                          fingersOfThread_[thread.slot].chakraByExternalId));
    for (; p != thread.chakraByExternalId.end() && p->first == externalId; ++p)
        if (events[thread.chakra[p->second]].category == EventCategory::CpuOp)
            return thread.chakra[p->second];
    return kNone;
}

} // namespace linkscope::core
