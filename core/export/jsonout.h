#pragma once
// Small helpers for the streaming JSON writers: they append to a buffer that is flushed to an
// AtomicFile in large chunks, so multi-gigabyte outputs never sit in memory whole.

#include "io/file/atomicfile.h"
#include "model/common.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
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

// Bytes a JSON string literal holds as they are: printable ASCII other than '"' and '\\'.
inline constexpr bool isPlainJsonByte(unsigned char u) { return u >= 0x20 && u < 0x80 && u != '"' && u != '\\'; }

// The index of the first byte of text[i..] that is not plain (text.size() if none), 8 bytes a step.
inline std::size_t plainRunEnd(std::string_view text, std::size_t i)
{
    constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    const char *data = text.data();
    const std::size_t n = text.size();
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, data + i, 8);
        // Per byte: high bit set, below 0x20, '"' or '\\' (x - 1 & ~x has the high bit of each zero
        // byte of x; a borrow can flag a byte above a flagged one, never below, so the lowest
        // flag, the first byte in memory on a little-endian machine, is exact).
        const std::uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
        const std::uint64_t flagged =
            (w | ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash)) & kHigh;
        if (flagged) {
            if constexpr (std::endian::native == std::endian::little)
                return i + static_cast<std::size_t>(std::countr_zero(flagged)) / 8;
            break; // big-endian: find it byte by byte below
        }
    }
    for (; i < n && isPlainJsonByte(static_cast<unsigned char>(data[i])); ++i) { }
    return i;
}

// JSON string literal, always valid UTF-8: a byte that does not start a valid UTF-8 sequence (a
// non-UTF-8 file name, say; Linux paths are bytes) is written as U+FFFD. Runs of plain bytes are
// copied whole.
inline void appendString(std::string &out, std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (const std::size_t end = plainRunEnd(text, i); end != i) {
            out.append(text.data() + i, end - i);
            i = end;
            if (i == text.size())
                break;
        }
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out.push_back(kHex[u >> 4]);
                out.push_back(kHex[u & 15]);
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

// Decimal integers without a temporary string.
inline void appendUint(std::string &out, std::uint64_t value)
{
    char digits[20];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, static_cast<std::size_t>(end - digits));
}

inline void appendInt(std::string &out, std::int64_t value)
{
    char digits[21];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, static_cast<std::size_t>(end - digits));
}

// Microseconds as an exact decimal from int64 nanoseconds: 1234567 → "1234.567".
inline void appendMicros(std::string &out, Nanos ns)
{
    const std::uint64_t magnitude = ns < 0 ? std::uint64_t(0) - std::uint64_t(ns) : std::uint64_t(ns);
    char text[26];
    char *p = text;
    if (ns < 0)
        *p++ = '-';
    p = std::to_chars(p, text + 21, magnitude / 1000).ptr;
    const auto fraction = static_cast<unsigned>(magnitude % 1000);
    p[0] = '.';
    p[1] = static_cast<char>('0' + fraction / 100);
    p[2] = static_cast<char>('0' + fraction / 10 % 10);
    p[3] = static_cast<char>('0' + fraction % 10);
    out.append(text, static_cast<std::size_t>(p + 4 - text));
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
