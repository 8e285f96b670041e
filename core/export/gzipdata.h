#pragma once
// In-memory gzip detection and decompression for the export readers (magic bytes, not names).

#include <string>

namespace linkscope::core {

// Returns `data` unchanged unless it starts with the gzip magic 1f 8b; then the decompressed bytes
// (several concatenated members are joined, as gzip(1) does). Throws LoadError naming `name` and the
// compressed byte offset where the stream is corrupt or cut off.
std::string gunzipIfCompressed(std::string data, const std::string &name, bool *wasGzip = nullptr);

} // namespace linkscope::core
