#pragma once
// Small helpers for the streaming JSON writers: they append to a buffer that is flushed to an
// AtomicFile in large chunks, so multi-gigabyte outputs never sit in memory whole.

#include "io/atomicfile.h"
#include "model/common.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace linkscope::core::jsonout {

// Length of the valid UTF-8 sequence starting at text[i] (a byte >= 0x80), 0 if it is not one.
inline std::size_t utf8SequenceLength(std::string_view text, std::size_t i)
{
    const auto b0 = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // range of the second byte (excludes overlongs and surrogates)
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        if (b0 == 0xE0)
            lo = 0xA0;
        else if (b0 == 0xED)
            hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > text.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
            return 0;
    }
    return n;
}

// JSON string literal, always valid UTF-8: a byte that does not start a valid UTF-8 sequence (a
// non-UTF-8 file name, say; Linux paths are bytes) is written as U+FFFD.
inline void appendString(std::string &out, std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out.push_back(kHex[u >> 4]);
                out.push_back(kHex[u & 15]);
            } else if (u < 0x80) {
                out.push_back(c);
            } else if (const std::size_t n = utf8SequenceLength(text, i)) {
                out.append(text.data() + i, n);
                i += n - 1;
            } else {
                out += "\xEF\xBF\xBD"; // U+FFFD
            }
        }
    }
    out.push_back('"');
}

// Microseconds as an exact decimal from int64 nanoseconds: 1234567 → "1234.567".
inline void appendMicros(std::string &out, Nanos ns)
{
    std::uint64_t magnitude = ns < 0 ? std::uint64_t(0) - std::uint64_t(ns) : std::uint64_t(ns);
    if (ns < 0)
        out.push_back('-');
    out += std::to_string(magnitude / 1000);
    const auto fraction = static_cast<unsigned>(magnitude % 1000);
    out.push_back('.');
    out.push_back(static_cast<char>('0' + fraction / 100));
    out.push_back(static_cast<char>('0' + fraction / 10 % 10));
    out.push_back(static_cast<char>('0' + fraction % 10));
}

// The file name without its folders: outputs name their inputs, but must not differ by checkout path.
inline std::string_view baseName(std::string_view path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// An output file (written atomically, gzip'ed when asked) filled through a large buffer: append to
// `buffer`, call maybeFlush() after each record and commit() at the end.
class BufferedWriter {
public:
    BufferedWriter(std::string path, bool gzip) : file_(std::move(path), gzip ? Compression::Gzip : Compression::None)
    {
        buffer.reserve(kFlushAt + 65536);
    }
    std::string buffer;
    void maybeFlush()
    {
        if (buffer.size() >= kFlushAt)
            flush();
    }
    // Writes what is left and puts the file in place. Returns its size on disk.
    std::uint64_t commit()
    {
        flush();
        file_.commit();
        return file_.bytesOnDisk();
    }

private:
    void flush()
    {
        file_.write(buffer);
        buffer.clear();
    }

    static constexpr std::size_t kFlushAt = std::size_t(4) << 20;
    AtomicFile file_;
};

} // namespace linkscope::core::jsonout
