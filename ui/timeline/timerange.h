#pragma once
// What a time-range (area) selection covers, per lane group: computed once when the range is set
// (mouse release), never per mouse move. Event counts come from the per-row sorted starts (two
// binary searches per row), so they cost O(rows · log n) whatever the range; GPU ops are counted
// from the one-byte style array, exactly up to kExactGpuOpBudget events in the range and by a
// strided sample above that (then marked estimated).

#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace linkscope::ui {

struct TimeRangeGroup {
    QString label;
    bool gpu = false;
    std::uint64_t events = 0; // events overlapping the range (start < end of range, end > its start)
    std::uint64_t gpuOps = 0; // of those, kernels / memcpys / memsets
    bool gpuOpsEstimated = false;
};

struct TimeRangeSummary {
    core::Nanos start = 0;
    core::Nanos end = 0;
    std::vector<TimeRangeGroup> groups; // in layout order; groups with no event in range are kept
    std::uint64_t events() const;
    std::uint64_t gpuOps() const;
    bool estimated() const;
};

inline constexpr std::uint64_t kExactGpuOpBudget = 4'000'000;

// [first, last) positions in `rows.events` of row `row`'s events overlapping [start, end).
std::pair<std::uint32_t, std::uint32_t> rowEventsOverlapping(const LaneRows &rows, int row, const core::DeviceTrace &trace,
                                                             core::Nanos start, core::Nanos end);

TimeRangeSummary summarizeTimeRange(const TraceDocument &doc, const TimelineLayout &layout, core::Nanos start, core::Nanos end);

// A few HTML lines for the Details dock: duration, then one table row per group.
QString timeRangeHtml(const TimeRangeSummary &summary);

} // namespace linkscope::ui
