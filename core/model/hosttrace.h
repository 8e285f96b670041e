#pragma once
// The PyTorch host execution trace (ET): the CPU op tree, layout-neutral.

#include "model/argsstore.h"
#include "model/common.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace linkscope::core {

// How the file spells its nodes; detected from the nodes, never from the schema string.
enum class HostLayout : std::uint8_t {
    Flat,   // 1.0.0 / 1.0.1: "parent", top-level rf_id/tid/..., inputs + input_shapes + input_types
    Nested, // 1.0.2 … 1.1.1: "ctrl_deps", "attrs": [{name,type,value}], inputs {values,shapes,types[,strides]}
};

// Raw JSON text of one side of a node's I/O, in HostTrace::source. Empty spans are absent keys.
struct HostIO {
    Span values;
    Span shapes;
    Span types;
    Span strides; // 1.1.1 only
};

// Communication attrs of record_param_comms (schema ≥ 1.1.0).
struct HostCommAttrs {
    StringId collectiveName = 0;
    StringId dtype = 0;
    StringId pgName = 0;
    StringId pgDesc = 0;
    std::int64_t inMsgNelems = -1;
    std::int64_t outMsgNelems = -1;
    std::int64_t pgSize = -1;
    std::int64_t globalRankStart = -1;
    std::int64_t globalRankStride = -1;
};

inline constexpr std::int32_t kUserScope = 7; // at::RecordScope::USER_SCOPE

struct HostNode {
    std::int64_t id = -1;
    std::int64_t parentId = -1; // as written ("ctrl_deps" / "parent"); -1 if none
    HostNodeIndex parent{};     // index into HostTrace::nodes, none if none or missing
    StringId name = 0;
    std::uint64_t rfId = 0; // 0 = absent (root/thread nodes)
    std::int64_t tid = -1;  // ET's small sequential thread id, not the OS tid
    std::int64_t fwParent = 0;
    std::int64_t seqId = -1;
    std::int64_t fwTid = 0;
    std::int32_t scope = -1;
    StringId opSchema = 0;
    StringId kernelBackend = 0;
    StringId kernelFile = 0;
    CommIndex comm{};           // index into HostTrace::commAttrs, none without comm attrs
    bool parentMissing = false; // parentId names a node absent from the file
    HostIO inputs;
    HostIO outputs;
    Span attrs; // raw "attrs" array (Nested layout)
    Span raw;   // the whole node object
};

struct HostTrace {
    std::string path;
    std::uint64_t sourceBytes = 0;
    bool wasGzip = false;
    FileIdentity sourceIdentity; // the file that was read (unknown when parsed from memory)
    std::string schema;          // declared "schema" string, reported as is
    HostLayout layout = HostLayout::Nested;
    std::int64_t pid = -1;
    std::string time;
    std::int64_t startTs = -1; // steady_clock ms; a different clock from Kineto
    std::int64_t finishTs = -1;
    bool recoveredTruncation = false; // the nodes array was cut off and closed by the reader

    std::vector<HostNode> nodes; // sorted by id
    std::unordered_map<std::int64_t, HostNodeIndex> indexById;
    std::vector<std::uint32_t> childBegin; // CSR: children of node i are childList[childBegin[i] .. childBegin[i+1])
    std::vector<HostNodeIndex> childList;  // sorted by id
    std::vector<HostNodeIndex> roots;      // nodes with no parent in the file (process root, orphans)
    std::vector<HostCommAttrs> commAttrs;
    StringPool strings;
    std::vector<Diagnostic> warnings;
    // The text the spans point into: the plain file itself (read back by position, never held in
    // memory), or the decompressed text of a gzip file / a trace parsed from memory.
    std::shared_ptr<const ArgsStore> source;
    // A host ET derived from a Kineto trace alone (pipeline/derivedhost.h): per node, the Kineto event
    // it was made from (none for its process and thread roots), which the join then uses as is.
    // Empty for an ET read from a file.
    std::vector<EventIndex> derivedFrom;
    bool derived() const { return !derivedFrom.empty(); }

    std::string_view name(const HostNode &n) const { return strings.at(n.name); }
    // The raw JSON of a span (empty if none, or if the source file changed since loading; then
    // sourceUnavailableReason() says why). Exporters call this for every node in id order, which is
    // about file order: a file source is read in large blocks, cached per thread.
    std::string text(Span s) const;
    std::string sourceUnavailableReason() const { return source ? source->unavailableReason() : std::string(); }
    const HostNode *findById(std::int64_t id) const
    {
        auto it = indexById.find(id);
        return it == indexById.end() ? nullptr : &nodes[it->second.get()];
    }
    std::size_t childCount(HostNodeIndex i) const { return childBegin[i.get() + 1] - childBegin[i.get()]; }
    const HostNode &node(HostNodeIndex i) const { return nodes[i.get()]; }
    // The record_param_comms attrs of `n`, or null.
    const HostCommAttrs *commOf(const HostNode &n) const
    {
        return n.comm.in(commAttrs.size()) ? &commAttrs[n.comm.get()] : nullptr;
    }
    bool contains(HostNodeIndex i) const { return i.in(nodes.size()); }
    // The index of `id`, or none.
    HostNodeIndex indexOf(std::int64_t id) const
    {
        auto it = indexById.find(id);
        return it == indexById.end() ? HostNodeIndex(kNone) : it->second;
    }
};

} // namespace linkscope::core
