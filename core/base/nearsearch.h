#pragma once
// Binary searches that start where the previous one ended. The linker looks up each GPU op's launch
// time in per-thread arrays of millions of start times; GPU ops come in time order per stream, so
// consecutive queries land close together. Galloping out from the last answer touches a few nearby
// cache lines instead of the ~20 scattered ones of a search over the whole array. Results are
// exactly those of std::lower_bound / std::upper_bound. The timeline uses the same search to jump
// to the first event of the next pixel column (ui/timelinegeometry.cpp).

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace linkscope::core {

// The first position whose element is not less than `key`; `finger` holds the previous answer and
// receives this one.
template <typename T, typename Key, typename Less = std::less<>>
std::size_t lowerBoundNear(std::span<const T> v, const Key &key, std::size_t &finger, Less less = {})
{
    const std::size_t n = v.size();
    const std::size_t h = finger < n ? finger : n;
    std::size_t lo, hi; // the answer is in [lo, hi]
    if (h < n && less(v[h], key)) {
        // Everything up to h is less: gallop right. Invariant: v[i] < key for all i < lo.
        lo = h + 1;
        std::size_t step = 1;
        while (lo + step - 1 < n && less(v[lo + step - 1], key)) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < n ? lo + step - 1 : n;
    } else {
        // v[h] is not less (or h == n): gallop left. Invariant: !(v[i] < key) for all i >= hi, i < n.
        hi = h;
        std::size_t step = 1;
        while (hi >= step && !less(v[hi - step], key)) {
            hi -= step;
            step *= 2;
        }
        lo = hi >= step ? hi - step + 1 : 0;
    }
    std::size_t count = hi - lo; // plain binary search in [lo, hi)
    std::size_t first = lo;
    while (count > 0) {
        const std::size_t half = count / 2;
        if (less(v[first + half], key)) {
            first += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    finger = first;
    return first;
}

template <typename T, typename Key, typename Less = std::less<>>
std::size_t lowerBoundNear(const std::vector<T> &v, const Key &key, std::size_t &finger, Less less = {})
{
    return lowerBoundNear(std::span<const T>(v), key, finger, less);
}

// The first position whose element is greater than `key` (std::upper_bound), from `finger` likewise.
template <typename T, typename Key, typename Less = std::less<>>
std::size_t upperBoundNear(const std::vector<T> &v, const Key &key, std::size_t &finger, Less less = {})
{
    return lowerBoundNear(std::span<const T>(v), key, finger, [&](const T &element, const Key &k) { return !less(k, element); });
}

} // namespace linkscope::core
