#pragma once
// Sorting lists that are already made of sorted stretches: event lanes read from a file (long
// ascending runs), and per-thread lists merged into one all-thread order.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace linkscope::core {

// Sorts `list` made of consecutive sorted segments ending at `ends` (the last one at list.size()),
// by merging neighbours pairwise: O(n log segments).
template <typename T>
void mergeSortedSegments(std::vector<T> &list, std::vector<std::size_t> ends)
{
    while (ends.size() > 1) {
        std::vector<std::size_t> merged;
        std::size_t begin = 0;
        for (std::size_t i = 0; i < ends.size(); i += 2) {
            if (i + 1 < ends.size()) {
                std::inplace_merge(list.begin() + static_cast<std::ptrdiff_t>(begin),
                                   list.begin() + static_cast<std::ptrdiff_t>(ends[i]),
                                   list.begin() + static_cast<std::ptrdiff_t>(ends[i + 1]));
                merged.push_back(ends[i + 1]);
            } else {
                merged.push_back(ends[i]);
            }
            begin = merged.back();
        }
        ends = std::move(merged);
    }
}

// Lanes come out of a file in long ascending runs (broken a few times per profiler step): merging the
// runs pairwise costs O(n log runs) instead of a full sort's O(n log n); many short runs fall back to
// std::sort. Keys must be unique (they carry the event), so both give the same order.
template <typename T>
void sortNearlySorted(std::vector<T> &keys)
{
    std::vector<std::size_t> runEnds;
    for (std::size_t i = 1; i < keys.size(); ++i)
        if (keys[i] < keys[i - 1]) {
            runEnds.push_back(i);
            if (runEnds.size() > keys.size() / 64 + 1) {
                std::sort(keys.begin(), keys.end());
                return;
            }
        }
    if (runEnds.empty())
        return;
    runEnds.push_back(keys.size());
    mergeSortedSegments(keys, std::move(runEnds));
}

} // namespace linkscope::core
