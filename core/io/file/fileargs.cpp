#include "io/file/fileargs.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace linkscope::core::io {

namespace {

std::int64_t mtimeNsOf(const struct stat &st)
{
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

} // namespace

std::shared_ptr<const FileArgs> FileArgs::fromOpenFile(int fd, const std::string &path, std::uint64_t size)
{
    struct stat st { };
    if (fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size)
        return nullptr;
    const int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        return nullptr;
    return std::shared_ptr<const FileArgs>(new FileArgs(own, path, size, mtimeNsOf(st)));
}

FileArgs::FileArgs(int fd, std::string path, std::uint64_t size, std::int64_t mtimeNs)
    : fd_(fd), path_(std::move(path)), size_(size), mtimeNs_(mtimeNs)
{
}

FileArgs::~FileArgs() { close(fd_); }

bool FileArgs::unchanged() const
{
    struct stat st { };
    return fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == size_ && mtimeNsOf(st) == mtimeNs_;
}

std::string FileArgs::unavailableReason() const
{
    if (unchanged())
        return {};
    return path_ + " changed on disk since it was loaded (size or modification time differ); reload it to see event args";
}

bool FileArgs::readBlock(std::uint64_t offset, std::size_t bytes, std::string &out) const
{
    if (offset > size_ || !unchanged())
        return false;
    bytes = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, size_ - offset));
    out.resize(bytes);
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t got = pread(fd_, out.data() + done, bytes - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            out.clear();
            return false;
        }
        done += static_cast<std::size_t>(got);
    }
    // Checked again: a rewrite that raced with the read must not pass for args.
    if (!unchanged()) {
        out.clear();
        return false;
    }
    return true;
}

std::string_view FileArgs::read(Span span, std::string &scratch) const
{
    if (span.empty() || !readBlock(span.offset, span.length, scratch) || scratch.size() != span.length)
        return {};
    return scratch;
}

} // namespace linkscope::core::io
