#include "link/linker.h"

#include "base/nearsearch.h"
#include "base/parallel.h"
#include "base/sortedsegments.h"
#include "link/diagnose.h"
#include "link/hostjoin.h"
#include "link/rules.h"

#include <algorithm>
#include <charconv>
#include <future>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace linkscope::core {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool hasCorrelation(std::int64_t correlation)
{
    // roctracer writes 0 for "none"; Kineto's absent arg is -1.
    return correlation > 0;
}

// std::sort by the values' own operator<: elements that compare equal are identical, so the result is the
// same however it is reached. Most of these lists come out of the trace already in order, and a linear check
// spares re-sorting them (libstdc++'s introsort still does n log n work on sorted input).
template <typename T>
void sortValues(std::vector<T> &list)
{
    if (!std::is_sorted(list.begin(), list.end()))
        std::sort(list.begin(), list.end());
}

std::uint64_t pairKey(EventIndex a, EventIndex b) { return (static_cast<std::uint64_t>(a.value) << 32) | b.value; }

// A position in one of ThreadOps' lists or in launchesByCorrelation_ (not an index space of the
// trace): "none" for the nesting parent of a top-level op and for an absent correlation.
constexpr std::uint32_t kNoPosition = std::numeric_limits<std::uint32_t>::max();

// The trace's events, by EventIndex (and by raw position, for the loops over all of them).
class EventView {
public:
    explicit EventView(const std::vector<DeviceEvent> &events) : events_(events) { }
    const DeviceEvent &operator[](EventIndex i) const { return events_[i.get()]; }
    const DeviceEvent &operator[](std::size_t i) const { return events_[i]; }
    std::size_t size() const { return events_.size(); }
    auto begin() const { return events_.begin(); }
    auto end() const { return events_.end(); }

private:
    const std::vector<DeviceEvent> &events_;
};

// Per CPU thread: the CPU ops each policy looks at, in the order each policy needs them.
struct ThreadOps {
    ThreadKey key;
    // Candidates (docs/linking.md): cpu_op / user_annotation except ProfilerStep#*, sorted (ts asc, dur desc, ET id, Ev Idx).
    std::vector<EventIndex> nest;
    std::vector<Nanos> nestStart;
    std::vector<std::uint32_t> nestParent; // position in `nest` of the enclosing candidate, kNoPosition
    // Chakra's candidates: cpu_op / user_annotation without "ProfilerStep" in the name, (ts, file order).
    std::vector<EventIndex> chakra;
    std::vector<Nanos> chakraStart;
    std::vector<std::pair<std::int64_t, std::uint32_t>> chakraByExternalId; // (External id, position), sorted
    // Launches made from this thread: (launch ts, GPU op), sorted. For sync edges.
    std::vector<std::pair<Nanos, EventIndex>> launches;
    std::vector<std::pair<Nanos, EventIndex>> eventRecords; // cudaEventRecord calls: (ts, event)
    // Where the last searches in nestStart, chakraStart and chakraByExternalId ended (nearsearch.h).
    mutable std::size_t nestFinger = 0;
    mutable std::size_t chakraFinger = 0;
    mutable std::size_t externalIdFinger = 0;
};

// Where and when a GPU op was launched.
struct LaunchContext {
    bool found = false;
    EventIndex event; // the runtime/driver event (none for a flow-only launch)
    ThreadKey thread;
    Nanos ts = 0;
    Nanos end = 0;
    LaunchMatch match = LaunchMatch::None;
    EventIndex externalIdOp; // External-id fallback: the cpu_op itself, launch time unknown
    bool hasTime() const { return found && externalIdOp.isNone(); }
};

class Linker {
public:
    Linker(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index, const LinkOptions &options)
        : dev_(device), ev_(device.events), host_(host), opt_(options), index_(std::move(index))
    {
    }

    LinkSet run()
    {
        ls_.policy = opt_.policy;
        checkProgress(0);
        if (!index_)
            index_ = indexTrace(dev_);
        ls_.index = index_;
        ls_.warnings = index_->warnings;
        checkProgress(1);
        // The launch indexes read the device trace only and write only their own tables and
        // traceWide_ (which nothing before them writes): built beside the host join, the candidate
        // lists and the exclusive durations when the task has a second core.
        std::future<void> launchIndexes = runBeside([this] { buildLaunchIndexes(); });
        joinHost();
        checkProgress(2);
        buildThreads();
        computeExclusiveDurations();
        checkProgress(3);
        launchIndexes.get();
        linkGpuOps();
        if (ls_.gpuLinks.empty())
            ls_.warnings.push_back(Diagnostic{Diagnostic::Severity::Info, dev_.path, kUnknownOffset,
                                              "the device trace has no GPU op (kernel, memcpy, memset): a CPU-only "
                                              "capture; only CPU ops and their durations are available"});
        // The diagnosis reads the links and the evidence and writes perOp_; the edges read the links
        // and write ls_.edges and the per-thread and per-stream launch lists: the two run side by side.
        std::future<void> diagnosis = diagnoseGpuOps();
        checkProgress(8);
        addLaunchAndStreamEdges();
        addSyncEdges();
        if (opt_.interThreadDeps)
            addInterThreadEdges();
        diagnosis.get();
        sink_ = &hostSide_;
        addHostFindings();
        ls_.findings = FindingList(std::move(traceWide_), std::move(perOp_), std::move(perOpBegin_), std::move(hostSide_));
        ls_.gpuLinkOf = std::move(gpuLinkOf_.raw());
        ls_.hostOfEvent = std::move(hostOfEvent_.raw());
        ls_.eventOfHost = std::move(eventOfHost_.raw());
        ls_.exclusiveDur = std::move(exclusiveDur_.raw());
        checkProgress(kProgressTotal);
        return std::move(ls_);
    }

private:
    static constexpr std::uint64_t kProgressTotal = 10;

    void checkProgress(std::uint64_t done)
    {
        if (opt_.progress && !opt_.progress(done, kProgressTotal))
            throw Cancelled();
    }

    Diagnostic warning(std::string message) const
    {
        return Diagnostic{Diagnostic::Severity::Warning, dev_.path, kUnknownOffset, std::move(message)};
    }

    std::string describe(EventIndex event) const { return describeEvent(dev_, event); }

    void addFinding(FindingKind kind, FindingSeverity severity, EventIndex event, std::string message, std::string suggestion)
    {
        sink_->push_back(
            Finding{kind, severity, SubjectKind::DeviceEvent, event, kNone, std::move(message), std::move(suggestion), kNone});
    }
    void addFinding(FindingKind kind, FindingSeverity severity, HostNodeIndex node, std::string message, std::string suggestion)
    {
        sink_->push_back(
            Finding{kind, severity, SubjectKind::HostNode, kNone, node, std::move(message), std::move(suggestion), kNone});
    }
    void addTraceFinding(FindingKind kind, FindingSeverity severity, std::string message, std::string suggestion)
    {
        sink_->push_back(
            Finding{kind, severity, SubjectKind::Trace, kNone, kNone, std::move(message), std::move(suggestion), kNone});
    }

    // ---- host join -------------------------------------------------------------------------------

    void joinHost()
    {
        if (!host_) {
            hostOfEvent_.assign(ev_.size(), kNone);
            return;
        }
        HostJoin join = joinHostToDevice(*host_, dev_);
        hostOfEvent_ = HostOfEvent(std::move(join.hostOfEvent));
        eventOfHost_ = EventOfHost(std::move(join.eventOfHost));
        ls_.join = join.stats;
        for (Diagnostic &d : join.warnings)
            ls_.warnings.push_back(std::move(d));
        // Without any joined op there is nothing to walk up to: link as for a Kineto-only trace and say why.
        requireHostNode_ = ls_.join.matched > 0;
    }

    bool hasHostNode(EventIndex event) const { return hostOfEvent_[event].valid(); }

    // ---- per-thread candidate lists ----------------------------------------------------------------

    void buildThreads()
    {
        opParent_.assign(ev_.size(), kNone);
        // Two tests on every CPU op's name, decided once per distinct name instead of per op.
        enum : std::uint8_t { kStepPrefix = 1, kMentionsStep = 2 };
        std::vector<std::uint8_t> nameFlags(dev_.strings.size());
        for (StringId id = 0; id < nameFlags.size(); ++id) {
            const std::string_view name = dev_.strings.at(id);
            nameFlags[id] = static_cast<std::uint8_t>(
                (startsWith(name, "ProfilerStep#") ? kStepPrefix : 0)
                | (name.find("ProfilerStep") != std::string_view::npos ? kMentionsStep : 0));
        }
        std::vector<std::pair<Nanos, EventIndex>> global; // (ts, event): Chakra's all-thread order
        std::vector<std::size_t> segmentEnds;             // end of each thread's part of `global`
        for (const Lane &lane : ls_.index->lanes) {
            if (lane.kind != LaneKind::CpuThread)
                continue;
            const auto slot = static_cast<std::uint32_t>(threads_.size());
            slotOf_.emplace(lane.key, slot);
            ThreadOps &t = threads_.emplace_back();
            t.key = lane.key;
            for (EventIndex event : lane.events) {
                const DeviceEvent &e = ev_[event];
                if (!isCpuOpCategory(e.category))
                    continue;
                const std::uint8_t flags = nameFlags[e.name];
                if (!(flags & kStepPrefix))
                    t.nest.push_back(event);
                if (!(flags & kMentionsStep))
                    t.chakra.push_back(event);
            }
            // The lane is sorted (ts asc, dur desc, file order): only runs of equal keys need re-sorting.
            sortForNesting(t.nest);
            sweepNesting(t);
            sortRuns(
                t.chakra, [&](EventIndex a, EventIndex b) { return ev_[a].ts == ev_[b].ts; },
                [](EventIndex a, EventIndex b) { return a < b; });
            t.chakraStart.reserve(t.chakra.size());
            t.chakraByExternalId.reserve(t.chakra.size());
            for (std::uint32_t pos = 0; pos < t.chakra.size(); ++pos) {
                const DeviceEvent &e = ev_[t.chakra[pos]];
                t.chakraStart.push_back(e.ts);
                t.chakraByExternalId.emplace_back(e.externalId, pos);
            }
            sortValues(t.chakraByExternalId);
            for (std::uint32_t pos = 0; pos < t.chakra.size(); ++pos) {
                const EventIndex event = t.chakra[pos];
                global.emplace_back(t.chakraStart[pos], event);
            }
            segmentEnds.push_back(global.size());
        }
        // Each thread's segment is already in (ts, event) order: merging them pairwise gives the sorted
        // all-thread order in O(n log threads).
        mergeSortedSegments(global, segmentEnds);
        globalChakra_.reserve(global.size());
        globalChakraStart_.reserve(global.size());
        for (const auto &[ts, event] : global) {
            globalChakraStart_.push_back(ts);
            globalChakra_.push_back(event);
        }
    }

    // Sorts each run of consecutive elements that `sameRun` joins with `less`; the list is otherwise in order.
    template <typename SameRun, typename Less>
    static void sortRuns(std::vector<EventIndex> &list, SameRun sameRun, Less less)
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

    // Ties (docs/linking.md, step 3): equal start → longer first (it encloses); equal interval → the ET descendant
    // (larger ET id) is inner, then the larger Ev Idx; an op without an ET node counts as outer.
    void sortForNesting(std::vector<EventIndex> &list) const
    {
        auto hostId = [&](EventIndex event) -> std::int64_t {
            const HostNodeIndex node = hostOfEvent_[event];
            return (node.isNone() || !host_) ? std::numeric_limits<std::int64_t>::min() : host_->node(node).id;
        };
        // `list` comes in lane order (ts asc, dur desc, file order): only equal intervals need the tie rule.
        sortRuns(
            list, [&](EventIndex a, EventIndex b) { return ev_[a].ts == ev_[b].ts && ev_[a].dur == ev_[b].dur; },
            [&](EventIndex a, EventIndex b) {
                const DeviceEvent &ea = ev_[a];
                const DeviceEvent &eb = ev_[b];
                const auto ha = hostId(a), hb = hostId(b);
                if (ha != hb)
                    return ha < hb;
                if (ea.evIdx != eb.evIdx)
                    return ea.evIdx < eb.evIdx;
                return a < b;
            });
    }

    void sweepNesting(ThreadOps &t)
    {
        t.nestStart.resize(t.nest.size());
        t.nestParent.assign(t.nest.size(), kNoPosition);
        std::vector<std::uint32_t> open;
        for (std::uint32_t pos = 0; pos < t.nest.size(); ++pos) {
            const DeviceEvent &e = ev_[t.nest[pos]];
            t.nestStart[pos] = e.ts;
            while (!open.empty() && ev_[t.nest[open.back()]].end() <= e.ts)
                open.pop_back();
            while (!open.empty() && ev_[t.nest[open.back()]].end() < e.end())
                open.pop_back(); // partial overlap: siblings (the index already warned)
            if (!open.empty()) {
                t.nestParent[pos] = open.back();
                opParent_[t.nest[pos]] = t.nest[open.back()];
            }
            open.push_back(pos);
        }
    }

    // The thread's cpu_op carrying `externalId` as its own id (docs/linking.md, step 5), none if none.
    EventIndex cpuOpWithExternalId(const ThreadOps &t, std::int64_t externalId) const
    {
        auto p = t.chakraByExternalId.begin()
                 + static_cast<std::ptrdiff_t>(
                     lowerBoundNear(t.chakraByExternalId, std::make_pair(externalId, std::uint32_t(0)), t.externalIdFinger));
        for (; p != t.chakraByExternalId.end() && p->first == externalId; ++p)
            if (ev_[t.chakra[p->second]].category == EventCategory::CpuOp)
                return t.chakra[p->second];
        return kNone;
    }

    const ThreadOps *threadOf(const ThreadKey &key) const
    {
        auto it = slotOf_.find(key);
        return it == slotOf_.end() ? nullptr : &threads_[it->second];
    }

    EventIndex nestParentEvent(EventIndex event) const { return (*opParentView_)[event.get()]; }

    bool isNestAncestor(EventIndex ancestor, EventIndex event) const
    {
        for (EventIndex p = nestParentEvent(event); p.valid(); p = nestParentEvent(p))
            if (p == ancestor)
                return true;
        return false;
    }

    // ---- exclusive durations -----------------------------------------------------------------------

    // Per thread over cpu_op/user_annotation: dur minus the union of the children's intervals (clipped to
    // the parent), children visited in start order so the union grows incrementally: O(n log n).
    void computeExclusiveDurations()
    {
        exclusiveDur_.raw().resize(ev_.size());
        for (std::size_t i = 0; i < ev_.size(); ++i)
            exclusiveDur_.raw()[i] = ev_[i].dur;
        std::size_t clamped = 0;
        for (const Lane &lane : ls_.index->lanes) {
            if (lane.kind != LaneKind::CpuThread)
                continue;
            std::vector<EventIndex> ops;
            for (EventIndex event : lane.events)
                if (isCpuOpCategory(ev_[event].category))
                    ops.push_back(event); // lane order is already (ts asc, dur desc)
            // Each open op carries how far its children's union reaches: a popped op never becomes a parent
            // again (later ops start no earlier), so the value lives on the stack instead of in a map.
            struct OpenOp {
                EventIndex event;
                Nanos end;
                Nanos coveredUntil;
            };
            std::vector<OpenOp> open;
            for (EventIndex event : ops) {
                const DeviceEvent &e = ev_[event];
                const Nanos end = e.end();
                while (!open.empty() && open.back().end <= e.ts)
                    open.pop_back();
                while (!open.empty() && open.back().end < end)
                    open.pop_back();
                if (!open.empty()) {
                    OpenOp &parent = open.back();
                    const Nanos from = std::max(e.ts, parent.coveredUntil);
                    const Nanos to = std::min(end, parent.end);
                    if (to > from) {
                        exclusiveDur_[parent.event] -= to - from;
                        parent.coveredUntil = to;
                    }
                }
                open.push_back(OpenOp{event, end, e.ts});
            }
            for (EventIndex event : ops)
                if (exclusiveDur_[event] < 0) {
                    exclusiveDur_[event] = 0;
                    ++clamped;
                }
        }
        if (clamped > 0)
            ls_.warnings.push_back(warning(std::to_string(clamped) + " negative exclusive durations clamped to 0"));
    }

    // ---- launch lookup ---------------------------------------------------------------------------

    void buildLaunchIndexes()
    {
        for (std::size_t i = 0; i < ev_.size(); ++i) {
            const DeviceEvent &e = ev_[i];
            if (e.phase == Phase::Complete && isRuntimeCategory(e.category) && hasCorrelation(e.correlation))
                launchesByCorrelation_.emplace_back(e.correlation, EventIndex::at(i));
            if (e.phase == Phase::Complete && e.category == EventCategory::GpuUserAnnotation && e.externalId != kNoId)
                gpuAnnotations_[e.externalId].push_back(EventIndex::at(i));
        }
        sortValues(launchesByCorrelation_);
        buildDenseCorrelationIndex();
        // Duplicates: the same (pid, correlation) on several runtime/driver events.
        for (std::size_t i = 0; i < launchesByCorrelation_.size();) {
            std::size_t j = i + 1;
            while (j < launchesByCorrelation_.size() && launchesByCorrelation_[j].first == launchesByCorrelation_[i].first)
                ++j;
            if (j - i > 1) {
                std::map<TraceId, std::vector<EventIndex>> byPid;
                for (std::size_t k = i; k < j; ++k)
                    byPid[dev_.threadKey(ev_[launchesByCorrelation_[k].second]).pid].push_back(launchesByCorrelation_[k].second);
                if (byPid.size() > 1)
                    correlationsSpanProcesses_ = true;
                for (const auto &[pid, list] : byPid) {
                    if (list.size() < 2)
                        continue;
                    addFinding(FindingKind::DuplicateCorrelation, FindingSeverity::Warning, list[1],
                               std::to_string(list.size()) + " runtime/driver events in process " + dev_.idText(pid)
                                   + " share correlation " + std::to_string(launchesByCorrelation_[i].first) + ": "
                                   + describe(list[0]) + ", " + describe(list[1]) + (list.size() > 2 ? ", ..." : ""),
                               "each GPU op with this correlation is linked to the launch nearest before it; check them");
                }
            }
            i = j;
        }
    }

    // CUPTI correlation ids count up from a small number: when they fill their range densely enough, a
    // table from id to the first position in launchesByCorrelation_ replaces a binary search over
    // millions of entries (a cache miss per step) for every GPU op.
    void buildDenseCorrelationIndex()
    {
        denseCorrelation_.clear();
        if (launchesByCorrelation_.empty())
            return;
        const std::int64_t lo = launchesByCorrelation_.front().first, hi = launchesByCorrelation_.back().first;
        const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
        if (span >= 4 * launchesByCorrelation_.size() + 4096)
            return;
        denseCorrelationBase_ = lo;
        denseCorrelation_.assign(span + 2, kNoPosition);
        for (std::size_t i = launchesByCorrelation_.size(); i-- > 0;)
            denseCorrelation_[static_cast<std::size_t>(launchesByCorrelation_[i].first - lo)] = static_cast<std::uint32_t>(i);
    }

    std::pair<const std::pair<std::int64_t, EventIndex> *, const std::pair<std::int64_t, EventIndex> *> launchesWithCorrelation(
        std::int64_t correlation) const
    {
        if (!denseCorrelation_.empty()) {
            const auto *begin = launchesByCorrelation_.data();
            const auto *end = begin + launchesByCorrelation_.size();
            if (correlation < denseCorrelationBase_
                || static_cast<std::uint64_t>(correlation - denseCorrelationBase_) >= denseCorrelation_.size())
                return {end, end};
            const std::uint32_t first = denseCorrelation_[static_cast<std::size_t>(correlation - denseCorrelationBase_)];
            if (first == kNoPosition)
                return {end, end};
            const auto *last = begin + first;
            while (last != end && last->first == correlation)
                ++last;
            return {begin + first, last};
        }
        auto lo = std::lower_bound(launchesByCorrelation_.begin(), launchesByCorrelation_.end(),
                                   std::make_pair(correlation, EventIndex(0)));
        auto hi = lo;
        while (hi != launchesByCorrelation_.end() && hi->first == correlation)
            ++hi;
        return {launchesByCorrelation_.data() + (lo - launchesByCorrelation_.begin()),
                launchesByCorrelation_.data() + (hi - launchesByCorrelation_.begin())};
    }

    // Flow maps are only needed when a correlation lookup fails: built on first use.
    void ensureFlowIndex() const
    {
        if (flowIndexBuilt_)
            return;
        flowIndexBuilt_ = true;
        for (std::size_t i = 0; i < ev_.size(); ++i) {
            const DeviceEvent &e = ev_[i];
            if (e.category != EventCategory::Flow || e.flowId == kNoId)
                continue;
            if (e.phase == Phase::FlowStart)
                flowStarts_.emplace(e.flowId, EventIndex::at(i));
            else if (e.phase == Phase::FlowFinish)
                flowFinishes_[dev_.threadKey(e)].emplace_back(e.ts, e.flowId);
        }
        for (auto &[thread, list] : flowFinishes_)
            sortValues(list);
    }

    // The runtime event a GPU op belongs to: nearest launch at or before the GPU op (duplicates), else the
    // earliest after it (a GPU op before its launch is reported, not hidden).
    EventIndex pickLaunch(std::int64_t correlation, Nanos gpuTs, const TraceId *ownerPid = nullptr) const
    {
        EventIndex before, after;
        const auto [first, last] = launchesWithCorrelation(correlation);
        // Correlation ids are unique per process only: in a merged multi-process trace keep to the process
        // that launches onto this GPU op's device, when it has a candidate.
        const bool restrict =
            ownerPid && std::any_of(first, last, [&](const auto &c) { return dev_.threadKey(ev_[c.second]).pid == *ownerPid; });
        for (auto it = first; it != last; ++it) {
            const EventIndex c = it->second;
            if (restrict && !(dev_.threadKey(ev_[c]).pid == *ownerPid))
                continue;
            if (ev_[c].ts <= gpuTs) {
                if (before.isNone() || ev_[c].ts > ev_[before].ts)
                    before = c;
            } else if (after.isNone() || ev_[c].ts < ev_[after].ts) {
                after = c;
            }
        }
        return before.valid() ? before : after;
    }

    EventIndex runtimeEventAt(const ThreadKey &thread, Nanos ts) const
    {
        for (const Lane &lane : ls_.index->lanes) {
            if (lane.kind != LaneKind::CpuThread || !(lane.key == thread))
                continue;
            auto it = std::lower_bound(lane.startTs.begin(), lane.startTs.end(), ts);
            for (; it != lane.startTs.end() && *it == ts; ++it) {
                const EventIndex event = lane.events[static_cast<std::size_t>(it - lane.startTs.begin())];
                if (isRuntimeCategory(ev_[event].category))
                    return event;
            }
        }
        return kNone;
    }

    LaunchContext findLaunch(const DeviceEvent &gpu) const
    {
        LaunchContext ctx;
        if (hasCorrelation(gpu.correlation)) {
            auto owner = deviceOwner_.find(dev_.threadKey(gpu).pid);
            const EventIndex launch = pickLaunch(gpu.correlation, gpu.ts, owner == deviceOwner_.end() ? nullptr : &owner->second);
            if (launch.valid()) {
                ctx.found = true;
                ctx.event = launch;
                ctx.thread = dev_.threadKey(ev_[launch]);
                ctx.ts = ev_[launch].ts;
                ctx.end = ev_[launch].end();
                ctx.match = LaunchMatch::Correlation;
                return ctx;
            }
        }
        // ac2g flow: its finish sits on the GPU op, its start on the launching thread at launch time.
        ensureFlowIndex();
        if (auto fit = flowFinishes_.find(dev_.threadKey(gpu)); fit != flowFinishes_.end()) {
            const auto &list = fit->second;
            auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(gpu.ts, std::int64_t(kNoId)));
            for (; it != list.end() && it->first == gpu.ts; ++it) {
                auto sit = flowStarts_.find(it->second);
                if (sit == flowStarts_.end())
                    continue;
                const DeviceEvent &start = ev_[sit->second];
                ctx.found = true;
                ctx.thread = dev_.threadKey(start);
                ctx.ts = start.ts;
                ctx.event = runtimeEventAt(dev_.threadKey(start), start.ts);
                ctx.end = ctx.event.valid() ? ev_[ctx.event].end() : start.ts;
                ctx.match = LaunchMatch::Flow;
                return ctx;
            }
        }
        // External id names the enclosing cpu_op, unless the trace copies the correlation into it (old Kineto).
        if (gpu.externalId > 0 && gpu.externalId != gpu.correlation) {
            if (cpuOpByExternalId_.empty())
                for (EventIndex event : globalChakra_)
                    if (ev_[event].category == EventCategory::CpuOp && ev_[event].externalId != kNoId)
                        cpuOpByExternalId_.emplace(ev_[event].externalId, event);
            auto it = cpuOpByExternalId_.find(gpu.externalId);
            if (it != cpuOpByExternalId_.end()) {
                ctx.found = true;
                ctx.externalIdOp = it->second;
                ctx.thread = dev_.threadKey(ev_[it->second]);
                ctx.match = LaunchMatch::ExternalId;
                return ctx;
            }
        }
        return ctx;
    }

    // ---- the three policies --------------------------------------------------------------------------

    // docs/linking.md, steps 2–3: innermost candidate on the thread enclosing `ts`. Exact containment wins; an op that
    // encloses only within ε (clock rounding) is used when nothing encloses exactly.
    EventIndex innermostEnclosing(const ThreadOps &t, Nanos ts) const
    {
        const Nanos eps = opt_.enclosureTolerance;
        const std::size_t upper = upperBoundNear(t.nestStart, ts + eps, t.nestFinger);
        if (upper == 0)
            return kNone;
        EventIndex loose;
        for (auto pos = static_cast<std::uint32_t>(upper - 1); pos != kNoPosition; pos = t.nestParent[pos]) {
            const DeviceEvent &e = ev_[t.nest[pos]];
            if (e.end() + eps < ts)
                continue;
            if (e.ts <= ts && e.end() >= ts)
                return t.nest[pos];
            if (loose.isNone())
                loose = t.nest[pos];
        }
        return loose;
    }

    // docs/linking.md, step 4: nearest op (itself or an enclosing one) that has an ET node.
    EventIndex withHostNode(EventIndex event) const
    {
        if (!requireHostNode_)
            return event;
        for (EventIndex p = event; p.valid(); p = nestParentEvent(p))
            if (hasHostNode(p))
                return p;
        return kNone;
    }

    // Per interned name: kernel names repeat, and are long.
    bool isNcclName(StringId name) const
    {
        if (ncclByName_.size() <= name)
            ncclByName_.resize(dev_.strings.size(), -1);
        if (ncclByName_[name] < 0)
            ncclByName_[name] = chakraSaysNccl(dev_.strings.at(name)) ? 1 : 0;
        return ncclByName_[name] == 1;
    }

    bool skipForNccl(bool ncclGpu, EventIndex event) const { return ncclGpu && dev_.name(ev_[event]) == "nccl:coalesced"; }

    // Chakra HEAD `find_closest_op`: among the launch thread's ops starting strictly before the launch, the
    // latest one whose External id equals the GPU op's, else the latest one; nccl:coalesced skipped for NCCL.
    std::pair<EventIndex, bool> chakraHead(const ThreadOps &t, Nanos launchTs, const DeviceEvent &gpu) const
    {
        const bool nccl = isNcclName(gpu.name);
        const auto idx = static_cast<std::uint32_t>(lowerBoundNear(t.chakraStart, launchTs, t.chakraFinger));
        // Latest same-thread op before the launch carrying the GPU op's External id.
        auto p = t.chakraByExternalId.begin()
                 + static_cast<std::ptrdiff_t>(
                     lowerBoundNear(t.chakraByExternalId, std::make_pair(gpu.externalId, idx), t.externalIdFinger));
        while (p != t.chakraByExternalId.begin() && std::prev(p)->first == gpu.externalId) {
            --p;
            if (!skipForNccl(nccl, t.chakra[p->second]))
                return {t.chakra[p->second], true};
        }
        for (std::uint32_t p = idx; p-- > 0;)
            if (!skipForNccl(nccl, t.chakra[p]))
                return {t.chakra[p], false};
        return {kNone, false};
    }

    // Chakra before PR #185 (`52d7c30` find_closest_op), including its nccl:coalesced handling.
    EventIndex chakraPre185(const ThreadOps &t, Nanos launchTs, const DeviceEvent &gpu) const
    {
        const std::size_t gidx = lowerBoundNear(globalChakraStart_, launchTs, globalChakraFinger_);
        if (gidx == 0)
            return kNone;
        const EventIndex closest = globalChakra_[static_cast<std::size_t>(gidx - 1)];
        const bool closestOnThread = dev_.threadKey(ev_[closest]) == t.key;
        const bool nccl = isNcclName(gpu.name);
        const auto idx = static_cast<std::uint32_t>(lowerBoundNear(t.chakraStart, launchTs, t.chakraFinger));
        if (nccl && dev_.name(ev_[closest]) == "nccl:coalesced") {
            // Ops of the thread before `closest` in the all-thread order.
            const std::uint32_t from = closestOnThread ? idx - 1 : idx;
            for (std::uint32_t p = from; p-- > 0;)
                if (dev_.name(ev_[t.chakra[p]]) != "nccl:coalesced")
                    return t.chakra[p];
        }
        if (closestOnThread)
            return closest;
        for (std::uint32_t p = idx; p-- > 0;)
            if (!skipForNccl(nccl, t.chakra[p]))
                return t.chakra[p];
        return kNone;
    }

    // ---- linking ---------------------------------------------------------------------------------

    // Which process launches onto each GPU pid, by majority over the unambiguous correlations. Only needed
    // when a correlation id appears in several processes (merged traces).
    void findDeviceOwners()
    {
        if (!correlationsSpanProcesses_)
            return;
        std::map<TraceId, std::map<TraceId, std::size_t>> votes;
        for (const DeviceEvent &gpu : ev_) {
            if (gpu.phase != Phase::Complete || !isGpuOpCategory(gpu.category) || !hasCorrelation(gpu.correlation))
                continue;
            const auto [first, last] = launchesWithCorrelation(gpu.correlation);
            // The pid compared against, named outside the lambda: clang before 16 cannot capture a
            // structured binding (the fuzz build uses clang 14).
            const TraceId firstPid = first != last ? dev_.threadKey(ev_[first->second]).pid : TraceId{};
            if (first != last
                && std::all_of(first, last, [&](const auto &c) { return dev_.threadKey(ev_[c.second]).pid == firstPid; }))
                ++votes[dev_.threadKey(gpu).pid][dev_.threadKey(ev_[first->second]).pid];
        }
        for (const auto &[gpuPid, counts] : votes) {
            auto best = std::max_element(counts.begin(), counts.end(),
                                         [](const auto &a, const auto &b) { return a.second < b.second; });
            deviceOwner_.emplace(gpuPid, best->first);
        }
    }

    void linkGpuOps()
    {
        findDeviceOwners();
        gpuLinkOf_.assign(ev_.size(), kNone);
        std::size_t count = 0;
        for (EventIndex g{0}; g.get() < ev_.size(); ++g) {
            const DeviceEvent &gpu = ev_[g];
            if (gpu.phase != Phase::Complete || !isGpuOpCategory(gpu.category))
                continue;
            if ((++count & 0xFFF) == 0)
                checkProgress(3 + std::min<std::uint64_t>(4, count * 4 / (ev_.size() + 1)));
            gpuLinkOf_[g] = GpuLinkIndex::at(ls_.gpuLinks.size());
            ls_.gpuLinks.push_back(linkOne(g));
            contexts_.push_back(lastContext_);
        }
    }

    GpuLink linkOne(EventIndex g)
    {
        const DeviceEvent &gpu = ev_[g];
        GpuLink link;
        link.gpuEvent = g;
        const LaunchContext ctx = findLaunch(gpu);
        lastContext_ = ctx;
        link.launch = ctx.event;
        link.launchMatch = ctx.match;
        if (!ctx.found) {
            link.orphan = hasCorrelation(gpu.correlation) ? OrphanReason::NoLaunchEvent : OrphanReason::NoCorrelation;
            evidence_->launches.push_back(LaunchEvidence{});
            return link;
        }

        // Each policy's choice (before the ET-node requirement), then the ET-node requirement.
        EventIndex innermost, headChoice, preChoice;
        bool headMatchedExternalId = false;
        const ThreadOps *thread = threadOf(ctx.thread);
        if (ctx.externalIdOp.valid()) {
            innermost = headChoice = ctx.externalIdOp;
            headMatchedExternalId = true;
        } else if (thread) {
            innermost = innermostEnclosing(*thread, ctx.ts);
            std::tie(headChoice, headMatchedExternalId) = chakraHead(*thread, ctx.ts, gpu);
            preChoice = chakraPre185(*thread, ctx.ts, gpu);
        }
        link.innermost = innermost;
        const EventIndex nestingParent = innermost.isNone() ? EventIndex(kNone) : withHostNode(innermost);
        auto chakraEffective = [&](EventIndex choice) {
            // Chakra drops a GPU op whose parent has no ET counterpart.
            return (choice.valid() && requireHostNode_ && !hasHostNode(choice)) ? EventIndex(kNone) : choice;
        };
        link.byPolicy[static_cast<std::size_t>(Policy::Nesting)] = nestingParent;
        link.byPolicy[static_cast<std::size_t>(Policy::ExternalId)] = chakraEffective(headChoice);
        link.byPolicy[static_cast<std::size_t>(Policy::EvIdx)] = chakraEffective(preChoice);

        switch (opt_.policy) {
        case Policy::Nesting:
            link.parent = nestingParent;
            if (innermost.isNone())
                link.orphan = OrphanReason::NoEnclosingOp;
            else if (nestingParent.isNone())
                link.orphan = OrphanReason::NoHostNode;
            else if (ctx.match == LaunchMatch::ExternalId)
                link.rule = ParentRule::ExternalId;
            else
                link.rule = nestingParent == innermost ? ParentRule::Nesting : ParentRule::NestingAncestor;
            break;
        case Policy::ExternalId:
        case Policy::EvIdx: {
            const EventIndex raw = opt_.policy == Policy::ExternalId ? headChoice : preChoice;
            link.parent = chakraEffective(raw);
            if (raw.isNone())
                link.orphan = OrphanReason::NoEnclosingOp;
            else if (link.parent.isNone())
                link.orphan = OrphanReason::NoHostNode;
            else
                link.rule = (opt_.policy == Policy::ExternalId && headMatchedExternalId) ? ParentRule::ExternalId
                                                                                         : ParentRule::LatestStarting;
            break;
        }
        }
        if (link.parent.valid())
            link.hostNode = hostOfEvent_[link.parent];

        // docs/linking.md, step 5: the External-id cross-check and the gpu_user_annotation corroboration.
        const std::int64_t launchExternalId = ctx.event.valid() ? ev_[ctx.event].externalId : gpu.externalId;
        EventIndex externalOp;
        if (thread && launchExternalId != kNoId && launchExternalId != gpu.correlation)
            externalOp = cpuOpWithExternalId(*thread, launchExternalId);
        if (link.parent.valid() && ev_[link.parent].category == EventCategory::UserAnnotation)
            link.annotationEvidence = corroboratingAnnotation(gpu, ev_[link.parent].externalId);
        link.confidence = confidenceOf(link, ctx, externalOp);
        evidence_->launches.push_back(LaunchEvidence{ctx.ts, externalOp, ctx.hasTime()});
        return link;
    }

    EventIndex corroboratingAnnotation(const DeviceEvent &gpu, std::int64_t annotationExternalId) const
    {
        if (annotationExternalId == kNoId)
            return kNone;
        auto it = gpuAnnotations_.find(annotationExternalId);
        if (it == gpuAnnotations_.end())
            return kNone;
        for (EventIndex a : it->second) {
            const DeviceEvent &ann = ev_[a];
            if (ann.thread == gpu.thread && ann.ts < gpu.end() + 1 && ann.end() + 1 > gpu.ts)
                return a;
        }
        return kNone;
    }

    bool externalIdAgrees(EventIndex parent, EventIndex externalOp) const
    {
        if (parent == externalOp)
            return true;
        // User-scope refinement: a user_annotation (nccl:*, record_function) nested in the External-id op.
        return ev_[parent].category == EventCategory::UserAnnotation && isNestAncestor(externalOp, parent);
    }

    float confidenceOf(const GpuLink &link, const LaunchContext &ctx, EventIndex externalOp) const
    {
        if (link.parent.isNone())
            return 0.0f;
        float launchFactor = ctx.match == LaunchMatch::Correlation ? 1.0f : ctx.match == LaunchMatch::Flow ? 0.8f : 0.5f;
        float ruleFactor = 0.5f;
        switch (link.rule) {
        case ParentRule::Nesting:
        case ParentRule::NestingAncestor:
            if (externalOp.valid())
                ruleFactor = externalIdAgrees(link.parent, externalOp) ? 1.0f : 0.6f;
            else
                ruleFactor = link.annotationEvidence.valid() ? 0.95f : 0.85f;
            if (link.rule == ParentRule::NestingAncestor)
                ruleFactor *= 0.9f;
            break;
        case ParentRule::ExternalId:
            ruleFactor = 0.9f;
            break;
        case ParentRule::LatestStarting:
            ruleFactor = (ctx.hasTime() && ev_[link.parent].ts <= ctx.ts && ev_[link.parent].end() >= ctx.ts) ? 0.5f : 0.3f;
            break;
        default:
            break;
        }
        return launchFactor * ruleFactor;
    }

    // The diagnosis stage on the linker's own links (the same code re-derives a corrected op's).
    // Returns the running diagnosis (deferred, run by get(), when the task has one thread).
    std::future<void> diagnoseGpuOps()
    {
        evidence_->opParent = std::move(opParent_.raw());
        ls_.evidence = evidence_;
        opParentView_ = &evidence_->opParent;
        return runBeside([this] { diagnoseEveryGpuOp(dev_, ls_, perOp_, perOpBegin_); });
    }

    // ---- edges -----------------------------------------------------------------------------------

    void addLaunchAndStreamEdges()
    {
        for (std::size_t i = 0; i < ls_.gpuLinks.size(); ++i) {
            const GpuLink &link = ls_.gpuLinks[i];
            if (link.launch.valid())
                ls_.edges.push_back(Edge{link.launch, link.gpuEvent, EdgeKind::Launch});
            const LaunchContext &ctx = contexts_[i];
            if (ctx.hasTime()) {
                if (auto it = slotOf_.find(ctx.thread); it != slotOf_.end())
                    threads_[it->second].launches.emplace_back(ctx.ts, link.gpuEvent);
                streamLaunches_[ls_.index->laneOfEvent(link.gpuEvent)].emplace_back(ctx.ts, link.gpuEvent);
            }
        }
        for (ThreadOps &t : threads_)
            sortValues(t.launches);
        for (auto &[lane, list] : streamLaunches_)
            sortValues(list);

        for (const Lane &lane : ls_.index->lanes) {
            if (lane.kind != LaneKind::GpuStream)
                continue;
            std::vector<EventIndex> ops;
            for (EventIndex event : lane.events)
                if (isGpuOpCategory(ev_[event].category))
                    ops.push_back(event);
            // Lane order is (ts asc, dur desc, file order): only equal starts need putting in file order.
            sortRuns(
                ops, [&](EventIndex a, EventIndex b) { return ev_[a].ts == ev_[b].ts; },
                [](EventIndex a, EventIndex b) { return a < b; });
            for (std::size_t i = 1; i < ops.size(); ++i)
                ls_.edges.push_back(Edge{ops[i - 1], ops[i], EdgeKind::StreamOrder});
        }
    }

    // Last GPU op launched strictly before `ts` from a list sorted by launch time.
    static EventIndex lastLaunchedBefore(const std::vector<std::pair<Nanos, EventIndex>> &list, Nanos ts)
    {
        auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(ts, EventIndex(0)));
        return it == list.begin() ? EventIndex(kNone) : std::prev(it)->second;
    }

    EventIndex lastLaunchedOnLaneBefore(LaneIndex lane, Nanos ts) const
    {
        auto it = streamLaunches_.find(lane);
        return it == streamLaunches_.end() ? EventIndex(kNone) : lastLaunchedBefore(it->second, ts);
    }

    // The CPU side of a sync edge: the first op on the waiting thread that starts once the wait returned
    // (ET-linked when a host trace is joined: the continuation, docs/linking.md, Edges), else the waiting call itself. Never
    // the op blocked in the wait: it started before the GPU op finished, so an edge to it is not causal.
    EventIndex syncTarget(EventIndex call) const
    {
        const DeviceEvent &r = ev_[call];
        if (const ThreadOps *t = threadOf(dev_.threadKey(r))) {
            auto pos = static_cast<std::size_t>(std::lower_bound(t->nestStart.begin(), t->nestStart.end(), r.end())
                                                - t->nestStart.begin());
            for (std::size_t scanned = 0; pos < t->nest.size() && scanned < 64; ++pos, ++scanned)
                if (!requireHostNode_ || hasHostNode(t->nest[pos]))
                    return t->nest[pos];
        }
        return call;
    }

    void addSyncEdge(EventIndex from, EventIndex to)
    {
        if (from.isNone() || to.isNone())
            return;
        if (syncEdgeSeen_.insert(pairKey(from, to)).second)
            ls_.edges.push_back(Edge{from, to, EdgeKind::Sync});
    }

    // A blocking call waits for `awaited`: the Sync edge to the op that continues after it, and the
    // record the export needs to take the blocked time out of the CPU work.
    // `edge` false: only the record (calls the edges of docs/linking.md did not cover before, so the
    // Chakra target's output stays what it was; the astra-sim target makes their dependencies itself).
    void addWait(EventIndex call, EventIndex awaited, BlockingKind kind, EventIndex target, bool edge = true)
    {
        if (call.isNone() || awaited.isNone())
            return;
        if (edge)
            addSyncEdge(awaited, target);
        blocking_.push_back(BlockingWait{call, awaited, kind});
    }

    void syncAllStreamsOfDevice(std::int32_t device, EventIndex call, EventIndex target,
                                BlockingKind kind = BlockingKind::DeviceSync, bool edge = true)
    {
        for (const auto &[lane, list] : streamLaunches_)
            if (ls_.index->lane(lane).device == device)
                addWait(call, lastLaunchedBefore(list, ev_[call].ts), kind, target, edge);
    }

    // Calls that block without a sync of their own (docs/linking.md, Blocking calls): synchronous
    // copies and copies into pageable host memory wait for their copy; frees synchronise the device.
    // Run whichever way the syncs are found (CUPTI records no sync event for these).
    void addImplicitWaits()
    {
        std::unordered_map<std::uint32_t, EventIndex> copyOfLaunch;
        for (std::size_t i = 0; i < ls_.gpuLinks.size(); ++i) {
            const GpuLink &link = ls_.gpuLinks[i];
            if (link.launch.valid() && ev_[link.gpuEvent].category == EventCategory::GpuMemcpy)
                copyOfLaunch.emplace(link.launch.get(), link.gpuEvent);
        }
        for (EventIndex i{0}; i.get() < ev_.size(); ++i) {
            const DeviceEvent &e = ev_[i];
            if (e.phase != Phase::Complete || !isRuntimeCategory(e.category))
                continue;
            const std::string_view name = dev_.name(e);
            if (name.find("Memcpy") != std::string_view::npos || name.find("memcpy") != std::string_view::npos) {
                auto it = copyOfLaunch.find(i.get());
                if (it == copyOfLaunch.end())
                    continue;
                const bool async = name.find("Async") != std::string_view::npos;
                const std::string_view copy = dev_.name(ev_[it->second]);
                const bool toPageable = copy.find("Pageable") != std::string_view::npos
                                        && (copy.find("DtoH") != std::string_view::npos
                                            || copy.find("Device -> Pageable") != std::string_view::npos);
                if (!async || toPageable)
                    addWait(i, it->second, BlockingKind::BlockingCopy, syncTarget(i), false);
            } else if (name == "cudaFree" || name == "cudaFreeHost" || name == "hipFree" || name == "hipHostFree"
                       || name.starts_with("cuMemFree")) {
                const ThreadOps *t = threadOf(dev_.threadKey(e));
                const EventIndex lastOwn = t ? lastLaunchedBefore(t->launches, e.ts) : EventIndex(kNone);
                if (lastOwn.valid())
                    syncAllStreamsOfDevice(ls_.index->lane(ls_.index->laneOfEvent(lastOwn)).device, i, syncTarget(i),
                                           BlockingKind::ImplicitSync, false);
            }
        }
    }

    EventIndex firstLaunchAfter(const ThreadOps &t, Nanos ts, LaneIndex lane) const
    {
        // Past every launch at `ts` (the none index is the largest).
        auto it = std::upper_bound(t.launches.begin(), t.launches.end(), std::make_pair(ts, EventIndex(kNone)));
        for (std::size_t scanned = 0; it != t.launches.end() && scanned < 256; ++it, ++scanned)
            if (lane.isNone() || ls_.index->laneOfEvent(it->second) == lane)
                return it->second;
        return kNone;
    }

    LaneIndex laneOfStream(std::int32_t device, std::int64_t stream) const
    {
        for (std::size_t i = 0; i < ls_.index->lanes.size(); ++i) {
            const Lane &lane = ls_.index->lanes[i];
            if (lane.kind == LaneKind::GpuStream && lane.device == device && lane.stream == stream)
                return LaneIndex::at(i);
        }
        return kNone;
    }

    // Sync edges (docs/linking.md, Edges), natively and over the whole trace: cuda_sync events when the trace has them, else the
    // synchronizing runtime calls themselves.
    void addSyncEdges()
    {
        const bool haveSyncEvents = std::any_of(ev_.begin(), ev_.end(), [](const DeviceEvent &e) {
            return e.category == EventCategory::CudaSync && e.phase == Phase::Complete;
        });
        if (haveSyncEvents)
            addSyncEdgesFromSyncEvents();
        else
            addSyncEdgesFromRuntimeCalls();
        addImplicitWaits();
        std::stable_sort(blocking_.begin(), blocking_.end(),
                         [](const BlockingWait &a, const BlockingWait &b) { return a.call < b.call; });
        ls_.blocking = std::make_shared<const std::vector<BlockingWait>>(std::move(blocking_));
    }

    // The GPU op the event recorded by `record` (a cudaEventRecord call) stands for.
    EventIndex recordedOp(EventIndex record, LaneIndex recordedLane) const
    {
        if (record.isNone())
            return kNone;
        if (recordedLane.valid())
            return lastLaunchedOnLaneBefore(recordedLane, ev_[record].ts);
        const ThreadOps *t = threadOf(dev_.threadKey(ev_[record]));
        return t ? lastLaunchedBefore(t->launches, ev_[record].ts) : EventIndex(kNone);
    }

    void addSyncEdgesFromRuntimeCalls()
    {
        for (ThreadOps &t : threads_)
            t.eventRecords.clear();
        std::vector<EventIndex> calls;
        for (EventIndex i{0}; i.get() < ev_.size(); ++i) {
            const DeviceEvent &e = ev_[i];
            if (e.phase != Phase::Complete || !isRuntimeCategory(e.category))
                continue;
            const std::string_view name = dev_.name(e);
            if (name == "cudaEventRecord" || name == "hipEventRecord" || name == "cudaEventRecordWithFlags") {
                if (auto it = slotOf_.find(dev_.threadKey(e)); it != slotOf_.end())
                    threads_[it->second].eventRecords.emplace_back(e.ts, i);
            } else if (name.find("Synchronize") != std::string_view::npos
                       || name.find("StreamWaitEvent") != std::string_view::npos) {
                calls.push_back(i);
            }
        }
        for (ThreadOps &t : threads_)
            sortValues(t.eventRecords);
        for (EventIndex call : calls) {
            const DeviceEvent &r = ev_[call];
            const ThreadOps *t = threadOf(dev_.threadKey(r));
            if (!t)
                continue;
            const std::string_view name = dev_.name(r);
            const EventIndex lastOwn = lastLaunchedBefore(t->launches, r.ts);
            // The driver API's spellings are recorded, not drawn: the edges stay what docs/linking.md lists.
            const bool driver = name.starts_with("cu") && !name.starts_with("cuda");
            if (name == "cudaDeviceSynchronize" || name == "hipDeviceSynchronize" || name.starts_with("cuCtxSynchronize")) {
                if (lastOwn.valid())
                    syncAllStreamsOfDevice(ls_.index->lane(ls_.index->laneOfEvent(lastOwn)).device, call, syncTarget(call),
                                           BlockingKind::DeviceSync, !driver);
            } else if (name == "cudaStreamSynchronize" || name == "hipStreamSynchronize"
                       || name.starts_with("cuStreamSynchronize")) {
                // The call names no stream in the trace: the stream this thread launched to last.
                if (lastOwn.valid())
                    addWait(call, lastLaunchedOnLaneBefore(ls_.index->laneOfEvent(lastOwn), r.ts), BlockingKind::StreamSync,
                            syncTarget(call), !driver);
            } else if (name == "cudaEventSynchronize" || name == "hipEventSynchronize"
                       || name.starts_with("cuEventSynchronize")) {
                const EventIndex record = lastLaunchedBefore(t->eventRecords, r.ts);
                addWait(call, recordedOp(record, kNone), BlockingKind::EventSync, syncTarget(call), !driver);
            } else if (name == "cudaStreamWaitEvent" || name == "hipStreamWaitEvent") {
                const EventIndex source = recordedOp(lastLaunchedBefore(t->eventRecords, r.ts), kNone);
                const EventIndex waiter = firstLaunchAfter(*t, r.ts, kNone);
                if (source.valid() && waiter.valid() && ls_.index->laneOfEvent(source) != ls_.index->laneOfEvent(waiter))
                    addSyncEdge(source, waiter);
            }
        }
    }

    void addSyncEdgesFromSyncEvents()
    {
        for (EventIndex i{0}; i.get() < ev_.size(); ++i) {
            const DeviceEvent &s = ev_[i];
            if (s.category != EventCategory::CudaSync || s.phase != Phase::Complete)
                continue;
            const SyncArgs *waits = dev_.syncArgsOf(i);
            const std::int64_t waitOnStream = waits ? waits->waitOnStream : kNoId;
            const std::int64_t recordCorrelation = waits ? waits->recordCorrelation : kNoId;
            const EventIndex call = hasCorrelation(s.correlation) ? pickLaunch(s.correlation, s.ts) : EventIndex(kNone);
            if (call.isNone())
                continue;
            const std::int32_t device = s.device >= 0                     ? s.device
                                        : !dev_.threadKey(s).pid.isString ? static_cast<std::int32_t>(dev_.threadKey(s).pid.value)
                                                                          : -1;
            const std::string_view kind = dev_.name(s);
            EventIndex record;
            if (hasCorrelation(recordCorrelation))
                record = pickLaunch(recordCorrelation, ev_[call].ts);
            if (kind == "Context Sync") {
                syncAllStreamsOfDevice(device, call, syncTarget(call));
            } else if (kind == "Stream Sync") {
                const LaneIndex lane = laneOfStream(device, s.stream);
                if (lane.valid())
                    addWait(call, lastLaunchedOnLaneBefore(lane, ev_[call].ts), BlockingKind::StreamSync, syncTarget(call));
            } else if (kind == "Event Sync") {
                const LaneIndex lane = waitOnStream != kNoId ? laneOfStream(device, waitOnStream) : LaneIndex(kNone);
                addWait(call, recordedOp(record, lane), BlockingKind::EventSync, syncTarget(call));
            } else if (kind == "Stream Wait Event") {
                const LaneIndex lane = waitOnStream != kNoId ? laneOfStream(device, waitOnStream) : LaneIndex(kNone);
                const EventIndex source = recordedOp(record, lane);
                const ThreadOps *t = threadOf(dev_.threadKey(ev_[call]));
                const LaneIndex waiterLane = laneOfStream(device, s.stream);
                const EventIndex waiter = t ? firstLaunchAfter(*t, ev_[call].ts, waiterLane) : EventIndex(kNone);
                if (source.valid() && waiter.valid() && ls_.index->laneOfEvent(source) != ls_.index->laneOfEvent(waiter))
                    addSyncEdge(source, waiter);
            }
        }
    }

    // Chakra's enforce_inter_thread_order: at the first op of a thread and after every gap larger than the
    // threshold (measured from the previous op's end in start order), the latest-starting CPU op on any other
    // thread before it becomes the dependency of every op up to the next gap.
    void addInterThreadEdges()
    {
        for (std::uint32_t slot = 0; slot < threads_.size(); ++slot) {
            const ThreadOps &t = threads_[slot];
            EventIndex dep;
            for (std::size_t i = 0; i < t.chakra.size(); ++i) {
                const DeviceEvent &op = ev_[t.chakra[i]];
                if (i == 0 || op.ts - ev_[t.chakra[i - 1]].end() > opt_.interThreadGap)
                    dep = latestOnOtherThreads(slot, op.ts);
                if (dep.valid())
                    ls_.edges.push_back(Edge{dep, t.chakra[i], EdgeKind::InterThread});
            }
        }
    }

    EventIndex latestOnOtherThreads(std::uint32_t exclude, Nanos ts) const
    {
        EventIndex best;
        for (std::uint32_t slot = 0; slot < threads_.size(); ++slot) {
            if (slot == exclude)
                continue;
            const ThreadOps &t = threads_[slot];
            auto idx = std::lower_bound(t.chakraStart.begin(), t.chakraStart.end(), ts) - t.chakraStart.begin();
            if (idx == 0)
                continue;
            const EventIndex candidate = t.chakra[static_cast<std::size_t>(idx - 1)];
            if (best.isNone() || ev_[candidate].ts > ev_[best].ts)
                best = candidate;
        }
        return best;
    }

    // ---- host-side findings -------------------------------------------------------------------------

    void addHostFindings()
    {
        if (!host_)
            return;
        for (HostNodeIndex i{0}; i.get() < host_->nodes.size(); ++i) {
            const HostNode &n = host_->node(i);
            if (n.parentMissing)
                addFinding(FindingKind::EtParentMissing, FindingSeverity::Warning, i,
                           "ET node " + std::to_string(n.id) + " '" + std::string(host_->name(n)) + "' names parent "
                               + std::to_string(n.parentId) + ", which is not in the file",
                           "re-parent it to its thread root");
        }
        if (ls_.join.method != HostJoinMethod::RecordFunctionId)
            addTraceFinding(FindingKind::RfIdAbsent, FindingSeverity::Warning,
                            "the Kineto CPU ops carry no 'Record function id': the ET observer was not attached to the "
                            "profiler"
                                + std::string(ls_.join.method == HostJoinMethod::None
                                                  ? "; host and device ops could not be joined"
                                                  : "; joined by " + std::string(hostJoinMethodName(ls_.join.method))
                                                        + " (offset " + std::to_string(ls_.join.offset) + ") instead"),
                            "pass execution_trace_observer= to torch.profiler.profile() when collecting");
        if (ls_.join.method == HostJoinMethod::None)
            return;
        for (HostNodeIndex i{0}; i.get() < host_->nodes.size(); ++i)
            if (const HostNode &n = host_->node(i); n.rfId != 0 && eventOfHost_[i].isNone())
                addFinding(FindingKind::HostOpWithoutDevice, FindingSeverity::Info, i,
                           "ET op " + std::to_string(n.id) + " '" + std::string(host_->name(n)) + "' (rf_id "
                               + std::to_string(n.rfId) + ") has no Kineto CPU op",
                           "it gets no timing in the export; it may lie outside the profiling window");
        const TraceId hostPid{host_->pid, false};
        for (const ThreadOps &t : threads_) {
            if (!(t.key.pid == hostPid))
                continue;
            for (EventIndex event : t.nest)
                if (!hasHostNode(event))
                    addFinding(FindingKind::DeviceOpWithoutHost, FindingSeverity::Info, event,
                               "Kineto CPU op " + describe(event) + " has no ET node",
                               "GPU ops launched inside it are attached to its nearest ancestor with an ET node");
        }
    }

    const DeviceTrace &dev_;
    EventView ev_;
    const HostTrace *host_;
    const LinkOptions &opt_;
    std::shared_ptr<const TraceIndex> index_;
    LinkSet ls_;
    bool requireHostNode_ = false;
    using HostOfEvent = IndexedVector<EventIndex, HostNodeIndex>;
    using EventOfHost = IndexedVector<HostNodeIndex, EventIndex>;
    IndexedVector<EventIndex, GpuLinkIndex> gpuLinkOf_;
    HostOfEvent hostOfEvent_;
    EventOfHost eventOfHost_;
    IndexedVector<EventIndex, Nanos> exclusiveDur_;
    IndexedVector<EventIndex, EventIndex> opParent_; // until diagnoseGpuOps() moves it into the evidence
    const std::vector<EventIndex> *opParentView_ = &opParent_.raw();
    std::shared_ptr<LinkEvidence> evidence_ = std::make_shared<LinkEvidence>();
    std::vector<Finding> traceWide_, perOp_, hostSide_;
    std::vector<std::uint32_t> perOpBegin_;
    std::vector<Finding> *sink_ = &traceWide_;

    std::map<ThreadKey, std::uint32_t> slotOf_;
    std::vector<ThreadOps> threads_;
    std::vector<EventIndex> globalChakra_;
    std::vector<Nanos> globalChakraStart_;
    mutable std::unordered_map<std::int64_t, EventIndex> cpuOpByExternalId_; // built on first use (fallback)

    std::vector<std::pair<std::int64_t, EventIndex>> launchesByCorrelation_; // (correlation, event), sorted
    mutable std::size_t globalChakraFinger_ = 0;                             // see nearsearch.h
    std::vector<std::uint32_t> denseCorrelation_; // correlation - base → first position above (when dense)
    std::int64_t denseCorrelationBase_ = 0;
    std::unordered_map<std::int64_t, std::vector<EventIndex>> gpuAnnotations_;
    mutable bool flowIndexBuilt_ = false;
    mutable std::unordered_map<std::int64_t, EventIndex> flowStarts_;
    mutable std::map<ThreadKey, std::vector<std::pair<Nanos, std::int64_t>>> flowFinishes_;

    bool correlationsSpanProcesses_ = false;
    std::map<TraceId, TraceId> deviceOwner_;      // GPU pid → the CPU process launching onto it
    mutable std::vector<std::int8_t> ncclByName_; // StringId → -1 unknown, 0/1
    std::vector<LaunchContext> contexts_;         // parallel to gpuLinks
    LaunchContext lastContext_;
    std::unordered_map<LaneIndex, std::vector<std::pair<Nanos, EventIndex>>> streamLaunches_; // lane → launches
    std::unordered_set<std::uint64_t> syncEdgeSeen_;
    std::vector<BlockingWait> blocking_;
};

} // namespace

LinkSet linkTraces(const DeviceTrace &device, const HostTrace *host, const LinkOptions &options)
{
    return Linker(device, host, nullptr, options).run();
}

LinkSet linkWithIndex(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                      const LinkOptions &options)
{
    return Linker(device, host, std::move(index), options).run();
}

} // namespace linkscope::core
