#include "export/etnodewire.h"

namespace linkscope::core {

using etwire::CodedInputStream;
using etwire::nodeStream;
using etwire::readRepeatedVarint;
using etwire::WireFormatLite;

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
