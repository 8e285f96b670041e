#pragma once
// What a time range [start, end) of a trace holds: per GPU-op name the count, total, mean and
// longest time inside the range; per GPU stream the share of the range it was busy; per CPU thread
// the time it spent inside traced events. Every duration is clipped to the range, and nested events
// are counted once (busy and CPU time are the length of the union of the lane's intervals).
//
// Cost: per lane two binary searches (TraceIndex's start and max-end arrays) and a walk up the
// nesting parents of the last event starting before the range, then one visit per event starting in
// it: O(lanes · (log n + depth) + k) for k events in the range, whatever the trace's size.

#include "index/traceindex.h"
#include "model/devicetrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::core {

struct RangeOpStat {
    StringId name = 0;
    EventCategory category = EventCategory::Kernel; // Kernel, GpuMemcpy or GpuMemset
    std::uint64_t count = 0;                        // ops overlapping the range
    Nanos total = 0;                                // their time inside the range
    Nanos max = 0;                                  // the longest one's time inside the range
    Nanos mean() const { return count ? static_cast<Nanos>(total / static_cast<Nanos>(count)) : 0; }
};

struct RangeLaneStat {
    LaneIndex lane{};         // TraceIndex lane
    std::uint64_t events = 0; // events (GPU ops on a stream) overlapping the range
    Nanos time = 0;           // union of their intervals inside the range
};

struct RangeStats {
    Nanos start = 0;
    Nanos end = 0;
    std::vector<RangeOpStat> ops;       // GPU ops by name and category, longest total first
    std::vector<RangeLaneStat> streams; // every GPU stream lane, in lane order; time = busy time
    std::vector<RangeLaneStat> threads; // every CPU thread lane, in lane order; time = CPU time
    Nanos span() const { return end - start; }
    // time / span() in percent (0 for an empty range).
    double percentOf(Nanos time) const { return span() > 0 ? 100.0 * double(time) / double(span()) : 0.0; }
};

// The statistics of [start, end) (swapped when given backwards). Events on no lane are ignored.
RangeStats computeRangeStats(const DeviceTrace &trace, const TraceIndex &index, Nanos start, Nanos end);

// The statistics as one table: a header line, then a line per GPU-op name, per GPU stream and per
// CPU thread, with the columns
//   section, name, category, count, total_ns, mean_ns, max_ns, percent_of_range
// (section "gpu_op", "stream" or "thread"; an op's percent is its total over the range's length, above
// 100 when it ran on several streams at once; category is the op's Kineto category, "GPU <device>" for a
// stream, "pid <pid>" for a thread; for a stream, total_ns is its busy time and count its GPU ops; for
// a thread, its CPU time and events; mean and max are empty for lanes). Comma-separated with RFC 4180 quoting, or
// tab-separated with tabs and line breaks in names replaced by spaces (for a clipboard).
enum class TableFormat : std::uint8_t { Csv, Tsv };
std::string rangeStatsTable(const RangeStats &stats, const DeviceTrace &trace, const TraceIndex &index, TableFormat format);
// One line of such a table (the header's columns), for callers that write selected lines only.
std::string rangeStatsHeader(TableFormat format);
std::string rangeStatsOpLine(const RangeStats &stats, const RangeOpStat &op, const DeviceTrace &trace, TableFormat format);
std::string rangeStatsLaneLine(const RangeStats &stats, const RangeLaneStat &lane, bool stream, const DeviceTrace &trace,
                               const TraceIndex &index, TableFormat format);

} // namespace linkscope::core
