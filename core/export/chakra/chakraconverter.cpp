#include "export/exporter.h"

#include "export/chakra/astrasimtarget.h"
#include "export/chakra/chakrakind.h"
#include "export/chakra/etwire.h"
#include "export/chakra/graphorder.h"
#include "export/chakra/pyrepr.h"
#include "export/nodetext.h"
#include "jobmodel/processgroups.h"

#include "base/parallel.h"
#include "io/file/atomicfile.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

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

// The same for a node written straight to the wire format (export/chakra/etwire.h).
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

void addMetadataUint64(ChakraProtoMsg::GlobalMetadata &metadata, const char *name, std::int64_t value)
{
    newAttr(metadata, name)->set_uint64_val(static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0)));
}

} // namespace

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
        // Its time on its own thread or stream (ASTRA-sim ignores it; predict's faithful model runs it).
        if (!plan.laneNs.empty() && plan.laneNs[i] >= 0)
            addInt64(node, "lane_dur_ns", plan.laneNs[i]);
        // Of that, a kernel's dispatch latency: what a what-if that scales the kernel keeps.
        if (!plan.dispatchNs.empty() && plan.dispatchNs[i] > 0)
            addInt64(node, "dispatch_ns", plan.dispatchNs[i]);

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
            ChakraCommNode written = chakraCommNodeOf(comm.kind);
            if (astra && astraGpuKind(comm).demoted) {
                // ASTRA-sim cannot run it as communication (a collective it does not issue, no size,
                // no peers, a group of one rank): replayed as compute for its measured time.
                ++stats.commReplayed;
                ++replayedNames[node.name()];
                addString(node, "replayed_communication", node.name());
                written = {};
                comm.isComm = false;
            }
            if (astra)
                comm.pgName = groupId(comm.pgName);
            node.set_type(written.type);
            if (comm.isComm && written.type == ChakraProtoMsg::COMP_NODE) {
                ++stats.unclassifiedCollectives;
                ++unclassifiedNames[node.name()];
                addString(node, "unclassified_collective", node.name());
            }
            switch (written.type) {
            case ChakraProtoMsg::COMM_COLL_NODE:
                addInt64(node, "comm_type", written.commType);
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
            if (comm.isComm && written.type != ChakraProtoMsg::COMP_NODE && comm.bytes <= 0)
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

std::uint64_t streamChakraPlan(const std::function<void(std::string_view)> &sink, const ChakraPlan &plan,
                               const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                               const ChakraOptions &options, ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    std::uint64_t bytes = 0;
    {
        // Each message with its varint length, as Chakra's encode_message writes them.
        const ChakraProtoMsg::GlobalMetadata message = chakraMetadata(graph, host);
        std::string metadata;
        std::uint64_t size = message.ByteSizeLong();
        while (size >= 0x80) {
            metadata.push_back(static_cast<char>((size & 0x7f) | 0x80));
            size >>= 7;
        }
        metadata.push_back(static_cast<char>(size));
        message.AppendToString(&metadata);
        bytes += metadata.size();
        sink(metadata);
    }
    stats = plan.stats;
    // Blocks of nodes are built and serialised on every core and handed over in id order: the bytes
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
        [&](const std::string &text) {
            bytes += text.size();
            sink(text);
        });
    EmitTally tally;
    for (const EmitTally &t : tallies)
        tally.add(t);
    finishTally(tally, device, stats, warnings);
    return bytes;
}

std::uint64_t writeChakraPlan(const std::string &path, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                              const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, bool gzip,
                              ChakraStats &stats, std::vector<Diagnostic> &warnings)
{
    AtomicFile file(path, gzip ? Compression::Gzip : Compression::None);
    streamChakraPlan([&](std::string_view bytes) { file.write(bytes); }, plan, graph, host, device, links, options, stats,
                     warnings);
    file.commit();
    return file.bytesOnDisk();
}

} // namespace linkscope::core
