#include "analysis/rangestats.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <unordered_map>

namespace linkscope::core {

namespace {

// Below this many candidates before the range, they are scanned (exact even across partial
// overlaps); above it, only the nesting ancestors of the last one are (the events still open at the
// range's start are that event and its ancestors, except for partial overlaps, which the index
// treats as siblings).
constexpr std::size_t kScanBefore = 256;

struct LaneSweep {
    Nanos start, end;
    Nanos covered = 0;  // union length so far
    Nanos runStart = 0; // the current run of overlapping intervals
    Nanos runEnd = 0;
    bool open = false;
    void add(Nanos s, Nanos e) // clipped, s <= e, s non-decreasing
    {
        if (open && s <= runEnd) {
            runEnd = std::max(runEnd, e);
            return;
        }
        if (open)
            covered += runEnd - runStart;
        runStart = s;
        runEnd = e;
        open = true;
    }
    Nanos total() const { return covered + (open ? runEnd - runStart : 0); }
};

int categorySlot(EventCategory c) { return c == EventCategory::Kernel ? 0 : c == EventCategory::GpuMemcpy ? 1 : 2; }

} // namespace

RangeStats computeRangeStats(const DeviceTrace &trace, const TraceIndex &index, Nanos start, Nanos end)
{
    RangeStats stats;
    stats.start = std::min(start, end);
    stats.end = std::max(start, end);
    start = stats.start;
    end = stats.end;

    // Op statistics by (name, category): a flat slot per name id, the category checked on use.
    constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max(); // a position in stats.ops
    std::vector<std::uint32_t> slotOfName;
    std::unordered_map<std::uint64_t, std::uint32_t> otherSlots; // same name, another category
    auto opOf = [&](const DeviceEvent &event) -> RangeOpStat & {
        if (slotOfName.empty())
            slotOfName.assign(trace.strings.size(), kNoSlot);
        std::uint32_t *slot = event.name < slotOfName.size() ? &slotOfName[event.name] : nullptr;
        if (slot && *slot != kNoSlot && stats.ops[*slot].category == event.category)
            return stats.ops[*slot];
        if (slot && *slot == kNoSlot) {
            *slot = static_cast<std::uint32_t>(stats.ops.size());
        } else {
            const std::uint64_t key = (std::uint64_t(event.name) << 2) | std::uint64_t(categorySlot(event.category));
            const auto [it, inserted] = otherSlots.try_emplace(key, static_cast<std::uint32_t>(stats.ops.size()));
            if (!inserted)
                return stats.ops[it->second];
        }
        RangeOpStat &op = stats.ops.emplace_back();
        op.name = event.name;
        op.category = event.category;
        return op;
    };

    std::vector<EventIndex> before; // events starting before the range that overlap it
    for (LaneIndex l{0}; l.in(index.lanes.size()); ++l) {
        const Lane &lane = index.lane(l);
        const bool stream = lane.kind == LaneKind::GpuStream;
        if (!stream && lane.kind != LaneKind::CpuThread)
            continue;
        RangeLaneStat out;
        out.lane = l;
        LaneSweep sweep{start, end};
        if (end > start && !lane.events.empty()) {
            const auto [first, hi] = index.visibleRange(lane, start, end);
            const auto lo = static_cast<std::size_t>(
                std::lower_bound(lane.startTs.begin() + first, lane.startTs.begin() + hi, start) - lane.startTs.begin());
            before.clear();
            if (lo - first <= kScanBefore) {
                for (std::size_t p = first; p < lo; ++p)
                    if (trace.event(lane.events[p]).end() > start)
                        before.push_back(lane.events[p]);
            } else {
                for (EventIndex e = lane.events[lo - 1]; e.valid(); e = index.nestParent[e.get()])
                    if (trace.event(e).end() > start)
                        before.push_back(e);
            }
            auto visit = [&](EventIndex e) {
                const DeviceEvent &event = trace.event(e);
                if (stream && !isGpuOpCategory(event.category))
                    return; // GPU annotations on a stream are not busy time
                const Nanos s = std::max(event.ts, start);
                const Nanos t = std::min(event.end(), end);
                ++out.events;
                sweep.add(s, std::max(s, t));
                if (stream) {
                    RangeOpStat &op = opOf(event);
                    ++op.count;
                    op.total += std::max<Nanos>(0, t - s);
                    op.max = std::max(op.max, t - s);
                }
            };
            for (EventIndex e : before) // all clipped to start: any order keeps the sweep sorted
                visit(e);
            for (std::size_t p = lo; p < hi; ++p)
                visit(lane.events[p]);
        }
        out.time = sweep.total();
        (stream ? stats.streams : stats.threads).push_back(out);
    }
    std::sort(stats.ops.begin(), stats.ops.end(), [&](const RangeOpStat &a, const RangeOpStat &b) {
        if (a.total != b.total)
            return a.total > b.total;
        if (a.count != b.count)
            return a.count > b.count;
        return trace.strings.at(a.name) < trace.strings.at(b.name);
    });
    return stats;
}

namespace {

std::string field(std::string_view text, TableFormat format)
{
    std::string out;
    if (format == TableFormat::Tsv) {
        out.reserve(text.size());
        for (char c : text)
            out += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
        return out;
    }
    if (text.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(text);
    out.reserve(text.size() + 2);
    out += '"';
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string line(std::initializer_list<std::string> fields, TableFormat format)
{
    std::string out;
    bool firstField = true;
    for (const std::string &f : fields) {
        if (!firstField)
            out += format == TableFormat::Csv ? ',' : '\t';
        out += f;
        firstField = false;
    }
    out += '\n';
    return out;
}

std::string number(std::int64_t n) { return std::to_string(n); }

std::string percent(double p)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", p);
    return text;
}

} // namespace

std::string rangeStatsHeader(TableFormat format)
{
    return line({"section", "name", "category", "count", "total_ns", "mean_ns", "max_ns", "percent_of_range"}, format);
}

std::string rangeStatsOpLine(const RangeStats &stats, const RangeOpStat &op, const DeviceTrace &trace, TableFormat format)
{
    return line({"gpu_op", field(trace.strings.at(op.name), format), std::string(categoryName(op.category)),
                 number(static_cast<std::int64_t>(op.count)), number(op.total), number(op.mean()), number(op.max),
                 percent(stats.percentOf(op.total))},
                format);
}

std::string rangeStatsLaneLine(const RangeStats &stats, const RangeLaneStat &lane, bool stream, const DeviceTrace &trace,
                               const TraceIndex &index, TableFormat format)
{
    const Lane &l = index.lanes.at(lane.lane.get());
    const std::string owner = stream ? "GPU " + std::to_string(l.device >= 0 ? l.device : l.key.pid.value)
                                     : "pid " + trace.idText(l.key.pid);
    return line({stream ? "stream" : "thread", field(l.label, format), field(owner, format),
                 number(static_cast<std::int64_t>(lane.events)), number(lane.time), std::string(), std::string(),
                 percent(stats.percentOf(lane.time))},
                format);
}

std::string rangeStatsTable(const RangeStats &stats, const DeviceTrace &trace, const TraceIndex &index, TableFormat format)
{
    std::string out = rangeStatsHeader(format);
    for (const RangeOpStat &op : stats.ops)
        out += rangeStatsOpLine(stats, op, trace, format);
    for (const RangeLaneStat &lane : stats.streams)
        out += rangeStatsLaneLine(stats, lane, true, trace, index, format);
    for (const RangeLaneStat &lane : stats.threads)
        out += rangeStatsLaneLine(stats, lane, false, trace, index, format);
    return out;
}

} // namespace linkscope::core
