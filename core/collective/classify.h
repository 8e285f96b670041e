#pragma once
// Which collective a GPU op is, how many bytes it moves, in which process group, between which
// peers: one classifier for the exporters (how it is written, export/chakra/chakrakind.h) and for a job's
// collective calls (job/rankcalls.h). The collective's own metadata is believed before kernel names
// (kernel names vary: ncclKernel/ncclDevKernel, RCCL's ncclDevKernel_Generic): Kineto collective
// args on the kernel, then ET comm attrs of the enclosing record_param_comms, then its
// collective-name input, then the nccl:* op names, and only then the kernel name. An unrecognisable collective is reported, never a reason to abort.

#include "collective/callkind.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::core {

// Substring rules over a normalised name (lower case, '_', '-', ' ' removed), most specific first.
// A point-to-point name that does not say which way ("SendRecv": a p2p kernel) is CallKind::Unknown;
// a name that says nothing about a collective is none.
std::optional<CallKind> collectiveKindFromName(std::string_view name);

struct CommInfo {
    bool isComm = false;               // an NCCL/RCCL kernel or a GPU op carrying collective args
    CallKind kind = CallKind::Unknown; // Unknown: not a communication op, or one whose collective could not be told
    std::int64_t bytes = 0;
    std::string pgName;
    std::int64_t groupSize = -1;               // ranks in the process group (Kineto "Group size", ET pg_size); -1 unknown
    std::int32_t src = -1, dst = -1, tag = -1; // send/recv peers, -1 unknown
    std::string_view typeSource;               // "kineto_collective_args", "et_comm_attrs", "record_param_comms_input",
                                               // "nccl_op_name", "coalesced_children", "kernel_name", "sendrecv_default"
    std::string_view sizeSource; // "parent_inputs", "record_param_comms_inputs", "kineto_msg_nelems", "et_msg_nelems"
};

// Where comm_size comes from first: the parent op's tensors (chakra_converter's rule), or the
// collective's own element counts (Kineto args, then ET comm attrs; the astra-sim target).
enum class SizeRule : std::uint8_t { ParentTensors, CollectiveMetadata };

// `parentHost` is the GPU op's parent host node (HostTrace index). Throws ExportError
// (model/exporterror.h) when the host ET's text it needs cannot be read (the file changed on disk).
CommInfo classifyGpuOp(const HostTrace &host, const DeviceTrace &device, EventIndex event, HostNodeIndex parentHost,
                       SizeRule sizeRule = SizeRule::ParentTensors);

// The dtype an NCCL/RCCL kernel name carries ("…_Sum_f16_RING_LL" → "float16",
// "ncclKernel_AllReduce_RING_LL_Sum_float" → "float32"); "" when it carries none.
std::string dtypeFromKernelName(std::string_view name);

// Bytes per element of a dtype as traces spell it ("c10::Half", "float16", "BFloat16", "int64"); 0
// when unknown.
std::int64_t dtypeBytes(std::string_view dtype);

// Σ numel × itemsize over the Tensor and GenericList[Tensor…] inputs (chakra_converter's comm_size rule).
std::int64_t tensorInputBytes(const HostTrace &host, const HostNode &node);

} // namespace linkscope::core
