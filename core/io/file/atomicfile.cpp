#include "io/file/atomicfile.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace linkscope::core {

namespace {

std::string errnoText(int error) { return std::strerror(error); }

std::string directoryOf(const std::string &path)
{
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

std::string tempPrefix(const std::string &path) { return "." + std::filesystem::path(path).filename().string() + ".tmp."; }

// A fresh name ".<name>.tmp.XXXXXX" beside `path` (not created).
std::string randomTempName(const std::string &path)
{
    static thread_local std::mt19937_64 rng(std::random_device{}() ^ (std::uint64_t(::getpid()) << 32));
    static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string suffix(6, 'x');
    for (char &c : suffix)
        c = kChars[rng() % (sizeof kChars - 1)];
    return (std::filesystem::path(directoryOf(path)) / (tempPrefix(path) + suffix)).string();
}

std::string modeText(mode_t mode)
{
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
    return buffer;
}

// Paths that name a descriptor or a device by nature: written in place even when they resolve to a
// regular file (`> out.json` makes /dev/stdout one), since replacing that file would leave the
// descriptor's owner writing to a file nobody can see.
bool isDescriptorPath(const std::string &path) { return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0; }

} // namespace

bool isStreamOutput(const std::string &path)
{
    if (path == "-")
        return true;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        return false;
    return !S_ISREG(st.st_mode) || isDescriptorPath(path);
}

std::vector<std::string> removeStaleTemporaries(const std::string &path, int minAgeSeconds)
{
    std::vector<std::string> found;
    const std::string dir = directoryOf(path);
    const std::string prefix = tempPrefix(path);
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return found;
    const auto now = std::chrono::system_clock::now();
    while (const dirent *entry = ::readdir(d)) {
        const std::string name = entry->d_name;
        if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string full = (std::filesystem::path(dir) / name).string();
        const int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat st;
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            continue;
        }
        const auto modified = std::chrono::system_clock::time_point(
            std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::seconds(st.st_mtim.tv_sec)
                                                                            + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
        const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - modified).count();
        const std::string what = full + " (" + std::to_string(st.st_size) + " bytes, " + std::to_string(age) + " s old)";
        // A writer holds its temporary file under flock(): one we can lock is nobody's.
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            found.push_back("temporary file " + what + " is being written by another process; left alone");
        } else if (age < minAgeSeconds) {
            found.push_back("temporary file " + what + " is recent; left alone (remove it if no write is running)");
        } else if (::unlink(full.c_str()) == 0) {
            found.push_back("removed " + what + ", left by an interrupted write");
        } else {
            found.push_back("cannot remove stale temporary file " + what + ": " + errnoText(errno));
        }
        ::close(fd);
    }
    ::closedir(d);
    return found;
}

struct AtomicFile::Deflater {
    z_stream stream{};
    std::vector<unsigned char> buffer = std::vector<unsigned char>(1 << 18);
};

AtomicFile::AtomicFile(std::string path, Compression compression) : path_(std::move(path))
{
    if (path_.empty())
        throw WriteError(path_, "empty output path");
    target_ = path_;
    struct stat st;
    const bool exists = path_ != "-" && ::stat(path_.c_str(), &st) == 0;
    if (path_ == "-" || (exists && (!S_ISREG(st.st_mode) || isDescriptorPath(path_)))) {
        // In place: standard output, a FIFO, a device, a descriptor path. Nothing to rename.
        fd_ = path_ == "-" ? ::fcntl(1, F_DUPFD_CLOEXEC, 3) : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_APPEND);
        if (fd_ < 0)
            throw WriteError(path_, "cannot open for writing: " + errnoText(errno));
        if (exists && S_ISREG(st.st_mode) && isDescriptorPath(path_)) {
            // e.g. /dev/stdout redirected to a file: start it afresh like `>` would.
            struct stat now;
            if (::fstat(fd_, &now) == 0 && S_ISREG(now.st_mode))
                (void)::ftruncate(fd_, 0);
        }
        stream_ = true;
    } else {
        std::error_code ec;
        struct stat lst;
        if (exists && ::lstat(path_.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
            // Replace the file the link points to; the link stays a link.
            const std::filesystem::path resolved = std::filesystem::canonical(path_, ec);
            if (!ec)
                target_ = resolved.string();
        }
        // No write permission, or no write bit at all (root may write anything, but a 0444 file says
        // "do not change me").
        if (exists && (::access(target_.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0))
            throw WriteError(path_, "is read-only (mode " + modeText(st.st_mode) + "); not replaced");
        stale_ = removeStaleTemporaries(target_);
        const std::string dir = directoryOf(target_);
        const mode_t mask = ::umask(0);
        ::umask(mask);
        const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);
#if defined(O_TMPFILE)
        // Unnamed until commit(): nothing is left behind if the process dies while writing.
        fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        unnamed_ = fd_ >= 0;
#endif
        if (fd_ < 0) {
            // mkstemp in the destination's directory: rename() is only atomic within one file system.
            std::string pattern = (std::filesystem::path(dir) / (tempPrefix(target_) + "XXXXXX")).string();
            std::vector<char> buffer(pattern.begin(), pattern.end());
            buffer.push_back('\0');
            fd_ = ::mkstemp(buffer.data());
            if (fd_ < 0)
                throw WriteError(path_, "cannot create a temporary file in " + dir + ": " + errnoText(errno));
            tempPath_.assign(buffer.data());
            ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
        }
        // Held until the file is renamed or removed: removeStaleTemporaries() leaves it alone.
        ::flock(fd_, LOCK_EX | LOCK_NB);
        ::fchmod(fd_, mode);
        if (exists)
            (void)::fchown(fd_, st.st_uid, st.st_gid); // best effort: only root may give files away
    }

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
        ::close(fd_); // an unnamed (O_TMPFILE) file disappears with its last descriptor
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
    if (stream_) {
        // A pipe or a terminal cannot be synced (EINVAL); a device or file in place can.
        if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
            const int error = errno;
            discard();
            throw WriteError(path_, "fsync failed: " + errnoText(error));
        }
        const int rc = ::close(fd_);
        fd_ = -1;
        if (rc != 0)
            throw WriteError(path_, "close failed: " + errnoText(errno));
        committed_ = true;
        return;
    }
    if (::fsync(fd_) != 0) {
        const int error = errno;
        discard();
        throw WriteError(path_, "fsync failed: " + errnoText(error));
    }
    if (unnamed_) {
        // Give the unnamed file a temporary name (linkat cannot replace), then rename it over.
        const std::string self = "/proc/self/fd/" + std::to_string(fd_);
        for (int attempt = 0; attempt < 100 && tempPath_.empty(); ++attempt) {
            const std::string name = randomTempName(target_);
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
                tempPath_ = name;
            else if (errno != EEXIST)
                break;
        }
        if (tempPath_.empty()) {
            const int error = errno;
            discard();
            throw WriteError(path_, "cannot give the finished temporary file a name in " + directoryOf(target_) + ": "
                                        + errnoText(error));
        }
    }
    if (::close(fd_) != 0) {
        const int error = errno;
        fd_ = -1;
        discard();
        throw WriteError(path_, "close failed: " + errnoText(error));
    }
    fd_ = -1;
    if (::rename(tempPath_.c_str(), target_.c_str()) != 0) {
        const int error = errno;
        discard();
        throw WriteError(path_, "rename failed: " + errnoText(error));
    }
    tempPath_.clear();
    committed_ = true;
    // The rename itself is durable only once the directory entry is on disk.
    const int dirFd = ::open(directoryOf(target_).c_str(), O_RDONLY | O_DIRECTORY);
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
