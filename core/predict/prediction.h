#pragma once
// One prediction as the CLI and the GUI show it (docs/prediction.md): the job replayed as measured
// (the baseline) and under a what-if, per rank the step, its change, the breakdown and the critical
// path of the changed run.

#include "predict/criticalpath.h"
#include "predict/whatifmatch.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace linkscope::core::predict {

struct RankPrediction {
    std::int64_t rank = -1;
    bool finished = false;
    std::string stuck;
    std::int64_t baselineNs = 0; // the graph as exported
    std::int64_t stepNs = 0;     // under the what-if (= baselineNs without one)
    RankPath path;               // of the what-if's run
    std::vector<PathShare> top;  // the names that take most of the path
    double changePct() const { return baselineNs ? 100.0 * double(stepNs - baselineNs) / double(baselineNs) : 0.0; }
};

struct Prediction {
    std::string whatIf; // WhatIf::describe()
    ReplayModel model = ReplayModel::Faithful;
    Network network;                   // as replayed (after the what-if)
    std::vector<WhatIfMatch> matches;  // per term of the what-if: nodes changed, and on the baseline's critical paths
    std::vector<std::string> warnings; // a term that matches nothing, a delay with no step to go to (whatIfWarnings)
    std::vector<RankPrediction> ranks;
    std::int64_t baselineMakespanNs = 0, makespanNs = 0;
    double replayMs = 0; // wall time of the replays (both)
    // {"whatif", "network", "makespan_ns", "ranks": [{"rank", "step_ns", "baseline_step_ns",
    // "change_pct", "finished", "breakdown", "critical_path": [...], "top": [...]}]}; the path capped
    // at `pathLimit` steps per rank (the last ones: the end of the step), 0 for all.
    nlohmann::json toJson(const SimJob &job, std::size_t pathLimit = 0) const;
};

// Each rank of one replay of `job` as predict() reports it: its step against `baseline`'s (null: the
// run's own), its critical path and the `topLimit` names that take most of it. The ranks' paths are
// computed on every core. What a caller that replays a what-if itself (the GUI) shows beside the step.
std::vector<RankPrediction> summarizeReplay(const SimJob &job, const ReplayResult &run, const ReplayResult *baseline,
                                            std::size_t topLimit = 10);

// Replays the job as it is and under `whatIf` (once when it is empty). `topLimit`: names per rank.
// `run`, when given, receives the what-if's replay with its issue order (for slack, predict/criticalpath.h),
// so a caller that also wants the schedule does not replay a third time.
Prediction predict(const SimJob &job, const WhatIf &whatIf, std::size_t topLimit = 10, ReplayResult *run = nullptr,
                   ReplayModel model = ReplayModel::Faithful);

} // namespace linkscope::core::predict
