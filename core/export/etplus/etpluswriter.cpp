#include "export/exporter.h"
#include "export/textsink.h"

#include "base/parallel.h"
#include "collective/classify.h"

#include "export/jsonout.h"
#include "export/nodetext.h"

#include <memory>
#include <vector>

namespace linkscope::core {

namespace {

using jsonout::appendInt;
using jsonout::appendMicros;
using jsonout::appendString;
using jsonout::appendUint;

void appendPartOr(std::string &out, NodeText &text, Span span, std::string_view fallback)
{
    out += span.empty() ? fallback : text.part(span);
}

void appendIo(std::string &out, NodeText &text, const HostIO &io)
{
    out += "{\"values\":";
    appendPartOr(out, text, io.values, "[]");
    out += ",\"shapes\":";
    appendPartOr(out, text, io.shapes, "[]");
    out += ",\"types\":";
    appendPartOr(out, text, io.types, "[]");
    if (!io.strides.empty()) {
        out += ",\"strides\":";
        out += text.part(io.strides);
    }
    out += '}';
}

// One {"name":…,"type":…,"value":…} of a flat node's rebuilt attrs, its value a number. `head` is
// the constant text up to the value, separator included.
void appendNumberAttr(std::string &out, std::string_view head, std::int64_t value)
{
    out += head;
    appendInt(out, value);
    out += '}';
}

void appendStringAttr(std::string &out, std::string_view head, std::string_view value)
{
    out += head;
    appendString(out, value);
    out += '}';
}

// The nested layout's attrs. A flat (1.0.1) node keeps these keys at top level, so they are rebuilt
// from the parsed fields; chakra_converter reads every one of them (AttributeError otherwise).
void appendAttrs(std::string &out, NodeText &text, const HostTrace &host, const HostNode &node)
{
    if (host.layout == HostLayout::Nested && !node.attrs.empty()) {
        out += text.part(node.attrs);
        return;
    }
    out += '[';
    // rf_id is a uint64 (written as such); the others are int64 fields clamped as chakra_converter reads them.
    out += "{\"name\":\"rf_id\",\"type\":\"uint64\",\"value\":";
    appendUint(out, node.rfId);
    out += '}';
    appendNumberAttr(out, ",{\"name\":\"fw_parent\",\"type\":\"uint64\",\"value\":", node.fwParent);
    appendNumberAttr(out, ",{\"name\":\"seq_id\",\"type\":\"int64\",\"value\":", node.seqId);
    appendNumberAttr(out, ",{\"name\":\"scope\",\"type\":\"uint64\",\"value\":", node.scope < 0 ? 0 : node.scope);
    appendNumberAttr(out, ",{\"name\":\"tid\",\"type\":\"uint64\",\"value\":", node.tid < 0 ? 0 : node.tid);
    appendNumberAttr(out, ",{\"name\":\"fw_tid\",\"type\":\"uint64\",\"value\":", node.fwTid);
    appendStringAttr(out, ",{\"name\":\"op_schema\",\"type\":\"string\",\"value\":", host.strings.at(node.opSchema));
    if (node.kernelBackend != 0)
        appendStringAttr(out,
                         ",{\"name\":\"kernel_backend\",\"type\":\"string\",\"value\":", host.strings.at(node.kernelBackend));
    if (node.kernelFile != 0)
        appendStringAttr(out, ",{\"name\":\"kernel_file\",\"type\":\"string\",\"value\":", host.strings.at(node.kernelFile));
    out += ']';
}

std::string_view policyWord(Policy p)
{
    switch (p) {
    case Policy::Nesting:
        return "nesting";
    case Policy::ExternalId:
        return "external-id";
    case Policy::EvIdx:
        return "ev-idx";
    }
    return "unknown";
}

} // namespace

// One node's line of the "nodes" array (with the separator before it).
static void appendNode(std::string &out, NodeText &text, std::uint32_t i, const EtPlusGraph &graph, const HostTrace &host,
                       const DeviceTrace &device, const LinkSet &links)
{
    const EtPlusNode &node = graph.nodes[i];
    const HostNode &h = host.node(node.host);
    text.load(h);
    out += i ? ",\n{\"id\":" : "\n{\"id\":";
    appendUint(out, EtPlusGraph::idOf(i));
    out += ",\"name\":";
    appendString(out, node.gpu ? device.name(device.event(node.event)) : host.name(h));
    out += ",\"ctrl_deps\":";
    // A root names itself, as the ET does for its process root: chakra_converter then finds no
    // earlier parent, and no other node is mistaken for one.
    appendUint(out, node.parent.isNone() ? EtPlusGraph::idOf(i) : EtPlusGraph::idOf(node.parent.value));
    out += ",\"inputs\":";
    appendIo(out, text, h.inputs);
    out += ",\"outputs\":";
    appendIo(out, text, h.outputs);
    out += ",\"attrs\":";
    appendAttrs(out, text, host, h);
    if (node.event.valid()) {
        const DeviceEvent &e = device.event(node.event);
        const Nanos exclusive = node.gpu || !node.event.in(links.exclusiveDur.size()) ? e.dur : links.exclusiveDur[node.event];
        out += ",\"inclusive_dur\":";
        appendMicros(out, e.dur);
        out += ",\"exclusive_dur\":";
        appendMicros(out, exclusive);
        out += ",\"ts\":";
        appendMicros(out, e.ts);
        out += ",\"inter_thread_dep\":";
        if (node.interThreadDep.isNone())
            out += "null";
        else
            appendUint(out, EtPlusGraph::idOf(node.interThreadDep.value));
        if (node.gpu) {
            out += ",\"cat\":";
            appendString(out, device.strings.at(e.categoryText));
            out += ",\"ph\":\"X\",\"stream\":";
            appendInt(out, e.stream >= 0 ? e.stream : 0);
            const CommInfo comm = classifyGpuOp(host, device, node.event, node.host);
            if (comm.isComm && !comm.pgName.empty()) {
                out += ",\"pg_name\":";
                appendString(out, comm.pgName);
            }
        }
    }
    if (graph.syncBegin.size() > i + 1 && graph.syncBegin[i] != graph.syncBegin[i + 1]) {
        out += ",\"sync_dep\":[";
        for (std::uint32_t k = graph.syncBegin[i]; k < graph.syncBegin[i + 1]; ++k) {
            if (k != graph.syncBegin[i])
                out += ',';
            appendUint(out, EtPlusGraph::idOf(graph.syncList[k]));
        }
        out += ']';
    }
    out += '}';
}

std::uint64_t writeEtPlusTo(const OutputSink &sink, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                            const LinkSet &links, int threads)
{
    requireHostSource(host);
    std::uint64_t bytes = 0;
    auto emit = [&](std::string_view text) {
        bytes += text.size();
        sink(text);
    };

    // chakra_converter requires these five keys and stores pid/start_ts/finish_ts as uint64.
    std::string out;
    out += "{\"schema\":";
    appendString(out, graph.schema);
    out += ",\"pid\":";
    appendInt(out, std::max<std::int64_t>(host.pid, 0));
    out += ",\"time\":";
    appendString(out, host.time);
    const std::int64_t startTs = std::max<std::int64_t>(host.startTs, 0);
    const std::int64_t finishTs = host.finishTs >= 0 ? host.finishTs : startTs; // a cut-off trace has none
    out += ",\"start_ts\":";
    appendInt(out, startTs);
    out += ",\"finish_ts\":";
    appendInt(out, finishTs);
    out += ",\"linkscope\":{\"policy\":";
    appendString(out, policyWord(links.policy));
    out += ",\"host_schema\":";
    appendString(out, host.schema);
    out += ",\"host\":";
    appendString(out, jsonout::baseName(host.path));
    out += ",\"device\":";
    appendString(out, jsonout::baseName(device.path));
    out += "},\n\"nodes\":[";
    emit(out);

    // Nodes are written in blocks on every core, in id order (the text is one thread's); each thread
    // reads its nodes' text through its own reader (sequential reads from the host ET file).
    if (threads <= 0)
        threads = exportThreads();
    std::vector<std::unique_ptr<NodeText>> readers(static_cast<std::size_t>(threads));
    forEachBlockInOrder(
        graph.nodes.size(), 4096, threads,
        [&](std::uint64_t first, std::uint64_t last, std::string &text, int slot) {
            std::unique_ptr<NodeText> &reader = readers[static_cast<std::size_t>(slot)];
            if (!reader)
                reader = std::make_unique<NodeText>(host);
            for (auto i = static_cast<std::uint32_t>(first); i < last; ++i)
                appendNode(text, *reader, i, graph, host, device, links);
        },
        [&](const std::string &text) { emit(text); });
    emit("\n]}\n");
    return bytes;
}

std::uint64_t writeEtPlus(const std::string &path, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                          const LinkSet &links, bool gzip)
{
    requireHostSource(host);
    AtomicFile file(path, gzip ? Compression::Gzip : Compression::None);
    writeEtPlusTo([&](std::string_view text) { file.write(text); }, graph, host, device, links);
    file.commit();
    return file.bytesOnDisk();
}

} // namespace linkscope::core
