#pragma once
// The findings the linker makes itself (docs/linking.md): trace-wide (duplicate correlations) and
// host-side (ET parent missing, rf_id absent, host op without device op, device op without ET node).
// The per-GPU-op findings are the diagnosis stage's (link/diagnose.h).

#include "link/finding.h"
#include "link/linkset.h"
#include "link/threadcandidates.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <string>
#include <vector>

namespace linkscope::core {

Finding eventFinding(FindingKind kind, FindingSeverity severity, EventIndex event, std::string message, std::string suggestion);
Finding hostNodeFinding(FindingKind kind, FindingSeverity severity, HostNodeIndex node, std::string message,
                        std::string suggestion);
Finding traceFinding(FindingKind kind, FindingSeverity severity, std::string message, std::string suggestion);

// Several runtime/driver events of process `pid` share `correlation`: `events` (at least two).
Finding duplicateCorrelationFinding(const DeviceTrace &device, TraceId pid, std::int64_t correlation,
                                    const std::vector<EventIndex> &events);

// The host-side findings of a joined pair (none without a host trace). `hostOfEvent` and
// `eventOfHost` are the host join's.
std::vector<Finding> hostSideFindings(const DeviceTrace &device, const HostTrace *host, const HostJoinStats &join,
                                      const std::vector<HostNodeIndex> &hostOfEvent, const std::vector<EventIndex> &eventOfHost,
                                      const ThreadCandidates &candidates);

} // namespace linkscope::core
