#pragma once
// Predictions for the module: the graph from what the user has (a pair, a job folder, a job
// export, .et files — as `linkscope predict` builds it), what-ifs given as the CLI's flags (read by
// core's applyWhatIfOption, so a flag the CLI gains works here), and predict::predict's answer as
// tables: per rank the step, its breakdown, the critical path and the path's top ops.

#include "columns.h"

#include "job/jobrun.h"
#include "predict/whatif.h"

#include <string>
#include <vector>

namespace linkscope::python {

// The what-ifs as the CLI's flags and their values (["--scale-comm", "2", "--scale-gpu", "gemm=0.5"]).
// Throws std::invalid_argument for a flag that is not a what-if, or a bad value.
core::WhatIf parseWhatIf(const std::vector<std::string> &args);

struct PredictInputs {
    std::string host, device;        // a pair
    std::vector<std::string> paths;  // a job folder (traces or an export), or .et files
    std::string commGroups, network; // as --comm-groups, --network
    std::string prefix = "trace";    // a job export's prefix
    std::int64_t npus = 0;           // one .et standing for N ranks
    core::job::JobOptions job;       // policy, jobs
};

// Builds the graph, replays it as it is and under the what-ifs (GIL released), and returns
// {"whatif", "network", "network_source", "makespan_ns", "baseline_makespan_ns", "replay_ms",
//  "ranks": table, "breakdown": table, "critical_path": table, "top": table}.
pybind11::dict predictTables(const PredictInputs &inputs, const std::vector<std::string> &whatIfArgs, std::size_t top);

// `linkscope predict --opportunities` (predict/opportunities.h) on the same graph, in `model`
// ("faithful", "astra-sim"), GIL released: {"model", "baseline_makespan_ns", "critical_rank",
// "stragglers", "sweep_ms", "network_source", "not_offered": [(candidate, why)], "opportunities": table}.
pybind11::dict opportunitiesTable(const PredictInputs &inputs, const std::string &model);

} // namespace linkscope::python
