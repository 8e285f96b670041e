#pragma once
// Atomic file output: bytes go to a temporary file in the destination's directory, which is
// fsync'ed and renamed over the destination only by commit(). A write that fails or is abandoned
// (exception, early return) removes the temporary file, so readers never see a partial output and
// an existing file at the destination is left untouched.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace linkscope::core {

// An output could not be written. Names the destination path.
class WriteError : public std::runtime_error {
public:
    WriteError(std::string path, const std::string &message)
        : std::runtime_error(path + ": " + message)
        , path_(std::move(path))
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
    std::string tempPath_;
    int fd_ = -1;
    bool committed_ = false;
    std::uint64_t bytesIn_ = 0;
    std::uint64_t bytesOut_ = 0;
    std::unique_ptr<Deflater> deflater_;
};

// Writes `bytes` to `path` atomically (one call of the above).
void writeFileAtomically(const std::string &path, std::string_view bytes, Compression compression = Compression::None);

} // namespace linkscope::core
