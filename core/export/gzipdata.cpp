#include "export/gzipdata.h"

#include "io/inputtext.h"
#include "model/common.h"

#include <vector>
#include <zlib.h>

namespace linkscope::core {

std::string gunzipIfCompressed(std::string data, const std::string &name, bool *wasGzip)
{
    const bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
                      static_cast<unsigned char>(data[1]) == 0x8b;
    if (wasGzip)
        *wasGzip = gzip;
    if (!gzip)
        return data;

    const std::uint64_t limit = io::gzipInflateLimit(data.size(), name);
    std::string out;
    out.reserve(data.size() * 4);
    z_stream zs{};
    // 15 + 32: accept a zlib or gzip header.
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        throw LoadError(name, 0, "cannot initialise gzip decompression");
    std::vector<unsigned char> chunk(1 << 20);
    std::size_t consumed = 0; // input bytes before the current member
    zs.next_in = reinterpret_cast<Bytef *>(data.data());
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size(), 1u << 30));
    for (;;) {
        zs.next_out = chunk.data();
        zs.avail_out = static_cast<uInt>(chunk.size());
        const int rc = inflate(&zs, Z_NO_FLUSH);
        out.append(reinterpret_cast<const char *>(chunk.data()), chunk.size() - zs.avail_out);
        if (out.size() > limit) {
            inflateEnd(&zs);
            io::throwGzipLimit(name, data.size(), limit);
        }
        const std::size_t position = consumed + zs.total_in;
        if (rc == Z_STREAM_END) {
            consumed = position;
            if (consumed >= data.size())
                break;
            // Another member follows (or trailing garbage, which inflate then rejects).
            inflateReset(&zs);
            zs.next_in = reinterpret_cast<Bytef *>(data.data() + consumed);
            zs.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size() - consumed, 1u << 30));
            continue;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && position >= data.size()) {
            inflateEnd(&zs);
            throw LoadError(name, position, "gzip stream cut off (compressed byte offset)");
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const std::string why = zs.msg ? zs.msg : "corrupt data";
            inflateEnd(&zs);
            throw LoadError(name, position, "corrupt gzip stream (" + why + ", compressed byte offset)");
        }
        if (zs.avail_in == 0 && position < data.size()) {
            zs.next_in = reinterpret_cast<Bytef *>(data.data() + position);
            zs.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size() - position, 1u << 30));
            consumed = position - zs.total_in;
        }
    }
    inflateEnd(&zs);
    return out;
}

} // namespace linkscope::core
