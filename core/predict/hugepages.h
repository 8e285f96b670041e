#pragma once
// Large arrays of the replay backed by 2 MiB pages where the system offers them (transparent huge
// pages on request, Linux): building and replaying a graph touches each page of its arrays once, and
// a 4 KiB page's first touch (a page fault) costs more than the work done on it, several times more
// in a virtual machine. Hints only: where they are not available nothing changes.

#include <cstddef>
#include <vector>

namespace linkscope::core::predict {

// Asks for huge pages over the 2 MiB-aligned part of [data, data + bytes) not yet touched.
void adviseHugePages(void *data, std::size_t bytes);

// v.reserve(n), the new storage advised (a vector filled afterwards faults in 2 MiB steps).
template <typename T>
void reserveHuge(std::vector<T> &v, std::size_t n)
{
    if (v.capacity() >= n)
        return;
    v.reserve(n);
    adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

// Bytes in a mapping of their own, 2 MiB-aligned and advised, so that filling them faults in 2 MiB
// steps even when the heap's pages around them are already touched (a read buffer). Grows by
// moving; memory is returned when the buffer is destroyed.
class HugeBuffer {
public:
    HugeBuffer() = default;
    ~HugeBuffer();
    HugeBuffer(const HugeBuffer &) = delete;
    HugeBuffer &operator=(const HugeBuffer &) = delete;
    char *data() const { return data_; }
    std::size_t capacity() const { return capacity_; }
    // At least `bytes` of room, the first `keep` bytes (at most the capacity) kept.
    void reserve(std::size_t bytes, std::size_t keep = 0);

private:
    void release();
    char *data_ = nullptr;
    std::size_t capacity_ = 0;
    bool mapped_ = false;
};

// For a process that is about to allocate about `bytes` and then exit (the predict command): the
// allocator's heap grown once by that much, advised, and kept (not trimmed), every thread allocating
// from it; its first half (at most 64 MiB) touched at once in 2 MiB pages. Process-wide; call before starting threads. No-op where the allocator is not glibc's.
void useHugePageHeap(std::size_t bytes);

} // namespace linkscope::core::predict
