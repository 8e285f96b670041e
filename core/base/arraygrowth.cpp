#include "base/arraygrowth.h"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace linkscope::core {

void prefaultForWrite(void *data, std::size_t bytes)
{
    // Faulting a multi-GB buffer in 4 KiB pages one at a time costs more than parsing it on
    // some kernels/VMs; populating the page tables in one call is several times cheaper.
    if (bytes >= (8u << 20))
        populateForWrite(data, bytes);
}

void populateForWrite(void *data, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr std::uintptr_t kPage = 4096;
    static const bool disabled = std::getenv("LINKSCOPE_NO_PREFAULT") != nullptr; // for A/B measurements
    if (disabled)
        return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
    if (end > begin)
        madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE); // best effort
#else
    (void)data;
    (void)bytes;
#endif
}

} // namespace linkscope::core
