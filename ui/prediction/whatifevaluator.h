#pragma once
// What the what-if panel (whatifpanel.h) replays its form on: the open pair's graph
// (PredictionController) or, with a job open, the job's graph with every rank and its collectives
// joined (JobWhatIf). Each answers with the predicted step against the baseline, the ops the what-if
// changes and, for a job, every rank's step.

#include "predict/pathdiff.h"
#include "predict/prediction.h"
#include "predict/simgraph.h"
#include "predict/whatif.h"
#include "predict/whatifmatch.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace linkscope::ui {

// One rank under a what-if (a job's evaluator lists every rank).
struct WhatIfRankStep {
    std::int64_t rank = -1;
    bool finished = false;
    std::int64_t baselineNs = 0, stepNs = 0;
    core::predict::Breakdown baselineBreakdown, breakdown; // along each run's critical path
    double changePct() const { return baselineNs ? 100.0 * double(stepNs - baselineNs) / double(baselineNs) : 0.0; }
};

// One rank's critical path under the what-if beside the baseline's (whatifdiffview.h shows it): the
// breakdowns, the top ops and what left the path or joined it.
struct WhatIfPathChange {
    std::int64_t rank = -1; // the pair's rank; a job's: the one whose step is the job's under the what-if
    core::predict::Breakdown baselineBreakdown, breakdown;
    std::vector<core::predict::PathShare> baselineTop, top;
    core::predict::PathDiff diff;
    core::predict::RankPath path; // the what-if's (PathStep::rank indexes the graph's ranks)
};

// A what-if replayed on the current graph.
struct WhatIfOutcome {
    QString description; // WhatIf::describe()
    QString error;       // non-empty: not replayed (e.g. a rank not in the job)
    bool finished = false;
    std::int64_t stepNs = 0; // the pair's step; a job's: its slowest rank's
    std::int64_t baselineNs = 0;
    double elapsedMs = 0;              // wall time of the replay
    bool matchCounted = false;         // the counts below are known
    std::size_t matchedNodes = 0;      // nodes the what-if changes
    std::size_t matchedOnPath = 0;     // of them on the baseline's critical path(s)
    QStringList warnings;              // a term that matches nothing, a delay with no step (predict/whatifmatch.h)
    std::vector<WhatIfRankStep> ranks; // a job's ranks, in the graph's order; empty for a pair
    bool pathKnown = false;            // `path` is filled (the replay finished)
    WhatIfPathChange path;
    double changePct() const { return baselineNs ? 100.0 * double(stepNs - baselineNs) / double(baselineNs) : 0.0; }
};

// Fills `out`'s match counts and warnings for `whatIf` on `job`, counted against `onPath`
// (predict/pathmembership.h): what both evaluators say beside the step.
void countMatches(WhatIfOutcome &out, const core::predict::SimJob &job, const core::WhatIf &whatIf,
                  const core::predict::PathMembership &onPath);

// Fills `out.path` from the baseline's and the what-if's summaries of the same rank of `job`
// (core/predict/prediction.h summarizeReplay); `diffLimit`: names listed per side of the path diff.
void describePathChange(WhatIfOutcome &out, const core::predict::SimJob &job, const core::predict::RankPrediction &baseline,
                        core::predict::RankPrediction whatIf, std::size_t diffLimit = 5);

class WhatIfEvaluator {
public:
    virtual ~WhatIfEvaluator() = default;
    // Replays the current graph under `whatIf` on the calling thread.
    virtual WhatIfOutcome evaluate(const core::WhatIf &whatIf) const = 0;
    // The rank a delay what-if is offered first (the pair's own, the job's slowest); -1: none yet.
    virtual std::int64_t defaultRank() const = 0;
    // What the evaluator replays, for the panel's tooltip ("the open pair, mirrored", "the job's 8 ranks").
    virtual QString scopeText() const = 0;
};

} // namespace linkscope::ui
