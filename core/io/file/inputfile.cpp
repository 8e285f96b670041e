#include "io/file/inputfile.h"

#include "model/common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace linkscope::core::io {

namespace {

FileIdentity identityFromStat(const struct stat &st)
{
    FileIdentity id;
    id.device = static_cast<std::uint64_t>(st.st_dev);
    id.inode = static_cast<std::uint64_t>(st.st_ino);
    id.size = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    id.mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    id.known = true;
    return id;
}

} // namespace

std::string describeFileType(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO (named pipe)";
    case S_IFSOCK:
        return "a socket";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFLNK:
        return "a symbolic link";
    default:
        return "not a regular file";
    }
}

FileIdentity identityOf(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return {};
    return identityFromStat(st);
}

FileIdentity identityOfPath(const std::string &path)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        return {};
    return identityFromStat(st);
}

InputFile::InputFile(const std::string &path)
{
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0)
        throw LoadError(path, kUnknownOffset, std::string("cannot open file: ") + std::strerror(errno));
    struct stat st;
    if (fstat(fd_, &st) != 0) {
        const int e = errno;
        ::close(fd_);
        fd_ = -1;
        throw LoadError(path, kUnknownOffset, std::string("cannot examine file: ") + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        fd_ = -1;
        throw LoadError(path, kUnknownOffset,
                        "is " + describeFileType(st.st_mode)
                            + ", not a regular file: traces are read from regular files (Linkscope reads an "
                              "input more than once); save the data to a file first");
    }
    const int flags = fcntl(fd_, F_GETFL);
    if (flags >= 0)
        fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    identity_ = identityFromStat(st);
}

InputFile::~InputFile()
{
    if (fd_ >= 0)
        ::close(fd_);
}

InputFile::InputFile(InputFile &&other) noexcept : fd_(std::exchange(other.fd_, -1)), identity_(other.identity_) { }

int InputFile::release() { return std::exchange(fd_, -1); }

std::string readWholeInputFile(const std::string &path, FileIdentity *identity)
{
    InputFile file(path);
    if (identity)
        *identity = file.identity();
    std::string data;
    data.resize(static_cast<std::size_t>(file.size()));
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t got = ::read(file.fd(), data.data() + done, data.size() - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            throw LoadError(path, done, std::string("read error: ") + std::strerror(errno));
        if (got == 0)
            throw LoadError(path, done,
                            "the file shrank while it was being read (it was " + std::to_string(data.size())
                                + " bytes when opened)");
        done += static_cast<std::size_t>(got);
    }
    return data;
}

} // namespace linkscope::core::io
