#include "export/exporter.h"

#include "export/collective.h"

#include <algorithm>
#include <map>

namespace linkscope::core {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

bool isThreadRootName(std::string_view name)
{
    return name == "[pytorch|profiler|execution_trace|thread]" || name == "[pytorch|profiler|execution_graph|thread]";
}

void addInt64(Node &node, const char *name, std::int64_t value)
{
    AttributeProto *attr = node.add_attr();
    attr->set_name(name);
    attr->set_int64_val(value);
}

void addInt32(Node &node, const char *name, std::int32_t value)
{
    AttributeProto *attr = node.add_attr();
    attr->set_name(name);
    attr->set_int32_val(value);
}

void addString(Node &node, const char *name, std::string_view value)
{
    AttributeProto *attr = node.add_attr();
    attr->set_name(name);
    attr->set_string_val(std::string(value));
}

void addBool(Node &node, const char *name, bool value)
{
    AttributeProto *attr = node.add_attr();
    attr->set_name(name);
    attr->set_bool_val(value);
}

void setIo(ChakraProtoMsg::IOInfo *io, const HostTrace &host, const HostIO &source)
{
    // JSON text of the ET's lists (chakra_converter writes Python's repr of the same lists).
    auto text = [&](Span s) { return s.empty() ? std::string("[]") : std::string(host.text(s)); };
    io->set_values(text(source.values));
    io->set_shapes(text(source.shapes));
    io->set_types(text(source.types));
}

std::uint64_t microsOf(Nanos ns)
{
    return ns > 0 ? static_cast<std::uint64_t>(ns / 1000) : 0;
}

bool addDep(Node &node, std::uint64_t id)
{
    for (std::uint64_t existing : node.data_deps())
        if (existing == id)
            return false;
    node.add_data_deps(id);
    return true;
}

void addMetadataString(ChakraProtoMsg::GlobalMetadata &metadata, const char *name, std::string_view value)
{
    AttributeProto *attr = metadata.add_attr();
    attr->set_name(name);
    attr->set_string_val(std::string(value));
}

void addMetadataUint64(ChakraProtoMsg::GlobalMetadata &metadata, const char *name, std::int64_t value)
{
    AttributeProto *attr = metadata.add_attr();
    attr->set_name(name);
    attr->set_uint64_val(static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0)));
}

} // namespace

ChakraConversion convertToChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                                 const LinkSet &links, const ChakraOptions &options)
{
    ChakraConversion result;
    ChakraStats &stats = result.stats;
    const std::size_t n = graph.nodes.size();

    // Metadata as chakra_converter writes it (schema, pid, time, start_ts, finish_ts), plus the policy.
    ChakraProtoMsg::GlobalMetadata &metadata = result.trace.metadata;
    addMetadataString(metadata, "schema", graph.schema);
    addMetadataUint64(metadata, "pid", host.pid);
    addMetadataString(metadata, "time", host.time);
    addMetadataUint64(metadata, "start_ts", host.startTs);
    addMetadataUint64(metadata, "finish_ts", host.finishTs >= 0 ? host.finishTs : host.startTs);

    std::vector<Node> nodes(n);
    std::map<std::string, std::size_t> unclassifiedNames;
    std::size_t p2pWithoutPeers = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const EtPlusNode &source = graph.nodes[i];
        const HostNode &h = host.nodes[source.host];
        Node &node = nodes[i];
        node.set_id(EtPlusGraph::idOf(i));
        if (source.parent != kNoNode)
            node.add_ctrl_deps(EtPlusGraph::idOf(source.parent));
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
            continue;
        }

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
    for (const auto &[name, count] : unclassifiedNames)
        result.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                   std::to_string(count) + " communication kernel(s) \"" + name +
                                       "\" with no recognisable collective: written as COMP_NODE (attr unclassified_collective)"});
    if (p2pWithoutPeers)
        result.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                   std::to_string(p2pWithoutPeers) +
                                       " send/recv node(s) lack comm_src/comm_dst/comm_tag (no Src/Dst Rank or Seq in the Kineto args)"});
    if (stats.commWithoutSize)
        result.warnings.push_back({Diagnostic::Severity::Warning, device.path, kUnknownOffset,
                                   std::to_string(stats.commWithoutSize) +
                                       " communication node(s) with comm_size 0: no tensor sizes or element counts found"});

    // ctrl → data (chakra_converter §3.6): per thread root, the CPU nodes in DFS pre-order form one
    // chain, an inter-thread dependency is kept, and each GPU node waits for its launching CPU node.
    std::vector<bool> visited(n, false);
    std::vector<std::uint32_t> stack;
    for (std::uint32_t root = 0; root < n; ++root) {
        if (graph.nodes[root].gpu || !isThreadRootName(host.name(host.nodes[graph.nodes[root].host])) || visited[root])
            continue;
        std::uint32_t lastCpu = kNoNode;
        stack.assign(1, root);
        while (!stack.empty()) {
            const std::uint32_t v = stack.back();
            stack.pop_back();
            if (visited[v])
                continue;
            visited[v] = true;
            const EtPlusNode &source = graph.nodes[v];
            if (source.interThreadDep != kNoNode && addDep(nodes[v], EtPlusGraph::idOf(source.interThreadDep)))
                ++stats.interThreadDeps;
            if (lastCpu != kNoNode && addDep(nodes[v], EtPlusGraph::idOf(lastCpu)))
                ++stats.chainDeps;
            lastCpu = v;
            for (std::uint32_t k = graph.childBegin[v + 1]; k-- > graph.childBegin[v];) {
                const std::uint32_t child = graph.childList[k];
                if (!graph.nodes[child].gpu && !visited[child])
                    stack.push_back(child);
            }
        }
    }
    for (std::uint32_t i = 0; i < n; ++i)
        if (graph.nodes[i].gpu && graph.nodes[i].parent != kNoNode && addDep(nodes[i], EtPlusGraph::idOf(graph.nodes[i].parent)))
            ++stats.launchDeps;

    if (options.streamOrderDeps)
        for (const Edge &edge : links.edges) {
            if (edge.kind != EdgeKind::StreamOrder || edge.from >= graph.nodeOfEvent.size() || edge.to >= graph.nodeOfEvent.size())
                continue;
            const std::uint32_t from = graph.nodeOfEvent[edge.from], to = graph.nodeOfEvent[edge.to];
            if (from != kNoNode && to != kNoNode && from != to && addDep(nodes[to], EtPlusGraph::idOf(from)))
                ++stats.streamOrderDeps;
        }
    if (options.syncDeps)
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t k = graph.syncBegin[i]; k < graph.syncBegin[i + 1]; ++k)
                if (addDep(nodes[i], EtPlusGraph::idOf(graph.syncList[k])))
                    ++stats.syncDeps;

    // Dangling nodes (no dependency either way, no children) would run at time 0 in a simulator.
    std::vector<bool> keep(n, true);
    if (options.removeDanglingNodes) {
        std::vector<bool> needed(n, false);
        for (std::uint32_t i = 0; i < n; ++i) {
            for (std::uint64_t dep : nodes[i].data_deps())
                needed[dep] = true;
            if (graph.childBegin[i] != graph.childBegin[i + 1])
                needed[i] = true;
        }
        for (std::uint32_t i = 0; i < n; ++i)
            if (!needed[i] && nodes[i].data_deps_size() == 0) {
                keep[i] = false;
                ++stats.danglingRemoved;
            }
    }
    result.trace.nodes.reserve(n - stats.danglingRemoved);
    for (std::uint32_t i = 0; i < n; ++i)
        if (keep[i])
            result.trace.nodes.push_back(std::move(nodes[i]));
    stats.nodes = result.trace.nodes.size();
    for (const Node &node : result.trace.nodes) {
        switch (node.type()) {
        case ChakraProtoMsg::COMM_COLL_NODE: ++stats.commColl; break;
        case ChakraProtoMsg::COMM_SEND_NODE: ++stats.commSend; break;
        case ChakraProtoMsg::COMM_RECV_NODE: ++stats.commRecv; break;
        case ChakraProtoMsg::METADATA_NODE: ++stats.metadata; break;
        default: ++stats.comp;
        }
    }
    return result;
}

} // namespace linkscope::core
