#pragma once
// One rank's collective and P2P calls, read from its linked traces: every GPU op the Chakra export
// would write as a communication node (collective/classify.h decides, for both), with its
// process group, type, dtype, element count, bytes and peer, and when it was launched and ended.

#include "jobmodel/crossrank.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <vector>

namespace linkscope::core::job {

// `host` may be null (a Kineto trace alone). Issue order: by the launching runtime call's time
// (the kernel's own start when the launch is unknown). Times are absolute on the rank's clock
// (baseTimeNanoseconds + ts).
std::vector<CollectiveCall> collectiveCallsOf(const DeviceTrace &device, const HostTrace *host, const LinkSet &links);

} // namespace linkscope::core::job
