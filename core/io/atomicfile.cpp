#include "io/atomicfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace linkscope::core {

namespace {

std::string errnoText(int error)
{
    return std::strerror(error);
}

std::string directoryOf(const std::string &path)
{
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

} // namespace

struct AtomicFile::Deflater {
    z_stream stream{};
    std::vector<unsigned char> buffer = std::vector<unsigned char>(1 << 18);
};

AtomicFile::AtomicFile(std::string path, Compression compression)
    : path_(std::move(path))
{
    if (path_.empty())
        throw WriteError(path_, "empty output path");
    // mkstemp in the destination's directory: rename() is only atomic within one file system.
    const std::filesystem::path dest(path_);
    std::string pattern = (std::filesystem::path(directoryOf(path_)) / ("." + dest.filename().string() + ".tmp.XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    fd_ = ::mkstemp(buffer.data());
    if (fd_ < 0)
        throw WriteError(path_, "cannot create a temporary file in " + directoryOf(path_) + ": " + errnoText(errno));
    tempPath_.assign(buffer.data());
    // mkstemp creates 0600; outputs are ordinary files, so honour the umask like open() would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);

    if (compression == Compression::Gzip) {
        deflater_ = std::make_unique<Deflater>();
        // windowBits 15 + 16: a gzip wrapper, so the output is an ordinary .gz file.
        if (deflateInit2(&deflater_->stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            deflater_.reset();
            discard();
            throw WriteError(path_, "cannot initialise gzip compression");
        }
    }
}

AtomicFile::~AtomicFile()
{
    if (deflater_)
        deflateEnd(&deflater_->stream);
    if (!committed_)
        discard();
}

void AtomicFile::discard() noexcept
{
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!tempPath_.empty()) {
        ::unlink(tempPath_.c_str());
        tempPath_.clear();
    }
}

void AtomicFile::writeRaw(const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int error = errno;
            discard();
            throw WriteError(path_, "write failed: " + errnoText(error));
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        bytesOut_ += static_cast<std::uint64_t>(n);
    }
}

void AtomicFile::deflateChunk(const char *data, std::size_t size, int flush)
{
    z_stream &zs = deflater_->stream;
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data));
    zs.avail_in = static_cast<uInt>(size);
    do {
        zs.next_out = deflater_->buffer.data();
        zs.avail_out = static_cast<uInt>(deflater_->buffer.size());
        const int rc = deflate(&zs, flush);
        if (rc == Z_STREAM_ERROR) {
            discard();
            throw WriteError(path_, "gzip compression failed");
        }
        const std::size_t produced = deflater_->buffer.size() - zs.avail_out;
        writeRaw(reinterpret_cast<const char *>(deflater_->buffer.data()), produced);
    } while (zs.avail_out == 0 || (flush == Z_FINISH && zs.avail_in > 0));
}

void AtomicFile::write(std::string_view bytes)
{
    if (fd_ < 0)
        throw WriteError(path_, committed_ ? "write after commit" : "write after a failed write");
    bytesIn_ += bytes.size();
    if (!deflater_) {
        writeRaw(bytes.data(), bytes.size());
        return;
    }
    // zlib counts input in uInt: feed very large buffers in slices.
    constexpr std::size_t kSlice = std::size_t(1) << 30;
    while (!bytes.empty()) {
        const std::size_t n = std::min(bytes.size(), kSlice);
        deflateChunk(bytes.data(), n, Z_NO_FLUSH);
        bytes.remove_prefix(n);
    }
}

void AtomicFile::commit()
{
    if (fd_ < 0)
        throw WriteError(path_, committed_ ? "committed twice" : "commit after a failed write");
    if (deflater_)
        deflateChunk(nullptr, 0, Z_FINISH);
    if (::fsync(fd_) != 0) {
        const int error = errno;
        discard();
        throw WriteError(path_, "fsync failed: " + errnoText(error));
    }
    if (::close(fd_) != 0) {
        const int error = errno;
        fd_ = -1;
        discard();
        throw WriteError(path_, "close failed: " + errnoText(error));
    }
    fd_ = -1;
    if (::rename(tempPath_.c_str(), path_.c_str()) != 0) {
        const int error = errno;
        discard();
        throw WriteError(path_, "rename failed: " + errnoText(error));
    }
    tempPath_.clear();
    committed_ = true;
    // The rename itself is durable only once the directory entry is on disk.
    const int dirFd = ::open(directoryOf(path_).c_str(), O_RDONLY | O_DIRECTORY);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

void writeFileAtomically(const std::string &path, std::string_view bytes, Compression compression)
{
    AtomicFile file(path, compression);
    file.write(bytes);
    file.commit();
}

} // namespace linkscope::core
