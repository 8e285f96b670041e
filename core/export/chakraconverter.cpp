#include "export/exporter.h"

#include "export/astrasimtarget.h"
#include "export/collective.h"
#include "export/etwire.h"
#include "export/graphorder.h"
#include "export/nodetext.h"
#include "export/pyrepr.h"
#include "jobmodel/processgroups.h"

#include "base/parallel.h"
#include "io/atomicfile.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

namespace linkscope::core {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

// A new attribute named `name` on a Node or on the GlobalMetadata.
template <class Message>
AttributeProto *newAttr(Message &message, const char *name)
{
    AttributeProto *attr = message.add_attr();
    attr->set_name(name);
    return attr;
}

void addInt64(Node &node, const char *name, std::int64_t value) { newAttr(node, name)->set_int64_val(value); }
void addInt32(Node &node, const char *name, std::int32_t value) { newAttr(node, name)->set_int32_val(value); }
void addBool(Node &node, const char *name, bool value) { newAttr(node, name)->set_bool_val(value); }

template <class Message>
void addString(Message &message, const char *name, std::string_view value)
{
    newAttr(message, name)->set_string_val(std::string(value));
}

// The same for a node written straight to the wire format (export/etwire.h).
void addInt64(WireNode &node, const char *name, std::int64_t value) { node.addInt64(name, value); }
void addInt32(WireNode &node, const char *name, std::int32_t value) { node.addInt32(name, value); }
void addBool(WireNode &node, const char *name, bool value) { node.addBool(name, value); }
void addString(WireNode &node, const char *name, std::string_view value) { node.addString(name, value); }

template <class IoInfo>
void setIo(IoInfo *io, NodeText &text, const HostIO &source, bool pythonText, std::string &scratch)
{
    // Chakra target: the JSON text of the ET's lists. astra-sim target: Python's repr of the same
    // lists, as chakra_converter writes them (and ASTRA-sim's process-group parser reads them).
    auto textOf = [&](Span s) -> std::string_view {
        if (s.empty())
            return "[]";
        const std::string_view json = text.part(s);
        if (!pythonText)
            return json;
        scratch.clear();
        if (!appendPythonRepr(scratch, json))
            return json; // not convertible: the text as it is (pythonRepr's rule)
        return scratch;
    };
    std::string_view t = textOf(source.values);
    io->set_values(t.data(), t.size());
    t = textOf(source.shapes);
    io->set_shapes(t.data(), t.size());
    t = textOf(source.types);
    io->set_types(t.data(), t.size());
}

std::uint64_t microsOf(Nanos ns) { return ns > 0 ? static_cast<std::uint64_t>(ns / 1000) : 0; }

// How the astra-sim target writes a GPU op: the type ASTRA-sim can run, and the process group.
struct AstraGpuKind {
    ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE;
    bool demoted = false; // a communication op written as COMP_NODE (replayed for its measured time)
};

AstraGpuKind astraGpuKind(const CommInfo &comm)
{
    AstraGpuKind kind;
    kind.type = comm.type;
    if (!comm.isComm || comm.type == ChakraProtoMsg::COMP_NODE)
        return kind;
    bool runnable = comm.bytes > 0;
    // A collective of a one-rank group moves nothing between ranks, and ASTRA-sim never completes
    // one (its ring has no step: the rank stops there and the simulator exits 0 unfinished).
    if (comm.type == ChakraProtoMsg::COMM_COLL_NODE)
        runnable = runnable && astraSimRunsCollective(comm.commType) && comm.groupSize != 1;
    else if (comm.type == ChakraProtoMsg::COMM_SEND_NODE || comm.type == ChakraProtoMsg::COMM_RECV_NODE)
        runnable = runnable && comm.src >= 0 && comm.dst >= 0 && comm.tag >= 0;
    if (!runnable) {
        kind.type = ChakraProtoMsg::COMP_NODE;
        kind.demoted = true;
    }
    return kind;
}

void addMetadataUint64(ChakraProtoMsg::GlobalMetadata &metadata, const char *name, std::int64_t value)
{
    newAttr(metadata, name)->set_uint64_val(static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0)));
}

} // namespace

ChakraPlan planChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                      const ChakraOptions &options)
{
    requireHostSource(host);
    ChakraPlan plan;
    ChakraStats &stats = plan.stats;
    const std::size_t n = graph.nodes.size();
    const bool astra = options.target == EtTarget::AstraSim;
    enum Kind : std::uint8_t {
        InterThread,
        Chain,
        Launch,
        StreamOrder,
        Sync,
        ThreadWait,
        ThreadStart,
        PgOrder,
        CommWaitsCompute,
        ComputeWaitsComm
    };
    struct Dep {
        std::uint32_t node, dep;
        Kind kind;
    };
    std::vector<Dep> deps;
    deps.reserve(n * 2);

    // ctrl → data (chakra_converter's convert_ctrl_dep_to_data_dep): per thread root, the CPU nodes in DFS pre-order form one
    // chain, an inter-thread dependency is kept, and each GPU node waits for its launching CPU node.
    std::vector<std::uint8_t> visited(n, 0);
    std::vector<std::uint32_t> stack;
    std::vector<std::uint32_t> chainBegin(1, 0), chainList; // astra-sim: each thread's chain, in order
    for (std::uint32_t root = 0; root < n; ++root) {
        if (graph.nodes[root].gpu || visited[root] || !isEtThreadRootName(host.name(host.node(graph.nodes[root].host))))
            continue;
        if (astra && chainList.size() != chainBegin.back())
            chainBegin.push_back(static_cast<std::uint32_t>(chainList.size()));
        ExportNodeIndex lastCpu{};
        stack.assign(1, root);
        while (!stack.empty()) {
            const std::uint32_t v = stack.back();
            stack.pop_back();
            if (visited[v])
                continue;
            visited[v] = 1;
            const EtPlusNode &source = graph.nodes[v];
            if (source.interThreadDep.valid() && source.interThreadDep.value != v)
                deps.push_back({v, source.interThreadDep.value, InterThread});
            if (lastCpu.valid())
                deps.push_back({v, lastCpu.value, Chain});
            lastCpu = ExportNodeIndex(v);
            if (astra)
                chainList.push_back(v);
            for (std::uint32_t k = graph.childBegin[v + 1]; k-- > graph.childBegin[v];) {
                const std::uint32_t child = graph.childList[k];
                if (!graph.nodes[child].gpu && !visited[child])
                    stack.push_back(child);
            }
        }
    }
    for (std::uint32_t i = 0; i < n; ++i)
        if (graph.nodes[i].gpu && graph.nodes[i].parent.valid())
            deps.push_back({i, graph.nodes[i].parent.value, Launch});
    if (options.streamOrderDeps)
        for (const Edge &edge : links.edges) {
            if (edge.kind != EdgeKind::StreamOrder || !edge.from.in(graph.nodeOfEvent.size())
                || !edge.to.in(graph.nodeOfEvent.size()))
                continue;
            const ExportNodeIndex from = graph.nodeOfEvent[edge.from.get()], to = graph.nodeOfEvent[edge.to.get()];
            if (from.valid() && to.valid() && from != to)
                deps.push_back({to.value, from.value, StreamOrder});
        }
    if (astra && chainList.size() != chainBegin.back())
        chainBegin.push_back(static_cast<std::uint32_t>(chainList.size()));

    // astra-sim: blocked time becomes dependencies (export/blockedtime.h). The waits on the GPU are
    // the Sync dependencies below; the waits on another thread are made here.
    BlockedIntervals blocked; // the waits on other threads here; the calls' once the measured window is known
    if (astra && options.blockedAsDependencies) {
        const ThreadDeps threadDeps = threadWaits(graph, device, chainBegin, chainList, blocked, stats.blocked);
        for (const auto &[node, dep] : threadDeps.waits)
            deps.push_back({node, dep, ThreadWait});
        for (const auto &[node, dep] : threadDeps.starts)
            deps.push_back({node, dep, ThreadStart});
    }

    // astra-sim: what each GPU op is written as, and its process group.
    std::vector<std::uint8_t> gpuKind; // 0 CPU, 1 compute (COMP_NODE), 2 communication
    std::vector<std::uint32_t> collectives;
    std::vector<std::string> pgOf;
    if (astra) {
        gpuKind.assign(n, 0);
        pgOf.resize(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            if (!graph.nodes[i].gpu)
                continue;
            const CommInfo comm = classifyGpuOp(host, device, graph.nodes[i].event, graph.nodes[i].host,
                                                SizeRule::CollectiveMetadata);
            const AstraGpuKind kind = astraGpuKind(comm);
            gpuKind[i] = kind.type == ChakraProtoMsg::COMP_NODE ? 1 : 2;
            if ((kind.type == ChakraProtoMsg::COMM_SEND_NODE || kind.type == ChakraProtoMsg::COMM_RECV_NODE) && comm.src >= 0
                && comm.dst >= 0 && comm.src != comm.dst && comm.tag >= 0 && comm.tag < kP2pRendezvousTagBit) {
                if (plan.p2pRendezvous.empty())
                    plan.p2pRendezvous.assign(n, ChakraPlan::kNoRendezvous);
                plan.p2pRendezvous[i] = kind.type == ChakraProtoMsg::COMM_SEND_NODE ? ChakraPlan::kRendezvousSend
                                                                                    : ChakraPlan::kRendezvousRecv;
            }
            if (kind.type == ChakraProtoMsg::COMM_COLL_NODE) {
                collectives.push_back(i);
                pgOf[i] = comm.pgName;
            }
        }
    }

    // astra-sim: a CPU node that waits for a GPU op waits from the first node of its thread's chain
    // that started once the GPU op had ended (the linker names the first op with a kernel-linkable ET
    // node; a ProfilerStep#N before it must wait too, or its time runs before the wait).
    std::vector<std::uint32_t> chainAt; // graph position → index in chainList (UINT32_MAX: none)
    if (astra) {
        chainAt.assign(n, std::numeric_limits<std::uint32_t>::max());
        for (std::uint32_t k = 0; k < chainList.size(); ++k)
            chainAt[chainList[k]] = k;
    }
    auto syncWaiter = [&](std::uint32_t waiting, std::uint32_t waitedFor) {
        if (!astra || graph.nodes[waiting].gpu || chainAt[waiting] == std::numeric_limits<std::uint32_t>::max()
            || !device.contains(graph.nodes[waitedFor].event))
            return waiting;
        const Nanos ready = device.event(graph.nodes[waitedFor].event).end();
        std::uint32_t k = chainAt[waiting];
        const std::uint32_t first = *std::prev(std::upper_bound(chainBegin.begin(), chainBegin.end(), k)); // its chain's start
        while (k > first) {
            const EventIndex prev = graph.nodes[chainList[k - 1]].event;
            if (!device.contains(prev) || device.event(prev).ts < ready)
                break;
            --k;
        }
        return chainList[k];
    };

    if (options.syncDeps)
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t k = graph.syncBegin[i]; k < graph.syncBegin[i + 1]; ++k) {
                const std::uint32_t waitedFor = graph.syncList[k];
                const std::uint32_t waiter = syncWaiter(i, waitedFor);
                if (waiter != i) {
                    deps.push_back({waiter, waitedFor, Sync});
                    continue;
                }
                Kind kind = Sync;
                if (astra && gpuKind[i] && gpuKind[waitedFor]) {
                    // A cudaStreamWaitEvent between a communication and a compute op.
                    if (gpuKind[i] == 2 && gpuKind[waitedFor] == 1)
                        kind = CommWaitsCompute;
                    else if (gpuKind[i] == 1 && gpuKind[waitedFor] == 2)
                        kind = ComputeWaitsComm;
                    if ((kind == CommWaitsCompute && !options.commWaitsComputeDeps)
                        || (kind == ComputeWaitsComm && !options.computeWaitsCommDeps))
                        continue;
                }
                deps.push_back({i, waitedFor, kind});
            }

    // astra-sim: every blocking call the linker recorded makes the op that continues on its thread
    // wait for what it waited for — also the calls that draw no sync edge (blocking copies, frees, the
    // driver API's syncs: docs/linking.md keeps its edges as they were, and so the Chakra target).
    if (astra && options.syncDeps && options.blockedAsDependencies && links.blocking && !links.blocking->empty()) {
        std::map<ThreadIndex, std::vector<std::pair<Nanos, std::uint32_t>>> startsOf; // thread → (start, node), by start
        for (std::uint32_t node : chainList)
            if (device.contains(graph.nodes[node].event)) {
                const DeviceEvent &e = device.event(graph.nodes[node].event);
                startsOf[e.thread].emplace_back(e.ts, node);
            }
        for (auto &[thread, list] : startsOf)
            std::sort(list.begin(), list.end());
        for (const BlockingWait &w : *links.blocking) {
            if (!device.contains(w.call) || !w.awaited.in(graph.nodeOfEvent.size()))
                continue;
            const ExportNodeIndex awaited = graph.nodeOfEvent[w.awaited.get()];
            auto list = startsOf.find(device.event(w.call).thread);
            if (!awaited.valid() || list == startsOf.end())
                continue;
            const Nanos returned = device.event(w.call).end();
            auto next = std::lower_bound(list->second.begin(), list->second.end(), std::make_pair(returned, std::uint32_t(0)));
            if (next == list->second.end() || device.event(w.awaited).ts >= next->first)
                continue;
            deps.push_back({syncWaiter(next->second, awaited.value), awaited.value, Sync});
        }
    }

    // astra-sim: the collectives of one process group in the order they were launched.
    if (astra && options.pgOrderDeps && !collectives.empty()) {
        auto launchTs = [&](std::uint32_t i) {
            const EtPlusNode &node = graph.nodes[i];
            if (node.gpuLink.in(links.gpuLinks.size()) && device.contains(links.gpuLinks[node.gpuLink].launch))
                return device.event(links.gpuLinks[node.gpuLink].launch).ts;
            return device.event(node.event).ts;
        };
        std::sort(collectives.begin(), collectives.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::make_tuple(std::string_view(pgOf[a]), launchTs(a), a)
                   < std::make_tuple(std::string_view(pgOf[b]), launchTs(b), b);
        });
        for (std::size_t k = 1; k < collectives.size(); ++k)
            if (pgOf[collectives[k]] == pgOf[collectives[k - 1]])
                deps.push_back({collectives[k], collectives[k - 1], PgOrder});
    }

    // astra-sim: process_group:init nodes are left out (ASTRA-sim aborts on a METADATA_NODE; the
    // groups come from comm_group.json). A dependency on one becomes a dependency on what it waited for.
    std::vector<std::uint8_t> dropped;
    if (astra) {
        dropped.assign(n, 0);
        for (std::uint32_t i = 0; i < n; ++i)
            if (!graph.nodes[i].gpu && isProcessGroupMetadataName(host.name(host.node(graph.nodes[i].host)))) {
                dropped[i] = 1;
                ++stats.metadataDropped;
            }
        if (stats.metadataDropped) {
            std::multimap<std::uint32_t, std::uint32_t> depsOfDropped;
            for (const Dep &d : deps)
                if (dropped[d.node])
                    depsOfDropped.emplace(d.node, d.dep);
            std::vector<Dep> bridged;
            for (const Dep &d : deps) {
                if (dropped[d.node])
                    continue;
                if (!dropped[d.dep]) {
                    bridged.push_back(d);
                    continue;
                }
                // Walk through chains of dropped nodes (bounded: each is visited once per dependency).
                std::vector<std::uint32_t> todo{d.dep};
                std::vector<std::uint32_t> seen;
                while (!todo.empty()) {
                    const std::uint32_t x = todo.back();
                    todo.pop_back();
                    if (std::find(seen.begin(), seen.end(), x) != seen.end())
                        continue;
                    seen.push_back(x);
                    auto [from, to] = depsOfDropped.equal_range(x);
                    for (auto it = from; it != to; ++it) {
                        if (dropped[it->second])
                            todo.push_back(it->second);
                        else if (it->second != d.node)
                            bridged.push_back({d.node, it->second, d.kind});
                    }
                }
            }
            deps.swap(bridged);
        }
    }

    // One dependency per (node, dep), credited to the first kind that made it.
    std::sort(deps.begin(), deps.end(),
              [](const Dep &a, const Dep &b) { return std::tie(a.node, a.dep, a.kind) < std::tie(b.node, b.dep, b.kind); });
    deps.erase(
        std::unique(deps.begin(), deps.end(), [](const Dep &a, const Dep &b) { return a.node == b.node && a.dep == b.dep; }),
        deps.end());
    plan.depBegin.assign(n + 1, 0);
    plan.deps.reserve(deps.size());
    for (const Dep &d : deps) {
        ++plan.depBegin[d.node + 1];
        plan.deps.push_back(d.dep);
        switch (d.kind) {
        case InterThread:
            ++stats.interThreadDeps;
            break;
        case Chain:
            ++stats.chainDeps;
            break;
        case Launch:
            ++stats.launchDeps;
            break;
        case StreamOrder:
            ++stats.streamOrderDeps;
            break;
        case Sync:
            ++stats.syncDeps;
            break;
        case ThreadWait:
            ++stats.threadWaitDeps;
            break;
        case ThreadStart:
            ++stats.threadStartDeps;
            break;
        case PgOrder:
            ++stats.pgOrderDeps;
            break;
        case CommWaitsCompute:
            ++stats.commWaitsComputeDeps;
            break;
        case ComputeWaitsComm:
            ++stats.computeWaitsCommDeps;
            break;
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        plan.depBegin[i + 1] += plan.depBegin[i];

    // Dangling nodes (no dependency either way, no children) would run at time 0 in a simulator.
    plan.keep.assign(n, 1);
    for (std::uint32_t i = 0; i < dropped.size(); ++i)
        if (dropped[i])
            plan.keep[i] = 0;
    if (options.removeDanglingNodes) {
        std::vector<std::uint8_t> needed(n, 0);
        for (std::uint32_t dep : plan.deps)
            needed[dep] = 1;
        for (std::uint32_t i = 0; i < n; ++i)
            if (plan.keep[i] && !needed[i] && graph.childBegin[i] == graph.childBegin[i + 1]
                && plan.depBegin[i] == plan.depBegin[i + 1]) {
                plan.keep[i] = 0;
                ++stats.danglingRemoved;
            }
    }

    // The Kineto span of what is written: what a replay of these nodes stands for.
    bool anyTimed = false;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!plan.keep[i] || !device.contains(graph.nodes[i].event))
            continue;
        const DeviceEvent &e = device.event(graph.nodes[i].event);
        const Nanos end = e.ts + std::max<Nanos>(e.dur, 0);
        stats.spanBegin = anyTimed ? std::min(stats.spanBegin, e.ts) : e.ts;
        stats.spanEnd = anyTimed ? std::max(stats.spanEnd, end) : end;
        anyTimed = true;
    }

    // The profiled iterations (Kineto's ProfilerStep#N ops): what a replay is measured against.
    for (EventIndex e{0}; device.contains(e); ++e) {
        const DeviceEvent &ev = device.event(e);
        if (!isCpuOpCategory(ev.category) || !device.name(ev).starts_with("ProfilerStep#"))
            continue;
        const Nanos end = ev.ts + std::max<Nanos>(ev.dur, 0);
        const bool first = stats.iterationBegin == 0 && stats.iterationEnd == 0;
        stats.iterationBegin = first ? ev.ts : std::min(stats.iterationBegin, ev.ts);
        stats.iterationEnd = first ? end : std::max(stats.iterationEnd, end);
    }

    if (astra) {
        // Left-out nodes get no time: drop them from the chains before the durations are cut.
        std::vector<std::uint32_t> keptBegin(1, 0), keptList;
        for (std::size_t c = 0; c + 1 < chainBegin.size(); ++c) {
            for (std::uint32_t k = chainBegin[c]; k < chainBegin[c + 1]; ++k)
                if (plan.keep[chainList[k]])
                    keptList.push_back(chainList[k]);
            keptBegin.push_back(static_cast<std::uint32_t>(keptList.size()));
        }
        std::vector<std::uint8_t> gpuCompute(n, 0);
        for (std::uint32_t i = 0; i < n; ++i)
            gpuCompute[i] = plan.keep[i] && gpuKind[i] == 1;
        // The time from the iteration's start to the first exported op (Python, data loading: no ET
        // node) goes to the first node, as any other gap would.
        const Nanos leadInFrom = stats.iterationEnd > stats.iterationBegin ? stats.iterationBegin : kNoLeadIn;
        if (options.blockedAsDependencies) {
            const Nanos windowBegin = stats.iterationEnd > stats.iterationBegin ? stats.iterationBegin : stats.spanBegin;
            for (auto &[thread, list] :
                 blockedCallIntervals(device, links, stats.blocked, windowBegin, windowBegin + stats.measuredNs()))
                blocked[thread].insert(blocked[thread].end(), list.begin(), list.end());
            normaliseIntervals(blocked);
        }
        plan.durationMicros = astraSimDurationsMicros(graph, device, links, keptBegin, keptList, gpuCompute, options, leadInFrom,
                                                      options.blockedAsDependencies ? &blocked : nullptr);
    }
    return plan;
}

EtValidation validateChakraPlan(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                                const DeviceTrace &device)
{
    EtValidation result;
    const std::size_t n = graph.nodes.size();
    result.dataDepEdges = plan.deps.size();
    auto nameOf = [&](std::uint32_t i) {
        const EtPlusNode &node = graph.nodes[i];
        return std::string(node.gpu ? device.name(device.event(node.event)) : host.name(host.node(node.host)));
    };
    // A node that is kept never depends on a removed one (a dependency makes its target needed), and
    // ids are positions: only cycles can be wrong here.
    GraphOrder order = orderByDependencies(plan.depBegin, plan.deps, plan.keep);
    std::string field = "data_deps";
    if (order.acyclic()) {
        // The call tree: one parent per node.
        std::vector<std::uint32_t> parentBegin(n + 1, 0), parents;
        for (std::uint32_t i = 0; i < n; ++i) {
            parentBegin[i + 1] = parentBegin[i];
            if (graph.nodes[i].parent.valid()) {
                parents.push_back(graph.nodes[i].parent.value);
                ++parentBegin[i + 1];
                ++result.ctrlDepEdges;
            }
        }
        order = orderByDependencies(parentBegin, parents, plan.keep);
        field = "ctrl_deps";
    }
    result.nodesOnCycles = order.blocked;
    if (!order.cycle.empty())
        result.nameCycle(field, order.cycle, EtPlusGraph::idOf, nameOf);
    return result;
}

// What emitting nodes adds to the stats and the warnings; one per thread when blocks of nodes are
// built in parallel, summed afterwards (every figure is a count or a sum, the names are sorted).
struct EmitTally {
    ChakraStats stats; // only the per-node counters
    std::map<std::string, std::size_t> unclassifiedNames, replayedNames, unmappedGroups;
    std::size_t p2pWithoutPeers = 0;

    void add(const EmitTally &o)
    {
        stats.nodes += o.stats.nodes;
        stats.commColl += o.stats.commColl;
        stats.commSend += o.stats.commSend;
        stats.commRecv += o.stats.commRecv;
        stats.comp += o.stats.comp;
        stats.metadata += o.stats.metadata;
        stats.unclassifiedCollectives += o.stats.unclassifiedCollectives;
        stats.commWithoutSize += o.stats.commWithoutSize;
        stats.commReplayed += o.stats.commReplayed;
        stats.p2pRendezvous += o.stats.p2pRendezvous;
        stats.cpuDurationMicros += o.stats.cpuDurationMicros;
        stats.gpuCompDurationMicros += o.stats.gpuCompDurationMicros;
        for (const auto &[k, v] : o.unclassifiedNames)
            unclassifiedNames[k] += v;
        for (const auto &[k, v] : o.replayedNames)
            replayedNames[k] += v;
        for (const auto &[k, v] : o.unmappedGroups)
            unmappedGroups[k] += v;
        p2pWithoutPeers += o.p2pWithoutPeers;
    }
};

// The rendezvous before a P2P transfer (docs/astra-sim-export.md, "Sends that wait for their
// receiver"): the receiver, once its receive is posted, sends a one-byte clear-to-send to the
// sender; the sender's send waits for it, so the data moves only when both sides are there, as
// NCCL's does. `send`: `cts` is the sender's receive of it, else the receiver's send. It is posted
// when the transfer would be (the transfer's dependencies `deps`).
struct P2pTransfer {
    std::int32_t src = -1, dst = -1, tag = -1;
    std::string pg, name;
};

template <class NodeT>
void buildP2pRendezvous(NodeT &cts, bool send, std::uint64_t id, const std::uint32_t *depsBegin, const std::uint32_t *depsEnd,
                        const P2pTransfer &t, ChakraStats &stats)
{
    cts.Clear();
    cts.set_id(id);
    cts.set_name("p2p_cts:" + t.name);
    cts.set_type(send ? ChakraProtoMsg::COMM_RECV_NODE : ChakraProtoMsg::COMM_SEND_NODE);
    for (const std::uint32_t *d = depsBegin; d != depsEnd; ++d)
        cts.add_data_deps(EtPlusGraph::idOf(*d));
    cts.set_duration_micros(0);
    addBool(cts, "is_cpu_op", false);
    addInt64(cts, "comm_size", 1);
    if (!t.pg.empty())
        addString(cts, "pg_name", t.pg);
    // Back the other way: from the transfer's receiver to its sender.
    addInt32(cts, "comm_src", t.dst);
    addInt32(cts, "comm_dst", t.src);
    addInt32(cts, "comm_tag", t.tag | kP2pRendezvousTagBit);
    addString(cts, "p2p_rendezvous", send ? "sender" : "receiver");
    ++stats.nodes;
    ++stats.p2pRendezvous;
    ++(send ? stats.commRecv : stats.commSend);
}

// Builds the nodes [begin, end) that the plan keeps, in id order, and hands each to `sink`: as
// ChakraProtoMsg::Node messages, or as WireNodes (the same bytes once serialised).
template <class NodeT, class Sink>
void emitRange(std::uint32_t begin, std::uint32_t end, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
               const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, NodeText &text, Sink &&sink,
               EmitTally &tally)
{
    std::string scratch;
    ChakraStats &stats = tally.stats;
    std::map<std::string, std::size_t> &unclassifiedNames = tally.unclassifiedNames;
    std::map<std::string, std::size_t> &replayedNames = tally.replayedNames;
    std::map<std::string, std::size_t> &unmappedGroups = tally.unmappedGroups;
    std::size_t &p2pWithoutPeers = tally.p2pWithoutPeers;
    const bool astra = options.target == EtTarget::AstraSim;
    auto groupId = [&](const std::string &name) -> std::string {
        if (!astra)
            return name;
        if (auto it = options.pgIds.find(name); it != options.pgIds.end())
            return it->second;
        if (name.empty())
            return name;
        // The job's id for the name (jobmodel/processgroups.h): the name itself for PyTorch's "0", "1", …
        const std::string id = std::to_string(job::processGroupId(name));
        if (id != name)
            ++unmappedGroups[name];
        return id;
    };
    NodeT node; // reused: one message at a time, never the whole graph
    NodeT cts;  // a P2P transfer's rendezvous (ChakraPlan::p2pRendezvous), written before it
    P2pTransfer p2p;
    for (std::uint32_t i = begin; i < end; ++i) {
        if (!plan.keep[i])
            continue;
        const EtPlusNode &source = graph.nodes[i];
        const HostNode &h = host.node(source.host);
        node.Clear();
        node.set_id(EtPlusGraph::idOf(i));
        // A parent left out (an astra-sim METADATA node) hands its children to its own parent.
        ExportNodeIndex parent = source.parent;
        while (parent.valid() && !plan.keep[parent.get()])
            parent = graph.nodes[parent.get()].parent;
        if (parent.valid())
            node.add_ctrl_deps(EtPlusGraph::idOf(parent.value));
        for (std::uint32_t k = plan.depBegin[i]; k < plan.depBegin[i + 1]; ++k)
            node.add_data_deps(EtPlusGraph::idOf(plan.deps[k]));
        text.load(h);
        setIo(node.mutable_inputs(), text, h.inputs, astra, scratch);
        setIo(node.mutable_outputs(), text, h.outputs, astra, scratch);

        Nanos start = 0, duration = 0;
        if (source.event.valid()) {
            const DeviceEvent &e = device.event(source.event);
            start = e.ts;
            duration = source.gpu || !source.event.in(links.exclusiveDur.size()) ? e.dur : links.exclusiveDur[source.event];
        }
        node.set_duration_micros(plan.durationMicros.empty() ? microsOf(duration) : plan.durationMicros[i]);
        if (options.startTimes && source.event.valid())
            node.set_start_time_micros(microsOf(start));

        // GPU nodes carry their launcher's identity attrs, as in Chakra's ET+ (a copy of the parent).
        addInt64(node, "rf_id", static_cast<std::int64_t>(h.rfId));
        addInt64(node, "fw_parent", h.fwParent);
        addInt64(node, "seq_id", h.seqId);
        addInt64(node, "scope", h.scope);
        addInt64(node, "tid", h.tid);
        addInt64(node, "fw_tid", h.fwTid);
        addString(node, "op_schema", host.strings.at(h.opSchema));
        addBool(node, "is_cpu_op", !source.gpu);

        if (!source.gpu) {
            node.set_name(std::string(host.name(h)));
            const bool metadataNode = isProcessGroupMetadataName(host.name(h));
            node.set_type(metadataNode ? ChakraProtoMsg::METADATA_NODE : ChakraProtoMsg::COMP_NODE);
            addInt64(node, "stream", 0);
        } else {
            const DeviceEvent &e = device.event(source.event);
            node.set_name(std::string(device.name(e)));
            addInt64(node, "stream", e.stream >= 0 ? e.stream : 0);
            CommInfo comm = classifyGpuOp(host, device, source.event, source.host,
                                          astra ? SizeRule::CollectiveMetadata : SizeRule::ParentTensors);
            if (astra && astraGpuKind(comm).demoted) {
                // ASTRA-sim cannot run it as communication (a collective it does not issue, no size,
                // no peers, a group of one rank): replayed as compute for its measured time.
                ++stats.commReplayed;
                ++replayedNames[node.name()];
                addString(node, "replayed_communication", node.name());
                comm.type = ChakraProtoMsg::COMP_NODE;
                comm.isComm = false;
            }
            if (astra)
                comm.pgName = groupId(comm.pgName);
            node.set_type(comm.type);
            if (comm.isComm && comm.type == ChakraProtoMsg::COMP_NODE) {
                ++stats.unclassifiedCollectives;
                ++unclassifiedNames[node.name()];
                addString(node, "unclassified_collective", node.name());
            }
            switch (comm.type) {
            case ChakraProtoMsg::COMM_COLL_NODE:
                addInt64(node, "comm_type", comm.commType);
                addInt64(node, "comm_size", comm.bytes);
                if (!comm.pgName.empty())
                    addString(node, "pg_name", comm.pgName);
                break;
            case ChakraProtoMsg::COMM_SEND_NODE:
            case ChakraProtoMsg::COMM_RECV_NODE:
                addInt64(node, "comm_size", comm.bytes);
                if (!comm.pgName.empty())
                    addString(node, "pg_name", comm.pgName);
                // Written only when known: the feeder would otherwise read an invented peer.
                if (comm.src >= 0)
                    addInt32(node, "comm_src", comm.src);
                if (comm.dst >= 0)
                    addInt32(node, "comm_dst", comm.dst);
                if (comm.tag >= 0)
                    addInt32(node, "comm_tag", comm.tag);
                if (!plan.p2pRendezvous.empty() && plan.p2pRendezvous[i] != ChakraPlan::kNoRendezvous)
                    p2p = {comm.src, comm.dst, comm.tag, comm.pgName, node.name()};
                if (comm.src < 0 || comm.dst < 0 || comm.tag < 0)
                    ++p2pWithoutPeers;
                break;
            default:
                break;
            }
            if (comm.isComm && comm.type != ChakraProtoMsg::COMP_NODE && comm.bytes <= 0)
                ++stats.commWithoutSize;
        }
        ++stats.nodes;
        if (node.type() == ChakraProtoMsg::COMP_NODE)
            (source.gpu ? stats.gpuCompDurationMicros : stats.cpuDurationMicros) += node.duration_micros();
        switch (node.type()) {
        case ChakraProtoMsg::COMM_COLL_NODE:
            ++stats.commColl;
            break;
        case ChakraProtoMsg::COMM_SEND_NODE:
            ++stats.commSend;
            break;
        case ChakraProtoMsg::COMM_RECV_NODE:
            ++stats.commRecv;
            break;
        case ChakraProtoMsg::METADATA_NODE:
            ++stats.metadata;
            break;
        default:
            ++stats.comp;
        }
        if (!plan.p2pRendezvous.empty() && plan.p2pRendezvous[i] != ChakraPlan::kNoRendezvous) {
            const bool send = plan.p2pRendezvous[i] == ChakraPlan::kRendezvousSend;
            const std::uint64_t ctsId = p2pRendezvousId(graph.nodes.size(), i);
            buildP2pRendezvous(cts, send, ctsId, plan.deps.data() + plan.depBegin[i], plan.deps.data() + plan.depBegin[i + 1],
                               p2p, stats);
            sink(cts);
            if (send)
                node.add_data_deps(ctsId);
        }
        sink(node);
    }
}

// The warnings of a whole emission, from its summed tally (into `stats` its counters).
void finishTally(const EmitTally &tally, const DeviceTrace &device, ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    EmitTally sum;
    sum.stats = stats;
    sum.add(tally);
    stats = sum.stats;
    const std::map<std::string, std::size_t> &unclassifiedNames = tally.unclassifiedNames;
    const std::map<std::string, std::size_t> &replayedNames = tally.replayedNames;
    const std::map<std::string, std::size_t> &unmappedGroups = tally.unmappedGroups;
    const std::size_t p2pWithoutPeers = tally.p2pWithoutPeers;
    for (const auto &[name, count] : unclassifiedNames)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(count) + " communication kernel(s) \"" + name
                                + "\" with no recognisable collective: written as COMP_NODE (attr unclassified_collective)"});
    for (const auto &[name, count] : replayedNames)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(count) + " communication op(s) \"" + name
                                + "\" ASTRA-sim cannot run as communication (collective it does not issue, no size or no "
                                  "peers): written as COMP_NODE replayed for the measured time (attr replayed_communication)"});
    for (const auto &[name, count] : unmappedGroups)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(count) + " communication op(s) of process group \"" + name + "\" written with pg_name "
                                + std::to_string(job::processGroupId(name))
                                + ", the id the job's comm_group.json gives that name"});
    if (p2pWithoutPeers)
        warnings.push_back(
            {Diagnostic::Severity::Warning, device.path, kUnknownOffset,
             std::to_string(p2pWithoutPeers)
                 + " send/recv node(s) lack comm_src/comm_dst/comm_tag (no Src/Dst Rank or Seq in the Kineto args)"});
    if (stats.commWithoutSize)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(stats.commWithoutSize)
                                + " communication node(s) with comm_size 0: no tensor sizes or element counts found"});
}

void emitChakra(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                const LinkSet &links, const ChakraOptions &options, const std::function<void(const Node &)> &sink,
                ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    EmitTally tally;
    NodeText text(host);
    emitRange<Node>(0, static_cast<std::uint32_t>(graph.nodes.size()), plan, graph, host, device, links, options, text, sink,
                    tally);
    finishTally(tally, device, stats, warnings);
}

ChakraProtoMsg::GlobalMetadata chakraMetadata(const EtPlusGraph &graph, const HostTrace &host)
{
    // As chakra_converter writes it: schema, pid, time, start_ts, finish_ts.
    ChakraProtoMsg::GlobalMetadata metadata;
    addString(metadata, "schema", graph.schema);
    addMetadataUint64(metadata, "pid", host.pid);
    addString(metadata, "time", host.time);
    addMetadataUint64(metadata, "start_ts", host.startTs);
    addMetadataUint64(metadata, "finish_ts", host.finishTs >= 0 ? host.finishTs : host.startTs);
    return metadata;
}

ChakraConversion convertToChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                                 const ChakraOptions &options)
{
    ChakraConversion result;
    const ChakraPlan plan = planChakra(graph, host, device, links, options);
    result.stats = plan.stats;
    result.trace.metadata = chakraMetadata(graph, host);
    result.trace.nodes.reserve(graph.nodes.size() - plan.stats.danglingRemoved);
    emitChakra(
        plan, graph, host, device, links, options, [&](const Node &node) { result.trace.nodes.push_back(node); }, result.stats,
        result.warnings);
    return result;
}

std::uint64_t writeChakraPlan(const std::string &path, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                              const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, bool gzip,
                              ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    AtomicFile file(path, gzip ? Compression::Gzip : Compression::None);
    // Each message with its varint length, as Chakra's encode_message writes them.
    auto append = [](std::string &buffer, const google::protobuf::Message &message) {
        std::uint64_t size = message.ByteSizeLong();
        while (size >= 0x80) {
            buffer.push_back(static_cast<char>((size & 0x7f) | 0x80));
            size >>= 7;
        }
        buffer.push_back(static_cast<char>(size));
        message.AppendToString(&buffer);
    };
    {
        std::string metadata;
        append(metadata, chakraMetadata(graph, host));
        file.write(metadata);
    }
    stats = plan.stats;
    // Blocks of nodes are built and serialised on every core and written in id order: the bytes
    // are those of one thread, the memory a few blocks'.
    const int threads = exportThreads();
    std::vector<EmitTally> tallies(static_cast<std::size_t>(threads));
    std::vector<std::unique_ptr<NodeText>> readers(static_cast<std::size_t>(threads));
    forEachBlockInOrder(
        graph.nodes.size(), 8192, threads,
        [&](std::uint64_t first, std::uint64_t last, std::string &text, int slot) {
            std::unique_ptr<NodeText> &reader = readers[static_cast<std::size_t>(slot)];
            if (!reader)
                reader = std::make_unique<NodeText>(host);
            emitRange<WireNode>(
                static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last), plan, graph, host, device, links, options,
                *reader, [&](WireNode &node) { node.appendDelimited(text); }, tallies[static_cast<std::size_t>(slot)]);
        },
        [&](const std::string &text) { file.write(text); });
    EmitTally tally;
    for (const EmitTally &t : tallies)
        tally.add(t);
    finishTally(tally, device, stats, warnings);
    file.commit();
    return file.bytesOnDisk();
}

} // namespace linkscope::core
