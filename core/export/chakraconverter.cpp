#include "export/exporter.h"

#include "export/collective.h"
#include "export/graphorder.h"

#include "io/atomicfile.h"

#include <algorithm>
#include <functional>
#include <map>
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

void setIo(ChakraProtoMsg::IOInfo *io, const HostTrace &host, const HostIO &source)
{
    // JSON text of the ET's lists (chakra_converter writes Python's repr of the same lists).
    auto text = [&](Span s) { return s.empty() ? std::string("[]") : hostSpanText(host, s); };
    io->set_values(text(source.values));
    io->set_shapes(text(source.shapes));
    io->set_types(text(source.types));
}

std::uint64_t microsOf(Nanos ns)
{
    return ns > 0 ? static_cast<std::uint64_t>(ns / 1000) : 0;
}

void addMetadataUint64(ChakraProtoMsg::GlobalMetadata &metadata, const char *name, std::int64_t value)
{
    newAttr(metadata, name)->set_uint64_val(static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0)));
}

} // namespace

ChakraPlan planChakra(const EtPlusGraph &graph, const HostTrace &host, const LinkSet &links, const ChakraOptions &options)
{
    requireHostSource(host);
    ChakraPlan plan;
    ChakraStats &stats = plan.stats;
    const std::size_t n = graph.nodes.size();
    enum Kind : std::uint8_t { InterThread, Chain, Launch, StreamOrder, Sync };
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
    for (std::uint32_t root = 0; root < n; ++root) {
        if (graph.nodes[root].gpu || visited[root] || !isEtThreadRootName(host.name(host.nodes[graph.nodes[root].host])))
            continue;
        std::uint32_t lastCpu = kNoNode;
        stack.assign(1, root);
        while (!stack.empty()) {
            const std::uint32_t v = stack.back();
            stack.pop_back();
            if (visited[v])
                continue;
            visited[v] = 1;
            const EtPlusNode &source = graph.nodes[v];
            if (source.interThreadDep != kNoNode && source.interThreadDep != v)
                deps.push_back({v, source.interThreadDep, InterThread});
            if (lastCpu != kNoNode)
                deps.push_back({v, lastCpu, Chain});
            lastCpu = v;
            for (std::uint32_t k = graph.childBegin[v + 1]; k-- > graph.childBegin[v];) {
                const std::uint32_t child = graph.childList[k];
                if (!graph.nodes[child].gpu && !visited[child])
                    stack.push_back(child);
            }
        }
    }
    for (std::uint32_t i = 0; i < n; ++i)
        if (graph.nodes[i].gpu && graph.nodes[i].parent != kNoNode)
            deps.push_back({i, graph.nodes[i].parent, Launch});
    if (options.streamOrderDeps)
        for (const Edge &edge : links.edges) {
            if (edge.kind != EdgeKind::StreamOrder || edge.from >= graph.nodeOfEvent.size() || edge.to >= graph.nodeOfEvent.size())
                continue;
            const std::uint32_t from = graph.nodeOfEvent[edge.from], to = graph.nodeOfEvent[edge.to];
            if (from != kNoNode && to != kNoNode && from != to)
                deps.push_back({to, from, StreamOrder});
        }
    if (options.syncDeps)
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t k = graph.syncBegin[i]; k < graph.syncBegin[i + 1]; ++k)
                deps.push_back({i, graph.syncList[k], Sync});

    // One dependency per (node, dep), credited to the first kind that made it.
    std::sort(deps.begin(), deps.end(), [](const Dep &a, const Dep &b) {
        return std::tie(a.node, a.dep, a.kind) < std::tie(b.node, b.dep, b.kind);
    });
    deps.erase(std::unique(deps.begin(), deps.end(), [](const Dep &a, const Dep &b) { return a.node == b.node && a.dep == b.dep; }),
               deps.end());
    plan.depBegin.assign(n + 1, 0);
    plan.deps.reserve(deps.size());
    for (const Dep &d : deps) {
        ++plan.depBegin[d.node + 1];
        plan.deps.push_back(d.dep);
        switch (d.kind) {
        case InterThread: ++stats.interThreadDeps; break;
        case Chain: ++stats.chainDeps; break;
        case Launch: ++stats.launchDeps; break;
        case StreamOrder: ++stats.streamOrderDeps; break;
        case Sync: ++stats.syncDeps; break;
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        plan.depBegin[i + 1] += plan.depBegin[i];

    // Dangling nodes (no dependency either way, no children) would run at time 0 in a simulator.
    plan.keep.assign(n, 1);
    if (options.removeDanglingNodes) {
        std::vector<std::uint8_t> needed(n, 0);
        for (std::uint32_t dep : plan.deps)
            needed[dep] = 1;
        for (std::uint32_t i = 0; i < n; ++i)
            if (!needed[i] && graph.childBegin[i] == graph.childBegin[i + 1] && plan.depBegin[i] == plan.depBegin[i + 1]) {
                plan.keep[i] = 0;
                ++stats.danglingRemoved;
            }
    }
    return plan;
}

EtValidation validateChakraPlan(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device)
{
    EtValidation result;
    const std::size_t n = graph.nodes.size();
    result.dataDepEdges = plan.deps.size();
    auto nameOf = [&](std::uint32_t i) {
        const EtPlusNode &node = graph.nodes[i];
        return std::string(node.gpu ? device.name(device.events[node.event]) : host.name(host.nodes[node.host]));
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
            if (graph.nodes[i].parent != kNoNode) {
                parents.push_back(graph.nodes[i].parent);
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

void emitChakra(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                const LinkSet &links, const ChakraOptions &options, const std::function<void(const Node &)> &sink,
                ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    const std::size_t n = graph.nodes.size();
    std::map<std::string, std::size_t> unclassifiedNames;
    std::size_t p2pWithoutPeers = 0;
    Node node; // reused: one message at a time, never the whole graph
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!plan.keep[i])
            continue;
        const EtPlusNode &source = graph.nodes[i];
        const HostNode &h = host.nodes[source.host];
        node.Clear();
        node.set_id(EtPlusGraph::idOf(i));
        if (source.parent != kNoNode)
            node.add_ctrl_deps(EtPlusGraph::idOf(source.parent));
        for (std::uint32_t k = plan.depBegin[i]; k < plan.depBegin[i + 1]; ++k)
            node.add_data_deps(EtPlusGraph::idOf(plan.deps[k]));
        setIo(node.mutable_inputs(), host, h.inputs);
        setIo(node.mutable_outputs(), host, h.outputs);

        Nanos start = 0, duration = 0;
        if (source.event != kNoIndex) {
            const DeviceEvent &e = device.events[source.event];
            start = e.ts;
            duration = source.gpu || source.event >= links.exclusiveDur.size() ? e.dur : links.exclusiveDur[source.event];
        }
        node.set_duration_micros(microsOf(duration));
        if (options.startTimes && source.event != kNoIndex)
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
            const bool metadataNode = host.name(h).find("process_group:init") != std::string_view::npos;
            node.set_type(metadataNode ? ChakraProtoMsg::METADATA_NODE : ChakraProtoMsg::COMP_NODE);
            addInt64(node, "stream", 0);
        } else {
            const DeviceEvent &e = device.events[source.event];
            node.set_name(std::string(device.name(e)));
            addInt64(node, "stream", e.stream >= 0 ? e.stream : 0);
            const CommInfo comm = classifyGpuOp(host, device, source.event, source.host);
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
        switch (node.type()) {
        case ChakraProtoMsg::COMM_COLL_NODE: ++stats.commColl; break;
        case ChakraProtoMsg::COMM_SEND_NODE: ++stats.commSend; break;
        case ChakraProtoMsg::COMM_RECV_NODE: ++stats.commRecv; break;
        case ChakraProtoMsg::METADATA_NODE: ++stats.metadata; break;
        default: ++stats.comp;
        }
        sink(node);
    }
    for (const auto &[name, count] : unclassifiedNames)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(count) + " communication kernel(s) \"" + name +
                                "\" with no recognisable collective: written as COMP_NODE (attr unclassified_collective)"});
    if (p2pWithoutPeers)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(p2pWithoutPeers) +
                                " send/recv node(s) lack comm_src/comm_dst/comm_tag (no Src/Dst Rank or Seq in the Kineto args)"});
    if (stats.commWithoutSize)
        warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                            std::to_string(stats.commWithoutSize) +
                                " communication node(s) with comm_size 0: no tensor sizes or element counts found"});
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

ChakraConversion convertToChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                                 const LinkSet &links, const ChakraOptions &options)
{
    ChakraConversion result;
    const ChakraPlan plan = planChakra(graph, host, links, options);
    result.stats = plan.stats;
    result.trace.metadata = chakraMetadata(graph, host);
    result.trace.nodes.reserve(graph.nodes.size() - plan.stats.danglingRemoved);
    emitChakra(plan, graph, host, device, links, options, [&](const Node &node) { result.trace.nodes.push_back(node); },
               result.stats, result.warnings);
    return result;
}

std::uint64_t writeChakraPlan(const std::string &path, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                              const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, bool gzip,
                              ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    AtomicFile file(path, gzip ? Compression::Gzip : Compression::None);
    std::string buffer;
    constexpr std::size_t kFlushAt = std::size_t(4) << 20;
    buffer.reserve(kFlushAt + 65536);
    auto append = [&](const google::protobuf::Message &message) {
        std::uint64_t size = message.ByteSizeLong();
        while (size >= 0x80) {
            buffer.push_back(static_cast<char>((size & 0x7f) | 0x80));
            size >>= 7;
        }
        buffer.push_back(static_cast<char>(size));
        message.AppendToString(&buffer);
        if (buffer.size() >= kFlushAt) {
            file.write(buffer);
            buffer.clear();
        }
    };
    append(chakraMetadata(graph, host));
    stats = plan.stats;
    emitChakra(plan, graph, host, device, links, options, append, stats, warnings);
    file.write(buffer);
    file.commit();
    return file.bytesOnDisk();
}

} // namespace linkscope::core
