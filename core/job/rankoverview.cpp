#include "job/rankoverview.h"

#include <algorithm>
#include <limits>
#include <map>

namespace linkscope::core::job {

RankOverview overviewOf(const DeviceTrace &device, std::size_t maxIntervals)
{
    RankOverview o;
    const std::int64_t base = device.baseTimeNs.value_or(0);
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> perStream;
    for (const DeviceEvent &e : device.events) {
        if (e.phase != Phase::Complete && e.phase != Phase::Instant)
            continue;
        const std::int64_t start = base + e.ts, end = base + e.end();
        lo = std::min(lo, start);
        hi = std::max(hi, end);
        if (isGpuOpCategory(e.category))
            perStream[{e.device, e.stream}].emplace_back(start, end);
    }
    if (lo > hi)
        return o;
    o.startNs = lo;
    o.endNs = hi;
    // Gaps shorter than this are closed: at most maxIntervals gaps of this length fit in the span.
    const std::int64_t resolution = maxIntervals ? std::max<std::int64_t>(1, (hi - lo) / static_cast<std::int64_t>(maxIntervals))
                                                 : 1;
    for (auto &[key, spans] : perStream) {
        StreamActivity s;
        s.device = key.first;
        s.stream = key.second;
        s.ops = spans.size();
        std::sort(spans.begin(), spans.end());
        std::int64_t curStart = spans.front().first, curEnd = spans.front().second;
        std::int64_t exactStart = curStart, exactEnd = curEnd;
        for (std::size_t i = 1; i < spans.size(); ++i) {
            const auto [a, b] = spans[i];
            // The exact union, for busyNs.
            if (a > exactEnd) {
                s.busyNs += exactEnd - exactStart;
                exactStart = a;
                exactEnd = b;
            } else {
                exactEnd = std::max(exactEnd, b);
            }
            // The drawn union, gaps below the resolution closed.
            if (a - curEnd >= resolution) {
                s.busy.emplace_back(curStart, curEnd);
                curStart = a;
                curEnd = b;
            } else {
                curEnd = std::max(curEnd, b);
            }
        }
        s.busyNs += exactEnd - exactStart;
        s.busy.emplace_back(curStart, curEnd);
        o.streams.push_back(std::move(s));
    }
    return o;
}

} // namespace linkscope::core::job
