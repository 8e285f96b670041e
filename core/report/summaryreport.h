#pragma once
// `linkscope summary` and the GUI's Summary dock: a trace's (or every rank's) TraceStats
// (analysis/tracestats.h) as text, JSON (docs/summary.md) or one CSV table.

#include "analysis/tracestats.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace linkscope::core {

// One trace of the summary: a pair or a Kineto trace alone (rank -1), or a rank of a job.
struct SummaryPart {
    std::int64_t rank = -1;
    std::string host; // as given; empty for a Kineto trace alone
    std::string device;
    std::shared_ptr<const TraceStats> stats; // null when the trace could not be read
    std::string error;                       // why
    std::vector<Diagnostic> warnings;        // the readers' (device, then host): JSON "warnings"
};

struct SummaryReport {
    bool job = false;               // a job: per-rank rows, the ops summed over the ranks
    std::string folder;             // the job's folder
    std::vector<SummaryPart> parts; // one for a trace; rank order for a job
    // The ops of every part summed by name (one part: its own).
    std::vector<SummaryOpStat> gpuOps() const;
    std::vector<SummaryOpStat> cpuOps() const;
    bool hasErrors() const;
};

// A duration as the summary writes it: "1.234 s", "12.345 ms", "3.210 us", "17 ns" (negative too).
std::string durationText(Nanos ns);

// `top`: the GPU and CPU ops listed (0: all).
nlohmann::json summaryJson(const SummaryReport &report, std::size_t top);
std::string summaryText(const SummaryReport &report, std::size_t top);
// One table, a header line and a row per item, RFC 4180 quoting:
//   section,rank,name,category,count,total_ns,self_ns,mean_ns,max_ns,percent,comm_ns,exposed_comm_ns
// sections: gpu_op, cpu_op (top N, rank empty for a job's sum), stream, device (percent = busy over
// the extent), step (total = its duration), rank (a job: count = steps, total = GPU busy, mean = mean
// step, percent = GPU utilisation).
std::string summaryCsv(const SummaryReport &report, std::size_t top);

} // namespace linkscope::core
