#pragma once
// Exclusive durations of the CPU ops: each op's duration minus the time its children cover.

#include "index/traceindex.h"
#include "model/devicetrace.h"

#include <vector>

namespace linkscope::core {

// event → exclusive duration: per thread over cpu_op/user_annotation, dur minus the union of the
// children's intervals (clipped to the parent); every other event keeps its dur. Negative results are
// clamped to 0 and counted in a warning appended to `warnings`.
std::vector<Nanos> exclusiveDurations(const DeviceTrace &device, const TraceIndex &index, std::vector<Diagnostic> &warnings);

} // namespace linkscope::core
