#include "predict/hugepages.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>

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
        char *const before = static_cast<char *>(sbrk(0));
        // The heap grows by this and the padding, at once (volatile: the allocation must happen).
        void *volatile grow = std::malloc(std::size_t(1) << 20);
        char *const after = static_cast<char *>(sbrk(0));
        std::free(grow);
        if (before != reinterpret_cast<char *>(-1) && after > before)
            adviseHugePages(before, static_cast<std::size_t>(after - before));
    });
#else
    (void)bytes;
#endif
}

} // namespace linkscope::core::predict
