#pragma once
// The parts of the astra-sim .et target that differ from the Chakra one (docs/astra-sim-export.md):
// node durations that make ASTRA-sim's replay take the measured time, and which GPU ops it can run
// as communication. Used by chakraconverter.cpp when ChakraOptions::target is AstraSim.

#include "collective/classify.h"

#include "export/blockedtime.h"
#include "export/exporter.h"

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

inline constexpr Nanos kNoLeadIn = std::numeric_limits<Nanos>::min();

// ASTRA-sim runs the CPU nodes of all threads of a rank one at a time, each for its duration, and
// the GPU compute nodes of all streams one at a time. Durations here (ns, per graph position):
//  - CPU: each thread's span from its first op to its last is cut into pieces, each owned by the
//    node ASTRA-sim runs then: an op's own time before its first child belongs to it; a gap, and a
//    parent's time after one of its children, to the next op to start on the thread (the node
//    ASTRA-sim runs next in the thread's chain). Where the pieces of several threads overlap, the
//    instant belongs to the piece that began last (the thread with the latest activity: a thread
//    blocked in an op waiting for another is not the one working). Gaps where no thread has a
//    piece go to the next piece that starts. The pieces of a rank then sum to its CPU span.
//  - GPU compute: where kernels of several streams overlap, the instant belongs to the one that
//    started last, so the device's kernels sum to its busy time.
// `chainBegin`/`chainList`: the CPU nodes of each thread in the order ASTRA-sim chains them.
// `gpuCompute`: 1 for the GPU nodes written as COMP_NODE (communication nodes keep their own
// duration: the simulator computes their time). `blocked`: each thread's blocked time
// (export/blockedtime.h), given to no node; an op's time after a blocked interval inside it goes to
// the op that continues on its thread. `leadInFrom` (with keepGaps): the time from it to the
// first CPU piece goes to that piece's node (the iteration's start before its first exported op).
// Rounded to microseconds with the remainder carried along each chain and each device, so sums are
// kept to the microsecond.
//
// `laneNs` is each node's time on its own thread or stream, nothing cut where lanes overlap: a
// thread's pieces, a kernel from its dispatch to its end (what a replay with one CPU per thread and
// one queue per stream runs, predict/replay.h's faithful model; written as the attr `lane_dur_ns`).
// -1 for a node that is neither a CPU node nor a GPU compute node. `dispatchNs`: the part of a GPU
// compute node's lane time that is its dispatch latency (below; 0 for the rest): a what-if that
// scales the kernel keeps it (attr `dispatch_ns`).
struct AstraSimDurations {
    std::vector<std::uint64_t> micros;
    std::vector<Nanos> laneNs;
    std::vector<Nanos> dispatchNs;
    Nanos gpuBusyNs = 0;    // Σ GPU compute time as ASTRA-sim runs it (overlaps cut)
    Nanos gpuOverlapNs = 0; // Σ lane time − the above: kernel time that ran beside another stream's kernel
};
AstraSimDurations astraSimDurations(const EtPlusGraph &graph, const DeviceTrace &device, const LinkSet &links,
                                    std::span<const std::uint32_t> chainBegin, std::span<const std::uint32_t> chainList,
                                    std::span<const std::uint8_t> gpuCompute, const ChakraOptions &options,
                                    Nanos leadInFrom = kNoLeadIn, const BlockedIntervals *blocked = nullptr);

// Collectives ASTRA-sim's workload layer issues (the others abort it): all-reduce, all-to-all,
// all-gather, reduce-scatter, broadcast (replayed for its duration).
bool astraSimRunsCollective(std::int64_t commType);

// A JSON object {"process group name": integer id (number or digit string)}: the names a job's
// comm_group.json numbers. Throws LoadError naming the file and what is wrong.
std::map<std::string, std::string> readProcessGroupIds(const std::string &path);

// How the astra-sim target writes a GPU op: the node type ASTRA-sim can run (a communication op it
// cannot run — nothing moved, an unknown collective, a one-rank group, a peer-less send — is written
// as COMP_NODE and replayed for its measured time).
struct AstraGpuKind {
    ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE;
    bool demoted = false; // a communication op written as COMP_NODE (replayed for its measured time)
};
AstraGpuKind astraGpuKind(const CommInfo &comm);

// A `## process_group:init ##` node (Chakra's METADATA_NODE).
bool isProcessGroupMetadataName(std::string_view name);

} // namespace linkscope::core
