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

// The longest bookmark name, note or step label a sidecar keeps, in bytes: longer texts are cut
// where they are read (sidecarFromJson, with a warning) and where they are typed, so that nothing
// that draws or lists them (the ruler's flags, the Bookmarks menu, the undo texts) meets megabytes.
inline constexpr std::size_t kSidecarTextLimit = 4096;
// `text` cut to at most `limit` bytes, at a UTF-8 character boundary (never inside a character).
std::string cutText(std::string text, std::size_t limit = kSidecarTextLimit);

// Where `bookmark` goes in the ordered `list`; inserts it there and returns the index.
std::size_t insertBookmark(BookmarkList &list, Bookmark bookmark);
// "Bookmark N" for the smallest N >= 1 no bookmark of `list` is named (one pass over the list).
std::string nextBookmarkName(const BookmarkList &list);
// Orders a list read from a file (stable: equal times keep their file order).
void sortBookmarks(BookmarkList &list);

} // namespace linkscope::core
