#include "export/chakra/etbounds.h"

namespace linkscope::core {

std::string etNodeTimeProblem(std::uint64_t durationMicros, std::int64_t laneNs)
{
    if (durationMicros > kMaxEtDurationMicros)
        return "duration_micros " + std::to_string(durationMicros) + " is past the bound of "
               + std::to_string(kMaxEtDurationMicros) + " µs (about 23 days): its time in ns would not be replayed as written";
    if (laneNs > kMaxEtLaneNs)
        return "lane_dur_ns " + std::to_string(laneNs) + " is past the bound of " + std::to_string(kMaxEtLaneNs)
               + " ns (about 23 days): it would not be replayed as written";
    return {};
}

std::string etTotalProblem()
{
    return "the node times summed pass the bound of 2^62 ns (about 146 years): the replay's clocks "
           "would saturate";
}

} // namespace linkscope::core
