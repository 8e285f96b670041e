#pragma once
// The per-thread candidate lists (docs/linking.md, steps 2–3): for every CPU thread the CPU ops each
// policy may choose as a parent, in the order that policy needs them, and Chakra's all-thread order.

#include "index/traceindex.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace linkscope::core {

// One CPU thread's candidates. Positions in these lists are plain integers (docs/architecture.md).
struct ThreadOps {
    std::uint32_t slot = 0; // this thread's position in ThreadCandidates::threads()
    ThreadKey key;
    // Candidates (docs/linking.md): cpu_op / user_annotation except ProfilerStep#*, sorted (ts asc, dur desc, ET id, Ev Idx).
    std::vector<EventIndex> nest;
    std::vector<Nanos> nestStart;
    std::vector<std::uint32_t> nestParent; // position in `nest` of the enclosing candidate, kNoPosition
    // Chakra's candidates: cpu_op / user_annotation without "ProfilerStep" in the name, (ts, file order).
    std::vector<EventIndex> chakra;
    std::vector<Nanos> chakraStart;
    std::vector<std::pair<std::int64_t, std::uint32_t>> chakraByExternalId; // (External id, position), sorted
};

class ThreadCandidates {
public:
    // `hostOfEvent` (event → joined ET node, none) and `host` (may be null) decide the nesting ties.
    ThreadCandidates(const DeviceTrace &device, const TraceIndex &index, const HostTrace *host,
                     const std::vector<HostNodeIndex> &hostOfEvent);

    const std::vector<ThreadOps> &threads() const { return threads_; }
    const ThreadOps *find(const ThreadKey &key) const;

    // Chakra's candidates of every thread in (ts, event) order, and their start times.
    const std::vector<EventIndex> &chakraInTimeOrder() const { return chakraInTimeOrder_; }
    const std::vector<Nanos> &chakraStartsInTimeOrder() const { return chakraStartsInTimeOrder_; }

    // event → the enclosing nesting candidate on its thread (none for top-level ops and other events).
    EventIndex nestParentOf(EventIndex event) const { return nestParentOf_[event.get()]; }
    bool isNestAncestor(EventIndex ancestor, EventIndex event) const;
    // Hands the nesting parents over (to LinkEvidence::opParent); nestParentOf() is unusable after.
    std::vector<EventIndex> releaseNestParents() { return std::move(nestParentOf_); }

private:
    void addThread(const Lane &lane, const std::vector<std::uint8_t> &nameFlags);
    void sortForNesting(std::vector<EventIndex> &list) const;
    void sweepNesting(ThreadOps &thread);

    const DeviceTrace &device_;
    const HostTrace *host_;
    const std::vector<HostNodeIndex> &hostOfEvent_;
    std::vector<ThreadOps> threads_;
    std::map<ThreadKey, std::uint32_t> slotOfThread_;
    std::vector<EventIndex> chakraInTimeOrder_;
    std::vector<Nanos> chakraStartsInTimeOrder_;
    std::vector<EventIndex> nestParentOf_;
};

} // namespace linkscope::core
