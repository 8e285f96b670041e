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

// For a process that is about to allocate about `bytes` and then exit (the predict command): the
// allocator's heap grown once by that much, advised, and kept (not trimmed), every thread allocating
// from it. Process-wide; call before starting threads. No-op where the allocator is not glibc's.
void useHugePageHeap(std::size_t bytes);

} // namespace linkscope::core::predict
