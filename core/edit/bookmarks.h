#pragma once
// Bookmarks (time markers, `M` in the GUI as in Perfetto): named instants on the Kineto trace's
// clock, kept in the corrections sidecar (edit/sidecar.h, "bookmarks"). A list is ordered by time
// (then by name), so that every reader and writer shows them in the same order.

#include "model/common.h"

#include <cstddef>
#include <string>
#include <vector>

namespace linkscope::core {

struct Bookmark {
    Nanos ts = 0;     // trace nanoseconds (the Kineto trace's `ts`, in ns)
    std::string name; // free text; may be empty
    bool operator==(const Bookmark &) const = default;
};
using BookmarkList = std::vector<Bookmark>;

// Where `bookmark` goes in the ordered `list`; inserts it there and returns the index.
std::size_t insertBookmark(BookmarkList &list, Bookmark bookmark);
// "Bookmark N" for the smallest N >= 1 no bookmark of `list` is named.
std::string nextBookmarkName(const BookmarkList &list);
// Orders a list read from a file (stable: equal times keep their file order).
void sortBookmarks(BookmarkList &list);

} // namespace linkscope::core
