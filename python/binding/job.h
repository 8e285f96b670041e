#pragma once
// linkscope.Job: a job folder's ranks run as `linkscope job` runs them (each rank opened, linked and
// corrected by its own sidecar, its collective calls and statistics kept, then released) without
// writing anything, and the cross-rank report built from what they returned.

#include "columns.h"
#include "predict.h"

#include "job/discovery.h"
#include "job/jobrun.h"

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace linkscope::python {

class Job {
public:
    Job(const std::vector<std::string> &paths, const std::string &policy, int jobs); // GIL released while it runs

    const core::job::JobLayout &layout() const { return layout_; }
    const core::job::JobReport &report() const { return report_; }
    const core::job::JobOptions &options() const { return options_; }
    const std::vector<std::string> &paths() const { return paths_; }

    pybind11::dict ranksTable() const;
    pybind11::dict findingsTable() const;
    pybind11::dict collectivesTable() const;
    pybind11::object reportJson() const; // job-report.json as a dict (docs/job-report.md)
    // Per rank: the statistics tables with a rank column (`which`: gpu_ops, cpu_ops, streams, devices, steps).
    pybind11::list statsTables(const std::string &which, std::size_t top) const;
    // `linkscope job DIR --out OUTDIR`: every rank's .et (and summary), comm_group.json, the network
    // fitted and job-report.json, written into `outDir`; `target` the .et's flavour (default astra-sim).
    // Returns {"et": [...], "comm_group", "network" (None when not fitted), "report"}.
    pybind11::dict exportTo(const std::string &outDir, const std::string &prefix, const std::string &target);

private:
    std::vector<std::string> paths_;
    core::job::JobLayout layout_;
    core::job::JobOptions options_;
    core::job::JobReport report_;
};

} // namespace linkscope::python
