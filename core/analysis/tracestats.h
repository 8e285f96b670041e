#pragma once
// The whole trace at a glance, without selecting anything (the GUI's Summary dock, `linkscope
// summary`): the GPU ops and the CPU ops by name with their total time, each GPU stream's and each
// GPU's busy time, how much of its collective (NCCL/RCCL) time the GPU spent computing at the same
// time (the rest is exposed communication), and the step times (ProfilerStep#N spans).
//
// The GPU ops and the streams' busy time are computeRangeStats (analysis/rangestats.h) over the
// trace's extent; what this adds is the CPU ops, the communication / computation split and the steps.
// Names are copied: the result outlives the trace (a job keeps one per rank, job/ranksummary.h).
//
// Definitions (docs/summary.md):
// - extent: TraceIndex's [minTs, maxTs], every event of the trace; utilisation = busy / extent.
// - a stream's busy time: the union of its GPU ops (kernels, copies, memsets); a GPU's: the union over
//   its streams. Communication: the union of its collective kernels (isCollectiveKernel,
//   link/rules.h); computation: the union of its other GPU ops. Overlapped communication: the part of
//   a stream's (a GPU's) communication during which the same GPU ran computation on any stream;
//   exposed = communication - overlapped.
// - a CPU op (cat cpu_op) counts its whole duration in `total` (one nested in an op of the same name
//   counts in both) and in `self` its duration less that of the events directly nested in it on its
//   thread (runtime calls, other ops, Python frames).
// - steps: the CPU-side ProfilerStep#N spans (user_annotation or cpu_op; cat Trace when there is none),
//   one per N (the first), by start.
//
// Cost: O(n log n) in the events (the per-stream sort of collective and other intervals).

#include "index/traceindex.h"
#include "model/devicetrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::core {

struct SummaryOpStat {
    std::string name;
    std::string category; // Kineto cat: kernel, gpu_memcpy, gpu_memset, cpu_op
    std::uint64_t count = 0;
    Nanos total = 0; // sum of the durations
    Nanos self = 0;  // CPU ops: total less directly nested events; GPU ops: total
    Nanos max = 0;   // the longest one
    Nanos mean() const { return count ? static_cast<Nanos>(total / static_cast<Nanos>(count)) : 0; }
};

struct SummaryStream {
    std::string label; // "GPU 0 stream 7"
    std::int32_t device = -1;
    std::int64_t stream = -1;
    std::uint64_t ops = 0;    // GPU ops on the stream
    Nanos busy = 0;           // union of their intervals
    Nanos comm = 0;           // union of its collective kernels
    Nanos commOverlapped = 0; // of comm, while the GPU computed (any stream)
    Nanos exposedComm() const { return comm - commOverlapped; }
};

struct SummaryDevice {
    std::int32_t device = -1;
    std::uint64_t streams = 0;
    std::uint64_t ops = 0;
    Nanos busy = 0;           // union over its streams
    Nanos compute = 0;        // union of its non-collective GPU ops
    Nanos comm = 0;           // union of its collective kernels
    Nanos commOverlapped = 0; // comm ∩ compute
    Nanos exposedComm() const { return comm - commOverlapped; }
};

struct SummaryStep {
    std::int64_t number = -1; // N of ProfilerStep#N
    Nanos start = 0;          // ts as in the trace
    Nanos dur = 0;
};

struct StepTimes {
    std::size_t count = 0;
    Nanos total = 0, mean = 0, min = 0, median = 0, max = 0; // 0 without steps
};

struct TraceStats {
    Nanos start = 0; // the trace's extent
    Nanos end = 0;
    std::vector<SummaryOpStat> gpuOps;  // by name and category, longest total first
    std::vector<SummaryOpStat> cpuOps;  // cpu_op by name, longest total first
    std::vector<SummaryStream> streams; // every GPU stream, in lane order
    std::vector<SummaryDevice> devices; // every GPU with a stream, ascending
    std::vector<SummaryStep> steps;     // by start
    std::uint64_t events = 0;           // events of the trace

    Nanos span() const { return end - start; }
    double percentOf(Nanos time) const { return span() > 0 ? 100.0 * double(time) / double(span()) : 0.0; }
    // Over every GPU: busy, communication and exposed communication summed; utilisation is the
    // busy sum over (extent · GPUs), in percent.
    Nanos gpuBusy() const;
    Nanos comm() const;
    Nanos exposedComm() const;
    double gpuUtilisation() const;
    StepTimes stepTimes() const;
};

TraceStats computeTraceStats(const DeviceTrace &trace, const TraceIndex &index);

// The ops of several traces (a job's ranks) summed by (name, category), longest total first.
std::vector<SummaryOpStat> mergeOpStats(const std::vector<const std::vector<SummaryOpStat> *> &lists);

// The number of "ProfilerStep#12" (12), -1 when the name is not a step's.
std::int64_t profilerStepNumber(std::string_view name);

} // namespace linkscope::core
