#pragma once
// How an event is named once a window or a job holds several ranks (docs/architecture.md,
// "Naming an event across ranks").
//
// Inside one rank every stage speaks in plain indices into that rank's arrays (EventIndex into
// DeviceTrace::events, HostNodeIndex into HostTrace::nodes). A value that leaves its rank — a
// selection in a multi-rank view, a cross-rank finding, a collective matched across ranks, a job
// report row — carries the rank with it: an EventRef or a HostNodeRef. The rank is the rank number
// of the job (RankId: Kineto distributedInfo.rank, or the number in the file names), not a
// position in some list, so a reference means the same thing in every window and in every shard of
// a job. A pair opened on its own is rank 0 unless its trace names its rank (kSingleRank).
//
// References are values: 8 bytes, ordered (rank first, then index), hashable. They are not stable
// across a reload of a rank's traces with other files; what survives a reload is a SubjectKey
// (edit/subjectkey.h), which names an event by what it is, not where it is.

#include "base/indices.h"

#include <functional>

namespace linkscope::core {

// The rank of a pair opened alone, whose trace does not name one.
inline constexpr RankId kSingleRank{0};

struct EventRef {
    RankId rank = kSingleRank;
    EventIndex event;

    constexpr bool valid() const { return event.valid() && rank.valid(); }
    friend constexpr auto operator<=>(const EventRef &, const EventRef &) = default;
};

struct HostNodeRef {
    RankId rank = kSingleRank;
    HostNodeIndex node;

    constexpr bool valid() const { return node.valid() && rank.valid(); }
    friend constexpr auto operator<=>(const HostNodeRef &, const HostNodeRef &) = default;
};

} // namespace linkscope::core

template <>
struct std::hash<linkscope::core::EventRef> {
    std::size_t operator()(const linkscope::core::EventRef &r) const noexcept
    {
        return std::hash<std::uint64_t>()((std::uint64_t(r.rank.value) << 32) | r.event.value);
    }
};
template <>
struct std::hash<linkscope::core::HostNodeRef> {
    std::size_t operator()(const linkscope::core::HostNodeRef &r) const noexcept
    {
        return std::hash<std::uint64_t>()((std::uint64_t(r.rank.value) << 32) | r.node.value);
    }
};
