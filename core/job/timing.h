#pragma once
// Timing across ranks. Rank clocks differ (each host's clock, and Kineto's base time, are its own),
// so times are first aligned by the collectives themselves: the kernels of one collective end
// together on every member, so the median difference of their end times is the clock offset
// between two ranks. Offsets are relative to the lowest aligned rank and chained through the
// groups (a rank sharing no group with it is aligned through one that does). Then, per collective
// whose members all have times, the arrival skew (the spread of the launches on the aligned
// clocks) and which rank arrived last; per rank, how often it was last — the straggler view.

#include "jobmodel/crossrank.h"

#include <cstdint>
#include <map>
#include <vector>

namespace linkscope::core::job {

struct CollectiveTiming {
    std::string processGroup;
    std::int64_t index = -1; // position in the group's reference sequence
    CallKind kind = CallKind::Unknown;
    std::int64_t skewNs = 0;    // latest − earliest aligned launch
    std::int64_t lastRank = -1; // the rank that launched last
    std::size_t ranks = 0;      // members with times
};

struct StragglerCount {
    std::int64_t rank = -1;
    std::size_t lastArrivals = 0; // collectives at which this rank launched last
    std::size_t of = 0;           // collectives it took part in (with times, ≥ 2 members)
    // The last arrivals chance alone would give it: the sum over those collectives of 1 / members
    // (a rank of a 2-rank group is last at half of them, of an 8-rank group at an eighth).
    double expected = 0;
    // Last at least 3 times and more than twice what chance gives: the rank the job waits for.
    bool straggler = false;
};

struct JobTiming {
    std::int64_t referenceRank = -1;
    std::map<std::int64_t, std::int64_t> clockOffsetNs; // rank → its clock minus the reference rank's
    std::vector<std::int64_t> unaligned;                // ranks with no collective to align by
    std::vector<CollectiveTiming> collectives;          // group id, index order
    std::vector<StragglerCount> stragglers;             // most last arrivals first, then rank

    // `rank`'s clock minus the reference rank's; 0 for a rank with no collective to align by (its
    // own clock is taken as it is).
    std::int64_t offsetOf(std::int64_t rank) const
    {
        const auto it = clockOffsetNs.find(rank);
        return it == clockOffsetNs.end() ? 0 : it->second;
    }
};

JobTiming analyseTiming(const CheckInput &input, const CheckResult &check);

} // namespace linkscope::core::job
