#include "io/chakraet/chakraetformat.h"

#include "io/json/jsonhead.h"

#include <algorithm>
#include <cstdint>

namespace linkscope::core::io {

namespace {

// Chakra .et: a varint length, then a GlobalMetadata message whose fields are tagged 1..(small).
bool looksLikeChakraProtobuf(std::string_view head)
{
    if (head.empty())
        return false;
    std::uint64_t length = 0;
    std::size_t i = 0;
    int shift = 0;
    for (; i < head.size() && i < 5; ++i) {
        const auto b = static_cast<unsigned char>(head[i]);
        length |= std::uint64_t(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    if (i >= head.size() || i >= 5)
        return false;
    ++i;
    if (length == 0)
        return i < head.size(); // an empty GlobalMetadata followed by a node
    if (i >= head.size())
        return false;
    const auto tag = static_cast<unsigned char>(head[i]);
    const unsigned field = tag >> 3, wire = tag & 7;
    // GlobalMetadata: version (1, string) or attr (2, message); both length-delimited.
    return (field == 1 || field == 2) && wire == 2 && length < (1u << 30);
}

} // namespace

bool isChakraEt(const FileHead &head)
{
    const std::string_view bytes = head.start();
    // JSON of any kind starts with whitespace, '{' or '['; a .et starts with its varint length.
    if (!bytes.empty() && (bytes[0] == ' ' || bytes[0] == '\n' || bytes[0] == '\r' || bytes[0] == '\t'))
        return false;
    // '{' is also the varint 123 and "{\n" a GlobalMetadata of 123 bytes whose field 1 follows: JSON
    // cut short before its first key reads that way. A .et's first bytes hold a byte below 0x20 (the
    // version string's length, an empty metadata's 0, a node's id tag 0x08); text has none.
    if (!bytes.empty() && (bytes[0] == '{' || bytes[0] == '[')) {
        const std::string_view first = bytes.substr(0, 64);
        if (std::none_of(first.begin(), first.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r'; }))
            return false;
    }
    return jsonHead(bytes).shape == JsonShape::Other && looksLikeChakraProtobuf(bytes);
}

InputFormat chakraEtInputFormat()
{
    return {.kind = std::string(kChakraEtKind),
            .role = TraceRole::Output,
            .name = "Chakra .et",
            .detect = isChakraEt,
            .filePatterns = {},
            .nameSuffixes = {}};
}

} // namespace linkscope::core::io
