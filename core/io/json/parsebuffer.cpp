#include "io/json/parsebuffer.h"

#if defined(__linux__)
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#define LINKSCOPE_HAVE_MMAP 1
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace linkscope::core::io {

namespace {

#if defined(LINKSCOPE_HAVE_MMAP)
std::size_t pageSize()
{
    static const std::size_t page = [] {
        const long p = sysconf(_SC_PAGESIZE);
        return p > 0 ? static_cast<std::size_t>(p) : std::size_t(4096);
    }();
    return page;
}

std::size_t roundUpToPage(std::size_t n) { return (n + pageSize() - 1) / pageSize() * pageSize(); }
std::size_t roundDownToPage(std::size_t n) { return n / pageSize() * pageSize(); }

// ---- SIGBUS on a file that shrinks while it is mapped -------------------------------------------
// The file part of every live File mapping has a slot here. A fault inside one is the file having
// been truncated by someone else: the handler maps pages of '"' over the rest of that file part (the
// faulting access then completes) and records where the file ended. The reader checks
// ParseBuffer::truncatedAt() after its parse and reports the file instead. Lock-free atomics only,
// so the handler may run on any thread at any time.
//
// Why quotes and not zeros: simdjson indexes the structure of a window (stage 1) before it reads the
// values (stage 2). A page that was read in stage 1 and is cut before stage 2 changes under the
// parser; where stage 1 saw a string, zeros would send the string scanner on to the end of the
// mapping and past it. A '"' ends any string, number or literal at its first byte, so whatever stage
// 1 recorded, stage 2 stops at once and reports a malformed document. The quote pages come from one
// small memfd mapped again and again, so a cut multi-gigabyte file costs no memory.
struct FaultSlot {
    std::atomic<bool> used{false};
    std::atomic<std::uintptr_t> begin{0};
    std::atomic<std::uintptr_t> end{0}; // page-rounded end of the file part
    std::atomic<std::size_t> faultAt{SIZE_MAX};
};
constexpr std::size_t kFaultSlots = 256;
std::array<FaultSlot, kFaultSlots> g_faultSlots;
struct sigaction g_previousSigbus;
std::once_flag g_sigbusOnce;
bool g_sigbusInstalled = false;
constexpr std::size_t kQuoteFillBytes = std::size_t(64) << 10; // made at the first mapping: small, so that costs little
int g_quoteFillFd = -1; // a memfd of kQuoteFillBytes of '"', or -1 (then anonymous pages are filled)

// Maps pages of '"' over [begin, end) (page-aligned); false when it cannot.
bool mapQuotes(std::uintptr_t begin, std::uintptr_t end)
{
    for (std::uintptr_t at = begin; at < end;) {
        const std::size_t n = std::min<std::size_t>(end - at, kQuoteFillBytes);
        void *target = reinterpret_cast<void *>(at);
        void *mapped = g_quoteFillFd >= 0 ? mmap(target, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, g_quoteFillFd, 0)
                                          : mmap(target, n, PROT_READ | PROT_WRITE,
                                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        if (mapped == MAP_FAILED)
            return false;
        if (g_quoteFillFd < 0)
            std::memset(mapped, '"', n);
        at += n;
    }
    return true;
}

int createQuoteFill()
{
#if defined(MFD_CLOEXEC)
    const int fd = memfd_create("linkscope-shrunk-file", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    const std::string quotes(kQuoteFillBytes, '"');
    std::size_t written = 0;
    while (written < quotes.size()) {
        const ssize_t n = write(fd, quotes.data() + written, quotes.size() - written);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        written += static_cast<std::size_t>(n);
    }
    return fd;
#else
    return -1;
#endif
}
static_assert(std::atomic<std::uintptr_t>::is_always_lock_free && std::atomic<std::size_t>::is_always_lock_free);

void onSigbus(int sig, siginfo_t *info, void *context)
{
    const int savedErrno = errno;
    const auto addr = reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr);
    for (FaultSlot &slot : g_faultSlots) {
        const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
        const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
        if (begin == 0 || addr < begin || addr >= end)
            continue;
        const std::uintptr_t page = addr & ~(std::uintptr_t(pageSize()) - 1);
        if (!mapQuotes(page, end))
            break; // cannot repair: let the previous disposition have it
        const std::size_t at = page - begin;
        std::size_t seen = slot.faultAt.load(std::memory_order_relaxed);
        while (at < seen && !slot.faultAt.compare_exchange_weak(seen, at, std::memory_order_release)) { }
        errno = savedErrno;
        return; // the access is retried and now reads '"'
    }
    errno = savedErrno;
    if (g_previousSigbus.sa_flags & SA_SIGINFO) {
        if (g_previousSigbus.sa_sigaction) {
            g_previousSigbus.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previousSigbus.sa_handler == SIG_IGN) {
        // Ignoring a synchronous SIGBUS would loop forever on the faulting access: die instead.
    } else if (g_previousSigbus.sa_handler != SIG_DFL) {
        g_previousSigbus.sa_handler(sig);
        return;
    }
    // Default action: reinstate it; returning retries the access, which faults and terminates.
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, nullptr);
}

void installSigbusHandler()
{
    std::call_once(g_sigbusOnce, [] {
        g_quoteFillFd = createQuoteFill();
        struct sigaction sa = {};
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        g_sigbusInstalled = sigaction(SIGBUS, &sa, &g_previousSigbus) == 0;
    });
}

// A slot for [begin, end), or -1 when all are taken (the caller then reads instead of mapping).
int claimFaultSlot(std::uintptr_t begin, std::uintptr_t end)
{
    installSigbusHandler();
    if (!g_sigbusInstalled)
        return -1;
    for (std::size_t i = 0; i < kFaultSlots; ++i) {
        bool expected = false;
        if (g_faultSlots[i].used.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
            FaultSlot &slot = g_faultSlots[i];
            slot.faultAt.store(SIZE_MAX, std::memory_order_relaxed);
            slot.end.store(end, std::memory_order_release);
            slot.begin.store(begin, std::memory_order_release);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void releaseFaultSlot(int index)
{
    FaultSlot &slot = g_faultSlots[static_cast<std::size_t>(index)];
    slot.begin.store(0, std::memory_order_release);
    slot.end.store(0, std::memory_order_release);
    slot.used.store(false, std::memory_order_release);
}
#endif

} // namespace

ParseBuffer::~ParseBuffer() { unmap(); }

ParseBuffer::ParseBuffer(ParseBuffer &&other) noexcept
    : storage_(other.storage_), heap_(std::move(other.heap_)), map_(std::exchange(other.map_, nullptr)),
      mapBytes_(std::exchange(other.mapBytes_, 0)), size_(std::exchange(other.size_, 0)),
      released_(std::exchange(other.released_, 0)), faultSlot_(std::exchange(other.faultSlot_, -1))
{
    other.storage_ = Storage::Heap;
}

ParseBuffer &ParseBuffer::operator=(ParseBuffer &&other) noexcept
{
    if (this != &other) {
        unmap();
        storage_ = std::exchange(other.storage_, Storage::Heap);
        heap_ = std::move(other.heap_);
        map_ = std::exchange(other.map_, nullptr);
        mapBytes_ = std::exchange(other.mapBytes_, 0);
        size_ = std::exchange(other.size_, 0);
        released_ = std::exchange(other.released_, 0);
        faultSlot_ = std::exchange(other.faultSlot_, -1);
    }
    return *this;
}

void ParseBuffer::unmap()
{
#if defined(LINKSCOPE_HAVE_MMAP)
    if (faultSlot_ >= 0)
        releaseFaultSlot(faultSlot_);
    if (map_)
        munmap(map_, mapBytes_);
#endif
    faultSlot_ = -1;
    map_ = nullptr;
    mapBytes_ = 0;
}

ParseBuffer ParseBuffer::fromString(std::string text)
{
    ParseBuffer b;
    b.size_ = text.size();
    b.heap_ = std::move(text);
    if (b.heap_.capacity() < b.size_ + kJsonPadding)
        b.heap_.reserve(b.size_ + kJsonPadding);
    return b;
}

ParseBuffer ParseBuffer::mapFile(int fd, std::uint64_t size)
{
    ParseBuffer b;
#if defined(LINKSCOPE_HAVE_MMAP)
    if (size == 0 || size > std::uint64_t(SIZE_MAX) - 2 * pageSize())
        return b;
    // One anonymous reservation covers the file and the padding after it; the file is mapped over its
    // start. Bytes past the end of the file within its last page read as zero, and so do the
    // anonymous pages after it: simdjson's padding is there without copying the text.
    const std::size_t total = roundUpToPage(static_cast<std::size_t>(size) + kJsonPadding);
    void *region = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED)
        return b;
    const auto regionAddr = reinterpret_cast<std::uintptr_t>(region);
    const int slot = claimFaultSlot(regionAddr, regionAddr + roundUpToPage(static_cast<std::size_t>(size)));
    if (slot < 0) {
        munmap(region, total);
        return b;
    }
    void *file = mmap(region, static_cast<std::size_t>(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (file == MAP_FAILED) {
        releaseFaultSlot(slot);
        munmap(region, total);
        return b;
    }
    b.faultSlot_ = slot;
    madvise(file, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
    b.storage_ = Storage::File;
    b.map_ = static_cast<char *>(region);
    b.mapBytes_ = total;
    b.size_ = static_cast<std::size_t>(size);
#else
    (void)fd;
    (void)size;
#endif
    return b;
}

ParseBuffer ParseBuffer::growable(std::size_t expectedBytes)
{
    ParseBuffer b;
#if defined(LINKSCOPE_HAVE_MMAP)
    const std::size_t total = roundUpToPage(std::max<std::size_t>(expectedBytes, 1) + kJsonPadding);
    void *region = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region != MAP_FAILED) {
        b.storage_ = Storage::Anonymous;
        b.map_ = static_cast<char *>(region);
        b.mapBytes_ = total;
        return b;
    }
#endif
    b.heap_.reserve(expectedBytes + kJsonPadding);
    return b;
}

std::optional<std::size_t> ParseBuffer::truncatedAt() const
{
#if defined(LINKSCOPE_HAVE_MMAP)
    if (faultSlot_ >= 0) {
        const std::size_t at = g_faultSlots[static_cast<std::size_t>(faultSlot_)].faultAt.load(std::memory_order_acquire);
        if (at != SIZE_MAX)
            return std::min(at, size_);
    }
#endif
    return std::nullopt;
}

std::size_t ParseBuffer::paddedSize() const { return storage_ == Storage::Heap ? heap_.capacity() : mapBytes_; }

void ParseBuffer::resize(std::size_t newSize)
{
    switch (storage_) {
    case Storage::Heap:
        if (newSize + kJsonPadding > heap_.capacity())
            heap_.reserve(std::max(newSize, heap_.capacity() + heap_.capacity() / 2) + kJsonPadding);
        heap_.resize(newSize);
        break;
    case Storage::Anonymous:
#if defined(LINKSCOPE_HAVE_MMAP)
        if (newSize + kJsonPadding > mapBytes_) {
            const std::size_t want = roundUpToPage(std::max(newSize, mapBytes_ + mapBytes_ / 2) + kJsonPadding);
            void *moved = mremap(map_, mapBytes_, want, MREMAP_MAYMOVE);
            if (moved == MAP_FAILED)
                throw std::bad_alloc();
            map_ = static_cast<char *>(moved);
            mapBytes_ = want;
        }
#endif
        break;
    case Storage::File:
        if (newSize > size_)
            throw std::logic_error("ParseBuffer: a mapped file cannot grow");
        break;
    }
    size_ = newSize;
}

void ParseBuffer::willRead(std::size_t from, std::size_t to)
{
#if defined(LINKSCOPE_HAVE_MMAP) && defined(MADV_POPULATE_READ)
    if (storage_ != Storage::File)
        return;
    from = std::max(roundDownToPage(from), released_);
    to = std::min(roundUpToPage(to), roundUpToPage(size_));
    if (to > from)
        madvise(map_ + from, to - from, MADV_POPULATE_READ); // best effort (Linux 5.14+)
#else
    (void)from;
    (void)to;
#endif
}

void ParseBuffer::releaseBefore(std::size_t offset)
{
#if defined(LINKSCOPE_HAVE_MMAP)
    if (storage_ == Storage::Heap)
        return;
    const std::size_t end = roundDownToPage(std::min(offset, size_));
    if (end <= released_)
        return;
    // Reading the next page of a file mapping also maps its neighbours ("fault-around", 64 KiB by
    // default, more with large page-cache folios), including released ones just behind it: release a
    // margin behind the mark again, or about one block per window would stay resident.
    constexpr std::size_t kFaultAroundMargin = 4u << 20;
    const std::size_t from = released_ > kFaultAroundMargin ? released_ - kFaultAroundMargin : 0;
    madvise(map_ + from, end - from, MADV_DONTNEED);
    released_ = end;
#else
    (void)offset;
#endif
}

void ParseBuffer::releaseRange(std::size_t from, std::size_t to)
{
#if defined(LINKSCOPE_HAVE_MMAP)
    if (storage_ == Storage::Heap)
        return;
    const std::size_t begin = roundUpToPage(std::max(from, released_));
    const std::size_t end = roundDownToPage(std::min(to, size_));
    if (end > begin)
        madvise(map_ + begin, end - begin, MADV_DONTNEED);
#else
    (void)from;
    (void)to;
#endif
}

std::string ParseBuffer::takeString() &&
{
    if (released_ > 0)
        throw std::logic_error("ParseBuffer: text was released");
    std::string out;
    if (storage_ == Storage::Heap) {
        out = std::move(heap_);
    } else {
        out.reserve(size_ + kJsonPadding);
        out.assign(map_, size_);
    }
    if (out.capacity() < out.size() + kJsonPadding)
        out.reserve(out.size() + kJsonPadding);
    *this = ParseBuffer();
    return out;
}

} // namespace linkscope::core::io
