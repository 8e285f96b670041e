#pragma once
// Small JSON documents Linkscope reads whole with nlohmann (rank summaries, comm_group.json), with
// the bound the trace readers put on metadata (io/kineto/kinetoreader.cpp): nesting deeper than a limit is
// refused before nlohmann builds anything, with the byte offset where the limit was passed. nlohmann's
// parser keeps a frame per open container and its dump/copy/compare recurse, so `[`×10M would
// otherwise take ~800 MB (or the stack) before the document is found not to be JSON.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::core::io {

// Deep enough for anything Linkscope writes (a summary is 5 levels deep).
inline constexpr int kMaxSmallJsonDepth = 64;

// The byte offset of the bracket that opens container number `maxDepth + 1` (strings skipped; one
// pass, no allocation), or nullopt when the text is nested at most `maxDepth` deep.
std::optional<std::uint64_t> offsetBeyondDepth(std::string_view text, int maxDepth);

// The offset just past the container opened by the bracket at `open` (strings skipped), or nullopt
// when `open` is not a '{' or '[' or the text ends before it closes.
std::optional<std::size_t> containerEnd(std::string_view text, std::size_t open);

// Parses `text` (named `name` in messages). Throws LoadError naming `name` and the byte offset: nested
// deeper than `maxDepth`, or not JSON.
nlohmann::json parseBoundedJson(std::string_view text, const std::string &name, int maxDepth = kMaxSmallJsonDepth);

// Reads `path` (a regular file: a FIFO, a device or a folder is refused without blocking, as for
// traces, io/file/inputfile.h) and parses it as above. Throws LoadError.
nlohmann::json readBoundedJsonFile(const std::string &path, int maxDepth = kMaxSmallJsonDepth);

} // namespace linkscope::core::io
