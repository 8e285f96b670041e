#include "io/boundedjson.h"

#include "io/inputfile.h"
#include "model/common.h"

namespace linkscope::core::io {

std::optional<std::uint64_t> offsetBeyondDepth(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::nullopt;
}

nlohmann::json parseBoundedJson(std::string_view text, const std::string &name, int maxDepth)
{
    if (const auto at = offsetBeyondDepth(text, maxDepth))
        throw LoadError(name, *at, "nested more than " + std::to_string(maxDepth) + " levels deep; not read");
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error &e) {
        // nlohmann counts bytes from 1 and points just past the offending character.
        std::string detail = e.what();
        if (const auto at = detail.find("syntax error"); at != std::string::npos)
            detail = detail.substr(at);
        throw LoadError(name, e.byte > 0 ? e.byte - 1 : 0, "not JSON: " + detail);
    } catch (const nlohmann::json::exception &e) {
        // e.g. a number beyond double range (1e400).
        throw LoadError(name, kUnknownOffset, std::string("not JSON: ") + e.what());
    }
}

nlohmann::json readBoundedJsonFile(const std::string &path, int maxDepth)
{
    return parseBoundedJson(readWholeInputFile(path), path, maxDepth);
}

} // namespace linkscope::core::io
