#pragma once
// A stable LSD radix sort on a 64-bit integer key: 11-bit digits over (key - smallest key), only as
// many passes as the keys' range needs. Sorting millions of (time, id) or (id, index) pairs this way
// takes a few linear passes where a comparison sort takes seconds on a busy machine; stability keeps
// equal keys in their input order. Used for the timeline's edges by time (ui/tracedocument.cpp) and
// the host ET's nodes by id (core/io/hostet/hostreader.cpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace linkscope::core {

// Sorts `items` by key(item) (a signed or unsigned integer of at most 64 bits), stably.
template <typename T, typename KeyFn>
void radixSortStable(std::vector<T> &items, KeyFn key)
{
    if (items.size() < 2)
        return;
    auto raw = [&](const T &item) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(key(item))); };
    // Offsets from the smallest key (in the key's own signedness), so that the passes cover the range only.
    auto lo = key(items.front()), hi = lo;
    for (const T &item : items) {
        const auto k = key(item);
        lo = std::min(lo, k);
        hi = std::max(hi, k);
    }
    const std::uint64_t base = static_cast<std::uint64_t>(static_cast<std::int64_t>(lo));
    const std::uint64_t range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi)) - base;
    constexpr int kBits = 11;
    constexpr std::size_t kBuckets = std::size_t(1) << kBits;
    std::vector<T> buffer(items.size());
    std::vector<std::size_t> counts(kBuckets + 1);
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kBits) {
        std::fill(counts.begin(), counts.end(), 0);
        auto digit = [&](const T &item) { return ((raw(item) - base) >> shift) & (kBuckets - 1); };
        for (const T &item : items)
            ++counts[digit(item) + 1];
        for (std::size_t b = 1; b <= kBuckets; ++b)
            counts[b] += counts[b - 1];
        for (const T &item : items)
            buffer[counts[digit(item)]++] = item;
        items.swap(buffer);
    }
}

} // namespace linkscope::core
