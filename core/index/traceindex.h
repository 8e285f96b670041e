#pragma once
// Lanes and interval indexes over a DeviceTrace: what the linker walks and the timeline draws.

#include "model/devicetrace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::core {

enum class LaneKind : std::uint8_t { CpuThread, GpuStream, Other };

struct Lane {
    LaneKind kind = LaneKind::Other;
    ThreadKey key;                   // (pid, tid) exactly as in the file
    std::int32_t device = -1;        // GPU lanes
    std::int64_t stream = -1;        // GPU lanes
    std::string label;               // "thread 1331 (python)", "GPU 0 stream 7", ...
    std::vector<EventIndex> events;  // complete events on this lane, sorted by (ts asc, dur desc, file order)
    std::vector<Nanos> maxEndPrefix; // maxEndPrefix[i] = max end of events[0..i]; for range queries
    std::vector<Nanos> startTs;      // startTs[i] = ts of events[i] (binary search without the trace)
    std::uint16_t rowCount = 1;      // max nesting depth + 1
};

struct TraceIndex {
    std::vector<Lane> lanes;            // grouped by process: CPU threads first, then GPU streams
    std::vector<LaneIndex> laneOf;      // event → lane, none for events not on a lane
    std::vector<EventIndex> nestParent; // event → innermost enclosing event on its lane, or none
    std::vector<std::uint16_t> depth;   // event → nesting depth on its lane (0 = top)
    Nanos minTs = 0;
    Nanos maxTs = 0;
    std::vector<Diagnostic> warnings; // what the index stage found (partial overlaps)

    // Positions [first, last) in lane.events of the events that may overlap [t0, t1):
    // every overlapping event is inside; binary search on start and on maxEndPrefix.
    std::pair<std::size_t, std::size_t> visibleRange(const Lane &lane, Nanos t0, Nanos t1) const;
    const Lane &lane(LaneIndex i) const { return lanes[i.get()]; }
    // Per event, none (0 for depth) for an event outside the trace or on no lane.
    LaneIndex laneOfEvent(EventIndex e) const { return e.in(laneOf.size()) ? laneOf[e.get()] : LaneIndex(kNone); }
    EventIndex nestParentOf(EventIndex e) const { return e.in(nestParent.size()) ? nestParent[e.get()] : EventIndex(kNone); }
    std::uint16_t depthOf(EventIndex e) const { return e.in(depth.size()) ? depth[e.get()] : 0; }
};

// Builds lanes, nesting (stack sweep per lane, O(n log n)) and the range index.
// Events that only partially overlap an open op are treated as its siblings, and a warning is
// appended to `warnings` (bounded count plus a total).
TraceIndex buildTraceIndex(const DeviceTrace &trace, std::vector<Diagnostic> *warnings = nullptr);

// The index stage: built once per load and shared (by every relink, every correction and the UI's
// lane rows); its warnings are kept in TraceIndex::warnings.
std::shared_ptr<const TraceIndex> indexTrace(const DeviceTrace &trace);

} // namespace linkscope::core
