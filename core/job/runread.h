#pragma once
// The two runs `linkscope diff` compares, read from what the user names (docs/diff.md): each a
// Kineto trace, a host ET and its Kineto trace (either order), or a job folder (a trace per rank).
// Only the Kineto traces are read — everything report/rundiff.h compares is in them — every trace of
// both runs at the same time. The CLI's diff and the GUI's File ▸ Compare with… call this, then
// diffRuns (report/rundiff.h).

#include "io/file/outputguard.h"
#include "report/rundiff.h"

#include <atomic>
#include <string>
#include <vector>

namespace linkscope::core::job {

struct RunReadOptions {
    bool allowTruncated = false;               // read a trace cut short up to its cut
    int threads = 0;                           // traces read at the same time; 0: the cores
    const std::atomic<bool> *cancel = nullptr; // set: traces not started yet are not read
};

struct RunPair {
    RunSide a, b;
    std::vector<NamedFile> inputs;      // every file the runs name, host ETs too (an output may replace none)
    std::vector<std::string> truncated; // allowTruncated: where a trace was cut, one line each
};

// Plans and reads both runs. A rank that cannot be read keeps its error in RunRank::error (stats
// null): a job's rank is a warning of the diff, a single trace the run's failure — for the caller to
// decide (unreadableRun). Throws (std::exception, the message naming the input) when a run names
// nothing that can be read: a folder without ranks, a host ET alone, a file that does not open.
RunPair readRunPair(const std::vector<std::string> &a, const std::vector<std::string> &b, const RunReadOptions &options = {});

// The error of a run that is one trace and could not be read; empty when both can be compared.
std::string unreadableRun(const RunPair &runs);

} // namespace linkscope::core::job
