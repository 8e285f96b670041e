#pragma once
// What the job overview draws of one rank without keeping its traces: per GPU stream, when it was
// busy (the union of its kernels, copies and memsets, with gaps shorter than the overview's
// resolution closed, so a stream costs at most `maxIntervals` intervals however many events it
// has), and the rank's extent. Times are absolute on the rank's own clock (baseTimeNanoseconds +
// ts), the clock of CollectiveCall::launchNs / endNs; the job's clock offsets (job/timing.h) put
// ranks side by side.

#include "model/devicetrace.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::core::job {

struct StreamActivity {
    std::int32_t device = -1;
    std::int64_t stream = -1;
    std::uint64_t ops = 0;                                   // GPU ops on the stream
    std::int64_t busyNs = 0;                                 // exact union of their extents
    std::vector<std::pair<std::int64_t, std::int64_t>> busy; // [start, end), ascending, disjoint
};

struct RankOverview {
    std::int64_t startNs = 0;            // earliest event start (0, 0 for an empty trace)
    std::int64_t endNs = 0;              // latest event end
    std::vector<StreamActivity> streams; // by device, then stream
};

// One pass over the GPU ops plus a sort per stream: O(n log n) in the GPU ops, memory O(streams ·
// maxIntervals) once done.
RankOverview overviewOf(const DeviceTrace &device, std::size_t maxIntervals = 4096);

} // namespace linkscope::core::job
