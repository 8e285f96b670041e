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
    return schema == "1.0.2-chakra.0.0.4" || schema == "1.0.3-chakra.0.0.4" || schema == "1.1.0-chakra.0.0.4" ||
           schema == "1.1.1-chakra.0.0.4";
}

} // namespace

bool isEtThreadRootName(std::string_view name)
{
    return name == "[pytorch|profiler|execution_trace|thread]" || name == "[pytorch|profiler|execution_graph|thread]";
}

EtPlusGraph buildEtPlusGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links)
{
    EtPlusGraph graph;
    const std::size_t hostCount = host.nodes.size();
    const std::size_t eventCount = device.events.size();
    auto eventOfHost = [&](std::uint32_t h) {
        return h < links.eventOfHost.size() && links.eventOfHost[h] < eventCount ? links.eventOfHost[h] : kNoIndex;
    };

    // The ET+ is always written in the nested layout, so a flat (1.0.1) trace is declared as the first
    // nested schema; other unparsed schemas (1.0.4, 1.1.1-chakra.1.0.0) as the one whose parser reads them.
    if (converterAcceptsSchema(host.schema))
        graph.schema = host.schema;
    else
        graph.schema = host.layout == HostLayout::Flat ? "1.0.2-chakra.0.0.4" : "1.0.3-chakra.0.0.4";
    if (graph.schema != host.schema)
        graph.warnings.push_back({Diagnostic::Severity::Info, host.path, kUnknownOffset,
                                  "ET+ declares schema " + graph.schema + " (input declares \"" + host.schema +
                                      "\", which chakra_converter does not parse); nodes are written in the nested layout"});

    // GPU children of each host node, by device start time (ties: file order).
    struct GpuChild {
        std::uint32_t host;
        Nanos ts;
        std::uint32_t event;
        std::uint32_t link;
    };
    std::vector<GpuChild> gpuChildren;
    gpuChildren.reserve(links.gpuLinks.size());
    std::map<std::string, std::size_t> notExported;
    for (std::uint32_t k = 0; k < links.gpuLinks.size(); ++k) {
        const GpuLink &link = links.gpuLinks[k];
        if (link.gpuEvent >= eventCount)
            continue;
        if (link.hostNode >= hostCount) {
            const std::string reason = link.orphan != OrphanReason::None ? std::string(orphanReasonName(link.orphan))
                                       : link.parent != kNoIndex         ? std::string("parent_has_no_host_node")
                                                                         : std::string("no_parent");
            ++notExported[reason];
            continue;
        }
        gpuChildren.push_back({link.hostNode, device.events[link.gpuEvent].ts, link.gpuEvent, k});
    }
    std::sort(gpuChildren.begin(), gpuChildren.end(), [](const GpuChild &a, const GpuChild &b) {
        return std::tie(a.host, a.ts, a.event) < std::tie(b.host, b.ts, b.event);
    });
    for (const auto &[reason, count] : notExported) {
        graph.stats.gpuOpsNotExported += count;
        graph.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                  std::to_string(count) + " GPU op(s) not exported: no host parent (" + reason + ")"});
    }

    // New ids: host nodes in original-id order, each followed by its GPU children.
    graph.nodes.reserve(hostCount + gpuChildren.size());
    graph.nodeOfHost.assign(hostCount, kNoNode);
    graph.nodeOfEvent.assign(eventCount, kNoNode);
    std::size_t next = 0;
    for (std::uint32_t h = 0; h < hostCount; ++h) {
        const auto position = static_cast<std::uint32_t>(graph.nodes.size());
        EtPlusNode &cpu = graph.nodes.emplace_back();
        cpu.host = h;
        cpu.event = eventOfHost(h);
        graph.nodeOfHost[h] = position;
        if (cpu.event != kNoIndex) {
            graph.nodeOfEvent[cpu.event] = position;
            ++graph.stats.linkedHostNodes;
        }
        for (; next < gpuChildren.size() && gpuChildren[next].host == h; ++next) {
            EtPlusNode &gpu = graph.nodes.emplace_back();
            gpu.host = h;
            gpu.event = gpuChildren[next].event;
            gpu.gpuLink = gpuChildren[next].link;
            gpu.gpu = true;
            gpu.parent = position;
            graph.nodeOfEvent[gpu.event] = static_cast<std::uint32_t>(graph.nodes.size() - 1);
        }
    }
    graph.stats.hostNodes = hostCount;
    graph.stats.gpuNodes = gpuChildren.size();

    // Parents, once every node has its new id (a parent with a larger original id is no exception).
    std::unordered_map<std::int64_t, std::uint32_t> threadRootOfTid;
    for (std::uint32_t h = 0; h < hostCount; ++h)
        if (isEtThreadRootName(host.name(host.nodes[h])))
            threadRootOfTid.emplace(host.nodes[h].tid, h);
    std::size_t unattached = 0;
    for (EtPlusNode &node : graph.nodes) {
        if (node.gpu)
            continue;
        const HostNode &h = host.nodes[node.host];
        if (h.parent < hostCount && h.parent != node.host) {
            node.parent = graph.nodeOfHost[h.parent];
        } else if (h.parentMissing) {
            auto root = threadRootOfTid.find(h.tid);
            if (root != threadRootOfTid.end() && root->second != node.host) {
                node.parent = graph.nodeOfHost[root->second];
                node.reparented = true;
                ++graph.stats.reparentedHostNodes;
            } else {
                ++unattached;
            }
        }
    }
    if (graph.stats.reparentedHostNodes)
        graph.warnings.push_back({Diagnostic::Severity::Warning, host.path, kUnknownOffset,
                                  std::to_string(graph.stats.reparentedHostNodes) +
                                      " host node(s) whose parent id is absent from the file were attached to their thread root"});
    if (unattached)
        graph.warnings.push_back({Diagnostic::Severity::Warning, host.path, kUnknownOffset,
                                  std::to_string(unattached) +
                                      " host node(s) whose parent id is absent have no thread root with their tid: exported as roots"});

    // Children (ascending id, since positions are visited in order).
    const std::size_t n = graph.nodes.size();
    graph.childBegin.assign(n + 1, 0);
    for (const EtPlusNode &node : graph.nodes)
        if (node.parent != kNoNode)
            ++graph.childBegin[node.parent + 1];
    std::partial_sum(graph.childBegin.begin(), graph.childBegin.end(), graph.childBegin.begin());
    graph.childList.resize(graph.childBegin.back());
    {
        std::vector<std::uint32_t> fill(graph.childBegin.begin(), graph.childBegin.end() - 1);
        for (std::uint32_t i = 0; i < n; ++i)
            if (graph.nodes[i].parent != kNoNode)
                graph.childList[fill[graph.nodes[i].parent]++] = i;
    }

    // A CPU event without an ET node hands its edges to the nearest enclosing op that has one.
    auto cpuNodeOfEvent = [&](std::uint32_t event) {
        for (int guard = 0; event < eventCount && guard < 4096; ++guard) {
            const std::uint32_t node = graph.nodeOfEvent[event];
            if (node != kNoNode)
                return node;
            event = event < links.index->nestParent.size() ? links.index->nestParent[event] : kNoIndex;
        }
        return kNoNode;
    };

    std::vector<std::pair<std::uint32_t, std::uint32_t>> syncPairs; // (waiting node, node waited for)
    std::size_t extraInterThread = 0;
    for (const Edge &edge : links.edges) {
        if (edge.kind == EdgeKind::InterThread) {
            const std::uint32_t from = cpuNodeOfEvent(edge.from), to = cpuNodeOfEvent(edge.to);
            if (from == kNoNode || to == kNoNode || from == to || graph.nodes[to].gpu)
                continue;
            if (graph.nodes[to].interThreadDep == kNoNode) {
                graph.nodes[to].interThreadDep = from;
                ++graph.stats.interThreadDeps;
            } else if (graph.nodes[to].interThreadDep != from) {
                ++extraInterThread;
            }
        } else if (edge.kind == EdgeKind::Sync) {
            const std::uint32_t from = edge.from < eventCount ? graph.nodeOfEvent[edge.from] : kNoNode;
            const std::uint32_t to = edge.to < eventCount && graph.nodeOfEvent[edge.to] != kNoNode
                                         ? graph.nodeOfEvent[edge.to]
                                         : cpuNodeOfEvent(edge.to);
            if (from == kNoNode || to == kNoNode || from == to) {
                ++graph.stats.syncEdgesNotExported;
                continue;
            }
            // A node can only wait for work that started before it (chakra_converter's own filter,
            // on real times here). This drops e.g. an enclosing op "blocked" in a synchronize for a
            // kernel its own descendants launched: it runs before them in Chakra's chain, so the
            // edge would close a cycle.
            const std::uint32_t fromEvent = graph.nodes[from].event, toEvent = graph.nodes[to].event;
            if (fromEvent == kNoIndex || toEvent == kNoIndex || device.events[fromEvent].ts >= device.events[toEvent].ts) {
                ++graph.stats.syncEdgesNotCausal;
                continue;
            }
            syncPairs.emplace_back(to, from);
        }
    }
    if (extraInterThread)
        graph.warnings.push_back({Diagnostic::Severity::Info, device.path, kUnknownOffset,
                                  std::to_string(extraInterThread) +
                                      " further inter-thread edge(s) not representable in ET+ (one inter_thread_dep per node)"});
    if (graph.stats.syncEdgesNotCausal)
        graph.warnings.push_back({Diagnostic::Severity::Info, device.path, kUnknownOffset,
                                  std::to_string(graph.stats.syncEdgesNotCausal) +
                                      " synchronisation edge(s) not exported: the waiting op starts before the GPU op it waits for"});
    if (graph.stats.syncEdgesNotExported)
        graph.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                  std::to_string(graph.stats.syncEdgesNotExported) +
                                      " synchronisation edge(s) not exported: an end has no exported node"});
    std::sort(syncPairs.begin(), syncPairs.end());
    syncPairs.erase(std::unique(syncPairs.begin(), syncPairs.end()), syncPairs.end());
    graph.stats.syncDeps = syncPairs.size();
    graph.syncBegin.assign(n + 1, 0);
    for (const auto &[waiting, _] : syncPairs)
        ++graph.syncBegin[waiting + 1];
    std::partial_sum(graph.syncBegin.begin(), graph.syncBegin.end(), graph.syncBegin.begin());
    graph.syncList.reserve(syncPairs.size());
    for (const auto &[_, waitedFor] : syncPairs)
        graph.syncList.push_back(waitedFor);
    return graph;
}

} // namespace linkscope::core
