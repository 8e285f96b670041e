#include "export/chakra/etformat.h"

#include "export/chakra/etbounds.h"
#include "export/chakra/graphorder.h"
#include "export/gzipdata.h"
#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"
#include "io/file/inputtext.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <ostream>
#include <sstream>
#include <unordered_map>

namespace linkscope::core {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

// Reads one base-128 varint at `pos`; false if the bytes end first or it is longer than 10 bytes.
bool readVarint(std::string_view data, std::size_t &pos, std::uint64_t &value)
{
    value = 0;
    for (int shift = 0; shift < 64 && pos < data.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(data[pos++]);
        value |= std::uint64_t(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return true;
    }
    return false;
}

void appendVarint(std::string &out, std::uint64_t value)
{
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void appendDelimited(std::string &out, const google::protobuf::Message &message)
{
    appendVarint(out, message.ByteSizeLong());
    message.AppendToString(&out);
}

template <typename List>
std::string joinCapped(const List &items, std::size_t cap)
{
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < cap; ++i)
        out += (i ? "; " : "") + items[i];
    if (items.size() > cap)
        out += "; … and " + std::to_string(items.size() - cap) + " more";
    return out;
}

} // namespace

namespace {

// Walks the framing of an (already gunzipped) .et: parses the metadata, then hands each Node's bytes
// (its 1-based number, its byte offset) to `onNode`. Throws LoadError naming the byte offset.
void frameChakraEt(std::string_view data, const std::string &name, bool wasGzip, ChakraProtoMsg::GlobalMetadata &metadata,
                   const std::function<void(const char *bytes, int size, std::size_t count, std::size_t offset)> &onNode)
{
    const std::string where = wasGzip ? "decompressed " : "";
    if (data.empty())
        throw LoadError(name, 0, "empty file: a Chakra .et starts with a GlobalMetadata message");
    // A length prefix of '{' or '[' would be read as a 123/91-byte message; say what it really is.
    const char first = data[0];
    if (first == '{' || first == '[')
        throw LoadError(name, 0, "this is JSON text, not a Chakra protobuf .et (for ET+/ET JSON use the other readers)");

    std::size_t pos = 0;
    bool haveMetadata = false;
    std::size_t count = 0;
    while (pos < data.size()) {
        const std::size_t messageStart = pos;
        std::uint64_t length = 0;
        if (!readVarint(data, pos, length))
            throw LoadError(name, messageStart, "truncated or overlong length prefix (" + where + "byte offset)");
        if (length > data.size() - pos)
            throw LoadError(name, messageStart,
                            "message of " + std::to_string(length) + " bytes runs past the end of the file ("
                                + std::to_string(data.size() - pos) + " bytes left)");
        if (length > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            throw LoadError(name, messageStart, "message of " + std::to_string(length) + " bytes is too large");
        const char *bytes = data.data() + pos;
        const int size = static_cast<int>(length);
        if (!haveMetadata) {
            // Protobuf keeps unknown fields, so almost any bytes "parse"; a first message with
            // fields GlobalMetadata does not have means this is not a Chakra trace at all.
            if (!metadata.ParseFromArray(bytes, size) || metadata.GetReflection()->GetUnknownFields(metadata).field_count() > 0)
                throw LoadError(name, messageStart, "not a Chakra .et: the first message is not a GlobalMetadata");
            haveMetadata = true;
        } else {
            ++count;
            // Every 0x00 byte would be an empty Node: a run of zeros (a sparse or zeroed file, a
            // device) must not become millions of empty nodes. A real node has at least an id or a name.
            if (size == 0)
                throw LoadError(name, messageStart,
                                "empty Node message (node #" + std::to_string(count)
                                    + ", no id, name or type): "
                                      "zero bytes where a node should start; this is not a Chakra .et from here on ("
                                    + where + "byte offset)");
            onNode(bytes, size, count, messageStart);
        }
        pos += length;
    }
}

// Each Node parsed into one reused message, so callers decide what to keep. Returns how many nodes
// carried fields this schema does not know.
std::size_t scanChakraEt(const std::string &data, const std::string &name, bool wasGzip, ChakraProtoMsg::GlobalMetadata &metadata,
                         const std::function<void(Node &, std::size_t offset)> &onNode)
{
    std::size_t unknownFieldNodes = 0;
    Node node;
    frameChakraEt(data, name, wasGzip, metadata, [&](const char *bytes, int size, std::size_t count, std::size_t offset) {
        if (!node.ParseFromArray(bytes, size))
            throw LoadError(name, offset, "malformed Node message (node #" + std::to_string(count) + ")");
        // Bytes that set nothing (an empty packed list, say) are the empty node too: written back
        // they would be zero bytes, which the framing refuses, so refuse them here the same way.
        if (node.ByteSizeLong() == 0)
            throw LoadError(name, offset,
                            "empty Node message (node #" + std::to_string(count) + ", no id, name or type): its "
                                + std::to_string(size) + " bytes set no field");
        if (node.GetReflection()->GetUnknownFields(node).field_count() > 0)
            ++unknownFieldNodes;
        onNode(node, offset);
    });
    return unknownFieldNodes;
}

Diagnostic unknownFieldsWarning(const std::string &name, std::size_t count)
{
    return {Diagnostic::Severity::Warning, name, kUnknownOffset,
            std::to_string(count) + " node(s) carry fields unknown to this Chakra schema (kept, not shown)"};
}

std::string readWholeFile(const std::string &path) { return io::readWholeInputFile(path); }

} // namespace

ChakraTrace parseChakraEt(std::string data, const std::string &name)
{
    ChakraTrace trace;
    trace.path = name;
    data = gunzipIfCompressed(std::move(data), name, &trace.wasGzip);
    trace.sourceBytes = data.size();
    const std::size_t unknown = scanChakraEt(data, name, trace.wasGzip, trace.metadata,
                                             [&](Node &node, std::size_t) { trace.nodes.push_back(std::move(node)); });
    if (unknown)
        trace.warnings.push_back(unknownFieldsWarning(name, unknown));
    return trace;
}

ChakraTrace readChakraEt(const std::string &path) { return parseChakraEt(readWholeFile(path), path); }

struct EtFileBytes::Text {
    io::InputText input;
};

EtFileBytes::EtFileBytes(const std::string &path) : path_(path)
{
    // A plain file is mapped, not read into a zero-filled buffer (a job checks every rank's .et).
    const ProgressFn noProgress;
    io::ProgressReporter progress(noProgress); // it keeps a reference: not to a temporary
    text_ = std::make_unique<Text>(Text{io::readInputFile(path, progress, io::TextUse::Streamed)});
}

EtFileBytes::~EtFileBytes() = default;

EtScan EtFileBytes::frame(const EtNodeBytesFn &onNode) const
{
    EtScan scan;
    const io::InputText &text = text_->input;
    scan.wasGzip = text.wasGzip;
    scan.sourceBytes = text.text.size();
    frameChakraEt(text.text.view(), path_, scan.wasGzip, scan.metadata,
                  [&](const char *bytes, int size, std::size_t count, std::size_t offset) {
                      ++scan.nodes;
                      onNode(bytes, size, count, offset);
                  });
    if (const auto at = text.text.truncatedAt())
        throw LoadError(path_, *at, "the file shrank to at most " + std::to_string(*at) + " bytes while it was being read");
    return scan;
}

EtScan frameChakraEtFile(const std::string &path, const EtNodeBytesFn &onNode) { return EtFileBytes(path).frame(onNode); }

EtScan scanChakraEtFile(const std::string &path, const std::function<void(const Node &node, std::size_t offset)> &onNode)
{
    EtScan scan;
    const std::string data = gunzipIfCompressed(readWholeFile(path), path, &scan.wasGzip);
    scan.sourceBytes = data.size();
    const std::size_t unknown = scanChakraEt(data, path, scan.wasGzip, scan.metadata, [&](Node &node, std::size_t offset) {
        ++scan.nodes;
        onNode(node, offset);
    });
    if (unknown)
        scan.warnings.push_back(unknownFieldsWarning(path, unknown));
    return scan;
}

std::string EtValidation::message() const
{
    std::string out;
    auto add = [&](const std::string &text) { out += (out.empty() ? "" : " ") + text; };
    if (!duplicateIds.empty())
        add(std::to_string(duplicateIds.size()) + " duplicate node id(s): " + joinCapped(duplicateIds, 5) + ".");
    if (!missingDeps.empty())
        add(std::to_string(missingDataDeps + missingCtrlDeps) + " dependency(ies) on absent nodes ("
            + std::to_string(missingDataDeps) + " data_deps, " + std::to_string(missingCtrlDeps)
            + " ctrl_deps): " + joinCapped(missingDeps, 5) + ".");
    if (!cycle.empty())
        add("Dependency cycle in " + cycleField + " (each node waits for the next): " + cycleText + "; "
            + std::to_string(nodesOnCycles) + " node(s) can never run.");
    return out.empty() ? std::string("valid") : out;
}

void EtValidation::nameCycle(std::string field, std::span<const std::uint32_t> positions,
                             const std::function<std::uint64_t(std::uint32_t)> &idOf,
                             const std::function<std::string(std::uint32_t)> &nameOf)
{
    cycleField = std::move(field);
    for (std::size_t i = 0; i < positions.size(); ++i) {
        cycle.push_back(idOf(positions[i]));
        cycleText += (i ? " -> " : "") + std::to_string(cycle.back()) + " (" + nameOf(positions[i]) + ")";
    }
}

namespace {

// The dependency structure of a trace without the rest of each node: what validation needs, small
// enough to build while streaming a multi-gigabyte file.
struct EtDeps {
    std::vector<std::uint64_t> ids;
    std::vector<std::size_t> dataBegin{0}, ctrlBegin{0};
    std::vector<std::uint64_t> data, ctrl;
    void add(const Node &node)
    {
        ids.push_back(node.id());
        data.insert(data.end(), node.data_deps().begin(), node.data_deps().end());
        ctrl.insert(ctrl.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
        dataBegin.push_back(data.size());
        ctrlBegin.push_back(ctrl.size());
    }
};

using NameOf = std::function<std::string(std::uint32_t)>;

// Orders the nodes by one dependency field (ids that are not in the trace are reported apart and
// ignored here); names the first cycle found in `result`. Returns how many nodes can never run.
std::size_t findCycle(const EtDeps &g, const std::vector<std::size_t> &begin, const std::vector<std::uint64_t> &list,
                      const std::unordered_map<std::uint64_t, std::uint32_t> &indexOf, const NameOf &nameOf, const char *field,
                      EtValidation &result)
{
    std::vector<std::uint32_t> resolved; // one node's dependencies as positions
    const GraphOrder order = orderByDependencies(g.ids.size(), [&](std::uint32_t i) {
        resolved.clear();
        for (std::size_t k = begin[i]; k < begin[i + 1]; ++k)
            if (auto it = indexOf.find(list[k]); it != indexOf.end())
                resolved.push_back(it->second);
        return std::span<const std::uint32_t>(resolved);
    });
    if (!order.cycle.empty() && result.cycle.empty())
        result.nameCycle(
            field, order.cycle, [&](std::uint32_t i) { return g.ids[i]; }, nameOf);
    return order.blocked;
}

EtValidation validateDeps(const EtDeps &g, const NameOf &nameOf)
{
    EtValidation result;
    const std::size_t n = g.ids.size();
    // A node's name may cost a re-parse of the node (summarizeEtFile): each is looked up once, however
    // many of its dependencies are reported.
    std::unordered_map<std::uint32_t, std::string> names;
    auto cachedName = [&](std::uint32_t i) -> const std::string & {
        auto it = names.find(i);
        if (it == names.end())
            it = names.emplace(i, nameOf(i)).first;
        return it->second;
    };
    auto label = [&](std::uint32_t i) { return std::to_string(g.ids[i]) + " (" + cachedName(i) + ")"; };
    const NameOf cachedNameOf = [&](std::uint32_t i) { return cachedName(i); };
    std::unordered_map<std::uint64_t, std::uint32_t> indexOf;
    indexOf.reserve(n * 2);
    std::map<std::uint64_t, std::size_t> duplicateCounts;
    for (std::uint32_t i = 0; i < n; ++i)
        if (!indexOf.emplace(g.ids[i], i).second)
            ++duplicateCounts[g.ids[i]];
    for (const auto &[id, extra] : duplicateCounts)
        result.duplicateIds.push_back("id " + label(indexOf[id]) + " appears " + std::to_string(extra + 1) + " times");
    result.dataDepEdges = g.data.size();
    result.ctrlDepEdges = g.ctrl.size();
    constexpr std::size_t kListed = 1000;
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::size_t k = g.dataBegin[i]; k < g.dataBegin[i + 1]; ++k)
            if (!indexOf.count(g.data[k]) && ++result.missingDataDeps && result.missingDeps.size() < kListed)
                result.missingDeps.push_back("node " + label(i) + " data_deps names " + std::to_string(g.data[k])
                                             + ", which is not in the trace");
        for (std::size_t k = g.ctrlBegin[i]; k < g.ctrlBegin[i + 1]; ++k)
            if (!indexOf.count(g.ctrl[k]) && ++result.missingCtrlDeps && result.missingDeps.size() < kListed)
                result.missingDeps.push_back("node " + label(i) + " ctrl_deps names " + std::to_string(g.ctrl[k])
                                             + ", which is not in the trace");
    }
    result.nodesOnCycles = findCycle(g, g.dataBegin, g.data, indexOf, cachedNameOf, "data_deps", result);
    const std::size_t ctrlLeftovers = findCycle(g, g.ctrlBegin, g.ctrl, indexOf, cachedNameOf, "ctrl_deps", result);
    if (result.nodesOnCycles == 0)
        result.nodesOnCycles = ctrlLeftovers;
    return result;
}

} // namespace

EtValidation validateEt(const std::vector<Node> &nodes)
{
    EtDeps deps;
    deps.ids.reserve(nodes.size());
    for (const Node &node : nodes)
        deps.add(node);
    return validateDeps(deps, [&](std::uint32_t i) { return nodes[i].name(); });
}

std::string serializeChakraEt(const ChakraTrace &trace, bool sortById)
{
    std::string out;
    appendDelimited(out, trace.metadata);
    std::vector<std::uint32_t> order(trace.nodes.size());
    std::iota(order.begin(), order.end(), 0u);
    if (sortById)
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return trace.nodes[a].id() < trace.nodes[b].id(); });
    for (std::uint32_t i : order)
        appendDelimited(out, trace.nodes[i]);
    return out;
}

std::uint64_t writeChakraEt(const std::string &path, const ChakraTrace &trace, const EtWriteOptions &options)
{
    const EtValidation validation = validateEt(trace.nodes);
    if (!validation.ok())
        throw ExportError(path + ": refusing to write an invalid Chakra graph: " + validation.message());

    std::vector<std::uint32_t> order(trace.nodes.size());
    std::iota(order.begin(), order.end(), 0u);
    if (options.sortById)
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return trace.nodes[a].id() < trace.nodes[b].id(); });

    AtomicFile file(path, options.gzip ? Compression::Gzip : Compression::None);
    std::string buffer;
    constexpr std::size_t kFlushAt = std::size_t(4) << 20;
    buffer.reserve(kFlushAt + 4096);
    appendDelimited(buffer, trace.metadata);
    for (std::uint32_t i : order) {
        appendDelimited(buffer, trace.nodes[i]);
        if (buffer.size() >= kFlushAt) {
            file.write(buffer);
            buffer.clear();
        }
    }
    file.write(buffer);
    file.commit();
    return file.bytesOnDisk();
}

std::string_view nodeTypeName(int type)
{
    if (!ChakraProtoMsg::NodeType_IsValid(type))
        return "UNKNOWN_NODE_TYPE";
    return ChakraProtoMsg::NodeType_Name(static_cast<ChakraProtoMsg::NodeType>(type));
}

std::string_view collectiveTypeName(std::int64_t c)
{
    if (c < 0 || c > std::numeric_limits<int>::max() || !ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(c)))
        return "UNKNOWN_COLLECTIVE";
    return ChakraProtoMsg::CollectiveCommType_Name(static_cast<ChakraProtoMsg::CollectiveCommType>(c));
}

namespace {

std::string_view valueCaseName(const AttributeProto &attr)
{
    const auto *field = AttributeProto::descriptor()->FindFieldByNumber(static_cast<int>(attr.value_case()));
    return field ? std::string_view(field->name()) : std::string_view("unset");
}

nlohmann::json attrValue(const AttributeProto &attr)
{
    switch (attr.value_case()) {
    case AttributeProto::kStringVal:
        return attr.string_val();
    case AttributeProto::kInt64Val:
        return attr.int64_val();
    case AttributeProto::kUint64Val:
        return attr.uint64_val();
    case AttributeProto::kInt32Val:
        return attr.int32_val();
    case AttributeProto::kUint32Val:
        return attr.uint32_val();
    case AttributeProto::kBoolVal:
        return attr.bool_val();
    case AttributeProto::kDoubleVal:
        return attr.double_val();
    case AttributeProto::kFloatVal:
        return attr.float_val();
    default:
        return nlohmann::json::parse(messageToJson(attr, false), nullptr, false);
    }
}

} // namespace

namespace {

class EtSummaryBuilder {
public:
    void add(const Node &node)
    {
        ++nodes_;
        ++byType_[std::string(nodeTypeName(node.type()))];
        // Summed saturating: a hostile duration (2^63 µs and more) neither wraps the total nor goes unsaid.
        const std::uint64_t micros = node.duration_micros();
        durationMicros_ = micros > std::numeric_limits<std::uint64_t>::max() - durationMicros_
                              ? std::numeric_limits<std::uint64_t>::max()
                              : durationMicros_ + micros;
        pastBound_ += micros > kMaxEtDurationMicros;
        if (node.start_time_micros() != 0)
            ++withStart_;
        bool haveSize = false;
        for (const AttributeProto &attr : node.attr()) {
            ++attrTypes_[attr.name()][std::string(valueCaseName(attr))];
            if (attr.name() == "is_cpu_op" && attr.value_case() == AttributeProto::kBoolVal)
                ++(attr.bool_val() ? cpuNodes_ : gpuNodes_);
            else if (attr.name() == "comm_type" && attr.value_case() == AttributeProto::kInt64Val
                     && node.type() == ChakraProtoMsg::COMM_COLL_NODE)
                ++commTypes_[std::string(collectiveTypeName(attr.int64_val()))];
            else if (attr.name() == "comm_size" && attr.value_case() == AttributeProto::kInt64Val) {
                const std::int64_t bytes = attr.int64_val();
                haveSize = bytes > 0;
                if (haveSize) // a size ≤ 0 is counted as without one; the sum saturates
                    commBytes_ = bytes > std::numeric_limits<std::int64_t>::max() - commBytes_
                                     ? std::numeric_limits<std::int64_t>::max()
                                     : commBytes_ + bytes;
            }
        }
        const bool isComm = node.type() == ChakraProtoMsg::COMM_COLL_NODE || node.type() == ChakraProtoMsg::COMM_SEND_NODE
                            || node.type() == ChakraProtoMsg::COMM_RECV_NODE;
        if (isComm && !haveSize)
            ++commWithoutSize_;
    }

    nlohmann::json finish(const ChakraProtoMsg::GlobalMetadata &meta, const EtValidation &validation, const std::string &path,
                          bool gzip, std::uint64_t bytes, const std::vector<Diagnostic> &warnings) const
    {
        nlohmann::json summary;
        summary["kind"] = "chakra_et";
        summary["path"] = path;
        summary["gzip"] = gzip;
        summary["bytes"] = bytes;
        nlohmann::json metadata = nlohmann::json::object();
        if (!meta.version().empty())
            metadata["version"] = meta.version();
        for (const AttributeProto &attr : meta.attr()) {
            // A summary names long texts (e.g. a whole MSCCL XML in "input_file") instead of printing them.
            constexpr std::size_t kLongText = 160;
            if (attr.value_case() == AttributeProto::kStringVal && attr.string_val().size() > kLongText)
                metadata[attr.name()] = attr.string_val().substr(0, kLongText) + "… (" + std::to_string(attr.string_val().size())
                                        + " bytes)";
            else
                metadata[attr.name()] = attrValue(attr);
        }
        summary["metadata"] = metadata;
        summary["nodes"] = nodes_;
        summary["node_types"] = byType_;
        summary["comm_types"] = commTypes_;
        summary["comm_bytes"] = commBytes_;
        summary["comm_nodes_without_size"] = commWithoutSize_;
        summary["cpu_nodes"] = cpuNodes_;
        summary["gpu_nodes"] = gpuNodes_;
        summary["nodes_with_start_time"] = withStart_;
        summary["total_duration_micros"] = durationMicros_;
        nlohmann::json attrs = nlohmann::json::object();
        for (const auto &[name, kinds] : attrTypes_)
            attrs[name] = kinds;
        summary["attributes"] = attrs;
        summary["edges"] = {{"data_deps", validation.dataDepEdges}, {"ctrl_deps", validation.ctrlDepEdges}};
        nlohmann::json check;
        check["ok"] = validation.ok();
        check["duplicate_ids"] = validation.duplicateIds.size();
        check["missing_data_deps"] = validation.missingDataDeps;
        check["missing_ctrl_deps"] = validation.missingCtrlDeps;
        check["nodes_on_cycles"] = validation.nodesOnCycles;
        if (!validation.cycle.empty()) {
            check["cycle"] = validation.cycle;
            check["cycle_field"] = validation.cycleField;
        }
        check["message"] = validation.message();
        summary["validation"] = check;
        nlohmann::json list = nlohmann::json::array();
        for (const Diagnostic &d : warnings)
            list.push_back(d.toString());
        if (pastBound_)
            list.push_back(std::to_string(pastBound_) + " node(s) with duration_micros past the bound of "
                           + std::to_string(kMaxEtDurationMicros)
                           + " µs (about 23 days): `linkscope check` refuses them (duration_range), `predict` too");
        summary["warnings"] = list;
        return summary;
    }

private:
    std::size_t nodes_ = 0, cpuNodes_ = 0, gpuNodes_ = 0, withStart_ = 0, commWithoutSize_ = 0;
    std::int64_t commBytes_ = 0;
    std::uint64_t durationMicros_ = 0;
    std::size_t pastBound_ = 0;
    std::map<std::string, std::size_t> byType_, commTypes_;
    std::map<std::string, std::map<std::string, std::size_t>> attrTypes_; // attr name → value kind → count
};

} // namespace

nlohmann::json summarizeEt(const ChakraTrace &trace)
{
    EtSummaryBuilder builder;
    for (const Node &node : trace.nodes)
        builder.add(node);
    return builder.finish(trace.metadata, validateEt(trace.nodes), trace.path, trace.wasGzip, trace.sourceBytes, trace.warnings);
}

nlohmann::json summarizeEtFile(const std::string &path)
{
    bool wasGzip = false;
    const std::string data = gunzipIfCompressed(readWholeFile(path), path, &wasGzip);
    ChakraProtoMsg::GlobalMetadata metadata;
    EtSummaryBuilder builder;
    EtDeps deps;
    std::vector<std::size_t> offsets; // to re-read a node's name for a message, instead of keeping them all
    const std::size_t unknown = scanChakraEt(data, path, wasGzip, metadata, [&](Node &node, std::size_t offset) {
        builder.add(node);
        deps.add(node);
        offsets.push_back(offset);
    });
    const EtValidation validation = validateDeps(deps, [&](std::uint32_t i) {
        std::size_t pos = offsets[i];
        std::uint64_t length = 0;
        Node node;
        if (readVarint(data, pos, length) && node.ParseFromArray(data.data() + pos, static_cast<int>(length)))
            return node.name();
        return std::string("?");
    });
    std::vector<Diagnostic> warnings;
    if (unknown)
        warnings.push_back(unknownFieldsWarning(path, unknown));
    return builder.finish(metadata, validation, path, wasGzip, data.size(), warnings);
}

void dumpEtFile(const std::string &path, std::ostream &out, bool asArray)
{
    bool wasGzip = false;
    const std::string data = gunzipIfCompressed(readWholeFile(path), path, &wasGzip);
    ChakraProtoMsg::GlobalMetadata metadata;
    bool first = true;
    // The metadata is printed when the first node has parsed (or at the end for a node-less file):
    // a file whose start is not a Chakra trace prints nothing.
    scanChakraEt(data, path, wasGzip, metadata, [&](Node &node, std::size_t) {
        if (first) {
            out << (asArray ? "[\n" : "") << messageToJson(metadata);
            first = false;
        }
        out << (asArray ? ",\n" : "\n") << messageToJson(node);
    });
    if (first)
        out << (asArray ? "[\n" : "") << messageToJson(metadata);
    out << (asArray ? "\n]\n" : "\n");
}

std::string messageToJson(const google::protobuf::Message &message, bool pretty)
{
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = pretty;
    std::string out;
    const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
    if (!status.ok())
        return "{\"error\": " + nlohmann::json(std::string(status.message())).dump() + "}";
    if (pretty && !out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

void dumpEtAsJson(const ChakraTrace &trace, std::ostream &out, bool asArray)
{
    if (asArray)
        out << "[\n";
    out << messageToJson(trace.metadata);
    for (const Node &node : trace.nodes)
        out << (asArray ? ",\n" : "\n") << messageToJson(node);
    out << (asArray ? "\n]\n" : "\n");
}

} // namespace linkscope::core
