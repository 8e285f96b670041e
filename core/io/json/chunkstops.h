#pragma once
// Where the parallel readers cut the array that holds a trace (a Kineto trace's traceEvents, a host
// ET's nodes) into one chunk per thread (io/readerbase.h readInChunks). A cut is a ',' between two
// elements, found by looking at a few bytes around it, not by parsing from the start: so it can be
// fooled by a ',' between two objects nested inside an element (a host ET node's attrs list reads
// `{"name": "rf_id", …}, {"name": "tid", …}`). Such a cut is found out only when the chunk before it
// reaches it, and the whole array is then read again on one thread: the read takes about 1.5 times
// as long as on one thread. A ',' followed by a line break is the separator every writer we know puts
// between elements (Kineto, PyTorch's observer, Linkscope's own ET+ writer lay out one element, or one
// element's first line, per line) and never inside one, so it is looked for first.

#include "io/tracereader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace linkscope::core::io {

enum class ChunkSeparators : std::uint8_t {
    // Only a ',' with a line break after it: for arrays whose elements hold lists of objects on one
    // line (host ET nodes). A text without such separators near a split point is read on one thread.
    LineBreak,
    // A ',' with a line break after it when there is one near the split point, else one with any
    // whitespace after it (Kineto events, which hold no lists of objects).
    Whitespace,
};

// The last ',' in (p, target) with '}' before it and '{' after it (whitespace allowed), npos if none.
// It may also match inside a string or a nested value.
std::size_t lastElementSeparator(std::string_view text, std::size_t p, std::size_t target);

// The last ',' in (p, target) with '}' before it and a line break, then '{', after it (whitespace
// allowed around them), npos if none.
std::size_t lastLineBreakSeparator(std::string_view text, std::size_t p, std::size_t target);

// Where a parallel read splits the array whose first element starts at `first`: one offset per chunk
// but the last, each a ',' with whitespace after it (that keeps the bytes each chunk rewrites apart),
// searched back from an even split point at most half a chunk, then npos for the last chunk. Empty
// when one thread reads: the text is too small, or no separator of the kind asked for is near a
// split point.
std::vector<std::size_t> chunkStops(std::string_view text, std::size_t first, const ReaderThreads &config,
                                    ChunkSeparators separators);

} // namespace linkscope::core::io
