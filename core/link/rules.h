#pragma once
// Trace rules every caller shares — the GUI, the command line, sidecars and exporters call these and
// never restate them (docs/architecture.md, "One home per rule").

#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

// ---- collectives -------------------------------------------------------------------------------

// Whether a kernel name is a collective library's (NCCL or RCCL): contains "nccl" or "rccl" in any
// case (ncclKernel_*, ncclDevKernel_*, rcclGenericKernel, ...).
bool isCollectiveKernelName(std::string_view name);
// Whether a GPU op is a collective: it carries Kineto collective args, or its name says so.
bool isCollectiveKernel(const DeviceTrace &trace, const DeviceEvent &event);
// Chakra's own test, `"nccl" in name.lower()`, kept apart: the external-id and ev-idx policies
// reproduce Chakra's choices, including its blind spot for RCCL.
bool chakraSaysNccl(std::string_view name);

// ---- what Chakra's linker sees -----------------------------------------------------------------

// Chakra's `is_kernel_launch_op` name list (chakra_trace_link, kineto_operator.py): a GPU op whose
// launch is another runtime/driver call (cudaGraphLaunch, cudaMemsetAsync, cudaMemcpy2DAsync, ...)
// is not linked by Chakra, which then drops it. The linker itself accepts any runtime/driver call.
bool chakraKnowsLaunchApi(std::string_view launchName);
// Chakra's `is_gpu_op`: kernels and memcpys; memsets are dropped.
bool chakraSeesGpuOp(EventCategory category);

// ---- policies ----------------------------------------------------------------------------------

// The rules a policy applies first; a parent made by any other rule is that policy's fallback.
bool isPrimaryRule(Policy policy, ParentRule rule);

// ---- re-parenting ------------------------------------------------------------------------------

// Why `newParent` cannot be the parent of GPU op `gpuEvent` under `links`, or empty when it can:
// the GPU op must be a linked GPU op, the target a CPU op (cpu_op or user_annotation) in the
// process that launched the GPU op (its launch call's process, else its current parent's).
// Every caller checks through here: the GUI before a drop, LinkEditor for every Reparent edit
// (sidecars, `export --corrections`, `link --corrections`).
enum class ReparentRefusal : std::uint8_t {
    None,         // allowed
    NotAGpuOp,    // the subject is not a linked GPU op
    NoSuchEvent,  // the target is not an event of this trace
    NotACpuOp,    // the target is not a cpu_op or user_annotation
    OtherProcess, // the target is in another process than the GPU op's launch
};
struct ReparentCheck {
    ReparentRefusal refusal = ReparentRefusal::None;
    std::string reason; // for the user, naming the events and processes; empty when allowed
    bool allowed() const { return refusal == ReparentRefusal::None; }
};
ReparentCheck checkReparent(const DeviceTrace &trace, const LinkSet &links, EventIndex gpuEvent, EventIndex newParent);

// The CPU ops worth offering as a new parent of `gpuEvent`, best first: the ops enclosing its launch
// on the launching thread (innermost first), the innermost enclosing op, each policy's choice, and
// `linkerParent` (the linker's own choice, when a correction changed it). Only valid targets.
std::vector<EventIndex> reparentCandidates(const DeviceTrace &trace, const LinkSet &links, EventIndex gpuEvent,
                                           EventIndex linkerParent = kNone);

// ---- lookups -----------------------------------------------------------------------------------

enum class EventKey : std::uint8_t { RecordFunctionId, EvIdx, ExternalId, Correlation };

// Events on a lane whose key equals `value`, by start time (then index). For rf_id, a host ET node
// with that rf_id finds its joined event too (traces whose Kineto side has no rf_id).
std::vector<EventIndex> findEvents(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links, EventKey key,
                                   std::int64_t value);
// The first CPU op (in event order) whose rf_id / Ev Idx is `value`, none if none.
EventIndex findCpuOp(const DeviceTrace &trace, EventKey key, std::int64_t value);

} // namespace linkscope::core
