#include "link/policynotices.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace linkscope::core {

namespace {

// A runtime/driver call that puts work on a stream: a kernel launch (cudaLaunchKernel, cuLaunchKernelEx,
// hipModuleLaunchKernel, cudaGraphLaunch, ...), a copy or a set.
bool isLaunchCall(std::string_view name)
{
    return name.find("Launch") != std::string_view::npos || name.find("Memcpy") != std::string_view::npos
           || name.find("Memset") != std::string_view::npos;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string ofTotal(std::size_t count, std::size_t total)
{
    return count == total ? (count == 1 ? std::string("the only one") : "all " + std::to_string(total))
                          : std::to_string(count) + " of " + std::to_string(total);
}

void externalIdNotice(const DeviceTrace &trace, const LinkSet &links, const ChakraComparison *comparison,
                      std::vector<Notice> &out)
{
    std::size_t withBoth = 0, equal = 0;
    std::vector<EventIndex> events;
    for (const GpuLink &link : links.gpuLinks) {
        const DeviceEvent &gpu = trace.event(link.gpuEvent);
        if (gpu.externalId == kNoId || gpu.correlation == kNoId || gpu.correlation == 0)
            continue;
        ++withBoth;
        if (gpu.externalId == gpu.correlation) {
            ++equal;
            events.push_back(link.gpuEvent);
        }
    }
    // A few equal by chance say nothing; most equal is the old Kineto's habit.
    if (equal == 0 || equal * 2 < withBoth)
        return;
    Notice n;
    n.kind = NoticeKind::ExternalIdIsCorrelation;
    n.count = equal;
    n.total = withBoth;
    n.message = "External ids equal the correlations on " + ofTotal(equal, withBoth)
                + " GPU ops (an older Kineto writes the correlation there), so they name no CPU op.";
    if (comparison && comparison->chakra10.linked > 0) {
        const std::size_t fallback = comparison->chakra10.fallback.size();
        n.message += " The external-id rule (Chakra 1.0) falls back to the latest-starting op for "
                     + ofTotal(fallback, comparison->chakra10.linked)
                     + " links (confidence 0.50 at most); the nesting rule is not cross-checked by External id.";
        n.events = comparison->chakra10.fallback;
        n.count = fallback;
        n.total = comparison->chakra10.linked;
    } else {
        n.message += " The external-id rule cannot match them and falls back to the latest-starting op;"
                     " the nesting rule is not cross-checked by External id.";
        n.events = std::move(events);
    }
    out.push_back(std::move(n));
}

void graphCaptureNotice(const DeviceTrace &trace, const LinkSet &links, std::vector<Notice> &out)
{
    // Launch calls that some GPU op names as its launch.
    std::vector<bool> ran(trace.events.size(), false);
    for (const GpuLink &link : links.gpuLinks)
        if (link.launch.valid())
            ran[link.launch.get()] = true;

    // Capture windows per thread: from a *StreamBeginCapture to the next *StreamEndCapture's end.
    std::map<ThreadKey, std::vector<std::pair<Nanos, Nanos>>> windows;
    std::map<ThreadKey, Nanos> open;
    std::vector<EventIndex> runtime;
    for (EventIndex i{0}; i.get() < trace.events.size(); ++i)
        if (trace.event(i).phase == Phase::Complete && isRuntimeCategory(trace.event(i).category))
            runtime.push_back(i);
    std::stable_sort(runtime.begin(), runtime.end(),
                     [&](EventIndex a, EventIndex b) { return trace.event(a).ts < trace.event(b).ts; });
    std::size_t launches = 0;
    for (EventIndex i : runtime) {
        const DeviceEvent &e = trace.event(i);
        const std::string_view name = trace.name(e);
        if (endsWith(name, "StreamBeginCapture") || endsWith(name, "StreamBeginCaptureToGraph"))
            open.try_emplace(trace.threadKey(e), e.ts);
        else if (endsWith(name, "StreamEndCapture")) {
            if (auto it = open.find(trace.threadKey(e)); it != open.end()) {
                windows[trace.threadKey(e)].emplace_back(it->second, e.end());
                open.erase(it);
            }
        } else if (isLaunchCall(name))
            ++launches;
    }
    for (const auto &[thread, begin] : open) // a capture still open at the end of the trace
        windows[thread].emplace_back(begin, std::numeric_limits<Nanos>::max());

    Notice n;
    n.kind = NoticeKind::GraphCapture;
    for (EventIndex i : runtime) {
        const DeviceEvent &e = trace.event(i);
        if (ran[i.get()] || !isLaunchCall(trace.name(e)))
            continue;
        const auto it = windows.find(trace.threadKey(e));
        if (it == windows.end())
            continue;
        const bool inside = std::any_of(it->second.begin(), it->second.end(),
                                        [&](const auto &w) { return e.ts >= w.first && e.ts <= w.second; });
        if (inside)
            n.events.push_back(i);
    }
    if (n.events.empty())
        return;
    std::sort(n.events.begin(), n.events.end());
    n.count = n.events.size();
    n.total = launches;
    n.message = ofTotal(n.count, launches)
                + " launch calls lie between StreamBeginCapture and StreamEndCapture"
                  " and ran no GPU op: they were captured into a CUDA/HIP graph, not executed. Their kernels run when"
                  " the graph is launched (cudaGraphLaunch / hipGraphLaunch), as GPU ops of that launch, with its parent.";
    out.push_back(std::move(n));
}

void noCpuOpsNotice(const DeviceTrace &trace, const LinkSet &links, std::vector<Notice> &out)
{
    std::size_t cpuOps = 0, runtimeCalls = 0;
    for (const DeviceEvent &e : trace.events) {
        if (e.phase != Phase::Complete)
            continue;
        cpuOps += isCpuOpCategory(e.category) ? 1 : 0;
        runtimeCalls += isRuntimeCategory(e.category) ? 1 : 0;
    }
    if (cpuOps > 0 || runtimeCalls == 0 || links.gpuLinks.empty())
        return;
    Notice n;
    n.kind = NoticeKind::NoCpuOps;
    n.total = links.gpuLinks.size();
    for (const GpuLink &link : links.gpuLinks)
        if (link.parent.isNone())
            n.events.push_back(link.gpuEvent);
    n.count = n.events.size();
    n.message = "The trace has " + std::to_string(runtimeCalls)
                + " runtime/driver calls but no CPU ops (cpu_op, user_annotation): it was recorded with the GPU"
                  " activity only. None of its "
                + std::to_string(n.total)
                + " GPU ops can get a CPU parent, under any policy or by hand; profile again with"
                  " ProfilerActivity.CPU to link them.";
    out.push_back(std::move(n));
}

void pairMismatchNotice(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links, std::vector<Notice> &out)
{
    if (!host || host->nodes.empty())
        return;
    std::set<std::int64_t> cpuPids;
    for (const DeviceEvent &e : trace.events)
        if (e.phase == Phase::Complete && isCpuOpCategory(e.category) && !trace.threadKey(e).pid.isString)
            cpuPids.insert(trace.threadKey(e).pid.value);
    if (cpuPids.empty())
        return;
    const HostJoinStats &j = links.join;
    const bool otherPid = host->pid >= 0 && !cpuPids.count(host->pid);
    const std::size_t unmatched = j.hostNodesWithRfId - std::min(j.matched, j.hostNodesWithRfId);
    const bool mostUnmatched = j.hostNodesWithRfId > 0 && unmatched * 2 > j.hostNodesWithRfId;
    if (!otherPid && !mostUnmatched)
        return;
    Notice n;
    n.kind = NoticeKind::PairMismatch;
    n.count = unmatched;
    n.total = j.hostNodesWithRfId;
    const std::string unmatchedText = ofTotal(unmatched, j.hostNodesWithRfId) + " host ops with an rf_id match no Kineto CPU op";
    if (otherPid) {
        std::string pids;
        std::size_t shown = 0;
        for (std::int64_t pid : cpuPids) {
            if (shown++ == 3) {
                pids += ", ...";
                break;
            }
            pids += (shown > 1 ? ", " : "") + std::to_string(pid);
        }
        n.message = "The host ET and the Kineto trace do not belong together: the host ET is of process "
                    + std::to_string(host->pid) + ", the Kineto trace's CPU ops of process" + (cpuPids.size() == 1 ? " " : "es ")
                    + pids + (mostUnmatched ? "; " + unmatchedText : std::string())
                    + ". Links to host ET nodes and an exported graph would join unrelated ops: open the host ET recorded"
                      " with this Kineto trace.";
    } else {
        n.message = "The host ET could not be joined to the Kineto trace: " + unmatchedText
                    + " (join: " + std::string(hostJoinMethodName(j.method))
                    + "). Either they are of different runs, or the Kineto trace has no Record function id and no"
                      " constant offset of Ev Idx or External id gives matching names. GPU ops link to Kineto CPU"
                      " ops, but not to host ET nodes.";
    }
    out.push_back(std::move(n));
}

} // namespace

std::string_view noticeKindName(NoticeKind kind)
{
    switch (kind) {
    case NoticeKind::ExternalIdIsCorrelation:
        return "external_id_is_correlation";
    case NoticeKind::GraphCapture:
        return "graph_capture";
    case NoticeKind::NoCpuOps:
        return "no_cpu_ops";
    case NoticeKind::PairMismatch:
        return "pair_mismatch";
    }
    return "unknown";
}

std::vector<Notice> policyNotices(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links,
                                  const ChakraComparison *comparison)
{
    std::vector<Notice> notices;
    pairMismatchNotice(trace, host, links, notices);
    noCpuOpsNotice(trace, links, notices);
    externalIdNotice(trace, links, comparison, notices);
    graphCaptureNotice(trace, links, notices);
    return notices;
}

} // namespace linkscope::core
