#pragma once
// The text a JSON reader parses in place: writable (the Kineto reader briefly turns the bytes around
// a window of events into '[' and ']'), with kJsonPadding readable bytes after its end (simdjson
// reads up to that far), and, when it lives in its own mapping, able to hand back the pages of text
// that have been parsed, so that a multi-gigabyte trace is never resident all at once.
//
// Three storages:
//  - Heap: a std::string with spare capacity (in-memory input, fallback everywhere).
//  - File: a private, copy-on-write mapping of a plain file. Pages come straight from the page
//    cache: no read() copy, no zero-filling of a fresh buffer; released pages are simply unmapped.
//    A file truncated by another process while it is mapped makes reads past its new end fault
//    (SIGBUS). A process-wide SIGBUS handler (installed with the first mapping) recognises faults
//    inside a live File mapping, maps pages of '"' over the rest of it so the parser stops at
//    once whatever it had indexed there, and records the fault: the reader then reports the shrunken
//    file (truncatedAt()) instead of whatever the parser made of the text. Faults anywhere else go to the previous handler.
//    Callers keep the mapping only for the duration of one parse.
//  - Anonymous: a private anonymous mapping that grows by mremap (gzip output); released pages are
//    returned to the kernel.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::core::io {

// simdjson reads up to this many bytes past the end of the text; keep it in sync with SIMDJSON_PADDING.
inline constexpr std::size_t kJsonPadding = 64;

class ParseBuffer {
public:
    ParseBuffer() = default;
    ~ParseBuffer();
    ParseBuffer(ParseBuffer &&other) noexcept;
    ParseBuffer &operator=(ParseBuffer &&other) noexcept;
    ParseBuffer(const ParseBuffer &) = delete;
    ParseBuffer &operator=(const ParseBuffer &) = delete;

    static ParseBuffer fromString(std::string text);
    // Maps `size` bytes of the open file `fd` (which may be closed afterwards). Returns an empty Heap
    // buffer with mapped() == false when the platform or the kernel refuses; the caller then reads.
    static ParseBuffer mapFile(int fd, std::uint64_t size);
    // An empty buffer that grows (see resize) in its own mapping, or on the heap where there is none.
    static ParseBuffer growable(std::size_t expectedBytes);

    char *data() { return base(); }
    const char *data() const { return const_cast<ParseBuffer *>(this)->base(); }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // Bytes readable from data(): always at least size() + kJsonPadding.
    std::size_t paddedSize() const;
    char &operator[](std::size_t i) { return base()[i]; }
    char operator[](std::size_t i) const { return data()[i]; }
    std::string_view view() const { return {data(), size_}; }
    bool mapped() const { return storage_ != Storage::Heap; }

    // For a File buffer whose file shrank under it: the offset of the first page that could not be
    // read (the text from there on reads as zeros). nullopt while every read was served by the file.
    std::optional<std::size_t> truncatedAt() const;

    // Sets the size; new bytes are writable (and zero in a mapping). Keeps the padding. Heap and
    // Anonymous only; a File buffer is as long as its file.
    void resize(std::size_t newSize);

    // Hints that [from, to) is about to be read: maps those file pages in one call instead of one
    // fault per 64 KiB. Best effort.
    void willRead(std::size_t from, std::size_t to);

    // The caller will not read or write below `offset` again: whole pages there leave the resident
    // set. (A File page reads back as the file's bytes, an Anonymous page as zeros.) No-op on Heap.
    void releaseBefore(std::size_t offset);
    // The same for the whole pages inside [from, to) only, without moving the release mark: one
    // chunk of a parallel reader releasing what it has read. Safe to call from several threads
    // for disjoint ranges.
    void releaseRange(std::size_t from, std::size_t to);

    // The text as a std::string with kJsonPadding spare capacity (moved for Heap, copied otherwise).
    std::string takeString() &&;

private:
    enum class Storage : std::uint8_t { Heap, File, Anonymous };
    char *base() { return storage_ == Storage::Heap ? heap_.data() : map_; }
    void unmap();

    Storage storage_ = Storage::Heap;
    std::string heap_;
    char *map_ = nullptr;
    std::size_t mapBytes_ = 0; // length of the mapping (page multiple)
    std::size_t size_ = 0;
    std::size_t released_ = 0; // bytes at the start whose pages were released (page multiple)
    int faultSlot_ = -1;       // File: this mapping's slot in the SIGBUS handler's table, or -1
};

} // namespace linkscope::core::io
