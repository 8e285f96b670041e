#pragma once
// What the linker's passes share (core/link only): the trace's events by EventIndex, the test for a
// correlation id, and the sorts that spare re-sorting lists that come out of the trace in order.

#include "model/devicetrace.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace linkscope::core {

inline bool hasCorrelation(std::int64_t correlation)
{
    // roctracer writes 0 for "none"; Kineto's absent arg is -1.
    return correlation > 0;
}

// A position in one of ThreadOps' lists or in LaunchIndex's correlation table (not an index space of
// the trace): "none" for the nesting parent of a top-level op and for an absent correlation.
inline constexpr std::uint32_t kNoPosition = std::numeric_limits<std::uint32_t>::max();

// std::sort by the values' own operator<: elements that compare equal are identical, so the result is the
// same however it is reached. Most of these lists come out of the trace already in order, and a linear check
// spares re-sorting them (libstdc++'s introsort still does n log n work on sorted input).
template <typename T>
void sortValues(std::vector<T> &list)
{
    if (!std::is_sorted(list.begin(), list.end()))
        std::sort(list.begin(), list.end());
}

// Sorts each run of consecutive elements that `sameRun` joins with `less`; the list is otherwise in order.
template <typename SameRun, typename Less>
void sortRuns(std::vector<EventIndex> &list, SameRun sameRun, Less less)
{
    for (std::size_t i = 0; i < list.size();) {
        std::size_t j = i + 1;
        while (j < list.size() && sameRun(list[i], list[j]))
            ++j;
        if (j - i > 1)
            std::sort(list.begin() + static_cast<std::ptrdiff_t>(i), list.begin() + static_cast<std::ptrdiff_t>(j), less);
        i = j;
    }
}

// The trace's events, by EventIndex (and by raw position, for the loops over all of them).
class EventView {
public:
    explicit EventView(const std::vector<DeviceEvent> &events) : events_(events) { }
    const DeviceEvent &operator[](EventIndex event) const { return events_[event.get()]; }
    const DeviceEvent &operator[](std::size_t position) const { return events_[position]; }
    std::size_t size() const { return events_.size(); }
    auto begin() const { return events_.begin(); }
    auto end() const { return events_.end(); }

private:
    const std::vector<DeviceEvent> &events_;
};

} // namespace linkscope::core
