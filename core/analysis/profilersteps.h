#pragma once
// A trace's steps: the CPU-side ProfilerStep#N spans (user_annotation or cpu_op; cat Trace when there
// is none), one per N (the first), by start — TraceStats::steps (analysis/tracestats.h), `linkscope
// summary`'s and `diff`'s steps, and the instant File ▸ Compare with… aligns two runs on
// (report/runalign.h). Defined with computeTraceStats, which fills its steps with it.

#include "analysis/tracestats.h"

#include <vector>

namespace linkscope::core {

std::vector<SummaryStep> profilerSteps(const DeviceTrace &trace);

} // namespace linkscope::core
