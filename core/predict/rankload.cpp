// loadRank: one rank's .et file read for the replay. A plain file is read in large blocks into one
// buffer (huge pages where offered) and framed here, each node handed to RankBuilder::addEncoded; a
// gzip'ed file, or one whose framing is wrong, goes through frameChakraEtFile, whose errors are the
// reader's own (a broken file is read again there to name the problem as every other reader does).

#include "predict/hugepages.h"
#include "predict/rankstream.h"
#include "predict/simgraph.h"

#include "export/chakra/etformat.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace linkscope::core::predict {

namespace {

struct NotFramedHere { }; // the canonical reader takes over

class File {
public:
    explicit File(const std::string &path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) { }
    ~File()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    File(const File &) = delete;
    File &operator=(const File &) = delete;
    int fd() const { return fd_; }

private:
    int fd_;
};

// The file's bytes from `offset` on, a block at a time, in the caller's buffer, which keeps the bytes
// not yet framed at its front.
class BlockReader {
public:
    BlockReader(int fd, HugeBuffer &buffer, std::size_t capacity) : fd_(fd), buf_(buffer)
    {
        buf_.reserve(capacity);
        capacity_ = std::max(capacity, std::min(buf_.capacity(), kMaxBlock));
    }
    const char *data() const { return buf_.data(); }
    std::size_t size() const { return size_; }
    std::size_t base() const { return base_; } // the file offset of data()[0]
    bool atEnd() const { return eof_; }
    // Drops the first `consumed` bytes and reads until the buffer holds at least `need` bytes (or
    // is full, or the file ends).
    void refill(std::size_t consumed, std::size_t need = 0)
    {
        std::memmove(buf_.data(), buf_.data() + consumed, size_ - consumed);
        base_ += consumed;
        size_ -= consumed;
        if (need > capacity_) {
            buf_.reserve(need, size_);
            capacity_ = need;
        }
        while (size_ < capacity_ && !eof_) {
            const ssize_t n = ::read(fd_, buf_.data() + size_, capacity_ - size_);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw NotFramedHere{};
            eof_ = n == 0;
            size_ += static_cast<std::size_t>(n);
        }
    }
    static constexpr std::size_t kMaxBlock = std::size_t(8) << 20;

private:
    int fd_;
    HugeBuffer &buf_;
    std::size_t capacity_ = 0, size_ = 0, base_ = 0;
    bool eof_ = false;
};

SimRank loadFramedHere(const std::string &path, std::int64_t rank, const std::vector<std::int64_t> &groupIds, HugeBuffer &buffer)
{
    const File file(path);
    struct stat st { };
    if (file.fd() < 0 || ::fstat(file.fd(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        throw NotFramedHere{};
    const auto bytes = static_cast<std::size_t>(st.st_size);
    BlockReader in(file.fd(), buffer, std::min(bytes + 1, BlockReader::kMaxBlock));
    in.refill(0);
    if (in.size() < 2 || in.data()[0] == '{' || in.data()[0] == '['
        || (static_cast<unsigned char>(in.data()[0]) == 0x1f && static_cast<unsigned char>(in.data()[1]) == 0x8b))
        throw NotFramedHere{}; // empty, JSON or gzip
    // Room for the nodes as the first block's average node size says (the whole file's when it fits):
    // what is reserved is what is touched, no more.
    std::size_t framed = 0, messages = 0;
    for (std::uint64_t length = 0; framed < in.size(); ++messages) {
        const int prefix = etLengthPrefix(in.data() + framed, in.data() + in.size(), length);
        if (prefix <= 0 || length > in.size() - framed - static_cast<std::size_t>(prefix))
            break;
        framed += static_cast<std::size_t>(prefix) + length;
    }
    const std::size_t nodes = messages < 2 ? bytes / 64
                              : in.atEnd() ? messages - 1
                                           : bytes / std::max<std::size_t>(1, framed / messages) * 9 / 8;
    RankBuilder builder(rank, path, groupIds);
    builder.reserve(nodes + 16, 2 * nodes + 16);
    bool metadata = false;
    std::size_t pos = 0;
    for (;;) {
        if (pos == in.size()) {
            if (in.atEnd())
                break;
            in.refill(pos);
            pos = 0;
            continue;
        }
        std::uint64_t length = 0;
        const int prefix = etLengthPrefix(in.data() + pos, in.data() + in.size(), length);
        const std::size_t left = in.size() - pos;
        if (prefix < 0 || length > static_cast<std::uint64_t>(std::numeric_limits<int>::max())
            || (prefix > 0 && length > bytes - std::min(bytes, in.base() + pos + static_cast<std::size_t>(prefix))))
            throw NotFramedHere{}; // overlong, or past the end of the file (no buffer that large)
        if (prefix == 0 || length > left - static_cast<std::size_t>(prefix)) {
            if (in.atEnd())
                throw NotFramedHere{}; // truncated
            const std::size_t need = prefix ? static_cast<std::size_t>(prefix) + length : 16;
            in.refill(pos, need);
            pos = 0;
            continue;
        }
        const char *message = in.data() + pos + prefix;
        const int size = static_cast<int>(length);
        if (!metadata) {
            ChakraProtoMsg::GlobalMetadata meta;
            if (!meta.ParseFromArray(message, size) || meta.GetReflection()->GetUnknownFields(meta).field_count() > 0)
                throw NotFramedHere{};
            metadata = true;
        } else {
            if (size == 0)
                throw NotFramedHere{};
            builder.addEncoded(message, size, in.base() + pos);
        }
        pos += static_cast<std::size_t>(prefix) + length;
    }
    return builder.finish();
}

} // namespace

SimRank loadRank(const std::string &path, std::int64_t rank, const std::vector<std::int64_t> &groupIds)
{
    HugeBuffer buffer;
    return loadRank(path, rank, groupIds, buffer);
}

SimRank loadRank(const std::string &path, std::int64_t rank, const std::vector<std::int64_t> &groupIds, HugeBuffer &buffer)
{
    try {
        return loadFramedHere(path, rank, groupIds, buffer);
    } catch (const NotFramedHere &) {
    }
    RankBuilder builder(rank, path, groupIds);
    std::error_code ec;
    const auto bytes = static_cast<std::size_t>(std::filesystem::file_size(path, ec));
    if (!ec) // gzip: the decompressed size is larger still
        builder.reserve(bytes / 64 + 16, bytes / 32 + 16);
    frameChakraEtFile(
        path, [&](const char *bytes, int size, std::size_t, std::size_t offset) { builder.addEncoded(bytes, size, offset); });
    return builder.finish();
}

} // namespace linkscope::core::predict
