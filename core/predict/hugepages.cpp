#include "predict/hugepages.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

namespace linkscope::core::predict {

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
}

void adviseHugePages(void *data, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1), last = (begin + bytes) & ~(kHugePage - 1);
    if (data && last > first)
        madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

HugeBuffer::~HugeBuffer() { release(); }

void HugeBuffer::release()
{
#if defined(__linux__)
    if (mapped_)
        munmap(data_, capacity_);
    else
#endif
        delete[] data_;
    data_ = nullptr;
    capacity_ = 0;
    mapped_ = false;
}

void HugeBuffer::reserve(std::size_t bytes, std::size_t keep)
{
    if (bytes <= capacity_)
        return;
    keep = std::min(keep, capacity_);
    char *fresh = nullptr;
    std::size_t capacity = bytes;
    bool mapped = false;
#if defined(__linux__)
    // Whole 2 MiB pages, at a 2 MiB boundary: map one page more and drop the slack around it.
    capacity = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    void *const raw = mmap(nullptr, capacity + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw != MAP_FAILED) {
        const auto begin = reinterpret_cast<std::uintptr_t>(raw);
        const std::uintptr_t aligned = (begin + kHugePage - 1) & ~(kHugePage - 1);
        if (aligned > begin)
            munmap(raw, aligned - begin);
        if (const std::uintptr_t tail = begin + kHugePage - aligned)
            munmap(reinterpret_cast<void *>(aligned + capacity), tail);
        fresh = reinterpret_cast<char *>(aligned);
        adviseHugePages(fresh, capacity);
        mapped = true;
    }
#endif
    if (!fresh) {
        fresh = new char[bytes];
        capacity = bytes;
    }
    if (keep)
        std::memcpy(fresh, data_, keep);
    release();
    data_ = fresh;
    capacity_ = capacity;
    mapped_ = mapped;
}

void useHugePageHeap(std::size_t bytes)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(M_TOP_PAD) && defined(M_ARENA_MAX)
    static std::once_flag once;
    std::call_once(once, [bytes] {
        // mallopt takes an int: at most 1 GiB of padding (what does not fit comes in 4 KiB pages).
        const std::size_t pad = std::clamp<std::size_t>(bytes, std::size_t(64) << 20, std::size_t(1) << 30);
        mallopt(M_ARENA_MAX, 1);             // threads allocate from the advised heap, not arenas of their own
        mallopt(M_MMAP_THRESHOLD, 32 << 20); // blocks up to 32 MiB from the heap (larger: advised by reserveHuge)
        mallopt(M_TRIM_THRESHOLD, INT_MAX);  // freed memory stays for the next allocation
        mallopt(M_TOP_PAD, static_cast<int>(pad));
        constexpr std::size_t kGrow = std::size_t(1) << 20;
        char *const before = static_cast<char *>(sbrk(0));
        // The heap grows by this and the padding, at once.
        char *const grow = static_cast<char *>(std::malloc(kGrow));
        char *const after = static_cast<char *>(sbrk(0));
        // Splitting the heap's top wrote a header just past the block: the 2 MiB page holding it is
        // in 4 KiB pages for good. The huge pages start at the next 2 MiB boundary.
        const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(grow) + kGrow + 4096 + kHugePage - 1) & ~(kHugePage - 1);
        if (!grow || before == reinterpret_cast<char *>(-1) || after <= before
            || first >= reinterpret_cast<std::uintptr_t>(after)) {
            std::free(grow);
            return;
        }
        const std::size_t advised = (reinterpret_cast<std::uintptr_t>(after) - first) & ~(kHugePage - 1);
        madvise(reinterpret_cast<void *>(first), advised, MADV_HUGEPAGE);
#if defined(MADV_POPULATE_WRITE)
        // What the process will use, touched now in 2 MiB pages: an array placed later shares its
        // 2 MiB pages with its neighbours, whose headers would otherwise touch them first (4 KiB).
        // At most 64 MiB: a larger input's arrays are mostly 2 MiB pages of their own.
        const std::size_t wanted = std::min(bytes / 2, std::size_t(64) << 20);
        const std::size_t populate = std::min(advised, (wanted + kHugePage - 1) & ~(kHugePage - 1));
        madvise(reinterpret_cast<void *>(first), populate, MADV_POPULATE_WRITE); // older kernels: EINVAL, no harm
#endif
        std::free(grow);
        // A block up to the boundary, kept for good: what is allocated next starts in the huge pages.
        void *volatile spacer = std::malloc(first - reinterpret_cast<std::uintptr_t>(grow) - 8);
        (void)spacer;
    });
#else
    (void)bytes;
#endif
}

} // namespace linkscope::core::predict
