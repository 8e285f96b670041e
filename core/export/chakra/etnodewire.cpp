#include "export/chakra/etnodewire.h"

#include <optional>
#include <string_view>

namespace linkscope::core {

using etwire::CodedInputStream;
using etwire::nodeStream;
using etwire::readRepeatedVarint;
using etwire::WireFormatLite;

namespace {

// One attribute (AttributeProto: name 1; int32 7, int64 9, uint32 11, uint64 13, sint32 15, sint64 17),
// kept in `laneNs` when it is lane_dur_ns with an integer value (as the replay's reader takes it).
bool readLaneNs(CodedInputStream &in, std::int64_t &laneNs)
{
    int length = 0;
    if (!in.ReadVarintSizeAsInt(&length))
        return false;
    const auto limit = in.PushLimit(length);
    bool lane = false; // the name is lane_dur_ns (compared in place: no string per attribute)
    std::optional<std::int64_t> value;
    while (const std::uint32_t tag = in.ReadTag()) {
        const int field = WireFormatLite::GetTagFieldNumber(tag);
        bool ok = true;
        if (field == 1 && WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
            static constexpr std::string_view kLane = "lane_dur_ns";
            int size = 0;
            const void *data = nullptr;
            int available = 0;
            ok = in.ReadVarintSizeAsInt(&size);
            if (ok && size == static_cast<int>(kLane.size()) && in.GetDirectBufferPointer(&data, &available) && available >= size)
                lane = std::string_view(static_cast<const char *>(data), kLane.size()) == kLane;
            ok = ok && in.Skip(size);
        } else if ((field == 7 || field == 9 || field == 11 || field == 13 || field == 15 || field == 17)
                   && WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
            std::uint64_t v = 0;
            ok = in.ReadVarint64(&v);
            value = field == 7    ? static_cast<std::int32_t>(v)
                    : field == 11 ? static_cast<std::int64_t>(static_cast<std::uint32_t>(v))
                    : field == 15 ? WireFormatLite::ZigZagDecode32(static_cast<std::uint32_t>(v))
                    : field == 17 ? WireFormatLite::ZigZagDecode64(v)
                                  : static_cast<std::int64_t>(v);
        } else {
            ok = WireFormatLite::SkipField(&in, tag);
        }
        if (!ok)
            return false;
    }
    if (!in.ConsumedEntireMessage())
        return false;
    in.PopLimit(limit);
    if (value && lane)
        laneNs = *value;
    return true;
}

} // namespace

bool readNodeHead(const char *bytes, int size, NodeHead &node)
{
    node = {};
    CodedInputStream in = nodeStream(bytes, size);
    while (const std::uint32_t tag = in.ReadTag()) {
        const int field = WireFormatLite::GetTagFieldNumber(tag);
        const auto wire = WireFormatLite::GetTagWireType(tag);
        bool ok = true;
        if (field == 1 && wire == WireFormatLite::WIRETYPE_VARINT) {
            ok = in.ReadVarint64(&node.id);
        } else if (field == 3 && wire == WireFormatLite::WIRETYPE_VARINT) {
            std::uint64_t v = 0;
            ok = in.ReadVarint64(&v);
            node.type = static_cast<int>(v);
        } else if (field == 4 || field == 5) {
            ok = readRepeatedVarint(in, tag, [&](std::uint64_t) { node.hasDependencies = true; });
        } else if (field == 7 && wire == WireFormatLite::WIRETYPE_VARINT) {
            ok = in.ReadVarint64(&node.durationMicros);
        } else if (field == 10 && wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
            ok = readLaneNs(in, node.laneNs);
        } else {
            ok = WireFormatLite::SkipField(&in, tag);
        }
        if (!ok)
            return false;
    }
    return in.ConsumedEntireMessage() && in.BytesUntilLimit() <= 0;
}

bool parseWithoutDependencies(const char *bytes, int size, bool hasDependencies, ChakraProtoMsg::Node &node, std::string &buffer)
{
    if (!hasDependencies)
        return node.ParseFromArray(bytes, size);
    buffer.clear();
    CodedInputStream in = nodeStream(bytes, size);
    for (;;) {
        const int begin = in.CurrentPosition();
        const std::uint32_t tag = in.ReadTag();
        if (!tag)
            break;
        const int field = WireFormatLite::GetTagFieldNumber(tag);
        if (!WireFormatLite::SkipField(&in, tag))
            return false;
        if (field != 4 && field != 5)
            buffer.append(bytes + begin, static_cast<std::size_t>(in.CurrentPosition() - begin));
    }
    return node.ParseFromString(buffer);
}

std::unordered_map<std::uint64_t, std::string> namesOf(const EtFileBytes &file, const std::unordered_set<std::uint64_t> &ids)
{
    std::unordered_map<std::uint64_t, std::string> names;
    if (ids.empty())
        return names;
    NodeHead head;
    ChakraProtoMsg::Node node;
    std::string buffer;
    file.frame([&](const char *bytes, int size, std::size_t, std::size_t) {
        if (readNodeHead(bytes, size, head) && ids.count(head.id) && !names.count(head.id)
            && parseWithoutDependencies(bytes, size, head.hasDependencies, node, buffer))
            names.emplace(head.id, node.name());
    });
    return names;
}

} // namespace linkscope::core
