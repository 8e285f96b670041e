#include "export/etformat.h"

#include "export/gzipdata.h"
#include "io/atomicfile.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <fstream>
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

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Reads one base-128 varint at `pos`; false if the bytes end first or it is longer than 10 bytes.
bool readVarint(const std::string &data, std::size_t &pos, std::uint64_t &value)
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

std::string nodeLabel(const Node &node)
{
    return std::to_string(node.id()) + " (" + node.name() + ")";
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

ChakraTrace parseChakraEt(std::string data, const std::string &name)
{
    ChakraTrace trace;
    trace.path = name;
    data = gunzipIfCompressed(std::move(data), name, &trace.wasGzip);
    trace.sourceBytes = data.size();
    const std::string where = trace.wasGzip ? "decompressed " : "";
    if (data.empty())
        throw LoadError(name, 0, "empty file: a Chakra .et starts with a GlobalMetadata message");
    // A length prefix of '{' or '[' would be read as a 123/91-byte message; say what it really is.
    const char first = data[0];
    if (first == '{' || first == '[')
        throw LoadError(name, 0, "this is JSON text, not a Chakra protobuf .et (for ET+/ET JSON use the other readers)");

    std::size_t pos = 0;
    bool haveMetadata = false;
    std::size_t unknownFieldNodes = 0;
    while (pos < data.size()) {
        const std::size_t messageStart = pos;
        std::uint64_t length = 0;
        if (!readVarint(data, pos, length))
            throw LoadError(name, messageStart, "truncated or overlong length prefix (" + where + "byte offset)");
        if (length > data.size() - pos)
            throw LoadError(name, messageStart,
                            "message of " + std::to_string(length) + " bytes runs past the end of the file (" +
                                std::to_string(data.size() - pos) + " bytes left)");
        const char *bytes = data.data() + pos;
        const int size = static_cast<int>(length);
        if (length > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            throw LoadError(name, messageStart, "message of " + std::to_string(length) + " bytes is too large");
        if (!haveMetadata) {
            // Protobuf keeps unknown fields, so almost any bytes "parse"; a first message with
            // fields GlobalMetadata does not have means this is not a Chakra trace at all.
            if (!trace.metadata.ParseFromArray(bytes, size) ||
                trace.metadata.GetReflection()->GetUnknownFields(trace.metadata).field_count() > 0)
                throw LoadError(name, messageStart, "not a Chakra .et: the first message is not a GlobalMetadata");
            haveMetadata = true;
        } else {
            Node &node = trace.nodes.emplace_back();
            if (!node.ParseFromArray(bytes, size))
                throw LoadError(name, messageStart,
                                "malformed Node message (node #" + std::to_string(trace.nodes.size()) + ")");
            if (node.GetReflection()->GetUnknownFields(node).field_count() > 0)
                ++unknownFieldNodes;
        }
        pos += length;
    }
    if (unknownFieldNodes)
        trace.warnings.push_back({Diagnostic::Severity::Warning, name, kUnknownOffset,
                                  std::to_string(unknownFieldNodes) +
                                      " node(s) carry fields unknown to this Chakra schema (kept, not shown)"});
    return trace;
}

ChakraTrace readChakraEt(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw LoadError(path, kUnknownOffset, "cannot open file");
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw LoadError(path, kUnknownOffset, "read error");
    return parseChakraEt(std::move(data), path);
}

std::string EtValidation::message() const
{
    std::string out;
    auto add = [&](const std::string &text) { out += (out.empty() ? "" : " ") + text; };
    if (!duplicateIds.empty())
        add(std::to_string(duplicateIds.size()) + " duplicate node id(s): " + joinCapped(duplicateIds, 5) + ".");
    if (!missingDeps.empty())
        add(std::to_string(missingDataDeps + missingCtrlDeps) + " dependency(ies) on absent nodes (" +
            std::to_string(missingDataDeps) + " data_deps, " + std::to_string(missingCtrlDeps) +
            " ctrl_deps): " + joinCapped(missingDeps, 5) + ".");
    if (!cycle.empty())
        add("Dependency cycle in " + cycleField + " (each node waits for the next): " + cycleText + "; " +
            std::to_string(nodesOnCycles) + " node(s) can never run.");
    return out.empty() ? std::string("valid") : out;
}

namespace {

// Kahn over one dependency field; on leftovers, names one cycle in `result`. Returns leftover count.
template <typename DepsOf>
std::size_t findCycle(const std::vector<Node> &nodes, const std::unordered_map<std::uint64_t, std::uint32_t> &indexOf,
                      DepsOf depsOf, const char *field, EtValidation &result)
{
    const std::size_t n = nodes.size();
    std::vector<std::uint32_t> inDegree(n, 0);
    std::vector<std::uint32_t> dependentBegin(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint64_t dep : depsOf(nodes[i]))
            if (auto it = indexOf.find(dep); it != indexOf.end()) {
                ++inDegree[i];
                ++dependentBegin[it->second + 1];
            }
    std::partial_sum(dependentBegin.begin(), dependentBegin.end(), dependentBegin.begin());
    std::vector<std::uint32_t> dependents(dependentBegin.back());
    {
        std::vector<std::uint32_t> fill(dependentBegin.begin(), dependentBegin.end() - 1);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint64_t dep : depsOf(nodes[i]))
                if (auto it = indexOf.find(dep); it != indexOf.end())
                    dependents[fill[it->second]++] = i;
    }
    std::vector<std::uint32_t> ready;
    for (std::uint32_t i = 0; i < n; ++i)
        if (inDegree[i] == 0)
            ready.push_back(i);
    std::size_t processed = 0;
    while (!ready.empty()) {
        const std::uint32_t v = ready.back();
        ready.pop_back();
        ++processed;
        for (std::uint32_t k = dependentBegin[v]; k < dependentBegin[v + 1]; ++k)
            if (--inDegree[dependents[k]] == 0)
                ready.push_back(dependents[k]);
    }
    if (processed == n)
        return 0;

    // Every leftover node still waits for a leftover dependency, so following such dependencies
    // from any leftover node must revisit a node: the stretch from its first visit is a cycle.
    std::uint32_t v = 0;
    while (inDegree[v] == 0)
        ++v;
    std::vector<std::int64_t> positionInWalk(n, -1);
    std::vector<std::uint32_t> walk;
    while (positionInWalk[v] < 0) {
        positionInWalk[v] = static_cast<std::int64_t>(walk.size());
        walk.push_back(v);
        std::uint32_t next = kNone;
        for (std::uint64_t dep : depsOf(nodes[v])) {
            auto it = indexOf.find(dep);
            if (it != indexOf.end() && inDegree[it->second] > 0) {
                next = it->second;
                break;
            }
        }
        if (next == kNone)
            break; // cannot happen for a leftover node; stop rather than loop
        v = next;
    }
    if (positionInWalk[v] >= 0 && result.cycle.empty()) {
        for (std::size_t i = static_cast<std::size_t>(positionInWalk[v]); i < walk.size(); ++i)
            result.cycle.push_back(nodes[walk[i]].id());
        result.cycle.push_back(nodes[v].id());
        result.cycleField = field;
        for (std::size_t i = 0; i < result.cycle.size(); ++i)
            result.cycleText += (i ? " -> " : "") + nodeLabel(nodes[indexOf.at(result.cycle[i])]);
    }
    return n - processed;
}

} // namespace

EtValidation validateEt(const std::vector<Node> &nodes)
{
    EtValidation result;
    const std::size_t n = nodes.size();
    std::unordered_map<std::uint64_t, std::uint32_t> indexOf;
    indexOf.reserve(n * 2);
    std::map<std::uint64_t, std::size_t> duplicateCounts;
    for (std::uint32_t i = 0; i < n; ++i) {
        auto [it, inserted] = indexOf.emplace(nodes[i].id(), i);
        if (!inserted)
            ++duplicateCounts[nodes[i].id()];
    }
    for (const auto &[id, extra] : duplicateCounts)
        result.duplicateIds.push_back("id " + std::to_string(id) + " (" + nodes[indexOf[id]].name() + ") appears " +
                                      std::to_string(extra + 1) + " times");
    for (const Node &node : nodes) {
        result.dataDepEdges += static_cast<std::size_t>(node.data_deps_size());
        result.ctrlDepEdges += static_cast<std::size_t>(node.ctrl_deps_size());
        for (std::uint64_t dep : node.data_deps())
            if (!indexOf.count(dep)) {
                ++result.missingDataDeps;
                if (result.missingDeps.size() < 1000)
                    result.missingDeps.push_back("node " + nodeLabel(node) + " data_deps names " + std::to_string(dep) +
                                                 ", which is not in the trace");
            }
        for (std::uint64_t dep : node.ctrl_deps())
            if (!indexOf.count(dep)) {
                ++result.missingCtrlDeps;
                if (result.missingDeps.size() < 1000)
                    result.missingDeps.push_back("node " + nodeLabel(node) + " ctrl_deps names " + std::to_string(dep) +
                                                 ", which is not in the trace");
            }
    }
    result.nodesOnCycles = findCycle(nodes, indexOf, [](const Node &node) -> const auto & { return node.data_deps(); },
                                     "data_deps", result);
    const std::size_t ctrlLeftovers = findCycle(
        nodes, indexOf, [](const Node &node) -> const auto & { return node.ctrl_deps(); }, "ctrl_deps", result);
    if (result.nodesOnCycles == 0)
        result.nodesOnCycles = ctrlLeftovers;
    return result;
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
    case AttributeProto::kStringVal: return attr.string_val();
    case AttributeProto::kInt64Val: return attr.int64_val();
    case AttributeProto::kUint64Val: return attr.uint64_val();
    case AttributeProto::kInt32Val: return attr.int32_val();
    case AttributeProto::kUint32Val: return attr.uint32_val();
    case AttributeProto::kBoolVal: return attr.bool_val();
    case AttributeProto::kDoubleVal: return attr.double_val();
    case AttributeProto::kFloatVal: return attr.float_val();
    default: return nlohmann::json::parse(messageToJson(attr, false), nullptr, false);
    }
}

} // namespace

nlohmann::json summarizeEt(const ChakraTrace &trace)
{
    nlohmann::json summary;
    summary["kind"] = "chakra_et";
    summary["path"] = trace.path;
    summary["gzip"] = trace.wasGzip;
    summary["bytes"] = trace.sourceBytes;

    nlohmann::json metadata = nlohmann::json::object();
    if (!trace.metadata.version().empty())
        metadata["version"] = trace.metadata.version();
    for (const AttributeProto &attr : trace.metadata.attr()) {
        // A summary names long texts (e.g. a whole MSCCL XML in "input_file") instead of printing them.
        constexpr std::size_t kLongText = 160;
        if (attr.value_case() == AttributeProto::kStringVal && attr.string_val().size() > kLongText)
            metadata[attr.name()] = attr.string_val().substr(0, kLongText) + "… (" + std::to_string(attr.string_val().size()) + " bytes)";
        else
            metadata[attr.name()] = attrValue(attr);
    }
    summary["metadata"] = metadata;

    std::map<std::string, std::size_t> byType;
    std::map<std::string, std::size_t> commTypes;
    std::map<std::string, std::map<std::string, std::size_t>> attrTypes; // attr name → value kind → count
    std::size_t cpuNodes = 0, gpuNodes = 0, withStart = 0, commWithoutSize = 0;
    std::int64_t commBytes = 0;
    std::uint64_t durationMicros = 0;
    for (const Node &node : trace.nodes) {
        ++byType[std::string(nodeTypeName(node.type()))];
        durationMicros += node.duration_micros();
        if (node.start_time_micros() != 0)
            ++withStart;
        bool haveSize = false;
        for (const AttributeProto &attr : node.attr()) {
            ++attrTypes[attr.name()][std::string(valueCaseName(attr))];
            if (attr.name() == "is_cpu_op" && attr.value_case() == AttributeProto::kBoolVal)
                ++(attr.bool_val() ? cpuNodes : gpuNodes);
            else if (attr.name() == "comm_type" && attr.value_case() == AttributeProto::kInt64Val &&
                     node.type() == ChakraProtoMsg::COMM_COLL_NODE)
                ++commTypes[std::string(collectiveTypeName(attr.int64_val()))];
            else if (attr.name() == "comm_size" && attr.value_case() == AttributeProto::kInt64Val) {
                commBytes += attr.int64_val();
                haveSize = attr.int64_val() > 0;
            }
        }
        const bool isComm = node.type() == ChakraProtoMsg::COMM_COLL_NODE || node.type() == ChakraProtoMsg::COMM_SEND_NODE ||
                            node.type() == ChakraProtoMsg::COMM_RECV_NODE;
        if (isComm && !haveSize)
            ++commWithoutSize;
    }
    summary["nodes"] = trace.nodes.size();
    summary["node_types"] = byType;
    summary["comm_types"] = commTypes;
    summary["comm_bytes"] = commBytes;
    summary["comm_nodes_without_size"] = commWithoutSize;
    summary["cpu_nodes"] = cpuNodes;
    summary["gpu_nodes"] = gpuNodes;
    summary["nodes_with_start_time"] = withStart;
    summary["total_duration_micros"] = durationMicros;
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto &[name, kinds] : attrTypes)
        attrs[name] = kinds;
    summary["attributes"] = attrs;

    const EtValidation validation = validateEt(trace.nodes);
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
    return summary;
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
