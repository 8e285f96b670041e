#include "io/file/inputtext.h"

#include "base/arraygrowth.h"
#include "io/file/fileargs.h"

#include <libdeflate.h>
#include <zlib.h>

#include <unistd.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace linkscope::core::io {

namespace {

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// A regular file (InputFile refuses anything else) as a stdio stream, and what was opened.
FilePtr openFile(const std::string &path, FileIdentity *identity = nullptr)
{
    InputFile input(path);
    if (identity)
        *identity = input.identity();
    const int fd = input.release();
    FilePtr f(fdopen(fd, "rb"));
    if (!f) {
        const int e = errno;
        ::close(fd);
        throw LoadError(path, kUnknownOffset, std::string("cannot open file: ") + std::strerror(e));
    }
    return f;
}

// limit + 1 (one byte past the limit tells that it was passed), without wrapping for "unlimited".
std::uint64_t saturatingIncrement(std::uint64_t v) { return v == std::numeric_limits<std::uint64_t>::max() ? v : v + 1; }

// Parses a size such as "64G", "1048576" or "unlimited"; false if malformed.
bool parseByteSize(const char *text, std::uint64_t &out)
{
    std::string s(text);
    if (s == "unlimited" || s == "0") {
        out = std::numeric_limits<std::uint64_t>::max();
        return true;
    }
    std::uint64_t value = 0;
    std::size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        if (value > (std::numeric_limits<std::uint64_t>::max() - 9) / 10)
            return false;
        value = value * 10 + static_cast<std::uint64_t>(s[i] - '0');
    }
    if (i == 0)
        return false;
    int shift = 0;
    if (i < s.size()) {
        switch (s[i] | 0x20) {
        case 'k':
            shift = 10;
            break;
        case 'm':
            shift = 20;
            break;
        case 'g':
            shift = 30;
            break;
        case 't':
            shift = 40;
            break;
        default:
            return false;
        }
        ++i;
        if (i < s.size() && (s[i] == 'B' || s[i] == 'b'))
            ++i;
    }
    if (i != s.size() || value > (std::numeric_limits<std::uint64_t>::max() >> shift))
        return false;
    out = value << shift;
    return true;
}

// Grows `out` (size = bytes produced so far) so that at least `want` more bytes fit, in steps that
// keep untouched reserved pages out of RSS.
void makeRoom(ParseBuffer &out, std::size_t used, std::size_t want)
{
    if (out.size() - used >= want)
        return;
    out.resize(used + std::max<std::size_t>(want, 4u << 20));
}

// Streaming inflate of one or more concatenated gzip members. `pull` refills the input.
class GzipInflater {
public:
    GzipInflater(const std::string &name, std::uint64_t compressedBytes)
        : name_(name), compressedBytes_(compressedBytes), limit_(gzipInflateLimit(compressedBytes, name))
    {
        std::memset(&stream_, 0, sizeof stream_);
        if (inflateInit2(&stream_, 15 + 16) != Z_OK)
            throw LoadError(name_, 0, "cannot initialise zlib");
    }
    ~GzipInflater() { inflateEnd(&stream_); }
    GzipInflater(const GzipInflater &) = delete;
    GzipInflater &operator=(const GzipInflater &) = delete;

    // Inflates `in` (a chunk of the compressed input, `last` when it is the final chunk) into `out`,
    // whose first `produced` bytes are already decompressed. Returns the new `produced`.
    std::size_t feed(const unsigned char *in, std::size_t inLen, bool last, ParseBuffer &out, std::size_t produced,
                     std::uint64_t compressedOffset)
    {
        stream_.next_in = const_cast<unsigned char *>(in);
        stream_.avail_in = static_cast<uInt>(inLen);
        while (stream_.avail_in > 0 || (last && !finished_)) {
            if (finished_) {
                // Another gzip member follows (multi-member files, e.g. from `cat a.gz b.gz`);
                // bytes that are not a gzip header are trailing garbage we report.
                if (stream_.avail_in >= 2 && stream_.next_in[0] == 0x1f && stream_.next_in[1] == 0x8b) {
                    inflateReset(&stream_);
                    finished_ = false;
                } else {
                    bool allZero = std::all_of(stream_.next_in, stream_.next_in + stream_.avail_in,
                                               [](unsigned char c) { return c == 0; });
                    if (!allZero)
                        throw LoadError(name_, kUnknownOffset,
                                        "unexpected bytes after the gzip stream at compressed byte "
                                            + std::to_string(compressedOffset + (inLen - stream_.avail_in)));
                    stream_.avail_in = 0;
                    break;
                }
            }
            makeRoom(out, produced, 1 << 16);
            stream_.next_out = reinterpret_cast<unsigned char *>(out.data() + produced);
            const std::size_t room = std::min<std::size_t>(out.size() - produced, 1u << 30);
            stream_.avail_out = static_cast<uInt>(room);
            const int rc = inflate(&stream_, Z_NO_FLUSH);
            produced += room - stream_.avail_out;
            if (produced > limit_)
                throwGzipLimit(name_, compressedBytes_, limit_);
            if (rc == Z_STREAM_END) {
                finished_ = true;
                anyMember_ = true;
                continue;
            }
            if (rc == Z_BUF_ERROR && stream_.avail_in == 0) {
                if (last)
                    throw LoadError(name_, produced,
                                    "gzip stream is truncated (decompressed " + std::to_string(produced)
                                        + " bytes before the compressed data ended)");
                break;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                throw LoadError(name_, produced,
                                std::string("corrupt gzip data (") + (stream_.msg ? stream_.msg : "zlib error")
                                    + ") at compressed byte " + std::to_string(compressedOffset + (inLen - stream_.avail_in))
                                    + "; offset is in the decompressed text");
            if (last && stream_.avail_in == 0 && rc == Z_OK && stream_.avail_out != 0)
                throw LoadError(name_, produced, "gzip stream is truncated (no end-of-stream marker)");
        }
        return produced;
    }

private:
    std::string name_;
    std::uint64_t compressedBytes_;
    std::uint64_t limit_;
    z_stream stream_;
    bool finished_ = false;
    bool anyMember_ = false;
};

// The gzip trailer holds the uncompressed size mod 2^32 of the last member: a good first guess.
std::size_t guessFromTrailer(const unsigned char *tail, std::uint64_t compressedSize)
{
    const std::uint32_t isize = std::uint32_t(tail[0]) | std::uint32_t(tail[1]) << 8 | std::uint32_t(tail[2]) << 16
                                | std::uint32_t(tail[3]) << 24;
    std::uint64_t guess = isize;
    // Files over 4 GiB wrap; deflate rarely compresses below 1/1000, so step up by 4 GiB until plausible.
    while (guess < compressedSize)
        guess += std::uint64_t(1) << 32;
    return static_cast<std::size_t>(std::min<std::uint64_t>(guess, std::uint64_t(1) << 40));
}

// gzip input inflated in one call per member by libdeflate: several times faster than zlib's
// streaming inflate (its crc32 alone cost more than a fifth of a load). A member is inflated without
// progress reports or cancellation, so only files up to this compressed size take this path (about
// a second of work); larger ones stream through zlib, reporting as they go.
constexpr std::size_t kWholeInflateLimit = 256u << 20;

// Inflates every member of `in` into `out` (already sized to a first guess, grown when a member does
// not fit). Returns false when libdeflate rejects the data; the caller then runs the zlib path, whose
// error messages name the position.
bool inflateWhole(const unsigned char *in, std::size_t inLen, const std::string &name, ParseBuffer &out,
                  ProgressReporter &progress, std::uint64_t progressBase)
{
    const std::uint64_t limit = gzipInflateLimit(inLen, name);
    struct Free {
        void operator()(libdeflate_decompressor *d) const { libdeflate_free_decompressor(d); }
    };
    std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
    if (!d)
        return false;
    std::size_t consumed = 0, produced = 0;
    while (consumed < inLen) {
        if (std::all_of(in + consumed, in + inLen, [](unsigned char c) { return c == 0; }))
            break; // zero padding after the last member, as zlib's path accepts
        std::size_t inUsed = 0, outGot = 0;
        const libdeflate_result r = libdeflate_gzip_decompress_ex(d.get(), in + consumed, inLen - consumed, out.data() + produced,
                                                                  out.size() - produced, &inUsed, &outGot);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            // The member does not fit in what is left: past the limit once the buffer is past it.
            if (out.size() > limit)
                throwGzipLimit(name, inLen, limit);
            if (out.size() >= (std::size_t(1) << 40))
                return false;
            const std::uint64_t grown = std::max<std::uint64_t>(out.size() * 2, produced + (64u << 20));
            out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(grown, saturatingIncrement(limit))));
            continue;
        }
        if (r != LIBDEFLATE_SUCCESS || inUsed == 0)
            return false;
        consumed += inUsed;
        produced += outGot;
        if (produced > limit)
            throwGzipLimit(name, inLen, limit);
        progress.report(progressBase + consumed);
    }
    if (consumed == 0)
        return false;
    out.resize(produced);
    return true;
}

// Inflates gzip bytes held in memory into `out` (empty, with capacity for `guess`): libdeflate in one
// call per member when it accepts the data, otherwise zlib's streaming inflate, which names the
// position of a problem.
void inflateInMemory(const unsigned char *in, std::size_t inLen, const std::string &name, ParseBuffer &out, std::size_t guess,
                     ProgressReporter &progress)
{
    out.resize(guess);
    prefaultForWrite(out.data(), guess); // the guess is exact for a one-member file (gzip trailer)
    if (inflateWhole(in, inLen, name, out, progress, 0))
        return;
    out.resize(0);
    GzipInflater inflater(name, inLen);
    std::size_t produced = 0;
    constexpr std::size_t kChunk = 1u << 20;
    for (std::size_t at = 0;;) {
        const std::size_t len = std::min(kChunk, inLen - at);
        const bool last = at + len >= inLen;
        produced = inflater.feed(in + at, len, last, out, produced, at);
        at += len;
        progress.report(at);
        if (last)
            break;
    }
    out.resize(produced);
}

} // namespace

std::uint64_t availableMemoryBytes()
{
#if defined(__linux__)
    if (FilePtr meminfo{std::fopen("/proc/meminfo", "r")}) {
        char line[256];
        while (std::fgets(line, sizeof line, meminfo.get())) {
            unsigned long long kib = 0;
            if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
                return kib > std::numeric_limits<std::uint64_t>::max() / 1024 ? std::numeric_limits<std::uint64_t>::max()
                                                                              : static_cast<std::uint64_t>(kib) * 1024;
        }
    }
#endif
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
    return 0;
}

GzipLimit gzipLimitFor(std::uint64_t compressedBytes, std::uint64_t availableBytes)
{
    GzipLimit limit;
    limit.available = availableBytes;
    limit.bytes = compressedBytes > std::numeric_limits<std::uint64_t>::max() / kGzipRatio
                      ? std::numeric_limits<std::uint64_t>::max()
                      : std::max(kGzipFloor, compressedBytes * kGzipRatio);
    limit.by = GzipLimit::By::Ratio;
    // Half of what the machine has free: the text is only the start (the reader's model comes on top).
    if (availableBytes > 0) {
        const std::uint64_t byMemory = std::max(kGzipFloor, availableBytes / 2);
        if (byMemory < limit.bytes) {
            limit.bytes = byMemory;
            limit.by = GzipLimit::By::Memory;
        }
    }
    return limit;
}

GzipLimit gzipLimit(std::uint64_t compressedBytes, const std::string &name)
{
    if (const char *env = std::getenv("LINKSCOPE_GZIP_LIMIT"); env && *env) {
        GzipLimit limit;
        if (!parseByteSize(env, limit.bytes))
            throw LoadError(name, kUnknownOffset,
                            std::string("LINKSCOPE_GZIP_LIMIT='") + env
                                + "' is not a size (a byte count with an optional K/M/G/T suffix, or 'unlimited')");
        limit.by = GzipLimit::By::Setting;
        return limit;
    }
    return gzipLimitFor(compressedBytes, availableMemoryBytes());
}

std::uint64_t gzipInflateLimit(std::uint64_t compressedBytes, const std::string &name)
{
    return gzipLimit(compressedBytes, name).bytes;
}

std::string gzipLimitMessage(std::uint64_t compressedBytes, const GzipLimit &limit)
{
    const std::string head = "gzip data of " + std::to_string(compressedBytes) + " bytes inflates to more than "
                             + std::to_string(limit.bytes) + " bytes, ";
    const std::string override =
        "If the file is genuine, set LINKSCOPE_GZIP_LIMIT to a larger size (e.g. LINKSCOPE_GZIP_LIMIT=64G) "
        "or to 'unlimited'";
    switch (limit.by) {
    case GzipLimit::By::Setting:
        return head + "the limit LINKSCOPE_GZIP_LIMIT sets; reading stopped there. " + override;
    case GzipLimit::By::Memory:
        return head + "half of the memory available (MemAvailable " + std::to_string(limit.available >> 20)
               + " MiB): reading on would exhaust the machine's memory; reading stopped there. Free memory, or "
               + "if the machine can take it, set LINKSCOPE_GZIP_LIMIT to a larger size";
    case GzipLimit::By::Ratio:
        break;
    }
    return head + "the limit for its size (" + std::to_string(kGzipRatio) + " times the compressed size, at least "
           + std::to_string(kGzipFloor >> 20)
           + " MiB), which looks like a decompression bomb (real traces compress 10-30 times); reading stopped there. "
           + override;
}

void throwGzipLimit(const std::string &name, std::uint64_t compressedBytes, std::uint64_t limit)
{
    // Which limit it was: the one in force now, if it is the one passed (memory may have moved since).
    GzipLimit in = gzipLimit(compressedBytes, name);
    if (in.bytes != limit && in.by != GzipLimit::By::Setting) {
        const GzipLimit byRatio = gzipLimitFor(compressedBytes, 0);
        in.by = limit >= byRatio.bytes ? GzipLimit::By::Ratio : GzipLimit::By::Memory;
        in.bytes = limit;
    }
    throw GzipLimitError(name, kUnknownOffset, gzipLimitMessage(compressedBytes, in));
}

bool isGzip(const std::string &bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

InputText readInputFile(const std::string &path, ProgressReporter &progress, TextUse use)
{
    InputText result;
    FilePtr file = openFile(path, &result.identity);
    const std::uint64_t size = result.identity.size;
    result.inputBytes = size;

    unsigned char magic[2] = {0, 0};
    const std::size_t magicLen = std::fread(magic, 1, 2, file.get());
    std::fseek(file.get(), 0, SEEK_SET);
    result.wasGzip = magicLen == 2 && magic[0] == 0x1f && magic[1] == 0x8b;

    if (!result.wasGzip) {
        if (use == TextUse::Streamed || use == TextUse::FileBackedOrRetained) {
            // Parsed straight from the page cache: no copy into a fresh (zero-filled) buffer.
            result.text = ParseBuffer::mapFile(fileno(file.get()), size);
            if (result.text.mapped()) {
                result.sourceFile = FileArgs::fromOpenFile(fileno(file.get()), path, size);
                progress.setTotal(size);
                return result;
            }
        }
        progress.setTotal(2 * size);
        std::string text;
        text.reserve(size + kJsonPadding);
        prefaultForWrite(text.data(), size);
        text.resize(size);
        std::size_t done = 0;
        constexpr std::size_t kChunk = 16u << 20;
        while (done < size) {
            const std::size_t got = std::fread(text.data() + done, 1, std::min<std::size_t>(kChunk, size - done), file.get());
            if (got == 0)
                break;
            done += got;
            progress.report(done);
        }
        if (done != size)
            throw LoadError(path, done,
                            "the file shrank while it was being read (it was " + std::to_string(size) + " bytes when opened)");
        result.text = ParseBuffer::fromString(std::move(text));
        result.progressDone = size;
        return result;
    }

    std::size_t guess = size * 8;
    if (size >= 18) {
        unsigned char tail[4];
        std::fseek(file.get(), static_cast<long>(size - 4), SEEK_SET);
        if (std::fread(tail, 1, 4, file.get()) == 4)
            guess = guessFromTrailer(tail, size);
        std::fseek(file.get(), 0, SEEK_SET);
    }
    progress.setTotal(size + guess);
    guess = std::min<std::size_t>(guess, size * 1100 + 4096);
    guess = static_cast<std::size_t>(std::min<std::uint64_t>(guess, saturatingIncrement(gzipInflateLimit(size, path))));
    // One buffer sized from the guess plus the JSON padding, so the common case never reallocates.
    if (use == TextUse::Streamed) {
        result.text = ParseBuffer::growable(guess);
    } else {
        std::string text;
        text.reserve(guess + kJsonPadding);
        result.text = ParseBuffer::fromString(std::move(text));
    }
    if (size <= kWholeInflateLimit) {
        std::vector<unsigned char> compressed(static_cast<std::size_t>(size));
        if (std::fread(compressed.data(), 1, compressed.size(), file.get()) != compressed.size())
            throw LoadError(path, kUnknownOffset,
                            "the file shrank while it was being read (it was " + std::to_string(size) + " bytes when opened)");
        inflateInMemory(compressed.data(), compressed.size(), path, result.text, guess, progress);
        progress.setTotal(size + result.text.size());
        result.progressDone = size;
        return result;
    }
    GzipInflater inflater(path, size);
    std::size_t produced = 0;
    std::vector<unsigned char> chunk(1u << 20);
    std::uint64_t consumed = 0;
    for (;;) {
        const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
        const bool last = got < chunk.size() || consumed + got >= size;
        produced = inflater.feed(chunk.data(), got, last, result.text, produced, consumed);
        consumed += got;
        progress.report(consumed);
        if (last)
            break;
    }
    result.text.resize(produced);
    progress.setTotal(size + produced);
    result.progressDone = size;
    return result;
}

InputText decodeInput(std::string data, const std::string &name, ProgressReporter &progress)
{
    InputText result;
    result.inputBytes = data.size();
    if (!isGzip(data)) {
        progress.setTotal(2 * data.size());
        result.text = ParseBuffer::fromString(std::move(data));
        progress.report(result.inputBytes);
        result.progressDone = result.inputBytes;
        return result;
    }
    result.wasGzip = true;
    std::size_t guess = data.size() * 8;
    if (data.size() >= 18)
        guess = guessFromTrailer(reinterpret_cast<const unsigned char *>(data.data() + data.size() - 4), data.size());
    progress.setTotal(data.size() + guess);
    // Untrusted trailers (fuzzing) must not make us reserve absurd amounts up front.
    guess = std::min<std::size_t>(guess, data.size() * 1100 + 4096);
    guess = static_cast<std::size_t>(std::min<std::uint64_t>(guess, saturatingIncrement(gzipInflateLimit(data.size(), name))));
    {
        std::string text;
        text.reserve(guess + kJsonPadding);
        result.text = ParseBuffer::fromString(std::move(text));
    }
    inflateInMemory(reinterpret_cast<const unsigned char *>(data.data()), data.size(), name, result.text, guess, progress);
    progress.setTotal(data.size() + result.text.size());
    result.progressDone = data.size();
    return result;
}

std::string readInputPrefix(const std::string &path, std::size_t limit)
{
    // Only what the file holds is allocated, in doubling steps: zero-filling the whole limit (64 MiB for
    // the ET+ sniff of a host ET) for a small trace would make page faults most of a job's discovery.
    FilePtr file = openFile(path);
    const std::size_t cap = std::max<std::size_t>(limit, 2);
    std::string head;
    std::size_t size = 0;
    while (size < cap) {
        const std::size_t step = std::min(cap - size, std::max<std::size_t>(size, std::size_t(1) << 16));
        head.resize(size + step);
        const std::size_t got = std::fread(head.data() + size, 1, step, file.get());
        size += got;
        if (got < step)
            break;
    }
    head.resize(size);
    if (!isGzip(head))
        return head.substr(0, std::min(head.size(), limit));
    std::fseek(file.get(), 0, SEEK_SET);
    z_stream zs;
    std::memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return {};
    std::string out;
    std::size_t used = 0; // bytes of `out` inflated
    std::vector<unsigned char> chunk(1 << 16);
    bool done = false;
    while (!done && used < limit) {
        const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
        if (got == 0)
            break;
        zs.next_in = chunk.data();
        zs.avail_in = static_cast<uInt>(got);
        while (zs.avail_in > 0 && used < limit) {
            if (used == out.size())
                out.resize(std::min(limit, std::max<std::size_t>(out.size() * 2, std::size_t(1) << 20)));
            zs.next_out = reinterpret_cast<unsigned char *>(out.data()) + used;
            zs.avail_out = static_cast<uInt>(out.size() - used);
            const int rc = inflate(&zs, Z_NO_FLUSH);
            used = out.size() - zs.avail_out;
            if (rc == Z_STREAM_END) {
                if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                    inflateReset(&zs);
                    continue;
                }
                done = true;
                break;
            }
            if (rc != Z_OK) {
                done = true;
                break;
            }
        }
    }
    out.resize(used);
    inflateEnd(&zs);
    return out;
}

} // namespace linkscope::core::io
