#pragma once
// The per-policy parent search (docs/linking.md, steps 2–5) on a launch thread's candidates: the
// nesting policy's innermost enclosing op, Chakra HEAD's and Chakra pre-#185's latest-starting op, and
// the op carrying a launch's External id. GPU ops come in time order per stream, so consecutive
// searches land close together: each search starts where the previous one on its list ended (the
// fingers of base/nearsearch.h), which is the searcher's state, advanced by every search.

#include "link/threadcandidates.h"
#include "model/devicetrace.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace linkscope::core {

class ParentSearch {
public:
    ParentSearch(const DeviceTrace &device, const ThreadCandidates &candidates, Nanos enclosureTolerance);

    // Innermost candidate on the thread enclosing `ts`. Exact containment wins; an op that encloses
    // only within the tolerance (clock rounding) is used when nothing encloses exactly.
    EventIndex innermostEnclosing(const ThreadOps &thread, Nanos ts);

    // Chakra HEAD `find_closest_op`: among the thread's ops starting strictly before the launch, the
    // latest one whose External id equals the GPU op's (second: true), else the latest one;
    // nccl:coalesced skipped for NCCL.
    std::pair<EventIndex, bool> chakraHead(const ThreadOps &thread, Nanos launchTs, const DeviceEvent &gpu);

    // Chakra before PR #185 (`52d7c30` find_closest_op), including its nccl:coalesced handling.
    EventIndex chakraPre185(const ThreadOps &thread, Nanos launchTs, const DeviceEvent &gpu);

    // The thread's cpu_op carrying `externalId` as its own id (docs/linking.md, step 5), none if none.
    EventIndex cpuOpWithExternalId(const ThreadOps &thread, std::int64_t externalId);

private:
    // Where the last search in each of a thread's sorted lists ended.
    struct Fingers {
        std::size_t nestStart = 0;
        std::size_t chakraStart = 0;
        std::size_t chakraByExternalId = 0;
    };

    bool isNcclName(StringId name);
    bool skipForNccl(bool ncclGpu, EventIndex event) const;

    const DeviceTrace &device_;
    const ThreadCandidates &candidates_;
    Nanos enclosureTolerance_;
    std::vector<Fingers> fingersOfThread_;    // by ThreadOps::slot
    std::size_t chakraInTimeOrderFinger_ = 0; // in ThreadCandidates::chakraStartsInTimeOrder()
    std::vector<std::int8_t> ncclByName_;     // StringId → -1 not decided yet, 0 / 1
};

} // namespace linkscope::core
