#include "edit/bookmarks.h"

#include <algorithm>

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

std::string nextBookmarkName(const BookmarkList &list)
{
    for (std::size_t n = 1;; ++n) {
        const std::string name = "Bookmark " + std::to_string(n);
        if (std::none_of(list.begin(), list.end(), [&](const Bookmark &b) { return b.name == name; }))
            return name;
    }
}

void sortBookmarks(BookmarkList &list) { std::stable_sort(list.begin(), list.end(), before); }

} // namespace linkscope::core
