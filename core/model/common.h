#pragma once
// Types shared by every stage of the core: time, interned strings, diagnostics, progress.

#include "base/indices.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace linkscope::core {

// One time unit everywhere inside: int64 nanoseconds.
using Nanos = std::int64_t;
// The readers keep every time (start and end) within ±kTimeLimit (about 146 years): any end, and any
// difference between two times, then fits in Nanos without overflow.
inline constexpr Nanos kTimeLimit = Nanos(1) << 62;

// Which file was read: device, inode, size and modification time of the open file at load time
// (io/file/inputfile.h fills it), so that later steps can tell whether a path still names that file.
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool known = false;

    bool sameFile(const FileIdentity &o) const { return known && o.known && device == o.device && inode == o.inode; }
    bool sameContent(const FileIdentity &o) const { return sameFile(o) && size == o.size && mtimeNs == o.mtimeNs; }
};

// Index of a string in a StringPool. 0 is always the empty string.
using StringId = std::uint32_t;

// Interns strings; ids are stable and string_views stay valid for the pool's lifetime.
class StringPool {
public:
    StringPool() { intern({}); }
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;
    StringPool(StringPool &&) = default;
    StringPool &operator=(StringPool &&) = default;

    StringId intern(std::string_view text)
    {
        if (auto it = index_.find(text); it != index_.end())
            return it->second;
        const auto id = static_cast<StringId>(strings_.size());
        const std::string &stored = strings_.emplace_back(text);
        index_.emplace(std::string_view(stored), id);
        return id;
    }
    // Returns the id of `text` if it was interned, or nullopt-like kMissing.
    static constexpr StringId kMissing = std::numeric_limits<StringId>::max();
    StringId find(std::string_view text) const
    {
        auto it = index_.find(text);
        return it == index_.end() ? kMissing : it->second;
    }
    std::string_view at(StringId id) const { return strings_.at(id); }
    std::size_t size() const { return strings_.size(); }

private:
    std::deque<std::string> strings_; // deque: element addresses survive growth
    std::unordered_map<std::string_view, StringId> index_;
};

// Byte range inside a retained source buffer. 12 bytes, aligned to 4, so that records holding spans
// (events, host nodes) do not pad them to 16.
#pragma pack(push, 4)
struct Span {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    bool empty() const { return length == 0; }
};
#pragma pack(pop)
static_assert(sizeof(Span) == 12 && alignof(Span) == 4);

inline constexpr std::uint64_t kUnknownOffset = std::numeric_limits<std::uint64_t>::max();

// A recoverable problem found while reading or linking: recorded, shown, never silently dropped.
struct Diagnostic {
    enum class Severity : std::uint8_t { Info, Warning, Error };
    Severity severity = Severity::Warning;
    std::string file;                      // path of the input it concerns (may be empty)
    std::uint64_t offset = kUnknownOffset; // byte offset in the (decompressed) input, if known
    std::string message;
    EventIndex event{}; // the DeviceTrace event it concerns, if any

    // "file:offset: message" (offset omitted when unknown).
    std::string toString() const
    {
        std::string out = file;
        if (offset != kUnknownOffset)
            out += (out.empty() ? "byte " : ": byte ") + std::to_string(offset);
        if (!out.empty())
            out += ": ";
        out += message;
        return out;
    }
};

// An unrecoverable input problem: nothing usable was produced. Names the file and the position.
class LoadError : public std::runtime_error {
public:
    LoadError(std::string file, std::uint64_t offset, const std::string &message)
        : std::runtime_error(Diagnostic{Diagnostic::Severity::Error, file, offset, message}.toString()), file_(std::move(file)),
          offset_(offset), message_(message)
    {
    }
    const std::string &file() const { return file_; }
    std::uint64_t offset() const { return offset_; }
    const std::string &detail() const { return message_; }

private:
    std::string file_;
    std::uint64_t offset_;
    std::string message_;
};

// Thrown when a ProgressFn asked to stop.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") { }
};

// Progress reporting: called with (done, total) in arbitrary units (bytes for readers).
// Return false to cancel; the callee then throws Cancelled.
using ProgressFn = std::function<bool(std::uint64_t done, std::uint64_t total)>;

} // namespace linkscope::core
