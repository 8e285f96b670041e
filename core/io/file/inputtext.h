#pragma once
// Turning a trace file (plain or gzip, detected by magic bytes) into one text buffer that the JSON
// readers can parse in place (see io/json/parsebuffer.h).

#include "io/file/inputfile.h"
#include "io/json/parsebuffer.h"
#include "model/argsstore.h"
#include "model/common.h"

#include <cstdint>
#include <memory>
#include <string>

namespace linkscope::core::io {

struct InputText {
    ParseBuffer text; // decompressed, padded
    bool wasGzip = false;
    std::uint64_t inputBytes = 0;   // bytes read from disk (compressed size for gzip)
    std::uint64_t progressDone = 0; // progress units already reported (reading / inflating)
    // A plain file read as a mapping (TextUse::Streamed): the file itself, to read spans back later.
    std::shared_ptr<const ArgsStore> sourceFile;
    FileIdentity identity; // the file that was read (known == false for bytes from memory)
};

// Whether the reader will keep the whole text (spans into it) or only parse through it once.
enum class TextUse {
    Retained, // a heap buffer the trace keeps
    Streamed, // a mapping whose parsed pages the reader releases as it goes (ParseBuffer::releaseBefore)
    // A plain file mapped as for Streamed (its spans are read back from the file, InputText::sourceFile);
    // gzip text retained on the heap, because the trace's spans point into it.
    FileBackedOrRetained,
};

// Reports monotonic progress over two phases: reading (0 … inputBytes) then parsing
// (inputBytes … inputBytes + text bytes). Throws Cancelled when the callback returns false.
class ProgressReporter {
public:
    explicit ProgressReporter(const ProgressFn &fn) : fn_(fn) { } // keeps a reference: `fn` must outlive it
    explicit ProgressReporter(ProgressFn &&) = delete;            // a temporary would dangle
    void setTotal(std::uint64_t total) { total_ = total; }
    std::uint64_t total() const { return total_; }
    void report(std::uint64_t done)
    {
        if (!fn_)
            return;
        if (done > total_)
            total_ = done;
        if (!fn_(done, total_))
            throw Cancelled();
    }

private:
    const ProgressFn &fn_;
    std::uint64_t total_ = 0;
};

bool isGzip(const std::string &bytes);

// Decompression bombs: the most bytes gzip input of `compressedBytes` may inflate to. By default
// kGzipRatio (100) times its compressed size (real traces compress 10-30 times), at least 64 MiB, and
// at most half of the memory available (MemAvailable in /proc/meminfo, else sysconf), so that a bomb
// is refused before it takes the machine: a 4.7 MB bomb stops at 470 MB. The environment variable
// LINKSCOPE_GZIP_LIMIT replaces the rule: a byte count with an optional K, M, G or T suffix (powers of
// 1024), or "unlimited". Throws LoadError naming `name` if the variable is malformed.
inline constexpr std::uint64_t kGzipRatio = 100;
inline constexpr std::uint64_t kGzipFloor = std::uint64_t(64) << 20;
struct GzipLimit {
    enum class By : std::uint8_t { Ratio, Memory, Setting }; // which rule set it
    std::uint64_t bytes = 0;
    By by = By::Ratio;
    std::uint64_t available = 0; // the memory available it was computed from (0: unknown)
};
// The rule without the environment variable, for `availableBytes` of free memory (0: unknown).
GzipLimit gzipLimitFor(std::uint64_t compressedBytes, std::uint64_t availableBytes);
GzipLimit gzipLimit(std::uint64_t compressedBytes, const std::string &name);
std::uint64_t gzipInflateLimit(std::uint64_t compressedBytes, const std::string &name);
// MemAvailable (bytes), else the free pages; 0 when unknown.
std::uint64_t availableMemoryBytes();
// The refusal's text: the sizes, which limit tripped and how to change it.
std::string gzipLimitMessage(std::uint64_t compressedBytes, const GzipLimit &limit);
// Input that inflates past its limit (a decompression bomb, or more than memory allows): not a cut
// trace, so never read "as far as it goes".
class GzipLimitError : public LoadError {
public:
    using LoadError::LoadError;
};
// The GzipLimitError for input that inflates past `limit`: names the file, the sizes, which limit it
// was and the override.
[[noreturn]] void throwGzipLimit(const std::string &name, std::uint64_t compressedBytes, std::uint64_t limit);

// Reads `path` fully (a Streamed plain file is mapped, not read). Throws LoadError if it cannot be
// opened, is not a regular file (io/file/inputfile.h), the gzip stream is corrupt or inflates past
// gzipInflateLimit.
InputText readInputFile(const std::string &path, ProgressReporter &progress, TextUse use = TextUse::Retained);

// Same for bytes already in memory; `name` is used in messages.
InputText decodeInput(std::string data, const std::string &name, ProgressReporter &progress);

// The first `limit` decompressed bytes of a file (for sniffing); never throws for bad content.
std::string readInputPrefix(const std::string &path, std::size_t limit);

} // namespace linkscope::core::io
