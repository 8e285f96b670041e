#pragma once
// What set a rank's predicted step (docs/prediction.md, "Critical path"): the chain of nodes, back
// from the rank's last node to time 0, each started by the end of the one before (a dependency, the
// resource it waited for, the last rank to join a collective, the send a receive waited for); the
// step broken down along it; and each node's slack in the replayed schedule.

#include "predict/replay.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::core::predict {

// A stretch of the path: CPU or GPU work of the rank itself, a transfer (a collective from its last
// member's arrival, a send, a message a receive waited for) on any rank, or CPU/GPU work of another
// rank the rank waited for through a collective or a message.
enum class PathCategory : std::uint8_t { Cpu, Gpu, Comm, OtherRank, Idle };
std::string_view pathCategoryName(PathCategory c); // "cpu", "gpu", "comm", "other_rank", "idle"

struct PathStep {
    std::int32_t rank = -1; // index into SimJob::ranks
    std::uint32_t node = kNoNode;
    std::int64_t startNs = 0, endNs = 0; // the stretch on the path (a collective: its transfer)
    PathCategory category = PathCategory::Cpu;
};

struct Breakdown {
    std::int64_t cpuNs = 0, gpuNs = 0, commNs = 0, otherRankNs = 0, idleNs = 0;
    std::int64_t total() const { return cpuNs + gpuNs + commNs + otherRankNs + idleNs; }
    nlohmann::json toJson() const;
};

struct RankPath {
    std::int64_t rank = -1;
    std::int64_t stepNs = 0;
    Breakdown breakdown;         // sums to stepNs
    std::vector<PathStep> steps; // in time order
};

// The path that ends at rank `rankIndex`'s last node. Empty when the rank did not finish.
RankPath criticalPath(const SimJob &job, const ReplayResult &replay, std::size_t rankIndex);

// Whose work a path spent on other ranks (its other_rank stretches, by the rank they ran on and
// whether it was CPU or GPU work), most first. When one straggler sets every rank's step, every
// other rank's path is that straggler's work: "other ranks 99.9 %" is then "rank 6's CPU".
struct OtherRankShare {
    std::int64_t rank = -1; // the job's rank number (SimRank::rank)
    std::int64_t cpuNs = 0, gpuNs = 0;
    std::int64_t totalNs() const { return cpuNs + gpuNs; }
};
std::vector<OtherRankShare> otherRanksOfPath(const SimJob &job, const RankPath &path);

// The names that take most of a path: (rank, name, kind) with their time on it, longest first.
struct PathShare {
    std::int64_t rank = -1;
    std::string name;
    NodeKind kind = NodeKind::Cpu;
    std::int64_t ns = 0;
    std::size_t count = 0;
};
std::vector<PathShare> topOfPath(const SimJob &job, const RankPath &path, std::size_t limit);

// Per rank, per node: how much later it could have finished without moving any rank's end (in the
// schedule the replay found: dependencies, the order each resource ran its nodes, collectives and
// messages); -1 for a node that never ran. Needs ReplayOptions::keepIssueOrder.
std::vector<std::vector<std::int64_t>> slack(const SimJob &job, const ReplayResult &replay);

} // namespace linkscope::core::predict
