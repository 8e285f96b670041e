// planChakra (export/exporter.h): the dependencies, kept nodes and durations of the .et a pair
// becomes, for the Chakra target and the astra-sim one (docs/astra-sim-export.md). One planner pass
// per kind of dependency; every pass appends to one list, which is made unique at the end (a
// dependency made by several passes is credited to the first kind in `DepKind`'s order).

#include "export/blockedtime.h"
#include "export/chakra/astrasimtarget.h"
#include "export/exporter.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace linkscope::core {

namespace {

enum DepKind : std::uint8_t {
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
    DepKind kind;
};

constexpr std::uint32_t kNoChainPosition = std::numeric_limits<std::uint32_t>::max();

class ChakraPlanner {
public:
    ChakraPlanner(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                  const ChakraOptions &options)
        : graph_(graph), host_(host), device_(device), links_(links), options_(options),
          astra_(options.target == EtTarget::AstraSim), nodeCount_(graph.nodes.size())
    {
        deps_.reserve(nodeCount_ * 2);
    }

    ChakraPlan run()
    {
        chainDependencies();
        launchDependencies();
        streamOrderDependencies();
        threadWaitDependencies();
        if (astra_) {
            classifyGpuOps();
            indexChainPositions();
        }
        syncDependencies();
        blockingCallDependencies();
        processGroupOrderDependencies();
        if (astra_)
            leaveOutProcessGroupMetadata();
        compactDependencies();
        keepNodes();
        measureSpans();
        if (astra_)
            cutAstraSimDurations();
        return std::move(plan_);
    }

private:
    // ctrl → data (chakra_converter's convert_ctrl_dep_to_data_dep): per thread root, the CPU nodes
    // in DFS pre-order form one chain, and an inter-thread dependency is kept. The astra-sim target
    // remembers each thread's chain, in order.
    void chainDependencies()
    {
        std::vector<std::uint8_t> visited(nodeCount_, 0);
        std::vector<std::uint32_t> stack;
        for (std::uint32_t root = 0; root < nodeCount_; ++root) {
            if (graph_.nodes[root].gpu || visited[root] || !isEtThreadRootName(host_.name(host_.node(graph_.nodes[root].host))))
                continue;
            if (astra_ && chainList_.size() != chainBegin_.back())
                chainBegin_.push_back(static_cast<std::uint32_t>(chainList_.size()));
            ExportNodeIndex lastCpu{};
            stack.assign(1, root);
            while (!stack.empty()) {
                const std::uint32_t v = stack.back();
                stack.pop_back();
                if (visited[v])
                    continue;
                visited[v] = 1;
                const EtPlusNode &source = graph_.nodes[v];
                if (source.interThreadDep.valid() && source.interThreadDep.value != v)
                    deps_.push_back({v, source.interThreadDep.value, InterThread});
                if (lastCpu.valid())
                    deps_.push_back({v, lastCpu.value, Chain});
                lastCpu = ExportNodeIndex(v);
                if (astra_)
                    chainList_.push_back(v);
                for (std::uint32_t k = graph_.childBegin[v + 1]; k-- > graph_.childBegin[v];) {
                    const std::uint32_t child = graph_.childList[k];
                    if (!graph_.nodes[child].gpu && !visited[child])
                        stack.push_back(child);
                }
            }
        }
        if (astra_ && chainList_.size() != chainBegin_.back())
            chainBegin_.push_back(static_cast<std::uint32_t>(chainList_.size()));
    }

    // Each GPU node waits for its launching CPU node.
    void launchDependencies()
    {
        for (std::uint32_t i = 0; i < nodeCount_; ++i)
            if (graph_.nodes[i].gpu && graph_.nodes[i].parent.valid())
                deps_.push_back({i, graph_.nodes[i].parent.value, Launch});
    }

    void streamOrderDependencies()
    {
        if (!options_.streamOrderDeps)
            return;
        for (const Edge &edge : links_.edges) {
            if (edge.kind != EdgeKind::StreamOrder || !edge.from.in(graph_.nodeOfEvent.size())
                || !edge.to.in(graph_.nodeOfEvent.size()))
                continue;
            const ExportNodeIndex from = graph_.nodeOfEvent[edge.from.get()], to = graph_.nodeOfEvent[edge.to.get()];
            if (from.valid() && to.valid() && from != to)
                deps_.push_back({to.value, from.value, StreamOrder});
        }
    }

    // astra-sim: blocked time becomes dependencies (export/blockedtime.h). The waits on the GPU are
    // the Sync dependencies; the waits on another thread are made here.
    void threadWaitDependencies()
    {
        if (!astra_ || !options_.blockedAsDependencies)
            return;
        const ThreadDeps threadDeps = threadWaits(graph_, device_, chainBegin_, chainList_, blocked_, plan_.stats.blocked);
        for (const auto &[node, dep] : threadDeps.waits)
            deps_.push_back({node, dep, ThreadWait});
        for (const auto &[node, dep] : threadDeps.starts)
            deps_.push_back({node, dep, ThreadStart});
    }

    // astra-sim: what each GPU op is written as, its process group, and which sends and receives
    // get a clear-to-send.
    void classifyGpuOps()
    {
        gpuKind_.assign(nodeCount_, CpuNode);
        processGroupOf_.resize(nodeCount_);
        for (std::uint32_t i = 0; i < nodeCount_; ++i) {
            if (!graph_.nodes[i].gpu)
                continue;
            const CommInfo comm = classifyGpuOp(host_, device_, graph_.nodes[i].event, graph_.nodes[i].host,
                                                SizeRule::CollectiveMetadata);
            const AstraGpuKind kind = astraGpuKind(comm);
            gpuKind_[i] = kind.type == ChakraProtoMsg::COMP_NODE ? ComputeNode : CommunicationNode;
            if ((kind.type == ChakraProtoMsg::COMM_SEND_NODE || kind.type == ChakraProtoMsg::COMM_RECV_NODE) && comm.src >= 0
                && comm.dst >= 0 && comm.src != comm.dst && comm.tag >= 0 && comm.tag < kP2pRendezvousTagBit) {
                if (plan_.p2pRendezvous.empty())
                    plan_.p2pRendezvous.assign(nodeCount_, ChakraPlan::kNoRendezvous);
                plan_.p2pRendezvous[i] = kind.type == ChakraProtoMsg::COMM_SEND_NODE ? ChakraPlan::kRendezvousSend
                                                                                     : ChakraPlan::kRendezvousRecv;
            }
            if (kind.type == ChakraProtoMsg::COMM_COLL_NODE) {
                collectives_.push_back(i);
                processGroupOf_[i] = comm.pgName;
            }
        }
    }

    void indexChainPositions()
    {
        chainPosition_.assign(nodeCount_, kNoChainPosition);
        for (std::uint32_t k = 0; k < chainList_.size(); ++k)
            chainPosition_[chainList_[k]] = k;
    }

    // astra-sim: a CPU node that waits for a GPU op waits from the first node of its thread's chain
    // that started once the GPU op had ended (the linker names the first op with a kernel-linkable ET
    // node; a ProfilerStep#N before it must wait too, or its time runs before the wait).
    std::uint32_t syncWaiter(std::uint32_t waiting, std::uint32_t waitedFor) const
    {
        if (!astra_ || graph_.nodes[waiting].gpu || chainPosition_[waiting] == kNoChainPosition
            || !device_.contains(graph_.nodes[waitedFor].event))
            return waiting;
        const Nanos ready = device_.event(graph_.nodes[waitedFor].event).end();
        std::uint32_t k = chainPosition_[waiting];
        const std::uint32_t first = *std::prev(std::upper_bound(chainBegin_.begin(), chainBegin_.end(), k)); // its chain's start
        while (k > first) {
            const EventIndex previous = graph_.nodes[chainList_[k - 1]].event;
            if (!device_.contains(previous) || device_.event(previous).ts < ready)
                break;
            --k;
        }
        return chainList_[k];
    }

    void syncDependencies()
    {
        if (!options_.syncDeps)
            return;
        for (std::uint32_t i = 0; i < nodeCount_; ++i)
            for (std::uint32_t k = graph_.syncBegin[i]; k < graph_.syncBegin[i + 1]; ++k) {
                const std::uint32_t waitedFor = graph_.syncList[k];
                const std::uint32_t waiter = syncWaiter(i, waitedFor);
                if (waiter != i) {
                    deps_.push_back({waiter, waitedFor, Sync});
                    continue;
                }
                DepKind kind = Sync;
                if (astra_ && gpuKind_[i] != CpuNode && gpuKind_[waitedFor] != CpuNode) {
                    // A cudaStreamWaitEvent between a communication and a compute op.
                    if (gpuKind_[i] == CommunicationNode && gpuKind_[waitedFor] == ComputeNode)
                        kind = CommWaitsCompute;
                    else if (gpuKind_[i] == ComputeNode && gpuKind_[waitedFor] == CommunicationNode)
                        kind = ComputeWaitsComm;
                    if ((kind == CommWaitsCompute && !options_.commWaitsComputeDeps)
                        || (kind == ComputeWaitsComm && !options_.computeWaitsCommDeps))
                        continue;
                }
                deps_.push_back({i, waitedFor, kind});
            }
    }

    // astra-sim: every blocking call the linker recorded makes the op that continues on its thread
    // wait for what it waited for — also the calls that draw no sync edge (blocking copies, frees, the
    // driver API's syncs: docs/linking.md keeps its edges as they are, and so the Chakra target).
    void blockingCallDependencies()
    {
        if (!astra_ || !options_.syncDeps || !options_.blockedAsDependencies || !links_.blocking || links_.blocking->empty())
            return;
        std::map<ThreadIndex, std::vector<std::pair<Nanos, std::uint32_t>>> startsOf; // thread → (start, node), by start
        for (std::uint32_t node : chainList_)
            if (device_.contains(graph_.nodes[node].event)) {
                const DeviceEvent &e = device_.event(graph_.nodes[node].event);
                startsOf[e.thread].emplace_back(e.ts, node);
            }
        for (auto &[thread, list] : startsOf)
            std::sort(list.begin(), list.end());
        for (const BlockingWait &w : *links_.blocking) {
            if (!device_.contains(w.call) || !w.awaited.in(graph_.nodeOfEvent.size()))
                continue;
            const ExportNodeIndex awaited = graph_.nodeOfEvent[w.awaited.get()];
            auto list = startsOf.find(device_.event(w.call).thread);
            if (!awaited.valid() || list == startsOf.end())
                continue;
            const Nanos returned = device_.event(w.call).end();
            auto next = std::lower_bound(list->second.begin(), list->second.end(), std::make_pair(returned, std::uint32_t(0)));
            if (next == list->second.end() || device_.event(w.awaited).ts >= next->first)
                continue;
            deps_.push_back({syncWaiter(next->second, awaited.value), awaited.value, Sync});
        }
    }

    // astra-sim: the collectives of one process group in the order they were launched.
    void processGroupOrderDependencies()
    {
        if (!astra_ || !options_.pgOrderDeps || collectives_.empty())
            return;
        auto launchTs = [&](std::uint32_t i) {
            const EtPlusNode &node = graph_.nodes[i];
            if (node.gpuLink.in(links_.gpuLinks.size()) && device_.contains(links_.gpuLinks[node.gpuLink].launch))
                return device_.event(links_.gpuLinks[node.gpuLink].launch).ts;
            return device_.event(node.event).ts;
        };
        std::sort(collectives_.begin(), collectives_.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::make_tuple(std::string_view(processGroupOf_[a]), launchTs(a), a)
                   < std::make_tuple(std::string_view(processGroupOf_[b]), launchTs(b), b);
        });
        for (std::size_t k = 1; k < collectives_.size(); ++k)
            if (processGroupOf_[collectives_[k]] == processGroupOf_[collectives_[k - 1]])
                deps_.push_back({collectives_[k], collectives_[k - 1], PgOrder});
    }

    // astra-sim: process_group:init nodes are left out (ASTRA-sim aborts on a METADATA_NODE; the
    // groups come from comm_group.json). A dependency on one becomes a dependency on what it waited for.
    void leaveOutProcessGroupMetadata()
    {
        dropped_.assign(nodeCount_, 0);
        for (std::uint32_t i = 0; i < nodeCount_; ++i)
            if (!graph_.nodes[i].gpu && isProcessGroupMetadataName(host_.name(host_.node(graph_.nodes[i].host)))) {
                dropped_[i] = 1;
                ++plan_.stats.metadataDropped;
            }
        if (!plan_.stats.metadataDropped)
            return;
        std::multimap<std::uint32_t, std::uint32_t> depsOfDropped;
        for (const Dep &d : deps_)
            if (dropped_[d.node])
                depsOfDropped.emplace(d.node, d.dep);
        std::vector<Dep> bridged;
        for (const Dep &d : deps_) {
            if (dropped_[d.node])
                continue;
            if (!dropped_[d.dep]) {
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
                    if (dropped_[it->second])
                        todo.push_back(it->second);
                    else if (it->second != d.node)
                        bridged.push_back({d.node, it->second, d.kind});
                }
            }
        }
        deps_.swap(bridged);
    }

    void countDependency(DepKind kind)
    {
        ChakraStats &stats = plan_.stats;
        switch (kind) {
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

    // One dependency per (node, dep), credited to the first kind that made it; then per node, in CSR.
    void compactDependencies()
    {
        std::sort(deps_.begin(), deps_.end(),
                  [](const Dep &a, const Dep &b) { return std::tie(a.node, a.dep, a.kind) < std::tie(b.node, b.dep, b.kind); });
        deps_.erase(std::unique(deps_.begin(), deps_.end(),
                                [](const Dep &a, const Dep &b) { return a.node == b.node && a.dep == b.dep; }),
                    deps_.end());
        plan_.depBegin.assign(nodeCount_ + 1, 0);
        plan_.deps.reserve(deps_.size());
        for (const Dep &d : deps_) {
            ++plan_.depBegin[d.node + 1];
            plan_.deps.push_back(d.dep);
            countDependency(d.kind);
        }
        for (std::size_t i = 0; i < nodeCount_; ++i)
            plan_.depBegin[i + 1] += plan_.depBegin[i];
    }

    // Left out: the dropped metadata nodes, and dangling nodes (no dependency either way, no
    // children), which would run at time 0 in a simulator.
    void keepNodes()
    {
        plan_.keep.assign(nodeCount_, 1);
        for (std::uint32_t i = 0; i < dropped_.size(); ++i)
            if (dropped_[i])
                plan_.keep[i] = 0;
        if (!options_.removeDanglingNodes)
            return;
        std::vector<std::uint8_t> needed(nodeCount_, 0);
        for (std::uint32_t dep : plan_.deps)
            needed[dep] = 1;
        for (std::uint32_t i = 0; i < nodeCount_; ++i)
            if (plan_.keep[i] && !needed[i] && graph_.childBegin[i] == graph_.childBegin[i + 1]
                && plan_.depBegin[i] == plan_.depBegin[i + 1]) {
                plan_.keep[i] = 0;
                ++plan_.stats.danglingRemoved;
            }
    }

    // The Kineto span of what is written (what a replay of these nodes stands for), and the profiled
    // iterations (Kineto's ProfilerStep#N ops: what a replay is measured against).
    void measureSpans()
    {
        ChakraStats &stats = plan_.stats;
        bool anyTimed = false;
        for (std::uint32_t i = 0; i < nodeCount_; ++i) {
            if (!plan_.keep[i] || !device_.contains(graph_.nodes[i].event))
                continue;
            const DeviceEvent &e = device_.event(graph_.nodes[i].event);
            const Nanos end = e.ts + std::max<Nanos>(e.dur, 0);
            stats.spanBegin = anyTimed ? std::min(stats.spanBegin, e.ts) : e.ts;
            stats.spanEnd = anyTimed ? std::max(stats.spanEnd, end) : end;
            anyTimed = true;
        }
        for (EventIndex e{0}; device_.contains(e); ++e) {
            const DeviceEvent &ev = device_.event(e);
            if (!isCpuOpCategory(ev.category) || !device_.name(ev).starts_with("ProfilerStep#"))
                continue;
            const Nanos end = ev.ts + std::max<Nanos>(ev.dur, 0);
            const bool first = stats.iterationBegin == 0 && stats.iterationEnd == 0;
            stats.iterationBegin = first ? ev.ts : std::min(stats.iterationBegin, ev.ts);
            stats.iterationEnd = first ? end : std::max(stats.iterationEnd, end);
        }
    }

    // astra-sim: the node durations (export/chakra/astrasimtarget.h) over the kept nodes.
    void cutAstraSimDurations()
    {
        ChakraStats &stats = plan_.stats;
        // Left-out nodes get no time: drop them from the chains before the durations are cut.
        std::vector<std::uint32_t> keptBegin(1, 0), keptList;
        for (std::size_t c = 0; c + 1 < chainBegin_.size(); ++c) {
            for (std::uint32_t k = chainBegin_[c]; k < chainBegin_[c + 1]; ++k)
                if (plan_.keep[chainList_[k]])
                    keptList.push_back(chainList_[k]);
            keptBegin.push_back(static_cast<std::uint32_t>(keptList.size()));
        }
        std::vector<std::uint8_t> gpuCompute(nodeCount_, 0);
        for (std::uint32_t i = 0; i < nodeCount_; ++i)
            gpuCompute[i] = plan_.keep[i] && gpuKind_[i] == ComputeNode;
        // The time from the iteration's start to the first exported op (Python, data loading: no ET
        // node) goes to the first node, as any other gap would.
        const Nanos leadInFrom = stats.iterationEnd > stats.iterationBegin ? stats.iterationBegin : kNoLeadIn;
        if (options_.blockedAsDependencies) {
            const Nanos windowBegin = stats.iterationEnd > stats.iterationBegin ? stats.iterationBegin : stats.spanBegin;
            for (auto &[thread, list] :
                 blockedCallIntervals(device_, links_, stats.blocked, windowBegin, windowBegin + stats.measuredNs()))
                blocked_[thread].insert(blocked_[thread].end(), list.begin(), list.end());
            normaliseIntervals(blocked_);
        }
        AstraSimDurations durations = astraSimDurations(graph_, device_, links_, keptBegin, keptList, gpuCompute, options_,
                                                        leadInFrom, options_.blockedAsDependencies ? &blocked_ : nullptr);
        plan_.durationMicros = std::move(durations.micros);
        plan_.laneNs = std::move(durations.laneNs);
        plan_.dispatchNs = std::move(durations.dispatchNs);
        stats.gpuBusyNs = durations.gpuBusyNs;
        stats.gpuOverlapNs = durations.gpuOverlapNs;
    }

    enum GpuKind : std::uint8_t { CpuNode, ComputeNode, CommunicationNode };

    const EtPlusGraph &graph_;
    const HostTrace &host_;
    const DeviceTrace &device_;
    const LinkSet &links_;
    const ChakraOptions &options_;
    const bool astra_;
    const std::size_t nodeCount_;

    ChakraPlan plan_;
    std::vector<Dep> deps_;
    std::vector<std::uint32_t> chainBegin_{0}, chainList_; // astra-sim: each thread's chain, in order
    std::vector<std::uint32_t> chainPosition_;             // graph position → index in chainList_ (kNoChainPosition)
    BlockedIntervals blocked_;                // the waits on other threads; the calls' added once the measured window is known
    std::vector<GpuKind> gpuKind_;            // astra-sim, per graph position
    std::vector<std::uint32_t> collectives_;  // astra-sim: the COMM_COLL_NODE positions
    std::vector<std::string> processGroupOf_; // astra-sim: a collective's process group
    std::vector<std::uint8_t> dropped_;       // astra-sim: process_group:init nodes left out
};

} // namespace

ChakraPlan planChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                      const ChakraOptions &options)
{
    requireHostSource(host);
    return ChakraPlanner(graph, host, device, links, options).run();
}

} // namespace linkscope::core
