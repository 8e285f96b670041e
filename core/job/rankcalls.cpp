#include "job/rankcalls.h"

#include "collective/classify.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <numeric>

namespace linkscope::core::job {

namespace {

const HostTrace &emptyHost()
{
    static const HostTrace empty;
    return empty;
}

} // namespace

std::vector<CollectiveCall> collectiveCallsOf(const DeviceTrace &device, const HostTrace *hostPtr, const LinkSet &links)
{
    const HostTrace &host = hostPtr ? *hostPtr : emptyHost();
    const Nanos base = device.baseTimeNs.value_or(0);
    const std::string file = std::filesystem::path(device.path).filename().string();
    struct Item {
        CollectiveCall call;
        Nanos order;
        Nanos kernelTs;
    };
    std::vector<Item> items;
    for (const GpuLink &link : links.gpuLinks) {
        const EventIndex event = link.gpuEvent;
        // The bytes the astra-sim .et writes (what the collective moved): the network is fitted on them.
        const CommInfo info = classifyGpuOp(host, device, event, link.hostNode, SizeRule::CollectiveMetadata);
        if (!info.isComm)
            continue;
        const DeviceEvent &e = device.event(event);
        CollectiveCall c;
        c.kind = info.kind;
        c.processGroup = info.pgName;
        c.bytes = info.bytes > 0 ? info.bytes : -1;
        if (c.kind == CallKind::Send)
            c.peer = info.dst;
        else if (c.kind == CallKind::Recv)
            c.peer = info.src;
        if (const CollectiveArgs *args = e.hasCollective() ? device.collectiveOf(event) : nullptr) {
            const CollectiveArgs &a = *args;
            if (a.inMsgNelems >= 0)
                c.elements = a.inMsgNelems;
            if (a.dtype != 0)
                c.dtype = canonicalDtype(device.strings.at(a.dtype));
        }
        // The enclosing record_param_comms' attrs (ET ≥ 1.1.0) when Kineto has no collective args.
        std::uint32_t depth = 0;
        for (HostNodeIndex h = link.hostNode; host.contains(h) && depth < 16 && (c.elements < 0 || c.dtype.empty());
             h = host.node(h).parent, ++depth) {
            const HostNode &n = host.node(h);
            const HostCommAttrs *attrs = host.commOf(n);
            if (!attrs)
                continue;
            const HostCommAttrs &a = *attrs;
            if (c.elements < 0 && a.inMsgNelems >= 0)
                c.elements = a.inMsgNelems;
            if (c.dtype.empty() && a.dtype != 0)
                c.dtype = canonicalDtype(host.strings.at(a.dtype));
        }
        if (c.dtype.empty())
            c.dtype = dtypeFromKernelName(device.name(e));
        const bool launched = device.contains(link.launch);
        c.launchNs = base + (launched ? device.event(link.launch).ts : e.ts);
        c.startNs = base + e.ts;
        c.endNs = base + e.end();
        std::string kernel(device.name(e).substr(0, 64));
        c.where = file + " event " + std::to_string(event.value) + " (" + kernel + ")";
        items.push_back({std::move(c), launched ? device.event(link.launch).ts : e.ts, e.ts});
    }
    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return a.order != b.order ? a.order < b.order : a.kernelTs < b.kernelTs;
    });
    std::vector<CollectiveCall> out;
    out.reserve(items.size());
    for (Item &i : items)
        out.push_back(std::move(i.call));
    return out;
}

} // namespace linkscope::core::job
