#include "export/exporter.h"

#include "base/parallel.h"

#include "export/collective.h"
#include "export/jsonout.h"

namespace linkscope::core {

namespace {

using jsonout::appendMicros;
using jsonout::appendString;

void appendRawOr(std::string &out, const HostTrace &host, Span span, std::string_view fallback)
{
    if (span.empty())
        out += fallback;
    else
        out += hostSpanText(host, span);
}

void appendIo(std::string &out, const HostTrace &host, const HostIO &io)
{
    out += "{\"values\":";
    appendRawOr(out, host, io.values, "[]");
    out += ",\"shapes\":";
    appendRawOr(out, host, io.shapes, "[]");
    out += ",\"types\":";
    appendRawOr(out, host, io.types, "[]");
    if (!io.strides.empty()) {
        out += ",\"strides\":";
        out += hostSpanText(host, io.strides);
    }
    out += '}';
}

void appendAttr(std::string &out, bool &first, std::string_view name, std::string_view type, const std::string &jsonValue)
{
    out += first ? "{\"name\":" : ",{\"name\":";
    first = false;
    appendString(out, name);
    out += ",\"type\":";
    appendString(out, type);
    out += ",\"value\":";
    out += jsonValue;
    out += '}';
}

// The nested layout's attrs. A flat (1.0.1) node keeps these keys at top level, so they are rebuilt
// from the parsed fields; chakra_converter reads every one of them (AttributeError otherwise).
void appendAttrs(std::string &out, const HostTrace &host, const HostNode &node)
{
    if (host.layout == HostLayout::Nested && !node.attrs.empty()) {
        out += hostSpanText(host, node.attrs);
        return;
    }
    auto quoted = [](std::string_view text) {
        std::string s;
        appendString(s, text);
        return s;
    };
    bool first = true;
    out += '[';
    appendAttr(out, first, "rf_id", "uint64", std::to_string(node.rfId));
    appendAttr(out, first, "fw_parent", "uint64", std::to_string(node.fwParent));
    appendAttr(out, first, "seq_id", "int64", std::to_string(node.seqId));
    appendAttr(out, first, "scope", "uint64", std::to_string(node.scope < 0 ? 0 : node.scope));
    appendAttr(out, first, "tid", "uint64", std::to_string(node.tid < 0 ? 0 : node.tid));
    appendAttr(out, first, "fw_tid", "uint64", std::to_string(node.fwTid));
    appendAttr(out, first, "op_schema", "string", quoted(host.strings.at(node.opSchema)));
    if (node.kernelBackend != 0)
        appendAttr(out, first, "kernel_backend", "string", quoted(host.strings.at(node.kernelBackend)));
    if (node.kernelFile != 0)
        appendAttr(out, first, "kernel_file", "string", quoted(host.strings.at(node.kernelFile)));
    out += ']';
}

std::string_view policyWord(Policy p)
{
    switch (p) {
    case Policy::Nesting: return "nesting";
    case Policy::ExternalId: return "external-id";
    case Policy::EvIdx: return "ev-idx";
    }
    return "unknown";
}

} // namespace

// One node's line of the "nodes" array (with the separator before it).
static void appendNode(std::string &out, std::uint32_t i, const EtPlusGraph &graph, const HostTrace &host,
                const DeviceTrace &device, const LinkSet &links)
{
    const EtPlusNode &node = graph.nodes[i];
    const HostNode &h = host.nodes[node.host];
    out += i ? ",\n{\"id\":" : "\n{\"id\":";
    out += std::to_string(EtPlusGraph::idOf(i));
    out += ",\"name\":";
    appendString(out, node.gpu ? device.name(device.events[node.event]) : host.name(h));
    out += ",\"ctrl_deps\":";
    // A root names itself, as the ET does for its process root: chakra_converter then finds no
    // earlier parent, and no other node is mistaken for one.
    out += std::to_string(EtPlusGraph::idOf(node.parent == kNoNode ? i : node.parent));
    out += ",\"inputs\":";
    appendIo(out, host, h.inputs);
    out += ",\"outputs\":";
    appendIo(out, host, h.outputs);
    out += ",\"attrs\":";
    appendAttrs(out, host, h);
    if (node.event != kNoIndex) {
        const DeviceEvent &e = device.events[node.event];
        const Nanos exclusive = node.gpu || node.event >= links.exclusiveDur.size() ? e.dur : links.exclusiveDur[node.event];
        out += ",\"inclusive_dur\":";
        appendMicros(out, e.dur);
        out += ",\"exclusive_dur\":";
        appendMicros(out, exclusive);
        out += ",\"ts\":";
        appendMicros(out, e.ts);
        out += ",\"inter_thread_dep\":";
        out += node.interThreadDep == kNoNode ? std::string("null") : std::to_string(EtPlusGraph::idOf(node.interThreadDep));
        if (node.gpu) {
            out += ",\"cat\":";
            appendString(out, device.strings.at(e.categoryText));
            out += ",\"ph\":\"X\",\"stream\":" + std::to_string(e.stream >= 0 ? e.stream : 0);
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
            out += std::to_string(EtPlusGraph::idOf(graph.syncList[k]));
        }
        out += ']';
    }
    out += '}';
}

std::uint64_t writeEtPlus(const std::string &path, const EtPlusGraph &graph, const HostTrace &host,
                          const DeviceTrace &device, const LinkSet &links, bool gzip)
{
    requireHostSource(host);
    jsonout::BufferedWriter writer(path, gzip);
    std::string &out = writer.buffer;

    // chakra_converter requires these five keys and stores pid/start_ts/finish_ts as uint64.
    out += "{\"schema\":";
    appendString(out, graph.schema);
    out += ",\"pid\":" + std::to_string(std::max<std::int64_t>(host.pid, 0));
    out += ",\"time\":";
    appendString(out, host.time);
    const std::int64_t startTs = std::max<std::int64_t>(host.startTs, 0);
    const std::int64_t finishTs = host.finishTs >= 0 ? host.finishTs : startTs; // a cut-off trace has none
    out += ",\"start_ts\":" + std::to_string(startTs);
    out += ",\"finish_ts\":" + std::to_string(finishTs);
    out += ",\"linkscope\":{\"policy\":";
    appendString(out, policyWord(links.policy));
    out += ",\"host_schema\":";
    appendString(out, host.schema);
    out += ",\"host\":";
    appendString(out, jsonout::baseName(host.path));
    out += ",\"device\":";
    appendString(out, jsonout::baseName(device.path));
    out += "},\n\"nodes\":[";

    // Nodes are written in blocks on every core, in id order (the text is one thread's).
    forEachBlockInOrder(
        graph.nodes.size(), 8192, exportThreads(),
        [&](std::uint64_t first, std::uint64_t last, std::string &text, int) {
            for (auto i = static_cast<std::uint32_t>(first); i < last; ++i)
                appendNode(text, i, graph, host, device, links);
        },
        [&](const std::string &text) {
            out += text;
            writer.maybeFlush();
        });
    out += "\n]}\n";
    return writer.commit();
}

} // namespace linkscope::core
