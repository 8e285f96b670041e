#include "io/json/jsonhead.h"

#include "io/json/jsonscan.h"

namespace linkscope::core::io {

JsonHead jsonHead(std::string_view head)
{
    const std::string_view text = head;
    JsonScanner scanner(text);
    std::size_t pos = scanner.skipWhitespace(byteOrderMarkLength(text)); // a UTF-8 BOM is skipped
    if (scanner.at(pos) == '[')
        return {JsonShape::Array, 0}; // Chrome "JSON Array Format"
    if (scanner.at(pos) != '{')
        return {};
    try {
        pos = scanner.skipWhitespace(pos + 1);
        while (scanner.at(pos) == '"') {
            const std::size_t keyEnd = scanner.skipString(pos);
            const std::string_view key(text.data() + pos + 1, keyEnd - pos - 2);
            pos = scanner.skipWhitespace(scanner.expect(keyEnd, ':', ""));
            if (key == "traceEvents")
                return {JsonShape::TraceEvents, pos};
            if (key == "nodes")
                return {JsonShape::Nodes, pos};
            pos = scanner.skipWhitespace(scanner.skipValue(pos));
            if (scanner.at(pos) != ',')
                break;
            pos = scanner.skipWhitespace(pos + 1);
        }
    } catch (const ScanError &) {
        // The prefix ended inside a value: nothing more to learn.
    }
    return {};
}

} // namespace linkscope::core::io
