#include "edit/bookmarks.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace linkscope::core {

namespace {
bool before(const Bookmark &a, const Bookmark &b) { return a.ts < b.ts; }
} // namespace

std::size_t insertBookmark(BookmarkList &list, Bookmark bookmark)
{
    // After every bookmark at the same instant: a second mark there lists below the first.
    const auto at = std::upper_bound(list.begin(), list.end(), bookmark, before);
    const auto index = static_cast<std::size_t>(at - list.begin());
    list.insert(at, std::move(bookmark));
    return index;
}

std::string cutText(std::string text, std::size_t limit)
{
    if (text.size() <= limit)
        return text;
    std::size_t end = limit;
    // Back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    text.resize(end);
    return text;
}

std::string nextBookmarkName(const BookmarkList &list)
{
    // The numbers N of the names "Bookmark N" in 1..size+1 (one of them is free): a pass and a
    // bitmap, where asking every N in turn against the whole list was quadratic in its length.
    const std::string_view prefix = "Bookmark ";
    std::vector<bool> taken(list.size() + 2, false);
    for (const Bookmark &b : list) {
        const std::string_view name = b.name;
        if (name.size() <= prefix.size() || name.size() > prefix.size() + 20 || name.substr(0, prefix.size()) != prefix
            || name[prefix.size()] == '0')
            continue;
        std::size_t n = 0;
        const char *first = name.data() + prefix.size();
        const char *last = name.data() + name.size();
        const auto [end, error] = std::from_chars(first, last, n);
        if (error == std::errc() && end == last && n < taken.size())
            taken[n] = true;
    }
    std::size_t n = 1;
    while (taken[n])
        ++n;
    return std::string(prefix) + std::to_string(n);
}

void sortBookmarks(BookmarkList &list) { std::stable_sort(list.begin(), list.end(), before); }

} // namespace linkscope::core
