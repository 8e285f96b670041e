#pragma once
// Opening a trace input: a regular file only, with the identity (device, inode, size, modification
// time) of exactly the file that was opened, so that later steps (the sidecar's fingerprint, output
// checks) can tell whether the path still names the file that was read.
//
// Directories, FIFOs, sockets and devices are refused with the reason: an input is read more than
// once (sniffed, then parsed; spans read back later), which a stream cannot do, and a device such as
// /dev/zero never ends.

#include "model/common.h"

#include <cstdint>
#include <string>

namespace linkscope::core::io {

using core::FileIdentity;

// What kind of file `mode` (st_mode) is, for messages: "a directory", "a FIFO (named pipe)", ...
std::string describeFileType(unsigned mode);

// The identity of an open descriptor (known == false if fstat fails).
FileIdentity identityOf(int fd);
// The identity of the file `path` names now (following symlinks); known == false if it does not exist.
FileIdentity identityOfPath(const std::string &path);

// An open, regular input file. Move-only; closes on destruction.
class InputFile {
public:
    // Throws LoadError naming `path`: cannot open (with the reason), or not a regular file.
    explicit InputFile(const std::string &path);
    ~InputFile();
    InputFile(InputFile &&other) noexcept;
    InputFile &operator=(InputFile &&) = delete;
    InputFile(const InputFile &) = delete;
    InputFile &operator=(const InputFile &) = delete;

    int fd() const { return fd_; }
    const FileIdentity &identity() const { return identity_; }
    std::uint64_t size() const { return identity_.size; }
    // Releases the descriptor to the caller (who must close it).
    int release();

private:
    int fd_ = -1;
    FileIdentity identity_;
};

// Reads the whole of `path` (a regular file) into memory; throws LoadError.
std::string readWholeInputFile(const std::string &path, FileIdentity *identity = nullptr);

} // namespace linkscope::core::io
