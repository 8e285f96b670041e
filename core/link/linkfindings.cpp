#include "link/linkfindings.h"

#include "link/diagnose.h"
#include "link/hostjoin.h"

namespace linkscope::core {

Finding eventFinding(FindingKind kind, FindingSeverity severity, EventIndex event, std::string message, std::string suggestion)
{
    return Finding{kind, severity, SubjectKind::DeviceEvent, event, kNone, std::move(message), std::move(suggestion), kNone};
}

Finding hostNodeFinding(FindingKind kind, FindingSeverity severity, HostNodeIndex node, std::string message,
                        std::string suggestion)
{
    return Finding{kind, severity, SubjectKind::HostNode, kNone, node, std::move(message), std::move(suggestion), kNone};
}

Finding traceFinding(FindingKind kind, FindingSeverity severity, std::string message, std::string suggestion)
{
    return Finding{kind, severity, SubjectKind::Trace, kNone, kNone, std::move(message), std::move(suggestion), kNone};
}

Finding duplicateCorrelationFinding(const DeviceTrace &device, TraceId pid, std::int64_t correlation,
                                    const std::vector<EventIndex> &events)
{
    return eventFinding(FindingKind::DuplicateCorrelation, FindingSeverity::Warning, events[1],
                        std::to_string(events.size()) + " runtime/driver events in process " + device.idText(pid)
                            + " share correlation " + std::to_string(correlation) + ": " + describeEvent(device, events[0]) + ", "
                            + describeEvent(device, events[1]) + (events.size() > 2 ? ", ..." : ""),
                        "each GPU op with this correlation is linked to the launch nearest before it; check them");
}

namespace {

std::string rfIdAbsentMessage(const HostJoinStats &join)
{
    return "the Kineto CPU ops carry no 'Record function id': the ET observer was not attached to the "
           "profiler"
           + std::string(join.method == HostJoinMethod::None ? "; host and device ops could not be joined"
                                                             : "; joined by " + std::string(hostJoinMethodName(join.method))
                                                                   + " (offset " + std::to_string(join.offset) + ") instead");
}

} // namespace

std::vector<Finding> hostSideFindings(const DeviceTrace &device, const HostTrace *host, const HostJoinStats &join,
                                      const std::vector<HostNodeIndex> &hostOfEvent, const std::vector<EventIndex> &eventOfHost,
                                      const ThreadCandidates &candidates)
{
    std::vector<Finding> findings;
    if (!host)
        return findings;
    for (HostNodeIndex i{0}; i.get() < host->nodes.size(); ++i) {
        const HostNode &node = host->node(i);
        if (node.parentMissing)
            findings.push_back(hostNodeFinding(FindingKind::EtParentMissing, FindingSeverity::Warning, i,
                                               "ET node " + std::to_string(node.id) + " '" + std::string(host->name(node))
                                                   + "' names parent " + std::to_string(node.parentId)
                                                   + ", which is not in the file",
                                               "re-parent it to its thread root"));
    }
    if (join.method != HostJoinMethod::RecordFunctionId && join.method != HostJoinMethod::Derived)
        findings.push_back(traceFinding(FindingKind::RfIdAbsent, FindingSeverity::Warning, rfIdAbsentMessage(join),
                                        "pass execution_trace_observer= to torch.profiler.profile() when collecting"));
    if (join.method == HostJoinMethod::None)
        return findings;
    for (HostNodeIndex i{0}; i.get() < host->nodes.size(); ++i)
        if (const HostNode &node = host->node(i); node.rfId != 0 && eventOfHost[i.get()].isNone())
            findings.push_back(hostNodeFinding(FindingKind::HostOpWithoutDevice, FindingSeverity::Info, i,
                                               "ET op " + std::to_string(node.id) + " '" + std::string(host->name(node))
                                                   + "' (rf_id " + std::to_string(node.rfId) + ") has no Kineto CPU op",
                                               "it gets no timing in the export; it may lie outside the profiling window"));
    const TraceId hostPid{host->pid, false};
    for (const ThreadOps &thread : candidates.threads()) {
        if (!(thread.key.pid == hostPid))
            continue;
        for (EventIndex event : thread.nest)
            if (!hostOfEvent[event.get()].valid())
                findings.push_back(
                    eventFinding(FindingKind::DeviceOpWithoutHost, FindingSeverity::Info, event,
                                 "Kineto CPU op " + describeEvent(device, event) + " has no ET node",
                                 "GPU ops launched inside it are attached to its nearest ancestor with an ET node"));
    }
    return findings;
}

} // namespace linkscope::core
