#include "link/launchindex.h"

#include "link/linkcommon.h"
#include "link/linkfindings.h"

#include <algorithm>

namespace linkscope::core {

LaunchIndex::LaunchIndex(const DeviceTrace &device) : device_(&device)
{
    const EventView events(device.events);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const DeviceEvent &e = events[i];
        if (e.phase == Phase::Complete && isRuntimeCategory(e.category) && hasCorrelation(e.correlation))
            launchesByCorrelation_.emplace_back(e.correlation, EventIndex::at(i));
        if (e.phase == Phase::Complete && e.category == EventCategory::GpuUserAnnotation && e.externalId != kNoId)
            gpuAnnotationsByExternalId_[e.externalId].push_back(EventIndex::at(i));
    }
    sortValues(launchesByCorrelation_);
    buildDenseCorrelationIndex();
    findDuplicateCorrelations();
    findDeviceOwners();
}

// CUPTI correlation ids count up from a small number: when they fill their range densely enough, a
// table from id to the first position in launchesByCorrelation_ replaces a binary search over
// millions of entries (a cache miss per step) for every GPU op.
void LaunchIndex::buildDenseCorrelationIndex()
{
    denseCorrelation_.clear();
    if (launchesByCorrelation_.empty())
        return;
    const std::int64_t lo = launchesByCorrelation_.front().first, hi = launchesByCorrelation_.back().first;
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span >= 4 * launchesByCorrelation_.size() + 4096)
        return;
    denseCorrelationBase_ = lo;
    denseCorrelation_.assign(span + 2, kNoPosition);
    for (std::size_t i = launchesByCorrelation_.size(); i-- > 0;)
        denseCorrelation_[static_cast<std::size_t>(launchesByCorrelation_[i].first - lo)] = static_cast<std::uint32_t>(i);
}

// Duplicates: the same (pid, correlation) on several runtime/driver events.
void LaunchIndex::findDuplicateCorrelations()
{
    const DeviceTrace &device = *device_;
    const EventView events(device.events);
    for (std::size_t i = 0; i < launchesByCorrelation_.size();) {
        std::size_t j = i + 1;
        while (j < launchesByCorrelation_.size() && launchesByCorrelation_[j].first == launchesByCorrelation_[i].first)
            ++j;
        if (j - i > 1) {
            std::map<TraceId, std::vector<EventIndex>> byPid;
            for (std::size_t k = i; k < j; ++k)
                byPid[device.threadKey(events[launchesByCorrelation_[k].second]).pid].push_back(launchesByCorrelation_[k].second);
            if (byPid.size() > 1)
                correlationsSpanProcesses_ = true;
            for (const auto &[pid, list] : byPid)
                if (list.size() >= 2)
                    duplicateCorrelationFindings_.push_back(
                        duplicateCorrelationFinding(device, pid, launchesByCorrelation_[i].first, list));
        }
        i = j;
    }
}

// Which process launches onto each GPU pid, by majority over the unambiguous correlations. Only needed
// when a correlation id appears in several processes (merged traces).
void LaunchIndex::findDeviceOwners()
{
    if (!correlationsSpanProcesses_)
        return;
    const DeviceTrace &device = *device_;
    const EventView events(device.events);
    std::map<TraceId, std::map<TraceId, std::size_t>> votes;
    for (const DeviceEvent &gpu : events) {
        if (gpu.phase != Phase::Complete || !isGpuOpCategory(gpu.category) || !hasCorrelation(gpu.correlation))
            continue;
        const auto [first, last] = launchesWithCorrelation(gpu.correlation);
        // The pid compared against, named outside the lambda: clang before 16 cannot capture a
        // structured binding (the fuzz build uses clang 14).
        const TraceId firstPid = first != last ? device.threadKey(events[first->second]).pid : TraceId{};
        if (first != last
            && std::all_of(first, last, [&](const auto &c) { return device.threadKey(events[c.second]).pid == firstPid; }))
            ++votes[device.threadKey(gpu).pid][device.threadKey(events[first->second]).pid];
    }
    for (const auto &[gpuPid, counts] : votes) {
        auto best = std::max_element(counts.begin(), counts.end(),
                                     [](const auto &a, const auto &b) { return a.second < b.second; });
        deviceOwner_.emplace(gpuPid, best->first);
    }
}

std::pair<const LaunchIndex::CorrelatedLaunch *, const LaunchIndex::CorrelatedLaunch *> LaunchIndex::launchesWithCorrelation(
    std::int64_t correlation) const
{
    if (!denseCorrelation_.empty()) {
        const auto *begin = launchesByCorrelation_.data();
        const auto *end = begin + launchesByCorrelation_.size();
        if (correlation < denseCorrelationBase_
            || static_cast<std::uint64_t>(correlation - denseCorrelationBase_) >= denseCorrelation_.size())
            return {end, end};
        const std::uint32_t first = denseCorrelation_[static_cast<std::size_t>(correlation - denseCorrelationBase_)];
        if (first == kNoPosition)
            return {end, end};
        const auto *last = begin + first;
        while (last != end && last->first == correlation)
            ++last;
        return {begin + first, last};
    }
    auto lo = std::lower_bound(launchesByCorrelation_.begin(), launchesByCorrelation_.end(),
                               std::make_pair(correlation, EventIndex(0)));
    auto hi = lo;
    while (hi != launchesByCorrelation_.end() && hi->first == correlation)
        ++hi;
    return {launchesByCorrelation_.data() + (lo - launchesByCorrelation_.begin()),
            launchesByCorrelation_.data() + (hi - launchesByCorrelation_.begin())};
}

EventIndex LaunchIndex::pickLaunch(std::int64_t correlation, Nanos gpuTs, const TraceId *ownerPid) const
{
    const DeviceTrace &device = *device_;
    const EventView events(device.events);
    EventIndex before, after;
    const auto [first, last] = launchesWithCorrelation(correlation);
    // Correlation ids are unique per process only: in a merged multi-process trace keep to the process
    // that launches onto this GPU op's device, when it has a candidate.
    const bool restrict =
        ownerPid && std::any_of(first, last, [&](const auto &c) { return device.threadKey(events[c.second]).pid == *ownerPid; });
    for (auto it = first; it != last; ++it) {
        const EventIndex candidate = it->second;
        if (restrict && !(device.threadKey(events[candidate]).pid == *ownerPid))
            continue;
        if (events[candidate].ts <= gpuTs) {
            if (before.isNone() || events[candidate].ts > events[before].ts)
                before = candidate;
        } else if (after.isNone() || events[candidate].ts < events[after].ts) {
            after = candidate;
        }
    }
    return before.valid() ? before : after;
}

const TraceId *LaunchIndex::ownerOfDevice(TraceId gpuPid) const
{
    auto owner = deviceOwner_.find(gpuPid);
    return owner == deviceOwner_.end() ? nullptr : &owner->second;
}

EventIndex LaunchIndex::corroboratingAnnotation(const DeviceEvent &gpu, std::int64_t annotationExternalId) const
{
    if (annotationExternalId == kNoId)
        return kNone;
    auto it = gpuAnnotationsByExternalId_.find(annotationExternalId);
    if (it == gpuAnnotationsByExternalId_.end())
        return kNone;
    const EventView events(device_->events);
    for (EventIndex annotation : it->second) {
        const DeviceEvent &a = events[annotation];
        if (a.thread == gpu.thread && a.ts < gpu.end() + 1 && a.end() + 1 > gpu.ts)
            return annotation;
    }
    return kNone;
}

} // namespace linkscope::core
