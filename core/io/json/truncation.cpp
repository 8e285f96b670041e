#include "io/json/truncation.h"

#include "io/file/inputtext.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace linkscope::core::io {

std::optional<TruncatedJson> findTruncation(std::string_view text)
{
    std::vector<char> stack; // '{' or '['
    bool inString = false;
    bool escaped = false;
    bool started = false;
    std::size_t safe = std::string_view::npos;
    std::string safeClosers;
    // A safe point: at depth 1, or directly inside an array at depth 2.
    auto mark = [&](std::size_t keep) {
        if (stack.empty() || stack.size() > 2 || (stack.size() == 2 && stack.back() != '['))
            return;
        safe = keep;
        safeClosers.clear();
        for (auto it = stack.rbegin(); it != stack.rend(); ++it)
            safeClosers += *it == '{' ? '}' : ']';
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            break;
        case '{':
        case '[':
            if (started && stack.empty())
                return std::nullopt; // a second top-level value: not a cut
            stack.push_back(c);
            started = true;
            mark(i + 1);
            break;
        case '}':
        case ']':
            if (stack.empty() || stack.back() != (c == '}' ? '{' : '['))
                return std::nullopt; // not JSON-shaped here: another error
            stack.pop_back();
            if (stack.empty())
                return std::nullopt; // the top-level value is complete
            mark(i + 1);
            break;
        case ',':
            mark(i);
            break;
        default:
            break;
        }
    }
    if (!started || stack.empty() || safe == std::string_view::npos)
        return std::nullopt;
    TruncatedJson cut;
    cut.size = text.size();
    cut.keep = safe;
    cut.closers = std::move(safeClosers);
    return cut;
}

std::string readTextForRecovery(const std::string &path, bool *wasGzip)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw LoadError(path, kUnknownOffset, "cannot open the file");
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (wasGzip)
        *wasGzip = isGzip(raw);
    if (!isGzip(raw))
        return raw;
    const std::uint64_t limit = gzipInflateLimit(raw.size(), path);
    z_stream zs;
    std::memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        throw LoadError(path, 0, "cannot initialise zlib");
    std::string out;
    zs.next_in = reinterpret_cast<unsigned char *>(raw.data());
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(raw.size(), 1u << 30));
    std::size_t fed = zs.avail_in;
    for (;;) {
        if (out.size() >= limit) {
            inflateEnd(&zs);
            throwGzipLimit(path, raw.size(), limit); // past its limit: a bomb, not a cut trace
        }
        const std::size_t before = out.size();
        out.resize(before + (1u << 20));
        zs.next_out = reinterpret_cast<unsigned char *>(out.data() + before);
        zs.avail_out = 1u << 20;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        out.resize(before + ((1u << 20) - zs.avail_out));
        if (zs.avail_in == 0 && fed < raw.size()) {
            const std::size_t more = std::min<std::size_t>(raw.size() - fed, 1u << 30);
            zs.next_in = reinterpret_cast<unsigned char *>(raw.data() + fed);
            zs.avail_in = static_cast<uInt>(more);
            fed += more;
        }
        if (rc == Z_STREAM_END) {
            if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            break;
        }
        if (rc != Z_OK)
            break; // the stream ends here (truncated or corrupt): what came before is the text
    }
    inflateEnd(&zs);
    if (out.size() > limit)
        throwGzipLimit(path, raw.size(), limit);
    return out;
}

namespace {

std::string where(bool wasGzip) { return wasGzip ? " (bytes of the decompressed text)" : ""; }

} // namespace

std::string truncationWarning(const TruncatedJson &cut, bool wasGzip)
{
    return "the file is truncated: it ends at byte " + std::to_string(cut.size) + " inside its JSON document; read up to byte "
           + std::to_string(cut.keep) + ", the end of the last complete element; whatever followed the cut is missing"
           + where(wasGzip);
}

std::string truncationRefusal(const TruncatedJson &cut, bool wasGzip)
{
    return "the file is truncated: it ends at byte " + std::to_string(cut.size)
           + " inside its JSON document (the last complete element ends at byte " + std::to_string(cut.keep) + ")"
           + where(wasGzip) + "; --allow-truncated reads what precedes the cut";
}

std::uint64_t cutOffset(const std::vector<Diagnostic> &warnings)
{
    for (const Diagnostic &d : warnings)
        if (d.offset != kUnknownOffset
            && (d.message.rfind("the file is truncated", 0) == 0 || d.message.find("array is cut off") != std::string::npos
                || d.message.find("; kept all ") != std::string::npos))
            return d.offset;
    return kUnknownOffset;
}

} // namespace linkscope::core::io
