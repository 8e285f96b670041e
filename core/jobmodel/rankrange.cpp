#include "jobmodel/rankrange.h"

namespace linkscope::core::job {

std::vector<RankRange> missingRankRanges(const std::set<std::int64_t> &present, std::int64_t upTo)
{
    std::vector<RankRange> out;
    std::int64_t next = 0; // the lowest rank not yet accounted for
    for (const std::int64_t r : present) {
        if (r >= upTo)
            break;
        if (r < next)
            continue;
        if (r > next)
            out.push_back({next, r - 1});
        next = r + 1;
    }
    if (next < upTo)
        out.push_back({next, upTo - 1});
    return out;
}

std::vector<RankRange> rankRanges(const std::vector<std::int64_t> &ranks)
{
    std::vector<RankRange> out;
    for (const std::int64_t r : ranks) {
        if (!out.empty() && out.back().last + 1 == r)
            out.back().last = r;
        else
            out.push_back({r, r});
    }
    return out;
}

std::int64_t rankCount(const std::vector<RankRange> &ranges)
{
    std::int64_t n = 0;
    for (const RankRange &r : ranges)
        n += r.count();
    return n;
}

std::vector<std::int64_t> expandRanks(const std::vector<RankRange> &ranges)
{
    std::vector<std::int64_t> out;
    for (const RankRange &r : ranges)
        for (std::int64_t k = r.first; k <= r.last; ++k)
            out.push_back(k);
    return out;
}

std::string rankRangeText(const std::vector<RankRange> &ranges, std::size_t maxRanges)
{
    std::string t;
    for (std::size_t i = 0; i < ranges.size() && i < maxRanges; ++i) {
        t += i ? ", " : "";
        t += std::to_string(ranges[i].first);
        if (ranges[i].last != ranges[i].first)
            t += (ranges[i].last == ranges[i].first + 1 ? ", " : "-") + std::to_string(ranges[i].last);
    }
    if (ranges.size() > maxRanges)
        t += " … (" + std::to_string(ranges.size() - maxRanges) + " more ranges)";
    return t;
}

} // namespace linkscope::core::job
