#include "edit/subjectkey.h"

#include <algorithm>

namespace linkscope::core {

IdValue IdValue::of(const TraceId &id, const StringPool &strings)
{
    IdValue out;
    out.isString = id.isString;
    if (id.isString)
        out.text = std::string(strings.at(static_cast<StringId>(id.value)));
    else
        out.number = id.value;
    return out;
}

std::optional<TraceId> IdValue::in(const StringPool &strings) const
{
    if (!isString)
        return TraceId{number, false};
    const StringId id = strings.find(text);
    if (id == StringPool::kMissing)
        return std::nullopt;
    return TraceId{static_cast<std::int64_t>(id), true};
}

std::string SubjectKey::describe() const
{
    switch (kind) {
    case KeyKind::GpuOp:
    case KeyKind::Runtime: {
        std::string out = name + " (pid " + pid.display() + ", correlation " + std::to_string(correlation);
        if (ordinal > 0)
            out += " #" + std::to_string(ordinal);
        return out + ")";
    }
    case KeyKind::CpuOp:
        if (rfId != 0)
            return name + " (pid " + pid.display() + ", rf_id " + std::to_string(rfId) + ")";
        if (evIdx != kNoId)
            return name + " (pid " + pid.display() + ", Ev Idx " + std::to_string(evIdx) + ")";
        return name + " (pid " + pid.display() + ", tid " + tid.display() + ", ts " + std::to_string(ts) + " ns"
               + (ordinal > 0 ? " #" + std::to_string(ordinal) : std::string()) + ")";
    case KeyKind::HostNode:
        return name + " (ET node " + std::to_string(hostId) + ")";
    case KeyKind::Trace:
        return "the trace";
    }
    return name;
}

SubjectResolver::SubjectResolver(const DeviceTrace &device, const HostTrace *host) : device_(device), host_(host) { }

KeyKind SubjectResolver::kindOfEvent(const DeviceEvent &event)
{
    if (isGpuOpCategory(event.category))
        return KeyKind::GpuOp;
    if (isRuntimeCategory(event.category))
        return KeyKind::Runtime;
    return KeyKind::CpuOp;
}

std::uint32_t SubjectResolver::pidSlot(const TraceId &pid) const
{
    std::call_once(pidsBuilt_, [&] {
        pidSlotOfEvent_.assign(device_.events.size(), 0);
        TraceId last{};
        std::uint32_t lastSlot = kNoSlot;
        for (EventIndex i{0}; i.get() < device_.events.size(); ++i) {
            const TraceId &p = device_.threadKey(device_.event(i)).pid;
            if (lastSlot == kNoSlot || !(p == last)) {
                last = p;
                lastSlot = pidSlots_.try_emplace(p, static_cast<std::uint32_t>(pidSlots_.size())).first->second;
            }
            pidSlotOfEvent_[i] = lastSlot;
        }
    });
    const auto it = pidSlots_.find(pid);
    return it == pidSlots_.end() ? kNoSlot : it->second;
}

const std::vector<SubjectResolver::Entry> &SubjectResolver::table(Table which) const
{
    pidSlot(TraceId{}); // builds the pid slots
    std::call_once(built_[which], [&] {
        std::vector<Entry> &out = tables_[which];
        const auto &events = device_.events;
        auto wanted = [which](const DeviceEvent &e) {
            const KeyKind kind = kindOfEvent(e);
            switch (which) {
            case GpuCorrelation:
                return kind == KeyKind::GpuOp;
            case RuntimeCorrelation:
                return kind == KeyKind::Runtime;
            case RfId:
                return kind == KeyKind::CpuOp && e.rfId != 0;
            case EvIdx:
                return kind == KeyKind::CpuOp && e.evIdx != kNoId;
            case ByTime:
                return kind == KeyKind::CpuOp;
            case TableCount:
                break;
            }
            return false;
        };
        // Counted first: growing a multi-million-row vector by doubling costs more than the pass.
        out.reserve(static_cast<std::size_t>(std::count_if(events.begin(), events.end(), wanted)));
        for (EventIndex i{0}; i.get() < events.size(); ++i) {
            const DeviceEvent &e = device_.event(i);
            const KeyKind kind = kindOfEvent(e);
            const std::uint32_t slot = pidSlotOfEvent_[i];
            switch (which) {
            case GpuCorrelation:
                if (kind == KeyKind::GpuOp)
                    out.push_back({slot, 0, e.correlation, e.ts, i});
                break;
            case RuntimeCorrelation:
                if (kind == KeyKind::Runtime)
                    out.push_back({slot, 0, e.correlation, e.ts, i});
                break;
            case RfId:
                if (kind == KeyKind::CpuOp && e.rfId != 0)
                    out.push_back({slot, 0, static_cast<std::int64_t>(e.rfId), 0, i});
                break;
            case EvIdx:
                if (kind == KeyKind::CpuOp && e.evIdx != kNoId)
                    out.push_back({slot, 0, e.evIdx, 0, i});
                break;
            case ByTime:
                if (kind == KeyKind::CpuOp)
                    out.push_back({slot, device_.threadKey(e).tid.isString ? 1u : 0u, device_.threadKey(e).tid.value, e.ts, i});
                break;
            case TableCount:
                break;
            }
        }
        std::sort(out.begin(), out.end(), [](const Entry &l, const Entry &r) {
            if (l.pidSlot != r.pidSlot)
                return l.pidSlot < r.pidSlot;
            if (l.aIsString != r.aIsString)
                return l.aIsString < r.aIsString;
            if (l.a != r.a)
                return l.a < r.a;
            if (l.ts != r.ts)
                return l.ts < r.ts;
            return l.event < r.event;
        });
    });
    return tables_[which];
}

std::pair<const SubjectResolver::Entry *, const SubjectResolver::Entry *> SubjectResolver::range(Table which, std::uint32_t slot,
                                                                                                 std::int64_t a,
                                                                                                 bool aIsString) const
{
    const auto &rows = table(which);
    const std::uint32_t isString = aIsString ? 1u : 0u;
    auto before = [&](const Entry &e) { return std::tie(e.pidSlot, e.aIsString, e.a) < std::tie(slot, isString, a); };
    auto after = [&](const Entry &e) { return std::tie(slot, isString, a) < std::tie(e.pidSlot, e.aIsString, e.a); };
    auto lower = std::partition_point(rows.begin(), rows.end(), before);
    auto upper = std::partition_point(lower, rows.end(), [&](const Entry &e) { return !after(e); });
    return {rows.data() + (lower - rows.begin()), rows.data() + (upper - rows.begin())};
}

std::pair<const SubjectResolver::Entry *, const SubjectResolver::Entry *> SubjectResolver::timeRange(std::uint32_t slot,
                                                                                                     const TraceId &tid,
                                                                                                     Nanos ts) const
{
    const auto &rows = table(ByTime);
    const std::uint32_t isString = tid.isString ? 1u : 0u;
    const auto key = std::tie(slot, isString, tid.value, ts);
    auto lower = std::partition_point(rows.begin(), rows.end(),
                                      [&](const Entry &e) { return std::tie(e.pidSlot, e.aIsString, e.a, e.ts) < key; });
    auto upper = std::partition_point(lower, rows.end(),
                                      [&](const Entry &e) { return !(key < std::tie(e.pidSlot, e.aIsString, e.a, e.ts)); });
    return {rows.data() + (lower - rows.begin()), rows.data() + (upper - rows.begin())};
}

SubjectKey SubjectResolver::keyOfEvent(EventIndex event) const
{
    const DeviceEvent &e = device_.events.at(event.get());
    SubjectKey key;
    key.kind = kindOfEvent(e);
    key.pid = IdValue::of(device_.threadKey(e).pid, device_.strings);
    key.name = std::string(device_.name(e));
    auto ordinalIn = [event](std::pair<const Entry *, const Entry *> rows) {
        for (const Entry *row = rows.first; row != rows.second; ++row)
            if (row->event == event)
                return static_cast<std::uint32_t>(row - rows.first);
        return 0u;
    };
    const std::uint32_t slot = pidSlot(device_.threadKey(e).pid);
    if (key.kind != KeyKind::CpuOp) {
        key.correlation = e.correlation;
        key.ordinal = ordinalIn(
            range(key.kind == KeyKind::GpuOp ? GpuCorrelation : RuntimeCorrelation, slot, e.correlation, false));
        return key;
    }
    if (e.rfId != 0) {
        const auto rows = range(RfId, slot, static_cast<std::int64_t>(e.rfId), false);
        if (rows.second - rows.first == 1) {
            key.rfId = e.rfId;
            return key;
        }
    }
    if (e.evIdx != kNoId) {
        const auto rows = range(EvIdx, slot, e.evIdx, false);
        if (rows.second - rows.first == 1) {
            key.evIdx = e.evIdx;
            return key;
        }
    }
    key.tid = IdValue::of(device_.threadKey(e).tid, device_.strings);
    key.ts = e.ts;
    key.ordinal = ordinalIn(timeRange(slot, device_.threadKey(e).tid, e.ts));
    return key;
}

SubjectKey SubjectResolver::keyOfHostNode(HostNodeIndex node) const
{
    SubjectKey key;
    key.kind = KeyKind::HostNode;
    if (host_) {
        const HostNode &n = host_->nodes.at(node.get());
        key.hostId = n.id;
        key.name = std::string(host_->name(n));
    }
    return key;
}

SubjectKey SubjectResolver::traceKey()
{
    SubjectKey key;
    key.kind = KeyKind::Trace;
    return key;
}

SubjectResolver::Resolution SubjectResolver::resolve(const SubjectKey &key) const
{
    auto gone = [&](const std::string &why) { return Resolution{kNone, kNone, key.describe() + ": " + why}; };
    auto checkName = [&](EventIndex event) {
        const std::string_view actual = device_.name(device_.event(event));
        if (actual != key.name)
            return gone("the event there is now named '" + std::string(actual) + "'");
        return Resolution{event, kNone, {}};
    };

    if (key.kind == KeyKind::Trace)
        return Resolution{kNone, kNone, {}};
    if (key.kind == KeyKind::HostNode) {
        if (!host_)
            return gone("no host trace is loaded");
        const HostNodeIndex node = host_->indexOf(key.hostId);
        if (node.isNone())
            return gone("no ET node with that id");
        const std::string_view actual = host_->name(host_->node(node));
        if (actual != key.name)
            return gone("the ET node is now named '" + std::string(actual) + "'");
        return Resolution{kNone, node, {}};
    }

    const std::optional<TraceId> pid = key.pid.in(device_.strings);
    const std::uint32_t slot = pid ? pidSlot(*pid) : kNoSlot;
    if (slot == kNoSlot)
        return gone("no event has that pid");

    if (key.kind == KeyKind::GpuOp || key.kind == KeyKind::Runtime) {
        const auto rows = range(key.kind == KeyKind::GpuOp ? GpuCorrelation : RuntimeCorrelation, slot, key.correlation, false);
        const auto count = static_cast<std::size_t>(rows.second - rows.first);
        if (count == 0)
            return gone(key.kind == KeyKind::GpuOp ? "no GPU op with that correlation" : "no runtime call with that correlation");
        if (key.ordinal >= count)
            return gone("only " + std::to_string(count) + " op(s) have that correlation");
        return checkName(rows.first[key.ordinal].event);
    }

    // CpuOp
    if (key.rfId != 0 || key.evIdx != kNoId) {
        const bool byRf = key.rfId != 0;
        const auto rows = byRf ? range(RfId, slot, static_cast<std::int64_t>(key.rfId), false)
                               : range(EvIdx, slot, key.evIdx, false);
        if (rows.first == rows.second)
            return gone(byRf ? "no CPU op with that Record function id" : "no CPU op with that Ev Idx");
        if (rows.second - rows.first == 1)
            return checkName(rows.first->event);
        // The id is no longer unique: accept it only if exactly one of them has the name.
        EventIndex match = kNone;
        for (const Entry *row = rows.first; row != rows.second; ++row) {
            if (device_.name(device_.event(row->event)) != key.name)
                continue;
            if (match.valid())
                return gone("several CPU ops share that id and name");
            match = row->event;
        }
        if (match.isNone())
            return gone("no CPU op with that id has that name");
        return Resolution{match, kNone, {}};
    }
    const std::optional<TraceId> tid = key.tid.in(device_.strings);
    if (!tid)
        return gone("no thread with that tid");
    const auto rows = timeRange(slot, *tid, key.ts);
    const auto count = static_cast<std::size_t>(rows.second - rows.first);
    if (count == 0)
        return gone("no CPU op starts there");
    if (key.ordinal >= count)
        return gone("only " + std::to_string(count) + " op(s) start there");
    return checkName(rows.first[key.ordinal].event);
}

} // namespace linkscope::core
