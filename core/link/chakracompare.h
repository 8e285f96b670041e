#pragma once
// compared_with_chakra: what Chakra's linker would have made of the same pair, against our links
// (the corrected ones). The pair is linked again under Chakra 1.0's rule (Policy::ExternalId) and
// under the rule before Chakra PR #185 (Policy::EvIdx), over the same index, and each result is
// compared with ours GPU op by GPU op: a different parent, a GPU op Chakra drops (and why), a sync
// edge it loses. docs/linking.md ("Compared with Chakra") says what each count means.

#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace linkscope::core {

// Why Chakra leaves a GPU op out of its graph, first reason that applies.
enum class ChakraDropReason : std::uint8_t {
    Memset,           // Chakra links kernels and memcpys only (`is_gpu_op`)
    NoLaunchEvent,    // no launch with its correlation (the linker's no_correlation / no_launch_event, or a
                      // launch found only through an ac2g flow or the External id, which Chakra does not use)
    UnknownLaunchApi, // its launch is a runtime/driver call outside Chakra's list (cudaGraphLaunch, ...)
    NoEnclosingOp,    // the rule finds no CPU op on the launch thread before the launch (orphan reason)
    NoHostNode,       // the op the rule chooses has no host ET node (orphan reason no_host_node)
};
inline constexpr int kChakraDropReasonCount = 5;
std::string_view chakraDropReasonName(ChakraDropReason reason); // "memset", "no_launch_event", "unknown_launch_api", ...

// One Chakra rule against our links. Event indices are DeviceTrace::events indices of GPU ops, in
// event order.
struct RuleComparison {
    Policy policy = Policy::ExternalId;                          // ExternalId (Chakra 1.0) or EvIdx (before PR #185)
    std::size_t gpuOps = 0;                                      // GPU ops compared
    std::vector<EventIndex> differentParent;                     // it attaches the GPU op to another parent than ours
                                                                 // (or attaches one we leave without a parent)
    std::vector<EventIndex> collectiveOnRecordParamComms;        // of those: NCCL/RCCL kernels it puts on record_param_comms
    std::vector<EventIndex> dropped;                             // we attach the GPU op to a parent, it drops it
    std::array<std::size_t, kChakraDropReasonCount> droppedBy{}; // `dropped` by reason
    std::size_t syncEdges = 0;                                   // our sync edges
    std::size_t syncEdgesLost = 0;                               // of ours, not in its link set (or on a GPU op it drops)
    std::vector<EventIndex> syncLostGpuOps;                      // the GPU ops at the ends of the lost edges
    std::size_t linked = 0;                                      // GPU ops it gives a parent (before dropping)
    std::vector<EventIndex> fallback;                            // of those, by a rule other than its primary one
                                                                 // (Chakra 1.0: no External-id match, latest-starting op)

    // Every GPU op above once, in event order (the "changed vs Chakra" filter).
    std::vector<EventIndex> affected() const;
};

struct ChakraComparison {
    RuleComparison chakra10; // Policy::ExternalId
    RuleComparison pre185;   // Policy::EvIdx
};

// Whether Chakra keeps GPU link `theirs` in its graph; the reason when it does not.
bool chakraDrops(const DeviceTrace &trace, const GpuLink &theirs, ChakraDropReason *reason = nullptr);

// Compares `ours` with `theirs`, the same pair linked under a Chakra policy (theirs.policy).
RuleComparison compareLinkSets(const DeviceTrace &trace, const LinkSet &ours, const LinkSet &theirs);

// The pair linked under both Chakra rules. They do not depend on corrections: link once per load
// and compare again after every edit (compareWithChakra below is O(GPU ops + edges)).
struct ChakraLinks {
    std::shared_ptr<const LinkSet> chakra10; // Policy::ExternalId
    std::shared_ptr<const LinkSet> pre185;   // Policy::EvIdx
};

// Links the pair again under both Chakra rules over `index` (with `options`' tolerance and
// inter-thread setting; its policy and progress are not used).
ChakraLinks linkUnderChakra(const DeviceTrace &trace, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                            const LinkOptions &options = {});
// Compares each of `chakra` with `ours`.
ChakraComparison compareWithChakra(const DeviceTrace &trace, const ChakraLinks &chakra, const LinkSet &ours);
// Both steps at once.
ChakraComparison compareWithChakra(const DeviceTrace &trace, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                                   const LinkSet &ours, const LinkOptions &options = {});

} // namespace linkscope::core
