#pragma once
// Host ET node ↔ Kineto CPU event join: rf_id ↔ "Record function id", or, for traces without it,
// the constant offset that "Ev Idx" / "External id" has to rf_id, confirmed by names.

#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <vector>

namespace linkscope::core {

struct HostJoin {
    HostJoinStats stats;
    std::vector<HostNodeIndex> hostOfEvent; // device event → host node index, or none
    std::vector<EventIndex> eventOfHost;    // host node → device event index, or none
    std::vector<Diagnostic> warnings;       // e.g. "rf_id absent: the ET observer was not attached"
};

HostJoin joinHostToDevice(const HostTrace &host, const DeviceTrace &device);

} // namespace linkscope::core
