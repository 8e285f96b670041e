#pragma once
// The times a .et node may hold for Linkscope's replay (predict/replay.h) and ASTRA-sim to run it
// as written: each node's time in ns fits an int64, and so does a job's sum of them, so no clock of
// the replay (a rank's step, its busy times) and no tick of the simulator wraps. `linkscope check`
// refuses a file past them (rules duration_range, duration_total); the replay's reader refuses to
// load it (predict/simgraph.h), naming the file, the node and the bound.

#include <cstdint>
#include <string>

namespace linkscope::core {

// A node's duration_micros: 2e12 µs (about 23 days). What `linkscope whatif` writes at its bounds
// (a scaled time saturated at 1e12 µs, plus the largest delay) stays within it.
inline constexpr std::uint64_t kMaxEtDurationMicros = 2'000'000'000'000;
// A node's lane_dur_ns attribute: the same time in ns.
inline constexpr std::int64_t kMaxEtLaneNs = static_cast<std::int64_t>(kMaxEtDurationMicros) * 1000;
// A job's node times summed (every rank's, each node at the larger of its two times): 2^62 ns
// (about 146 years).
inline constexpr std::int64_t kMaxEtTotalNs = std::int64_t(1) << 62;

// "" when a node's times are within the bounds, else what is wrong, with the bound
// ("duration_micros 9223372036854775807 is past the bound of 2000000000000 µs (about 23 days)").
// `laneNs` < 0: not written.
std::string etNodeTimeProblem(std::uint64_t durationMicros, std::int64_t laneNs);

// The node's time as the job's sum counts it: the larger of duration_micros and lane_dur_ns, in ns
// (a node within the bounds).
inline std::int64_t etNodeNs(std::uint64_t durationMicros, std::int64_t laneNs)
{
    const std::int64_t ns = static_cast<std::int64_t>(durationMicros) * 1000;
    return laneNs > ns ? laneNs : ns;
}

// A sum of node times that says when it first passes kMaxEtTotalNs (it stops growing there).
class EtTimeSum {
public:
    // Adds `ns` (≥ 0); true the one time the sum passes the bound.
    bool add(std::int64_t ns)
    {
        if (passed_)
            return false;
        if (ns > kMaxEtTotalNs - total_) {
            passed_ = true;
            total_ = kMaxEtTotalNs;
            return true;
        }
        total_ += ns;
        return false;
    }
    bool passed() const { return passed_; }
    std::int64_t total() const { return total_; }

private:
    std::int64_t total_ = 0; // ≤ kMaxEtTotalNs
    bool passed_ = false;
};

// "the node times summed pass the bound of 2^62 ns (about 146 years)" and what it breaks.
std::string etTotalProblem();

} // namespace linkscope::core
