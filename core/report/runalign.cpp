#include "report/runalign.h"

#include "analysis/profilersteps.h"

namespace linkscope::core {

std::string RunAlignment::describe() const
{
    if (bySteps)
        return "B's ProfilerStep#" + std::to_string(stepB) + " starts with A's ProfilerStep#" + std::to_string(stepA);
    return "no ProfilerStep#N in " + missing + ": the traces' first events aligned";
}

RunAlignment alignRuns(const DeviceTrace &a, const TraceIndex &indexA, const DeviceTrace &b, const TraceIndex &indexB)
{
    RunAlignment out;
    const std::vector<SummaryStep> stepsA = profilerSteps(a), stepsB = profilerSteps(b);
    const Nanos baseA = a.baseTimeNs.value_or(0), baseB = b.baseTimeNs.value_or(0);
    if (!stepsA.empty() && !stepsB.empty()) {
        // By start: the first step each run profiled, whatever its number.
        out.bySteps = true;
        out.stepA = stepsA.front().number;
        out.stepB = stepsB.front().number;
        out.atA = baseA + stepsA.front().start;
        out.atB = baseB + stepsB.front().start;
        return out;
    }
    out.missing = stepsA.empty() && stepsB.empty() ? "A and B" : stepsA.empty() ? "A" : "B";
    out.atA = baseA + indexA.minTs;
    out.atB = baseB + indexB.minTs;
    return out;
}

} // namespace linkscope::core
