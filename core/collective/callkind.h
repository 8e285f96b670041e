#pragma once
// Which collective or point-to-point call a communication op is: one vocabulary for everything that
// asks (the classifier beside this file, a job's cross-rank checks, the exporters, the replay). How
// a kind is written in a Chakra `.et` is the writers' business (export/chakra/chakrakind.h).

#include <cstdint>
#include <optional>
#include <string_view>

namespace linkscope::core {

enum class CallKind : std::uint8_t {
    AllReduce,
    Reduce,
    AllGather,
    Gather,
    Scatter,
    Broadcast,
    AllToAll,
    ReduceScatter,
    Barrier,
    Send,
    Recv,
    Unknown, // a communication op whose collective could not be told (or a p2p op without a direction)
};
inline constexpr std::size_t kCallKindCount = static_cast<std::size_t>(CallKind::Unknown) + 1;

// Stable snake_case names ("all_reduce", "send", …, "unknown"): rank summaries and reports use them.
std::string_view callKindName(CallKind k);
std::optional<CallKind> callKindFromName(std::string_view name); // the names callKindName gives
inline bool isP2P(CallKind k) { return k == CallKind::Send || k == CallKind::Recv; }

} // namespace linkscope::core
