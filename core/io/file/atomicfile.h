#pragma once
// Atomic file output: bytes go to a temporary file in the destination's directory, which is
// fsync'ed and renamed over the destination only by commit(). A write that fails or is abandoned
// (exception, early return) removes the temporary file, so readers never see a partial output and
// an existing file at the destination is left untouched.
//
// The temporary file is unnamed while it is written (O_TMPFILE; it gets its name ".<name>.tmp.XXXXXX"
// only for the instant before the rename), so a killed process leaves nothing behind. Where the
// file system cannot do that, it is a named file held under flock(); a temporary of that name that
// nobody holds and that is over a minute old is a leftover of an interrupted write: it is removed
// when the next write to that destination starts (staleTemporaries() says which).
//
// The destination keeps what it was: a symbolic link is followed (the file it points to is
// replaced, the link stays), an existing file's mode and owner carry over, and a read-only file is
// refused, not replaced. "-" is standard output, and a destination that exists and is not a
// regular file (a FIFO, a character device, /dev/stdout, /proc/self/fd/N) is written in place as a
// stream: there is nothing to rename there, so a failure part-way cannot be undone (isStream()).

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

// An output could not be written. Names the destination path.
class WriteError : public std::runtime_error {
public:
    WriteError(std::string path, const std::string &message) : std::runtime_error(path + ": " + message), path_(std::move(path))
    {
    }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

enum class Compression : std::uint8_t { None, Gzip };

class AtomicFile {
public:
    // Creates the temporary file next to `path`. Throws WriteError if it cannot.
    explicit AtomicFile(std::string path, Compression compression = Compression::None);
    ~AtomicFile(); // without commit(): removes the temporary file
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    // Appends bytes (compressed on the fly when asked). Throws WriteError.
    void write(std::string_view bytes);
    // Flushes, fsyncs, renames over the destination and fsyncs the directory. Throws WriteError.
    void commit();

    const std::string &path() const { return path_; }
    // Written in place ("-" or a non-regular destination), not through a temporary file.
    bool isStream() const { return stream_; }
    // Leftover temporary files of this destination that were found when this write started: what
    // was removed (and why) or kept, one line each.
    const std::vector<std::string> &staleTemporaries() const { return stale_; }
    // Bytes handed to write() so far (before compression).
    std::uint64_t bytesWritten() const { return bytesIn_; }
    // Size of the file on disk after commit().
    std::uint64_t bytesOnDisk() const { return bytesOut_; }

private:
    void writeRaw(const char *data, std::size_t size);
    void deflateChunk(const char *data, std::size_t size, int flush);
    void discard() noexcept;

    struct Deflater;
    std::string path_;
    std::string target_;   // the file actually replaced (path_ with symbolic links followed)
    std::string tempPath_; // a named temporary file (the fallback when O_TMPFILE is unavailable)
    int fd_ = -1;
    bool committed_ = false;
    bool stream_ = false;
    bool unnamed_ = false; // fd_ is an O_TMPFILE file, linked in by commit()
    std::vector<std::string> stale_;
    std::uint64_t bytesIn_ = 0;
    std::uint64_t bytesOut_ = 0;
    std::unique_ptr<Deflater> deflater_;
};

// Whether `path` names standard output ("-") or an existing non-regular file (written in place).
bool isStreamOutput(const std::string &path);

// Temporary files ".<name>.tmp.XXXXXX" left beside `path` by interrupted writes: each one that no
// writer holds and that is over `minAgeSeconds` old is removed; returns a line for each one found.
std::vector<std::string> removeStaleTemporaries(const std::string &path, int minAgeSeconds = 60);

// Writes `bytes` to `path` atomically (one call of the above).
void writeFileAtomically(const std::string &path, std::string_view bytes, Compression compression = Compression::None);

} // namespace linkscope::core
