#pragma once
// Bounds on the numbers a job's files give (a world size, a rank in a file name, in a trace header or
// in a summary), and sets of ranks as ranges: nothing in a job allocates or loops per rank up to a
// number read from a file. A world size above kMaxWorldSize is an `implausible_world_size` finding,
// not a size; a rank at or above it is refused (a file name: skipped with a warning naming the file;
// a summary: a malformed summary).

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace linkscope::core::job {

// The most ranks a job may have (today's largest training jobs run some 100,000 GPUs).
inline constexpr std::int64_t kMaxWorldSize = 1'000'000;
// The largest rank number accepted anywhere.
inline constexpr std::int64_t kMaxRank = kMaxWorldSize - 1;
// A finding lists its ranks one by one up to this many; beyond, only as ranges (JobFinding::rankRanges).
inline constexpr std::size_t kListedRanks = 4096;

inline bool plausibleWorldSize(std::int64_t worldSize) { return worldSize <= kMaxWorldSize; }
inline bool plausibleRank(std::int64_t rank) { return rank >= 0 && rank <= kMaxRank; }

struct RankRange {
    std::int64_t first = 0;
    std::int64_t last = 0; // inclusive
    std::int64_t count() const { return last - first + 1; }
    bool operator==(const RankRange &) const = default;
};

// The ranks of [0, upTo) that are not in `present`, as ranges:
// O(ranks present + ranges) time and memory, whatever `upTo` is.
std::vector<RankRange> missingRankRanges(const std::set<std::int64_t> &present, std::int64_t upTo);
// Consecutive ranks (ascending, distinct) folded into ranges.
std::vector<RankRange> rankRanges(const std::vector<std::int64_t> &ranks);
// How many ranks the ranges hold.
std::int64_t rankCount(const std::vector<RankRange> &ranges);
// The ranks themselves (only for small sets: the caller bounds rankCount first).
std::vector<std::int64_t> expandRanks(const std::vector<RankRange> &ranges);
// "2, 5-7, 10-999999"; at most `maxRanges` ranges, then "… (N more ranges)".
std::string rankRangeText(const std::vector<RankRange> &ranges, std::size_t maxRanges = 64);

} // namespace linkscope::core::job
