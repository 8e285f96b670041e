#pragma once
// linkscope.Pair: one host ET + Kineto pair (or a Kineto trace alone) opened through the pair
// pipeline (openPair, as `linkscope link` and the GUI open it), its tables, its corrections (a
// CorrectionSession on the same sidecar the GUI writes) and its export (the export-target table).

#include "columns.h"

#include "analysis/tracestats.h"
#include "edit/correctionsession.h"
#include "pipeline/pairpipeline.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

namespace linkscope::python {

struct PairOptions {
    std::string host; // empty: a Kineto trace alone
    std::string device;
    std::string policy;        // empty: the sidecar's, else nesting
    std::string sidecar;       // empty: the device trace's own (defaultSidecarPath)
    bool resolveOrder = false; // host and device in either order: told apart by content
    bool forceCorrections = false;
    bool allowTruncated = false;
    bool interThreadDeps = false;
    std::int64_t toleranceNs = 1000;
};

// The trace-wide statistics as tables (docs/summary.md), one row per op, stream, GPU or step;
// `rank` >= 0 adds a rank column (a job's ranks).
// A progress function that stops the pipeline (core's Cancelled, raised in Python as
// KeyboardInterrupt) when Python has a signal pending (Ctrl+C). Call it with the GIL held.
core::PairProgressFn interruptible();

Table gpuOpsTable(const core::TraceStats &stats, std::size_t top, std::int64_t rank = -1);
Table cpuOpsTable(const core::TraceStats &stats, std::size_t top, std::int64_t rank = -1);
Table streamsTable(const core::TraceStats &stats, std::int64_t rank = -1);
Table devicesTable(const core::TraceStats &stats, std::int64_t rank = -1);
Table stepsTable(const core::TraceStats &stats, std::int64_t rank = -1);

class Pair {
public:
    explicit Pair(const PairOptions &options); // reads and links with the GIL released
    ~Pair();

    const PairOptions &options() const { return options_; }
    const core::OpenedPair &opened() const { return pair_; }
    const core::LinkSet &links() const; // the corrected links
    std::string sidecarPath() const { return sidecarPath_; }
    pybind11::dict info() const;

    pybind11::dict linksTable() const;
    pybind11::dict findingsTable() const;
    pybind11::dict gpuOps(std::size_t top);
    pybind11::dict cpuOps(std::size_t top);
    pybind11::dict streams();
    pybind11::dict devices();
    pybind11::dict steps();

    // Corrections: each applied and saved to the sidecar at once; returns the outcome of each edit.
    pybind11::list reparent(std::int64_t gpuEvent, std::int64_t parentEvent, const std::string &label);
    pybind11::list detach(std::int64_t gpuEvent, const std::string &label);
    pybind11::list restore(std::int64_t gpuEvent, const std::string &label);
    pybind11::list flag(std::int64_t event, const std::string &note, const std::string &label);
    pybind11::list note(std::int64_t event, const std::string &text, const std::string &label);
    pybind11::list applySuggestions(const std::string &findingKind, const std::string &label);
    bool undo();
    pybind11::dict correctionsTable() const;

    // outputs: target name (export/targets.h) → path. Returns target → bytes written.
    pybind11::dict exportTo(const pybind11::dict &outputs, const std::string &target, bool gzip);

private:
    core::EventIndex eventArg(std::int64_t event, const char *what) const;
    core::CorrectionSession &session();
    pybind11::list push(core::LogEntry entry);
    const core::TraceStats &stats();

    PairOptions options_;
    core::OpenedPair pair_;
    std::string sidecarPath_;
    std::unique_ptr<core::CorrectionSession> session_; // made at the first correction
    std::unique_ptr<core::TraceStats> stats_;
};

} // namespace linkscope::python
