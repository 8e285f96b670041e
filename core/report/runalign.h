#pragma once
// How File ▸ Compare with… puts run B's lanes beside run A's on one clock (docs/diff.md, "In the
// GUI"): the start of B's first step (ProfilerStep#N, the steps `linkscope summary` and `diff` count:
// analysis/profilersteps.h) is moved onto the start of A's first step, so the runs' steps
// line up whatever their clocks and whatever N each trace starts at. When either trace has no
// ProfilerStep#N, their first events (TraceIndex's minTs) meet instead, and the alignment says so.
// Of a job, each rank of B is aligned with the same rank of A.

#include "index/traceindex.h"
#include "model/devicetrace.h"

#include <cstdint>
#include <string>

namespace linkscope::core {

struct RunAlignment {
    bool bySteps = false;                // false: the traces' first events
    std::int64_t stepA = -1, stepB = -1; // bySteps: the N of the steps aligned
    // The instants made one, each on its trace's absolute clock (baseTimeNanoseconds + ts).
    Nanos atA = 0, atB = 0;
    std::string missing; // !bySteps: the run(s) without ProfilerStep#N ("A", "B", "A and B")

    // Added to an instant of B (absolute) it gives the instant of A (absolute) it is drawn at.
    Nanos shiftNs() const { return atA - atB; }
    // One phrase for the pane's title: "B's ProfilerStep#12 starts with A's ProfilerStep#3", or "no
    // ProfilerStep#N in B: the traces' first events aligned".
    std::string describe() const;
};

RunAlignment alignRuns(const DeviceTrace &a, const TraceIndex &indexA, const DeviceTrace &b, const TraceIndex &indexB);

} // namespace linkscope::core
