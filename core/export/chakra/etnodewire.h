#pragma once
// A .et node's bytes read field by field with protobuf's wire-format reader (export/chakra/etcheck.cpp's
// walks): its id, type and whether it names dependencies; its dependencies one at a time; the node
// without its dependencies as a message; the names of chosen nodes. A node naming millions of
// dependencies is never materialised.

#include "export/chakra/etformat.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace linkscope::core {

// What the rules need of most nodes: read from its bytes with protobuf's wire-format reader, every
// other field skipped, so that the 95% of nodes that are not communication nodes cost no message, no
// attribute and no string (the whole-message parse was 80% of a check's time). The dependencies are
// only validated here: a second walk resolves them once every id is known (checkEtFile), so that no
// node's list of dependencies is ever held, however long it is.
struct NodeHead {
    std::uint64_t id = 0;
    int type = 0;
    bool hasDependencies = false;
    std::uint64_t durationMicros = 0;
    std::int64_t laneNs = -1; // attr lane_dur_ns as an integer; -1: not written
};

// The node's id, type, times and whether it names dependencies (validated); false when its bytes are
// not a Node.
bool readNodeHead(const char *bytes, int size, NodeHead &node);

namespace etwire {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Calls `onValue` with each value of a repeated uint64 field's entry (packed or not); false when malformed.
template <typename OnValue>
bool readRepeatedVarint(CodedInputStream &in, std::uint32_t tag, OnValue &&onValue)
{
    if (WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
        std::uint64_t v = 0;
        if (!in.ReadVarint64(&v))
            return false;
        onValue(v);
        return true;
    }
    if (WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED)
        return false;
    int length = 0;
    if (!in.ReadVarintSizeAsInt(&length))
        return false;
    const auto limit = in.PushLimit(length);
    while (in.BytesUntilLimit() > 0) {
        std::uint64_t v = 0;
        if (!in.ReadVarint64(&v))
            return false;
        onValue(v);
    }
    in.PopLimit(limit);
    return true;
}

inline CodedInputStream nodeStream(const char *bytes, int size)
{
    return CodedInputStream(reinterpret_cast<const std::uint8_t *>(bytes), size);
}

} // namespace etwire

// Calls `onDependency(id, isData)` for each dependency of a node readNodeHead accepted: its data_deps,
// then its ctrl_deps, each in the order written (the order findings name them in).
template <typename OnDependency>
void forEachDependency(const char *bytes, int size, OnDependency &&onDependency)
{
    for (const int wanted : {5, 4}) {
        etwire::CodedInputStream in = etwire::nodeStream(bytes, size);
        while (const std::uint32_t tag = in.ReadTag()) {
            const int field = etwire::WireFormatLite::GetTagFieldNumber(tag);
            const bool ok = field == wanted
                                ? etwire::readRepeatedVarint(in, tag, [&](std::uint64_t id) { onDependency(id, wanted == 5); })
                                : etwire::WireFormatLite::SkipField(&in, tag);
            if (!ok)
                return; // readNodeHead accepted these bytes: not reached
        }
    }
}

// The whole node but its dependencies (a communication node's name and attributes): its other fields
// copied as written into `buffer` and parsed, so that a node naming millions of dependencies is
// never materialised as a message. False when protobuf refuses the node.
bool parseWithoutDependencies(const char *bytes, int size, bool hasDependencies, ChakraProtoMsg::Node &node, std::string &buffer);

// The names of the nodes `ids` (for messages about them): another walk over the file's bytes, taken
// only when a finding needs them, so the first walk keeps no name.
std::unordered_map<std::uint64_t, std::string> namesOf(const EtFileBytes &file, const std::unordered_set<std::uint64_t> &ids);

} // namespace linkscope::core
