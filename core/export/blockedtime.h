#pragma once
// Time a CPU thread spends blocked is a dependency, not CPU work (docs/astra-sim-export.md,
// "Blocked time"). A thread blocks in a call that waits for the GPU (a synchronize, a blocking copy,
// an implicit sync: the linker's BlockingWait records, link/linkset.h) or in an op that waits for
// another thread (the main thread in `backward` while the autograd thread runs it). The astra-sim
// target takes these intervals out of the CPU node durations and makes the work that continues
// after them wait for what they waited for.

#include "link/linkset.h"
#include "model/devicetrace.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace linkscope::core {

struct EtPlusGraph;

struct BlockedInterval {
    Nanos begin = 0, end = 0;
};

struct BlockedKindStats {
    std::size_t calls = 0; // blocking calls of this kind with a GPU op they wait for
    Nanos callNs = 0;      // their time in all
    Nanos removedNs = 0;   // of which blocked (from the call's start to the end of what it waited for)
};

struct BlockedTimeStats {
    std::array<BlockedKindStats, kBlockingKindCount> kinds{};
    // Synchronising calls for which no awaited GPU op was found (their time stays CPU time).
    std::size_t unresolvedCalls = 0;
    Nanos unresolvedNs = 0;
    // Ops blocked on another thread: how many, and the time taken out of them.
    std::size_t threadWaits = 0;
    Nanos threadWaitNs = 0;
    // A thread idle until another's op ended (a worker waiting for work): gaps that are not CPU time.
    std::size_t idleWaits = 0;
    Nanos idleWaitNs = 0;

    Nanos removedNs() const; // every interval taken out of CPU work
    Nanos callNs() const;    // time in blocking calls (resolved and not)
    // Blocked time that stays in CPU durations: time in blocking calls not taken out (a call's
    // return after what it waited for ended, unresolved calls).
    Nanos keptNs() const { return callNs() - removedCallNs(); }
    Nanos removedCallNs() const;
    nlohmann::json toJson() const;
};

// Per thread (DeviceEvent::thread), sorted, disjoint.
using BlockedIntervals = std::map<ThreadIndex, std::vector<BlockedInterval>>;

// The intervals each blocking call of `links.blocking` spends waiting: from its start to the end of
// the last GPU op it waits for (clipped to the call), none when that op had ended before the call.
// The stats count the calls' time within [windowBegin, windowEnd) (what is exported and measured).
BlockedIntervals blockedCallIntervals(const DeviceTrace &device, const LinkSet &links, BlockedTimeStats &stats,
                                      Nanos windowBegin = std::numeric_limits<Nanos>::min(),
                                      Nanos windowEnd = std::numeric_limits<Nanos>::max());

// A thread waiting for another: an op with no child on its own thread, at least `minWait` long,
// during which ops of other threads of the process run at least half the time. Its time from the
// first such op's start to the end of the last (clipped to the op) is blocked; the op that continues
// on its thread waits for the last of them. Also, an op that starts a thread's work after it was idle
// (its first op, or one `minWait` after the previous ended) waits for the last op of another thread
// that ended before it started (the backward thread waits for the forward), and its idle time until
// that op ended is blocked too. Chains: each thread's
// CPU nodes, as the exporter chains them (graph positions). Adds the blocked intervals to `into`;
// returns (node, dependency) pairs: first the waits, then the starts (`startDeps` of them).
struct ThreadDeps {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waits;  // (continuation, last op of the other thread)
    std::vector<std::pair<std::uint32_t, std::uint32_t>> starts; // (first op after idle, op it follows)
};
ThreadDeps threadWaits(const EtPlusGraph &graph, const DeviceTrace &device, std::span<const std::uint32_t> chainBegin,
                       std::span<const std::uint32_t> chainList, BlockedIntervals &into, BlockedTimeStats &stats,
                       Nanos minWait = 100'000);

// Sorts and merges each thread's intervals.
void normaliseIntervals(BlockedIntervals &intervals);

} // namespace linkscope::core
