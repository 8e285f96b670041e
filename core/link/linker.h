#pragma once
// The linker: host join, GPU op → launch → parent CPU op under a policy, durations, edges, findings.

#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

namespace linkscope::core {

// `host` may be null (Kineto only: GPU→CPU links without host nodes).
// Throws Cancelled if options.progress asks to stop.
// linkTraces builds the index (the index stage) itself; linkWithIndex takes one: pass the same index
// to every relink of one load, so that lane rows and the index are shared.
LinkSet linkTraces(const DeviceTrace &device, const HostTrace *host, const LinkOptions &options = {});
LinkSet linkWithIndex(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                      const LinkOptions &options = {});

} // namespace linkscope::core
