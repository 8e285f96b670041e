#include "export/gzipdata.h"

#include "io/file/inputtext.h"
#include "model/common.h"

#include <algorithm>
#include <limits>
#include <vector>
#include <zlib.h>

namespace linkscope::core {

std::string gunzipIfCompressed(std::string data, const std::string &name, bool *wasGzip)
{
    const bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f
                      && static_cast<unsigned char>(data[1]) == 0x8b;
    if (wasGzip)
        *wasGzip = gzip;
    if (!gzip)
        return data;

    const std::uint64_t limit = io::gzipInflateLimit(data.size(), name);
    constexpr std::size_t kChunk = 1 << 20;
    // The most the text may hold before the limit trips: growth stops there, so a bomb costs the limit
    // once, not a doubling copy beyond it (a 4.7 MB bomb peaked at 917 MB with doubling).
    const std::size_t most = static_cast<std::size_t>(std::min<std::uint64_t>(limit, std::numeric_limits<std::size_t>::max() / 2)
                                                      + kChunk);
    // The gzip trailer's size (mod 2^32) of the last member: exact for a one-member file under 4 GiB.
    std::size_t guess = data.size() * 4;
    if (data.size() >= 18) {
        const auto *tail = reinterpret_cast<const unsigned char *>(data.data() + data.size() - 4);
        const std::size_t isize = std::size_t(tail[0]) | std::size_t(tail[1]) << 8 | std::size_t(tail[2]) << 16
                                  | std::size_t(tail[3]) << 24;
        guess = std::max(guess, isize);
    }
    std::string out;
    out.reserve(std::min(guess, most));
    z_stream zs{};
    // 15 + 32: accept a zlib or gzip header.
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        throw LoadError(name, 0, "cannot initialise gzip decompression");
    std::vector<unsigned char> chunk(kChunk);
    std::size_t consumed = 0; // input bytes before the current member
    zs.next_in = reinterpret_cast<Bytef *>(data.data());
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size(), 1u << 30));
    for (;;) {
        zs.next_out = chunk.data();
        zs.avail_out = static_cast<uInt>(chunk.size());
        const int rc = inflate(&zs, Z_NO_FLUSH);
        const std::size_t got = chunk.size() - zs.avail_out;
        if (out.size() + got > out.capacity())
            out.reserve(std::min(std::max(out.capacity() * 2, out.size() + got), std::max(most, out.size() + got)));
        out.append(reinterpret_cast<const char *>(chunk.data()), got);
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
