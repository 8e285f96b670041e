#include "io/json/boundedjson.h"

#include "io/file/inputfile.h"
#include "model/common.h"

namespace linkscope::core::io {

namespace {

// The first bracket outside strings, from `from` on, at which `stop(position, depth)` is true, where
// depth counts the brackets open after it ('[' and '{' open, ']' and '}' close).
template <typename Stop>
std::optional<std::size_t> findBracket(std::string_view text, std::size_t from, Stop &&stop)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = from; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (stop(i, ++depth))
                return i;
        } else if (c == ']' || c == '}') {
            if (stop(i, --depth))
                return i;
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<std::uint64_t> offsetBeyondDepth(std::string_view text, int maxDepth)
{
    return findBracket(text, 0, [maxDepth](std::size_t, int depth) { return depth > maxDepth; });
}

std::optional<std::size_t> containerEnd(std::string_view text, std::size_t open)
{
    if (open >= text.size() || (text[open] != '{' && text[open] != '['))
        return std::nullopt;
    const auto close = findBracket(text, open, [](std::size_t, int depth) { return depth == 0; });
    return close ? std::optional<std::size_t>(*close + 1) : std::nullopt;
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
