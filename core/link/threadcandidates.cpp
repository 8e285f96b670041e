#include "link/threadcandidates.h"

#include "base/sortedsegments.h"
#include "link/linkcommon.h"

#include <limits>
#include <string_view>

namespace linkscope::core {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Two tests on every CPU op's name, decided once per distinct name instead of per op.
enum : std::uint8_t { kStepPrefix = 1, kMentionsStep = 2 };

} // namespace

ThreadCandidates::ThreadCandidates(const DeviceTrace &device, const TraceIndex &index, const HostTrace *host,
                                   const std::vector<HostNodeIndex> &hostOfEvent)
    : device_(device), host_(host), hostOfEvent_(hostOfEvent)
{
    nestParentOf_.assign(device.events.size(), kNone);
    std::vector<std::uint8_t> nameFlags(device.strings.size());
    for (StringId id = 0; id < nameFlags.size(); ++id) {
        const std::string_view name = device.strings.at(id);
        nameFlags[id] = static_cast<std::uint8_t>((startsWith(name, "ProfilerStep#") ? kStepPrefix : 0)
                                                  | (name.find("ProfilerStep") != std::string_view::npos ? kMentionsStep : 0));
    }
    std::vector<std::pair<Nanos, EventIndex>> allThreads; // (ts, event): Chakra's all-thread order
    std::vector<std::size_t> segmentEnds;                 // end of each thread's part of `allThreads`
    for (const Lane &lane : index.lanes) {
        if (lane.kind != LaneKind::CpuThread)
            continue;
        addThread(lane, nameFlags);
        const ThreadOps &thread = threads_.back();
        for (std::uint32_t position = 0; position < thread.chakra.size(); ++position)
            allThreads.emplace_back(thread.chakraStart[position], thread.chakra[position]);
        segmentEnds.push_back(allThreads.size());
    }
    // Each thread's segment is already in (ts, event) order: merging them pairwise gives the sorted
    // all-thread order in O(n log threads).
    mergeSortedSegments(allThreads, segmentEnds);
    chakraInTimeOrder_.reserve(allThreads.size());
    chakraStartsInTimeOrder_.reserve(allThreads.size());
    for (const auto &[ts, event] : allThreads) {
        chakraStartsInTimeOrder_.push_back(ts);
        chakraInTimeOrder_.push_back(event);
    }
}

void ThreadCandidates::addThread(const Lane &lane, const std::vector<std::uint8_t> &nameFlags)
{
    const EventView events(device_.events);
    const auto slot = static_cast<std::uint32_t>(threads_.size());
    slotOfThread_.emplace(lane.key, slot);
    ThreadOps &thread = threads_.emplace_back();
    thread.slot = slot;
    thread.key = lane.key;
    for (EventIndex event : lane.events) {
        const DeviceEvent &e = events[event];
        if (!isCpuOpCategory(e.category))
            continue;
        const std::uint8_t flags = nameFlags[e.name];
        if (!(flags & kStepPrefix))
            thread.nest.push_back(event);
        if (!(flags & kMentionsStep))
            thread.chakra.push_back(event);
    }
    // The lane is sorted (ts asc, dur desc, file order): only runs of equal keys need re-sorting.
    sortForNesting(thread.nest);
    sweepNesting(thread);
    sortRuns(
        thread.chakra, [&](EventIndex a, EventIndex b) { return events[a].ts == events[b].ts; },
        [](EventIndex a, EventIndex b) { return a < b; });
    thread.chakraStart.reserve(thread.chakra.size());
    thread.chakraByExternalId.reserve(thread.chakra.size());
    for (std::uint32_t position = 0; position < thread.chakra.size(); ++position) {
        const DeviceEvent &e = events[thread.chakra[position]];
        thread.chakraStart.push_back(e.ts);
        thread.chakraByExternalId.emplace_back(e.externalId, position);
    }
    sortValues(thread.chakraByExternalId);
}

// Ties (docs/linking.md, step 3): equal start → longer first (it encloses); equal interval → the ET descendant
// (larger ET id) is inner, then the larger Ev Idx; an op without an ET node counts as outer.
void ThreadCandidates::sortForNesting(std::vector<EventIndex> &list) const
{
    const EventView events(device_.events);
    auto hostId = [&](EventIndex event) -> std::int64_t {
        const HostNodeIndex node = hostOfEvent_[event.get()];
        return (node.isNone() || !host_) ? std::numeric_limits<std::int64_t>::min() : host_->node(node).id;
    };
    // `list` comes in lane order (ts asc, dur desc, file order): only equal intervals need the tie rule.
    sortRuns(
        list, [&](EventIndex a, EventIndex b) { return events[a].ts == events[b].ts && events[a].dur == events[b].dur; },
        [&](EventIndex a, EventIndex b) {
            const DeviceEvent &ea = events[a];
            const DeviceEvent &eb = events[b];
            const auto ha = hostId(a), hb = hostId(b);
            if (ha != hb)
                return ha < hb;
            if (ea.evIdx != eb.evIdx)
                return ea.evIdx < eb.evIdx;
            return a < b;
        });
}

void ThreadCandidates::sweepNesting(ThreadOps &thread)
{
    const EventView events(device_.events);
    thread.nestStart.resize(thread.nest.size());
    thread.nestParent.assign(thread.nest.size(), kNoPosition);
    std::vector<std::uint32_t> open;
    for (std::uint32_t position = 0; position < thread.nest.size(); ++position) {
        const DeviceEvent &e = events[thread.nest[position]];
        thread.nestStart[position] = e.ts;
        while (!open.empty() && events[thread.nest[open.back()]].end() <= e.ts)
            open.pop_back();
        while (!open.empty() && events[thread.nest[open.back()]].end() < e.end())
            open.pop_back(); // partial overlap: siblings (the index already warned)
        if (!open.empty()) {
            thread.nestParent[position] = open.back();
            nestParentOf_[thread.nest[position].get()] = thread.nest[open.back()];
        }
        open.push_back(position);
    }
}

const ThreadOps *ThreadCandidates::find(const ThreadKey &key) const
{
    auto it = slotOfThread_.find(key);
    return it == slotOfThread_.end() ? nullptr : &threads_[it->second];
}

bool ThreadCandidates::isNestAncestor(EventIndex ancestor, EventIndex event) const
{
    for (EventIndex parent = nestParentOf(event); parent.valid(); parent = nestParentOf(parent))
        if (parent == ancestor)
            return true;
    return false;
}

} // namespace linkscope::core
