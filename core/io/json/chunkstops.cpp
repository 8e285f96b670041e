#include "io/json/chunkstops.h"

#include "io/json/jsonscan.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace linkscope::core::io {

std::size_t lastElementSeparator(std::string_view text, std::size_t p, std::size_t target)
{
    const char *d = text.data();
    for (std::size_t k = target; k > p + 1;) {
        const void *hit = memrchr(d + p + 1, ',', k - (p + 1));
        if (!hit)
            return std::string::npos;
        const std::size_t c = static_cast<std::size_t>(static_cast<const char *>(hit) - d);
        std::size_t a = c;
        while (a > p && isJsonWhitespace(d[a - 1]))
            --a;
        std::size_t b = c + 1;
        while (b < text.size() && isJsonWhitespace(d[b]))
            ++b;
        if (a > p && d[a - 1] == '}' && b < text.size() && d[b] == '{')
            return c;
        k = c;
    }
    return std::string::npos;
}

std::size_t lastLineBreakSeparator(std::string_view text, std::size_t p, std::size_t target)
{
    const char *d = text.data();
    for (std::size_t k = target; k > p + 1;) {
        const void *hit = memrchr(d + p + 1, '\n', k - (p + 1));
        if (!hit)
            return std::string::npos;
        const std::size_t n = static_cast<std::size_t>(static_cast<const char *>(hit) - d);
        k = n;
        std::size_t a = n;
        while (a > p && isJsonWhitespace(d[a - 1]))
            --a;
        if (a <= p + 1 || d[a - 1] != ',')
            continue;
        const std::size_t c = a - 1;
        a = c;
        while (a > p && isJsonWhitespace(d[a - 1]))
            --a;
        std::size_t b = n + 1;
        while (b < text.size() && isJsonWhitespace(d[b]))
            ++b;
        if (a > p && d[a - 1] == '}' && b < text.size() && d[b] == '{')
            return c;
    }
    return std::string::npos;
}

std::vector<std::size_t> chunkStops(std::string_view text, std::size_t first, const ReaderThreads &config,
                                    ChunkSeparators separators)
{
    const std::size_t bytes = text.size() - first;
    const std::size_t chunks = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, config.threads)),
                                                     bytes / std::max<std::size_t>(config.minChunkBytes, 1));
    std::vector<std::size_t> stops;
    if (chunks < 2)
        return stops;
    const std::size_t reach = (bytes / chunks) / 2; // how far back from a split point a cut may be
    std::size_t from = first;
    for (std::size_t k = 1; k < chunks; ++k) {
        const std::size_t target = first + bytes / chunks * k;
        std::size_t c = lastLineBreakSeparator(text, std::max(from, target - std::min(target, reach)), target);
        if (c == std::string::npos && separators == ChunkSeparators::Whitespace) {
            for (c = target;;) {
                c = lastElementSeparator(text, from, c);
                if (c == std::string::npos || c + 1 >= text.size() || target - c > reach)
                    return {};
                if (isJsonWhitespace(text[c + 1]))
                    break;
            }
        }
        if (c == std::string::npos || c + 1 >= text.size())
            return {};
        stops.push_back(c);
        from = c + 1;
    }
    stops.push_back(std::string::npos);
    return stops;
}

} // namespace linkscope::core::io
