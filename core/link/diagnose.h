#pragma once
// The diagnosis stage: the findings of a link set — run by the linker on its own links, and again
// for every GPU op a correction changes, so that findings always describe the links that will be
// exported (a finding a correction resolves disappears, one it creates appears).
//
// Findings come in three parts (FindingList, link/finding.h): trace-wide ones (duplicate
// correlations), one group per GPU op (orphan, GPU before launch, launch outside parent, NCCL
// kernel on record_param_comms, policy disagreement), and host-side ones (ET parent missing, rf_id
// absent, host op without device op, device op without ET node). Only the per-GPU-op group depends
// on the parents, so only it is derived again after a correction.

#include "link/linkset.h"
#include "model/devicetrace.h"

#include <vector>

namespace linkscope::core {

// The findings of GPU link `linkIndex` under `links` (appended to `out`, in report order). Uses
// only the link, the trace and what the linker recorded about its launch (LinkSet::evidence).
void diagnoseGpuOp(const DeviceTrace &trace, const LinkSet &links, GpuLinkIndex linkIndex, std::vector<Finding> &out);

// Every GPU op of `links` in order: their findings appended to `perOp`, and `begin` (empty on entry)
// filled with each op's first position in it plus the end, as FindingList takes them.
void diagnoseEveryGpuOp(const DeviceTrace &trace, const LinkSet &links, std::vector<Finding> &perOp,
                        std::vector<std::uint32_t> &begin);

// Derives the per-GPU-op findings of `links` again from scratch (the trace-wide and host-side ones
// are kept): what a correction's incremental update must equal.
FindingList diagnoseAll(const DeviceTrace &trace, const LinkSet &links);

// Updates the findings of GPU link `linkIndex` in `links.findings` after its link changed.
void rediagnoseGpuOp(const DeviceTrace &trace, LinkSet &links, GpuLinkIndex linkIndex);

// "'name' at 123 ns (Ev Idx 4)": how findings name an event.
std::string describeEvent(const DeviceTrace &trace, EventIndex event);

} // namespace linkscope::core
