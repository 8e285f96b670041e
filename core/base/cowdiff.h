#pragma once
// What two copies of a chunked copy-on-write vector (CowVector, base/cowvector.h) may differ in:
// the chunks they do not share, told apart by the address of each chunk's first element (while
// both vectors are alive a shared chunk is the same memory), and the part past the shorter one's
// end. Elements outside the returned ranges are equal, so a structure derived from one copy learns
// what an edit changed by comparing values only there: O(chunks + the ranges' size), not O(size).
// (edit/linkchange.h builds what an edit changed on it.)

#include "base/cowvector.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace linkscope::core {

template <typename T, unsigned kBits>
std::vector<std::pair<std::size_t, std::size_t>> unsharedRanges(const CowVector<T, kBits> &now, const CowVector<T, kBits> &was)
{
    constexpr std::size_t chunk = std::size_t(1) << kBits;
    std::vector<std::pair<std::size_t, std::size_t>> out;
    auto add = [&](std::size_t begin, std::size_t end) {
        if (begin >= end)
            return;
        if (!out.empty() && out.back().second == begin)
            out.back().second = end;
        else
            out.emplace_back(begin, end);
    };
    const std::size_t common = std::min(now.size(), was.size());
    const std::size_t longer = std::max(now.size(), was.size());
    std::size_t at = 0;
    for (; at < common; at += chunk)
        if (&now[at] != &was[at])
            add(at, std::min(longer, at + chunk));
    add(std::min(at, longer), longer);
    return out;
}

} // namespace linkscope::core
