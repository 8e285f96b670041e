#include "export/exporter.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace linkscope::core {

namespace {

// Schemas chakra_converter parses (the 0.0.4 family; 1.1.1-chakra.1.0.0 is listed but not parsed).
bool converterAcceptsSchema(std::string_view schema)
{
    return schema == "1.0.2-chakra.0.0.4" || schema == "1.0.3-chakra.0.0.4" || schema == "1.1.0-chakra.0.0.4"
           || schema == "1.1.1-chakra.0.0.4";
}

} // namespace

bool isEtThreadRootName(std::string_view name)
{
    return name == "[pytorch|profiler|execution_trace|thread]" || name == "[pytorch|profiler|execution_graph|thread]";
}

namespace {

// The ET+ is always written in the nested layout, so a flat (1.0.1) trace is declared as the first
// nested schema; other unparsed schemas (1.0.4, 1.1.1-chakra.1.0.0) as the one whose parser reads them.
void declareSchema(EtPlusGraph &graph, const HostTrace &host)
{
    if (converterAcceptsSchema(host.schema))
        graph.schema = host.schema;
    else
        graph.schema = host.layout == HostLayout::Flat ? "1.0.2-chakra.0.0.4" : "1.0.3-chakra.0.0.4";
    if (graph.schema != host.schema)
        graph.warnings.push_back({Diagnostic::Severity::Info, host.path, kUnknownOffset,
                                  "ET+ declares schema " + graph.schema + " (input declares \"" + host.schema
                                      + "\", which chakra_converter does not parse); nodes are written in the nested layout"});
}

struct GpuChild {
    HostNodeIndex host;
    Nanos ts;
    EventIndex event;
    GpuLinkIndex link;
};

// The GPU children of each host node, by host node then device start time (ties: file order); the
// GPU ops without a host parent are counted, by reason, in the graph's warnings.
std::vector<GpuChild> gpuChildrenOf(EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links)
{
    std::vector<GpuChild> gpuChildren;
    gpuChildren.reserve(links.gpuLinks.size());
    std::map<std::string, std::size_t> notExported;
    for (GpuLinkIndex k{0}; k.in(links.gpuLinks.size()); ++k) {
        const GpuLink &link = links.gpuLinks[k];
        if (!device.contains(link.gpuEvent))
            continue;
        if (!host.contains(link.hostNode)) {
            const std::string reason = link.orphan != OrphanReason::None ? std::string(orphanReasonName(link.orphan))
                                       : link.parent.valid()             ? std::string("parent_has_no_host_node")
                                                                         : std::string("no_parent");
            ++notExported[reason];
            continue;
        }
        gpuChildren.push_back({link.hostNode, device.event(link.gpuEvent).ts, link.gpuEvent, k});
    }
    std::sort(gpuChildren.begin(), gpuChildren.end(), [](const GpuChild &a, const GpuChild &b) {
        return std::tie(a.host, a.ts, a.event) < std::tie(b.host, b.ts, b.event);
    });
    for (const auto &[reason, count] : notExported) {
        graph.stats.gpuOpsNotExported += count;
        graph.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                  std::to_string(count) + " GPU op(s) not exported: no host parent (" + reason + ")"});
    }
    return gpuChildren;
}

// New ids: host nodes in original-id order, each followed by its GPU children.
void numberNodes(EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                 const std::vector<GpuChild> &gpuChildren)
{
    const std::size_t hostCount = host.nodes.size();
    auto eventOfHost = [&](HostNodeIndex h) {
        return h.in(links.eventOfHost.size()) && device.contains(links.eventOfHost[h]) ? links.eventOfHost[h] : EventIndex(kNone);
    };
    graph.nodes.reserve(hostCount + gpuChildren.size());
    graph.nodeOfHost.assign(hostCount, kNone);
    graph.nodeOfEvent.assign(device.events.size(), kNone);
    std::size_t next = 0;
    for (HostNodeIndex h{0}; h.in(hostCount); ++h) {
        const auto position = ExportNodeIndex::at(graph.nodes.size());
        EtPlusNode &cpu = graph.nodes.emplace_back();
        cpu.host = h;
        cpu.event = eventOfHost(h);
        graph.nodeOfHost[h.get()] = position;
        if (cpu.event.valid()) {
            graph.nodeOfEvent[cpu.event.get()] = position;
            ++graph.stats.linkedHostNodes;
        }
        for (; next < gpuChildren.size() && gpuChildren[next].host == h; ++next) {
            EtPlusNode &gpu = graph.nodes.emplace_back();
            gpu.host = h;
            gpu.event = gpuChildren[next].event;
            gpu.gpuLink = gpuChildren[next].link;
            gpu.gpu = true;
            gpu.parent = position;
            graph.nodeOfEvent[gpu.event.get()] = ExportNodeIndex::at(graph.nodes.size() - 1);
        }
    }
    graph.stats.hostNodes = hostCount;
    graph.stats.gpuNodes = gpuChildren.size();
}

// Parents, once every node has its new id (a parent with a larger original id is no exception).
void attachParents(EtPlusGraph &graph, const HostTrace &host)
{
    const std::size_t hostCount = host.nodes.size();
    std::unordered_map<std::int64_t, HostNodeIndex> threadRootOfTid;
    for (HostNodeIndex h{0}; h.in(hostCount); ++h)
        if (isEtThreadRootName(host.name(host.node(h))))
            threadRootOfTid.emplace(host.node(h).tid, h);
    std::size_t unattached = 0;
    for (EtPlusNode &node : graph.nodes) {
        if (node.gpu)
            continue;
        const HostNode &h = host.node(node.host);
        if (host.contains(h.parent) && h.parent != node.host) {
            node.parent = graph.nodeOfHost[h.parent.get()];
        } else if (h.parentMissing) {
            auto root = threadRootOfTid.find(h.tid);
            if (root != threadRootOfTid.end() && root->second != node.host) {
                node.parent = graph.nodeOfHost[root->second.get()];
                node.reparented = true;
                ++graph.stats.reparentedHostNodes;
            } else {
                ++unattached;
            }
        }
    }
    if (graph.stats.reparentedHostNodes)
        graph.warnings.push_back(
            {Diagnostic::Severity::Warning, host.path, kUnknownOffset,
             std::to_string(graph.stats.reparentedHostNodes)
                 + " host node(s) whose parent id is absent from the file were attached to their thread root"});
    if (unattached)
        graph.warnings.push_back(
            {Diagnostic::Severity::Warning, host.path, kUnknownOffset,
             std::to_string(unattached)
                 + " host node(s) whose parent id is absent have no thread root with their tid: exported as roots"});
}

// Children (ascending id, since positions are visited in order).
void listChildren(EtPlusGraph &graph)
{
    const std::size_t n = graph.nodes.size();
    graph.childBegin.assign(n + 1, 0);
    for (const EtPlusNode &node : graph.nodes)
        if (node.parent.valid())
            ++graph.childBegin[node.parent.get() + 1];
    std::partial_sum(graph.childBegin.begin(), graph.childBegin.end(), graph.childBegin.begin());
    graph.childList.resize(graph.childBegin.back());
    {
        std::vector<std::uint32_t> fill(graph.childBegin.begin(), graph.childBegin.end() - 1);
        for (std::uint32_t i = 0; i < n; ++i)
            if (graph.nodes[i].parent.valid())
                graph.childList[fill[graph.nodes[i].parent.get()]++] = i;
    }
}

// The inter-thread and synchronisation edges as each node's inter_thread_dep and sync list.
void exportEdges(EtPlusGraph &graph, const DeviceTrace &device, const LinkSet &links)
{
    const std::size_t n = graph.nodes.size();
    // A CPU event without an ET node hands its edges to the nearest enclosing op that has one.
    auto cpuNodeOfEvent = [&](EventIndex event) {
        for (int guard = 0; device.contains(event) && guard < 4096; ++guard) {
            const ExportNodeIndex node = graph.nodeOfEvent[event.get()];
            if (node.valid())
                return node;
            event = links.index->nestParentOf(event);
        }
        return ExportNodeIndex(kNone);
    };

    std::vector<std::pair<ExportNodeIndex, ExportNodeIndex>> syncPairs; // (waiting node, node waited for)
    std::size_t extraInterThread = 0;
    for (const Edge &edge : links.edges) {
        if (edge.kind == EdgeKind::InterThread) {
            const ExportNodeIndex from = cpuNodeOfEvent(edge.from), to = cpuNodeOfEvent(edge.to);
            if (from.isNone() || to.isNone() || from == to || graph.nodes[to.get()].gpu)
                continue;
            EtPlusNode &waiting = graph.nodes[to.get()];
            if (waiting.interThreadDep.isNone()) {
                waiting.interThreadDep = from;
                ++graph.stats.interThreadDeps;
            } else if (waiting.interThreadDep != from) {
                ++extraInterThread;
            }
        } else if (edge.kind == EdgeKind::Sync) {
            const ExportNodeIndex from = device.contains(edge.from) ? graph.nodeOfEvent[edge.from.get()] : kNone;
            const ExportNodeIndex to = device.contains(edge.to) && graph.nodeOfEvent[edge.to.get()].valid()
                                           ? graph.nodeOfEvent[edge.to.get()]
                                           : cpuNodeOfEvent(edge.to);
            if (from.isNone() || to.isNone() || from == to) {
                ++graph.stats.syncEdgesNotExported;
                continue;
            }
            // A node can only wait for work that started before it (chakra_converter's own filter,
            // on real times here). This drops e.g. an enclosing op "blocked" in a synchronize for a
            // kernel its own descendants launched: it runs before them in Chakra's chain, so the
            // edge would close a cycle.
            const EventIndex fromEvent = graph.nodes[from.get()].event, toEvent = graph.nodes[to.get()].event;
            if (fromEvent.isNone() || toEvent.isNone() || device.event(fromEvent).ts >= device.event(toEvent).ts) {
                ++graph.stats.syncEdgesNotCausal;
                continue;
            }
            syncPairs.emplace_back(to, from);
        }
    }
    if (extraInterThread)
        graph.warnings.push_back(
            {Diagnostic::Severity::Info, device.path, kUnknownOffset,
             std::to_string(extraInterThread)
                 + " further inter-thread edge(s) not representable in ET+ (one inter_thread_dep per node)"});
    if (graph.stats.syncEdgesNotCausal)
        graph.warnings.push_back(
            {Diagnostic::Severity::Info, device.path, kUnknownOffset,
             std::to_string(graph.stats.syncEdgesNotCausal)
                 + " synchronisation edge(s) not exported: the waiting op starts before the GPU op it waits for"});
    if (graph.stats.syncEdgesNotExported)
        graph.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                  std::to_string(graph.stats.syncEdgesNotExported)
                                      + " synchronisation edge(s) not exported: an end has no exported node"});
    std::sort(syncPairs.begin(), syncPairs.end());
    syncPairs.erase(std::unique(syncPairs.begin(), syncPairs.end()), syncPairs.end());
    graph.stats.syncDeps = syncPairs.size();
    graph.syncBegin.assign(n + 1, 0);
    for (const auto &[waiting, _] : syncPairs)
        ++graph.syncBegin[waiting.get() + 1];
    std::partial_sum(graph.syncBegin.begin(), graph.syncBegin.end(), graph.syncBegin.begin());
    graph.syncList.reserve(syncPairs.size());
    for (const auto &[_, waitedFor] : syncPairs)
        graph.syncList.push_back(waitedFor.value);
}

} // namespace

EtPlusGraph buildEtPlusGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links)
{
    EtPlusGraph graph;
    declareSchema(graph, host);
    const std::vector<GpuChild> gpuChildren = gpuChildrenOf(graph, host, device, links);
    numberNodes(graph, host, device, links, gpuChildren);
    attachParents(graph, host);
    listChildren(graph);
    exportEdges(graph, device, links);
    return graph;
}

} // namespace linkscope::core
