#pragma once
// `linkscope predict A [what-ifs] --against B` (docs/prediction.md, "Was the prediction right?"):
// the step predicted for each rank of A under the what-ifs beside the step measured in run B, the
// error, and where the two part — GPU time per kernel family, per stream — so that a what-if can
// be checked against the run that made the change for real.
//
// B's step is the export's measured_ns (JobGraph::measuredNs): what bench/whatif.sh takes as the
// truth, so the errors printed here are the benchmark's. The kernel and stream times on both sides
// are what the model replays (Durations: lane_dur_ns, a kernel with its dispatch wait, under the
// faithful model; duration_micros under astra-sim): A's scaled by the what-if, B's as exported.

#include "predict/jobgraph.h"
#include "predict/prediction.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace linkscope::core::predict {

struct AgainstFigure {
    std::int64_t rank = -1; // -1: summed over the ranks
    std::string name;       // a kernel family (report/opname.h), "stream S"; empty for a rank's step
    std::int64_t predictedNs = 0, measuredNs = 0;
    std::int64_t gapNs() const { return predictedNs - measuredNs; }
    double errorPct() const; // predicted / measured − 1, in percent (0 when nothing was measured)
};

struct Against {
    std::string source;                  // what B is (a folder, a pair)
    std::vector<AgainstFigure> ranks;    // the step of every rank predicted (finished) and measured, ascending
    std::int64_t meanPredictedNs = 0;    // over `ranks`
    std::int64_t meanMeasuredNs = 0;     // over `ranks`
    double meanErrorPct = 0;             // of the means: bench/whatif.sh's "error"
    std::int64_t worstRank = -1;         // the rank with the largest |error|: the benchmark's "worst rank"
    double worstErrorPct = 0;            //
    std::vector<AgainstFigure> families; // GPU compute time per kernel family over the ranks compared, by |gap|
    std::vector<AgainstFigure> streams;  // GPU compute time per rank and stream, by rank then stream
    std::vector<AgainstFigure> cpu;      // CPU time per rank compared (its CPU nodes, every thread's summed)
    std::vector<std::string> warnings;   // ranks in one run only, ranks that did not finish

    // `top`: families listed (0: all).
    nlohmann::json toJson(std::size_t top = 0) const;
    std::string text(std::size_t top = 10) const;
};

// Run B as `predict --against` reads it, with `source` (its inputs, " + " between a pair's) for the
// messages: a folder is a job export (its job-report.json holds the measured steps) or a job's traces
// (exported as exportJobGraph does, under `options`); one or two files a pair (either order; a
// Kineto trace alone has no measured step to compare with: refused). Throws std::exception naming
// the input. The CLI and the GUI's check (ui/compare/) read B through it.
struct MeasuredRun {
    JobGraph graph;
    std::string source;
};
MeasuredRun readMeasuredRun(const std::vector<std::string> &inputs, const job::JobOptions &options);

// `a` predicted under `whatIf` on `model` (`prediction`), against `b`, the measured run's graph with
// its measured steps. Throws std::invalid_argument naming B when it has no measured step
// (.et files without their job-report.json) or no rank can be compared.
Against compareAgainst(const SimJob &a, const Prediction &prediction, const WhatIf &whatIf, ReplayModel model, const JobGraph &b,
                       const std::string &source);

} // namespace linkscope::core::predict
