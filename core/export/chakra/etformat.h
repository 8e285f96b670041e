#pragma once
// Chakra protobuf execution traces (.et): reading, validating, writing, summarising.
//
// Framing (Chakra's protolib / et_feeder): one GlobalMetadata message, then one Node message per
// node sorted by id, each preceded by its length as a base-128 varint. No magic, no trailer.
// Files may be gzip'ed; the reader tells by the magic bytes 1f 8b, never by the file name.

#include "model/common.h"
#include "model/exporterror.h"

#include "export/chakra/et_def.pb.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace linkscope::core {

struct ChakraTrace {
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<ChakraProtoMsg::Node> nodes; // file order (sorted by id when the file is valid)
    std::string path;
    bool wasGzip = false;
    std::uint64_t sourceBytes = 0;    // decompressed size
    std::vector<Diagnostic> warnings; // e.g. nodes with fields this schema does not know
};

// Throws LoadError naming the file and the (decompressed) byte offset of the bad message.
ChakraTrace readChakraEt(const std::string &path);

// Streams the nodes of a .et file into `onNode` (one reused message, so nothing per node is kept
// unless the caller keeps it; `offset` is the node's decompressed byte offset) for readers that need
// a few fields of each node: a whole trace of protobuf messages costs several times the file's size.
// Same framing rules and errors as readChakraEt.
struct EtScan {
    ChakraProtoMsg::GlobalMetadata metadata;
    bool wasGzip = false;
    std::uint64_t sourceBytes = 0; // decompressed size
    std::size_t nodes = 0;
    std::vector<Diagnostic> warnings;
};
EtScan scanChakraEtFile(const std::string &path,
                        const std::function<void(const ChakraProtoMsg::Node &node, std::size_t offset)> &onNode);
// The same walk without parsing the nodes: each Node's serialized bytes, its 1-based number and its
// byte offset (a reader that wants two fields of most nodes parses them itself). `warnings` stays
// empty (unknown fields are not looked for).
using EtNodeBytesFn = std::function<void(const char *bytes, int size, std::size_t count, std::size_t offset)>;
EtScan frameChakraEtFile(const std::string &path, const EtNodeBytesFn &onNode);
// A .et file read once (a plain file mapped, a gzip'ed one decompressed) and framed as often as a
// reader needs: a check that resolves every node's dependencies in a second walk, once every id is
// known, holds the file instead of what the nodes name. `bytes` stay valid while this lives.
class EtFileBytes {
public:
    explicit EtFileBytes(const std::string &path); // throws LoadError (cannot open, not a regular file, gzip)
    ~EtFileBytes();
    EtFileBytes(const EtFileBytes &) = delete;
    EtFileBytes &operator=(const EtFileBytes &) = delete;
    // frameChakraEtFile's walk over the bytes read; throws LoadError as it does.
    EtScan frame(const EtNodeBytesFn &onNode) const;

private:
    struct Text;
    std::string path_;
    std::unique_ptr<Text> text_;
};
ChakraTrace parseChakraEt(std::string data, const std::string &name);

// What makes a graph unusable for Chakra's feeder (it would wait forever or never start).
struct EtValidation {
    std::vector<std::string> duplicateIds; // "id 7 (aten::mm) appears 2 times"
    std::vector<std::string> missingDeps;  // "node 9 (aten::add) data_deps names 12, which is not in the trace"
    std::size_t missingDataDeps = 0;
    std::size_t missingCtrlDeps = 0;
    std::vector<std::uint64_t> cycle; // ids along one cycle, the first repeated at the end; empty if none
    std::string cycleField;           // "data_deps" (what the feeder schedules by) or "ctrl_deps"
    std::string cycleText;            // "3 (a) -> 5 (b) -> 3 (a)"
    std::size_t nodesOnCycles = 0;    // nodes that can never become ready (data_deps), or on ctrl cycles
    std::size_t dataDepEdges = 0;
    std::size_t ctrlDepEdges = 0;

    bool ok() const { return duplicateIds.empty() && missingDeps.empty() && cycle.empty(); }
    // Records one cycle in `field`, given as node positions (the first repeated at the end), by id
    // and as "id (name) -> ...".
    void nameCycle(std::string field, std::span<const std::uint32_t> positions,
                   const std::function<std::uint64_t(std::uint32_t)> &idOf,
                   const std::function<std::string(std::uint32_t)> &nameOf);
    // One paragraph naming every problem (lists capped at a few entries plus a count).
    std::string message() const;
};

// Every data_deps and ctrl_deps id must exist and ids must be unique; data_deps (what the feeder
// schedules by) must be acyclic, and so must ctrl_deps (the call tree). Iterative (Kahn, then a
// walk inside the leftover nodes to name one cycle): no recursion, so million-node graphs cannot
// overflow the stack.
EtValidation validateEt(const std::vector<ChakraProtoMsg::Node> &nodes);

struct EtWriteOptions {
    bool gzip = false;
    bool sortById = true; // Chakra's writer and feeder expect nodes in id order
};

// Validates, then writes atomically. Throws ExportError (invalid graph) or WriteError (I/O).
// Returns the bytes written to disk.
std::uint64_t writeChakraEt(const std::string &path, const ChakraTrace &trace, const EtWriteOptions &options = {});
// The serialised (uncompressed) bytes, for tests and in-memory round trips. Does not validate.
std::string serializeChakraEt(const ChakraTrace &trace, bool sortById = true);

// Summary for `linkscope inspect X.et` / `dump --summary`: counts by node type, comm types,
// edges, attribute names, metadata, and the validation result.
nlohmann::json summarizeEt(const ChakraTrace &trace);
// The same straight from a file, keeping only the dependency arrays (not a Node per op): for
// multi-gigabyte traces. Throws LoadError.
nlohmann::json summarizeEtFile(const std::string &path);

// The same objects chakra_jsonizer prints (protobuf's JSON mapping: lowerCamelCase field names,
// 64-bit integers as strings, default values omitted).
std::string messageToJson(const google::protobuf::Message &message, bool pretty = true);
// Writes the metadata then every node: as concatenated objects (chakra_jsonizer's format) or as
// one JSON array [metadata, node, ...] that standard JSON tools accept.
void dumpEtAsJson(const ChakraTrace &trace, std::ostream &out, bool asArray);
// The same from a file, one node at a time. Throws LoadError (before printing, for a bad first message).
void dumpEtFile(const std::string &path, std::ostream &out, bool asArray);

std::string_view nodeTypeName(int type);             // "COMP_NODE", ...
std::string_view collectiveTypeName(std::int64_t c); // "ALL_REDUCE", ...

} // namespace linkscope::core
