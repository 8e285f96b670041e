#include "analysis/tracestats.h"

#include "analysis/profilersteps.h"

#include "analysis/rangestats.h"
#include "link/rules.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <utility>

namespace linkscope::core {

namespace {

using Interval = std::pair<Nanos, Nanos>;

// Sorts and merges in place; returns the union's length.
Nanos mergeIntervals(std::vector<Interval> &v)
{
    std::sort(v.begin(), v.end());
    std::size_t out = 0;
    for (const Interval &i : v) {
        if (out && i.first <= v[out - 1].second)
            v[out - 1].second = std::max(v[out - 1].second, i.second);
        else
            v[out++] = i;
    }
    v.resize(out);
    Nanos total = 0;
    for (const Interval &i : v)
        total += i.second - i.first;
    return total;
}

// Length of the intersection of two merged (sorted, disjoint) lists.
Nanos intersection(const std::vector<Interval> &a, const std::vector<Interval> &b)
{
    Nanos total = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const Nanos lo = std::max(a[i].first, b[j].first);
        const Nanos hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
            total += hi - lo;
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return total;
}

void sortOps(std::vector<SummaryOpStat> &ops)
{
    std::sort(ops.begin(), ops.end(), [](const SummaryOpStat &a, const SummaryOpStat &b) {
        if (a.total != b.total)
            return a.total > b.total;
        if (a.count != b.count)
            return a.count > b.count;
        if (a.name != b.name)
            return a.name < b.name;
        return a.category < b.category;
    });
}

} // namespace

std::int64_t profilerStepNumber(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size())
        return -1;
    std::int64_t n = -1;
    const char *first = name.data() + prefix.size();
    const char *last = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(first, last, n);
    return ec == std::errc() && ptr == last && n >= 0 ? n : -1;
}

std::vector<SummaryStep> profilerSteps(const DeviceTrace &trace)
{
    std::vector<std::pair<std::int64_t, SummaryStep>> cpuSteps, traceSteps; // (number, step)
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const DeviceEvent &event = trace.events[i];
        if (event.phase != Phase::Complete)
            continue;
        const bool cpu = event.category == EventCategory::UserAnnotation || event.category == EventCategory::CpuOp;
        if (!cpu && event.category != EventCategory::Trace)
            continue;
        const std::int64_t n = profilerStepNumber(trace.strings.at(event.name));
        if (n >= 0)
            (cpu ? cpuSteps : traceSteps).push_back({n, SummaryStep{n, event.ts, event.dur}});
    }
    auto &found = cpuSteps.empty() ? traceSteps : cpuSteps;
    std::stable_sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<SummaryStep> steps;
    for (std::size_t i = 0; i < found.size(); ++i)
        if (i == 0 || found[i].first != found[i - 1].first)
            steps.push_back(found[i].second);
    std::sort(steps.begin(), steps.end(), [](const SummaryStep &a, const SummaryStep &b) {
        return a.start != b.start ? a.start < b.start : a.number < b.number;
    });
    return steps;
}

Nanos TraceStats::gpuBusy() const
{
    Nanos t = 0;
    for (const SummaryDevice &d : devices)
        t += d.busy;
    return t;
}

Nanos TraceStats::comm() const
{
    Nanos t = 0;
    for (const SummaryDevice &d : devices)
        t += d.comm;
    return t;
}

Nanos TraceStats::exposedComm() const
{
    Nanos t = 0;
    for (const SummaryDevice &d : devices)
        t += d.exposedComm();
    return t;
}

double TraceStats::gpuUtilisation() const
{
    if (devices.empty() || span() <= 0)
        return 0.0;
    return 100.0 * double(gpuBusy()) / (double(span()) * double(devices.size()));
}

StepTimes TraceStats::stepTimes() const
{
    StepTimes t;
    t.count = steps.size();
    if (steps.empty())
        return t;
    std::vector<Nanos> d;
    d.reserve(steps.size());
    for (const SummaryStep &s : steps) {
        d.push_back(s.dur);
        t.total += s.dur;
    }
    std::sort(d.begin(), d.end());
    t.min = d.front();
    t.max = d.back();
    t.mean = t.total / static_cast<Nanos>(d.size());
    t.median = d.size() % 2 ? d[d.size() / 2] : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
    return t;
}

TraceStats computeTraceStats(const DeviceTrace &trace, const TraceIndex &index)
{
    TraceStats stats;
    stats.events = trace.events.size();
    if (trace.events.empty())
        return stats;
    stats.start = index.minTs;
    stats.end = std::max(index.minTs, index.maxTs);

    // GPU ops and stream busy time: the range statistics of the whole extent (one past its end, so
    // that an op of no length at the very end is counted too).
    const RangeStats range = computeRangeStats(trace, index, stats.start, stats.end + 1);
    stats.gpuOps.reserve(range.ops.size());
    for (const RangeOpStat &op : range.ops)
        stats.gpuOps.push_back({std::string(trace.strings.at(op.name)), std::string(categoryName(op.category)), op.count,
                                op.total, op.total, op.max});

    // Per stream and per GPU: communication and computation intervals.
    std::map<std::int32_t, std::pair<std::vector<Interval>, std::vector<Interval>>> perDevice; // comm, compute
    std::map<std::int32_t, SummaryDevice> devices;
    std::vector<std::vector<Interval>> streamComm;
    for (const RangeLaneStat &l : range.streams) {
        const Lane &lane = index.lane(l.lane);
        SummaryStream s;
        s.label = lane.label;
        s.device = lane.device;
        s.stream = lane.stream;
        s.ops = l.events;
        s.busy = l.time;
        std::vector<Interval> comm;
        auto &[devComm, devCompute] = perDevice[lane.device];
        for (EventIndex e : lane.events) {
            const DeviceEvent &event = trace.event(e);
            if (!isGpuOpCategory(event.category))
                continue;
            const Interval i{event.ts, event.end()};
            if (isCollectiveKernel(trace, event)) {
                comm.push_back(i);
                devComm.push_back(i);
            } else {
                devCompute.push_back(i);
            }
        }
        s.comm = mergeIntervals(comm);
        SummaryDevice &d = devices[lane.device];
        d.device = lane.device;
        ++d.streams;
        d.ops += s.ops;
        streamComm.push_back(std::move(comm));
        stats.streams.push_back(std::move(s));
    }
    for (auto &[device, lists] : perDevice) {
        SummaryDevice &d = devices[device];
        auto &[comm, compute] = lists;
        std::vector<Interval> all = comm;
        all.insert(all.end(), compute.begin(), compute.end());
        d.busy = mergeIntervals(all);
        d.comm = mergeIntervals(comm);
        d.compute = mergeIntervals(compute);
        d.commOverlapped = intersection(comm, compute);
    }
    for (std::size_t i = 0; i < stats.streams.size(); ++i)
        stats.streams[i].commOverlapped = intersection(streamComm[i], perDevice[stats.streams[i].device].second);
    for (auto &[device, d] : devices)
        stats.devices.push_back(d);

    // CPU ops by name: total, self (less directly nested events), max.
    std::vector<Nanos> nestedTime(trace.events.size(), 0);
    for (const Lane &lane : index.lanes) {
        if (lane.kind != LaneKind::CpuThread)
            continue;
        for (EventIndex e : lane.events) {
            const EventIndex parent = index.nestParentOf(e);
            if (parent.valid())
                nestedTime[parent.get()] += trace.event(e).dur;
        }
    }
    std::unordered_map<StringId, std::size_t> slot;
    for (const Lane &lane : index.lanes) {
        if (lane.kind != LaneKind::CpuThread)
            continue;
        for (EventIndex e : lane.events) {
            const DeviceEvent &event = trace.event(e);
            if (event.category == EventCategory::CpuOp) {
                const auto [it, added] = slot.try_emplace(event.name, stats.cpuOps.size());
                if (added)
                    stats.cpuOps.push_back(
                        {std::string(trace.strings.at(event.name)), std::string(categoryName(event.category))});
                SummaryOpStat &op = stats.cpuOps[it->second];
                ++op.count;
                op.total += event.dur;
                op.self += std::max<Nanos>(0, event.dur - nestedTime[e.get()]);
                op.max = std::max(op.max, event.dur);
            }
        }
    }
    stats.steps = profilerSteps(trace);
    sortOps(stats.cpuOps);
    return stats;
}

std::vector<SummaryOpStat> mergeOpStats(const std::vector<const std::vector<SummaryOpStat> *> &lists)
{
    std::map<std::pair<std::string, std::string>, SummaryOpStat> byName;
    for (const auto *list : lists) {
        if (!list)
            continue;
        for (const SummaryOpStat &op : *list) {
            SummaryOpStat &m = byName[{op.name, op.category}];
            if (m.name.empty()) {
                m.name = op.name;
                m.category = op.category;
            }
            m.count += op.count;
            m.total += op.total;
            m.self += op.self;
            m.max = std::max(m.max, op.max);
        }
    }
    std::vector<SummaryOpStat> out;
    out.reserve(byName.size());
    for (auto &[key, op] : byName)
        out.push_back(std::move(op));
    sortOps(out);
    return out;
}

} // namespace linkscope::core
