#include "collective/classify.h"

#include "link/rules.h"
#include "model/exporterror.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::core {

namespace {

std::string normalise(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (char c : name)
        if (c != '_' && c != '-' && c != ' ')
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}

} // namespace

// Bytes per element of a Kineto/ET dtype name ("Float", "c10::Half", "BFloat16", "Long", …); 0 unknown.
std::int64_t dtypeBytes(std::string_view dtype)
{
    const std::string d = normalise(dtype);
    static const std::array<std::pair<std::string_view, std::int64_t>, 16> table = {{
        {"bfloat16", 2},
        {"half", 2},
        {"float16", 2},
        {"double", 8},
        {"float64", 8},
        {"complexdouble", 16},
        {"complexfloat", 8},
        {"float", 4},
        {"long", 8},
        {"int64", 8},
        {"int32", 4},
        {"int16", 2},
        {"short", 2},
        {"int", 4},
        {"char", 1},
        {"byte", 1},
    }};
    for (const auto &[key, bytes] : table)
        if (d.find(key) != std::string::npos)
            return bytes;
    if (d.find("bool") != std::string::npos || d.find("int8") != std::string::npos)
        return 1;
    return 0;
}

std::string dtypeFromKernelName(std::string_view name)
{
    // Token after '_' up to the next '_' or '(' — NCCL ≥ 2.19 "_f16_", legacy "_Sum_float", "_int8_t".
    static const std::array<std::pair<std::string_view, std::string_view>, 20> tokens = {{
        {"f16", "float16"},   {"bf16", "bfloat16"},     {"f32", "float32"},     {"f64", "float64"},    {"i8", "int8"},
        {"u8", "uint8"},      {"i32", "int32"},         {"u32", "uint32"},      {"i64", "int64"},      {"u64", "uint64"},
        {"half", "float16"},  {"bfloat16", "bfloat16"}, {"float", "float32"},   {"double", "float64"}, {"int8_t", "int8"},
        {"uint8_t", "uint8"}, {"int32_t", "int32"},     {"uint32_t", "uint32"}, {"int64_t", "int64"},  {"uint64_t", "uint64"},
    }};
    const std::string_view head = name.substr(0, std::min(name.find('('), name.size()));
    std::vector<std::string_view> parts;
    for (std::size_t p = 0; p <= head.size();) {
        const std::size_t q = std::min(head.find('_', p), head.size());
        parts.push_back(head.substr(p, q - p));
        p = q + 1;
    }
    auto lookup = [&](std::string_view token) -> std::string_view {
        for (const auto &[t, dtype] : tokens)
            if (token == t)
                return dtype;
        return {};
    };
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (i + 1 < parts.size() && parts[i + 1] == "t")
            if (auto d = lookup(std::string(parts[i]) + "_t"); !d.empty())
                return std::string(d);
        if (auto d = lookup(parts[i]); !d.empty())
            return std::string(d);
    }
    return {};
}

namespace {

const HostNode *parentOf(const HostTrace &host, const HostNode &node)
{
    if (!host.contains(node.parent))
        return nullptr;
    const HostNode *p = &host.node(node.parent);
    return p == &node ? nullptr : p;
}

// A host node span's raw JSON. Throws ExportError when the host ET's file changed on disk since it
// was loaded: a classification never reads an empty or a wrong span.
std::string hostSpanText(const HostTrace &host, Span span)
{
    std::string text = host.text(span);
    if (text.empty() && !span.empty())
        throw ExportError("cannot read the host ET node text at byte " + std::to_string(span.offset) + " of " + host.path + ": "
                          + host.sourceUnavailableReason());
    return text;
}

// The GPU op's parent and a few ancestors: far enough for record_param_comms → nccl:* → kernel
// and c10d::* → record_param_comms → kernel, near enough not to pick up an unrelated collective.
constexpr int kAncestorDepth = 4;

template <typename Visit>
bool forAncestors(const HostTrace &host, HostNodeIndex start, Visit &&visit)
{
    if (!host.contains(start))
        return false;
    const HostNode *node = &host.node(start);
    for (int depth = 0; node && depth < kAncestorDepth; ++depth, node = parentOf(host, *node))
        if (visit(*node))
            return true;
    return false;
}

std::optional<nlohmann::json> parseSpan(const HostTrace &host, Span span)
{
    if (span.empty())
        return std::nullopt;
    auto value = nlohmann::json::parse(hostSpanText(host, span), nullptr, false);
    if (value.is_discarded())
        return std::nullopt;
    return value;
}

std::int64_t tupleBytes(const nlohmann::json &tuple)
{
    // [tensor_id, storage_id, offset, numel, itemsize, device]
    if (!tuple.is_array() || tuple.size() < 5 || !tuple[3].is_number_integer() || !tuple[4].is_number_integer())
        return 0;
    return tuple[3].get<std::int64_t>() * tuple[4].get<std::int64_t>();
}

// record_param_comms before schema 1.1.0 names its collective in a String input ("allreduce").
std::optional<CallKind> recordParamCommsInputKind(const HostTrace &host, const HostNode &node)
{
    auto values = parseSpan(host, node.inputs.values);
    auto types = parseSpan(host, node.inputs.types);
    if (!values || !types || !values->is_array() || !types->is_array())
        return std::nullopt;
    for (std::size_t i = 0; i < values->size() && i < types->size(); ++i)
        if ((*types)[i] == "String" && (*values)[i].is_string())
            if (auto kind = collectiveKindFromName((*values)[i].get<std::string>()))
                return kind;
    return std::nullopt;
}

// nccl:coalesced groups several p2p ops under one kernel: its children say which.
std::optional<CallKind> coalescedChildrenKind(const HostTrace &host, HostNodeIndex index)
{
    if (host.childBegin.size() <= index.get() + 1)
        return std::nullopt;
    bool sends = false, recvs = false, others = false;
    for (std::uint32_t k = host.childBegin[index.get()]; k < host.childBegin[index.get() + 1]; ++k) {
        const auto kind = collectiveKindFromName(host.name(host.node(host.childList[k])));
        if (!kind)
            continue;
        if (*kind == CallKind::Send)
            sends = true;
        else if (*kind == CallKind::Recv)
            recvs = true;
        else
            others = true;
    }
    if (others || (sends && recvs))
        return CallKind::AllToAll; // NCCL implements all-to-all as grouped send/recv
    if (sends)
        return CallKind::Send;
    if (recvs)
        return CallKind::Recv;
    return std::nullopt;
}

} // namespace

std::optional<CallKind> collectiveKindFromName(std::string_view name)
{
    const std::string n = normalise(name);
    static const std::array<std::pair<std::string_view, CallKind>, 12> rules = {{
        {"allreduce", CallKind::AllReduce},
        {"alltoall", CallKind::AllToAll},
        {"allgather", CallKind::AllGather},
        {"reducescatter", CallKind::ReduceScatter},
        {"broadcast", CallKind::Broadcast},
        {"barrier", CallKind::Barrier},
        {"sendrecv", CallKind::Unknown}, // which way is not said: before "send" and "recv"
        {"send", CallKind::Send},
        {"recv", CallKind::Recv},
        {"gather", CallKind::Gather},
        {"scatter", CallKind::Scatter},
        {"reduce", CallKind::Reduce},
    }};
    for (const auto &[key, kind] : rules)
        if (n.find(key) != std::string::npos)
            return kind;
    return std::nullopt;
}

std::int64_t tensorInputBytes(const HostTrace &host, const HostNode &node)
{
    auto values = parseSpan(host, node.inputs.values);
    auto types = parseSpan(host, node.inputs.types);
    if (!values || !types || !values->is_array() || !types->is_array())
        return 0;
    std::int64_t bytes = 0;
    for (std::size_t i = 0; i < values->size() && i < types->size(); ++i) {
        if (!(*types)[i].is_string())
            continue;
        const std::string type = (*types)[i].get<std::string>();
        if (type.find("Tensor") == std::string::npos)
            continue;
        const auto &value = (*values)[i];
        if (type.rfind("GenericList[Tensor", 0) == 0) {
            if (value.is_array())
                for (const auto &element : value)
                    bytes += tupleBytes(element);
        } else {
            bytes += tupleBytes(value);
        }
    }
    return bytes;
}

CommInfo classifyGpuOp(const HostTrace &host, const DeviceTrace &device, EventIndex event, HostNodeIndex parentHost,
                       SizeRule sizeRule)
{
    CommInfo info;
    const DeviceEvent &e = device.event(event);
    const std::string_view kernelName = device.name(e);
    const CollectiveArgs *args = e.hasCollective() ? device.collectiveOf(event) : nullptr;
    info.isComm = isCollectiveKernel(device, e); // link/rules.h: collective args, or an NCCL/RCCL name
    if (!info.isComm)
        return info;

    std::optional<CallKind> kind;
    auto decide = [&](std::optional<CallKind> candidate, std::string_view source) {
        // A p2p name without a direction (SendRecv) does not settle the question while a more
        // specific source may follow.
        if (!kind && candidate && *candidate != CallKind::Unknown) {
            kind = candidate;
            info.typeSource = source;
        }
    };
    if (args && args->collectiveName != 0)
        decide(collectiveKindFromName(device.strings.at(args->collectiveName)), "kineto_collective_args");
    forAncestors(host, parentHost, [&](const HostNode &n) {
        if (const HostCommAttrs *c = host.commOf(n); c && c->collectiveName != 0)
            decide(collectiveKindFromName(host.strings.at(c->collectiveName)), "et_comm_attrs");
        return kind.has_value();
    });
    forAncestors(host, parentHost, [&](const HostNode &n) {
        if (host.name(n) == "record_param_comms")
            decide(recordParamCommsInputKind(host, n), "record_param_comms_input");
        return kind.has_value();
    });
    forAncestors(host, parentHost, [&](const HostNode &n) {
        const std::string_view name = host.name(n);
        if (name == "nccl:coalesced")
            decide(coalescedChildrenKind(host, HostNodeIndex::at(static_cast<std::size_t>(&n - host.nodes.data()))),
                   "coalesced_children");
        else if (name.rfind("nccl:", 0) == 0)
            decide(collectiveKindFromName(name), "nccl_op_name");
        return kind.has_value();
    });
    decide(collectiveKindFromName(kernelName), "kernel_name");
    if (!kind && collectiveKindFromName(kernelName) == CallKind::Unknown) {
        // chakra_converter's rule for a p2p kernel with no direction: all-to-all.
        kind = CallKind::AllToAll;
        info.typeSource = "sendrecv_default";
    }

    info.kind = kind.value_or(CallKind::Unknown);
    if (info.kind == CallKind::Send || info.kind == CallKind::Recv) {
        const bool send = info.kind == CallKind::Send;
        const std::int64_t self = device.distributed ? device.distributed->rank : -1;
        const std::int64_t peerSrc = args ? args->srcRank : -1;
        const std::int64_t peerDst = args ? args->dstRank : -1;
        const std::int64_t src = send ? self : peerSrc;
        const std::int64_t dst = send ? peerDst : self;
        info.src = static_cast<std::int32_t>(src);
        info.dst = static_cast<std::int32_t>(dst);
        info.tag = args && args->seq >= 0 ? static_cast<std::int32_t>(args->seq) : -1;
    }

    // Bytes (SizeRule::ParentTensors): the tensors the parent op was given (what chakra_converter
    // reads), then the enclosing record_param_comms, then the element counts the collective metadata
    // declares. SizeRule::CollectiveMetadata: the metadata's element counts first (Kineto's, then the
    // ET's comm attrs): what the collective moved.
    // The element counts the collective metadata declares: Kineto's, then the ET's comm attrs.
    const auto fromMetadata = [&] {
        if (info.bytes <= 0 && args && args->inMsgNelems > 0 && args->dtype != 0) {
            info.bytes = args->inMsgNelems * dtypeBytes(device.strings.at(args->dtype));
            info.sizeSource = "kineto_msg_nelems";
        }
        if (info.bytes <= 0)
            forAncestors(host, parentHost, [&](const HostNode &n) {
                const HostCommAttrs *attrs = host.commOf(n);
                if (!attrs)
                    return false;
                const HostCommAttrs &c = *attrs;
                // No dtype in the attrs (a host ET derived from a Kineto trace whose record_param_comms
                // lists a TensorList): the one the NCCL kernel's name carries.
                const std::int64_t itemBytes = c.dtype != 0 ? dtypeBytes(host.strings.at(c.dtype))
                                                            : dtypeBytes(dtypeFromKernelName(kernelName));
                if (c.inMsgNelems > 0)
                    info.bytes = c.inMsgNelems * itemBytes;
                info.sizeSource = "et_msg_nelems";
                return info.bytes > 0;
            });
    };
    if (sizeRule == SizeRule::CollectiveMetadata)
        fromMetadata();
    if (info.bytes <= 0 && host.contains(parentHost)) {
        info.bytes = tensorInputBytes(host, host.node(parentHost));
        info.sizeSource = "parent_inputs";
        if (info.bytes <= 0)
            forAncestors(host, parentHost, [&](const HostNode &n) {
                if (host.name(n) != "record_param_comms")
                    return false;
                info.bytes = tensorInputBytes(host, n);
                info.sizeSource = "record_param_comms_inputs";
                return info.bytes > 0;
            });
    }
    fromMetadata();
    if (info.bytes < 0)
        info.bytes = 0;

    if (args && args->processGroupName != 0)
        info.pgName = std::string(device.strings.at(args->processGroupName));
    if (info.pgName.empty())
        forAncestors(host, parentHost, [&](const HostNode &n) {
            if (const HostCommAttrs *c = host.commOf(n); c && c->pgName != 0)
                info.pgName = std::string(host.strings.at(c->pgName));
            return !info.pgName.empty();
        });
    if (args && args->groupSize > 0)
        info.groupSize = args->groupSize;
    else
        forAncestors(host, parentHost, [&](const HostNode &n) {
            if (const HostCommAttrs *c = host.commOf(n); c && c->pgSize > 0)
                info.groupSize = c->pgSize;
            return info.groupSize > 0;
        });
    return info;
}

} // namespace linkscope::core
