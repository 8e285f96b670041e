#include "link/hostjoin.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace linkscope::core {

namespace {

// Which Kineto id a join uses.
enum class KeySource { RecordFunctionId, EvIdx, ExternalId };

std::int64_t keyOf(const DeviceEvent &e, KeySource source)
{
    switch (source) {
    case KeySource::RecordFunctionId:
        return e.rfId == 0 ? kNoId : static_cast<std::int64_t>(e.rfId);
    case KeySource::EvIdx:
        return e.evIdx;
    case KeySource::ExternalId:
        return e.externalId;
    }
    return kNoId;
}

struct Candidate {
    KeySource source = KeySource::EvIdx;
    std::int64_t offset = 0;
    std::size_t nameAgreements = 0;
};

class Joiner {
public:
    Joiner(const HostTrace &host, const DeviceTrace &device) : host_(host), device_(device) { }

    HostJoin run()
    {
        HostJoin join;
        join.hostOfEvent.assign(device_.events.size(), kNone);
        join.eventOfHost.assign(host_.nodes.size(), kNone);
        if (host_.derived())
            return joinDerived(std::move(join));

        for (std::size_t i = 0; i < host_.nodes.size(); ++i)
            if (host_.nodes[i].rfId != 0)
                hostWithRf_.push_back(HostNodeIndex::at(i));
        join.stats.hostNodesWithRfId = hostWithRf_.size();
        collectDeviceCpuOps();
        join.stats.deviceCpuOps = cpuOps_.size();
        if (hostWithRf_.empty() || cpuOps_.empty()) {
            join.warnings.push_back(warning(hostWithRf_.empty() ? "the host trace has no node with an rf_id: nothing to join"
                                                                : "the device trace has no CPU op: nothing to join"));
            return join;
        }

        const bool anyRfId = std::any_of(cpuOps_.begin(), cpuOps_.end(),
                                         [&](EventIndex ev) { return device_.event(ev).rfId != 0; });
        Candidate chosen;
        if (anyRfId) {
            chosen.source = KeySource::RecordFunctionId;
            join.stats.method = HostJoinMethod::RecordFunctionId;
        } else {
            join.warnings.push_back(
                warning("Kineto CPU ops carry no 'Record function id' (the ET observer was not attached to the profiler); "
                        "joining by a constant Ev Idx / External id offset instead"));
            const Candidate byEvIdx = bestOffset(KeySource::EvIdx);
            const Candidate byExternal = bestOffset(KeySource::ExternalId);
            // On a tie the smaller offset wins (megatron: Ev Idx = rf_id + 1 over External id = rf_id + 2;
            // HTA's pair: External id = rf_id over Ev Idx = rf_id − 1), then Ev Idx, unique per file.
            const bool externalWins = byExternal.nameAgreements > byEvIdx.nameAgreements
                                      || (byExternal.nameAgreements == byEvIdx.nameAgreements
                                          && std::abs(byExternal.offset) < std::abs(byEvIdx.offset));
            chosen = externalWins ? byExternal : byEvIdx;
            const std::size_t needed = std::min(hostWithRf_.size(), cpuOps_.size()) / 2;
            if (chosen.nameAgreements == 0 || chosen.nameAgreements < needed) {
                join.warnings.push_back(warning("no constant offset between Ev Idx / External id and rf_id is confirmed by "
                                                "op names (best: "
                                                + std::to_string(chosen.nameAgreements) + " of "
                                                + std::to_string(std::min(hostWithRf_.size(), cpuOps_.size()))
                                                + " names agree); host nodes are left unjoined"));
                return join;
            }
            join.stats.method = chosen.source == KeySource::EvIdx ? HostJoinMethod::EvIdxOffset
                                                                  : HostJoinMethod::ExternalIdOffset;
            join.stats.offset = chosen.offset;
        }

        // The join itself: key − offset = rf_id.
        // (rf_id, event) sorted; of ops sharing a key the first in file order (smallest event) is used.
        std::vector<std::pair<std::int64_t, EventIndex>> eventByRf;
        eventByRf.reserve(cpuOps_.size());
        for (EventIndex ev : cpuOps_) {
            const std::int64_t key = keyOf(device_.event(ev), chosen.source);
            if (key == kNoId || (chosen.source == KeySource::RecordFunctionId && key == 0))
                continue;
            eventByRf.emplace_back(key - chosen.offset, ev);
        }
        if (!std::is_sorted(eventByRf.begin(), eventByRf.end()))
            std::sort(eventByRf.begin(), eventByRf.end());
        const std::size_t keyed = eventByRf.size();
        eventByRf.erase(
            std::unique(eventByRf.begin(), eventByRf.end(), [](const auto &a, const auto &b) { return a.first == b.first; }),
            eventByRf.end());
        const std::size_t duplicateKeys = keyed - eventByRf.size();
        // rf_ids are usually dense: a table indexed by rf_id − min answers each host node with one load.
        const std::int64_t minKey = eventByRf.empty() ? 0 : eventByRf.front().first;
        const std::int64_t maxKey = eventByRf.empty() ? -1 : eventByRf.back().first;
        // Unsigned differences: keys may span the whole int64 range.
        auto distance = [](std::int64_t from, std::int64_t to) {
            return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
        };
        std::vector<EventIndex> denseEventByRf;
        if (!eventByRf.empty() && distance(minKey, maxKey) < 4 * static_cast<std::uint64_t>(keyed) + 1024) {
            denseEventByRf.assign(static_cast<std::size_t>(distance(minKey, maxKey)) + 1, kNone);
            for (const auto &[key, ev] : eventByRf)
                denseEventByRf[static_cast<std::size_t>(distance(minKey, key))] = ev;
        }
        auto eventWithRf = [&](std::int64_t rf) -> EventIndex {
            if (rf < minKey || rf > maxKey)
                return kNone;
            if (!denseEventByRf.empty())
                return denseEventByRf[static_cast<std::size_t>(distance(minKey, rf))];
            auto it = std::lower_bound(eventByRf.begin(), eventByRf.end(), std::make_pair(rf, EventIndex(0)));
            return it != eventByRf.end() && it->first == rf ? it->second : EventIndex(kNone);
        };
        if (duplicateKeys > 0)
            join.warnings.push_back(warning(std::to_string(duplicateKeys)
                                            + " Kineto CPU ops share their join key with an earlier one; the first is used"));

        std::vector<std::string> mismatchExamples;
        for (HostNodeIndex node : hostWithRf_) {
            const HostNode &n = host_.node(node);
            const EventIndex event = eventWithRf(static_cast<std::int64_t>(n.rfId));
            if (!event)
                continue;
            join.eventOfHost[node.get()] = event;
            join.hostOfEvent[event.get()] = node;
            ++join.stats.matched;
            const DeviceEvent &e = device_.event(event);
            if (host_.name(n) != device_.name(e)) {
                ++join.stats.nameMismatches;
                if (mismatchExamples.size() < 5)
                    mismatchExamples.push_back("rf_id " + std::to_string(n.rfId) + " '" + std::string(host_.name(n)) + "' vs '"
                                               + std::string(device_.name(e)) + "'");
            }
        }
        if (join.stats.nameMismatches > 0) {
            std::string text = std::to_string(join.stats.nameMismatches)
                               + " joined host/device op pairs have different names, e.g. ";
            for (std::size_t i = 0; i < mismatchExamples.size(); ++i)
                text += (i ? "; " : "") + mismatchExamples[i];
            join.warnings.push_back(warning(text));
        }
        if (join.stats.matched < hostWithRf_.size())
            join.warnings.push_back(Diagnostic{Diagnostic::Severity::Info, host_.path, kUnknownOffset,
                                               std::to_string(hostWithRf_.size() - join.stats.matched) + " of "
                                                   + std::to_string(hostWithRf_.size())
                                                   + " host ops with an rf_id have no Kineto CPU op"});
        return join;
    }

private:
    // A host ET made from this Kineto trace: each node names its event.
    HostJoin joinDerived(HostJoin join) const
    {
        join.stats.method = HostJoinMethod::Derived;
        for (HostNodeIndex node{0}; node.in(host_.nodes.size()) && node.in(host_.derivedFrom.size()); ++node) {
            const EventIndex event = host_.derivedFrom[node.get()];
            if (!device_.contains(event))
                continue;
            ++join.stats.hostNodesWithRfId;
            ++join.stats.deviceCpuOps;
            ++join.stats.matched;
            join.eventOfHost[node.get()] = event;
            join.hostOfEvent[event.get()] = node;
        }
        return join;
    }

    Diagnostic warning(std::string message) const
    {
        return Diagnostic{Diagnostic::Severity::Warning, device_.path, kUnknownOffset, std::move(message)};
    }

    // Complete cpu_op / user_annotation events of the host's process (all processes if none matches).
    void collectDeviceCpuOps()
    {
        auto isCpuOp = [](const DeviceEvent &e) { return e.phase == Phase::Complete && isCpuOpCategory(e.category); };
        const TraceId hostPid{host_.pid, false};
        bool anyOfHostPid = false;
        for (const DeviceEvent &e : device_.events)
            if (isCpuOp(e) && device_.threadKey(e).pid == hostPid) {
                anyOfHostPid = true;
                break;
            }
        for (std::size_t i = 0; i < device_.events.size(); ++i) {
            const DeviceEvent &e = device_.events[i];
            if (isCpuOp(e) && (!anyOfHostPid || device_.threadKey(e).pid == hostPid))
                cpuOps_.push_back(EventIndex::at(i));
        }
    }

    std::size_t countAgreements(KeySource source, std::int64_t offset) const
    {
        std::size_t agree = 0;
        for (EventIndex ev : cpuOps_) {
            const DeviceEvent &e = device_.event(ev);
            const std::int64_t key = keyOf(e, source);
            if (key == kNoId)
                continue;
            auto it = hostByRf_.find(key - offset);
            if (it != hostByRf_.end() && host_.name(host_.node(it->second)) == device_.name(e))
                ++agree;
        }
        return agree;
    }

    // Votes for offsets from anchors spread over the trace: each anchor proposes key − rf_id for host
    // nodes of the same name with nearby rf_ids; the few most voted offsets are then checked on every op.
    Candidate bestOffset(KeySource source)
    {
        if (hostByRf_.empty()) {
            for (HostNodeIndex node : hostWithRf_)
                hostByRf_.emplace(static_cast<std::int64_t>(host_.node(node).rfId), node);
            for (HostNodeIndex node : hostWithRf_)
                rfByName_[host_.name(host_.node(node))].push_back(static_cast<std::int64_t>(host_.node(node).rfId));
            for (auto &[name, list] : rfByName_)
                std::sort(list.begin(), list.end());
        }
        std::vector<EventIndex> keyed;
        for (EventIndex ev : cpuOps_)
            if (keyOf(device_.event(ev), source) != kNoId)
                keyed.push_back(ev);
        Candidate best{source, 0, 0};
        if (keyed.empty())
            return best;

        constexpr std::size_t kAnchors = 256;
        constexpr std::ptrdiff_t kNeighbours = 4;
        std::unordered_map<std::int64_t, std::size_t> votes;
        const std::size_t step = std::max<std::size_t>(1, keyed.size() / kAnchors);
        for (std::size_t a = 0; a < keyed.size(); a += step) {
            const DeviceEvent &e = device_.event(keyed[a]);
            auto it = rfByName_.find(device_.name(e));
            if (it == rfByName_.end())
                continue;
            const auto &rfs = it->second;
            const std::int64_t key = keyOf(e, source);
            const auto pos = std::lower_bound(rfs.begin(), rfs.end(), key) - rfs.begin();
            const auto lo = std::max<std::ptrdiff_t>(0, pos - kNeighbours);
            const auto hi = std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(rfs.size()), pos + kNeighbours);
            for (auto i = lo; i < hi; ++i)
                ++votes[key - rfs[static_cast<std::size_t>(i)]];
        }
        std::vector<std::pair<std::size_t, std::int64_t>> ranked;
        for (auto [offset, count] : votes)
            ranked.emplace_back(count, offset);
        std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first > b.first : std::abs(a.second) < std::abs(b.second);
        });
        // Offset 0 is always worth a check: it is what HTA assumes (rf_id == External id).
        if (std::none_of(ranked.begin(), ranked.end(), [](const auto &r) { return r.second == 0; }))
            ranked.emplace_back(0, 0);
        constexpr std::size_t kChecked = 6;
        std::size_t checked = 0;
        for (const auto &[count, offset] : ranked) {
            if (checked++ >= kChecked && offset != 0)
                continue;
            const std::size_t agree = countAgreements(source, offset);
            if (agree > best.nameAgreements
                || (agree == best.nameAgreements && agree > 0 && std::abs(offset) < std::abs(best.offset)))
                best = Candidate{source, offset, agree};
        }
        return best;
    }

    const HostTrace &host_;
    const DeviceTrace &device_;
    std::vector<HostNodeIndex> hostWithRf_;
    std::vector<EventIndex> cpuOps_;
    std::unordered_map<std::int64_t, HostNodeIndex> hostByRf_;
    std::unordered_map<std::string_view, std::vector<std::int64_t>> rfByName_;
};

} // namespace

HostJoin joinHostToDevice(const HostTrace &host, const DeviceTrace &device) { return Joiner(host, device).run(); }

} // namespace linkscope::core
