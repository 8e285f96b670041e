#pragma once
// What to fix first (docs/prediction.md, "Opportunities"): a sweep of candidate changes — each GPU
// kernel family and each GPU stream on a critical path ×0.5, all compute kernels ×0.5, communication,
// bandwidth and latency, each straggler rank's CPU, the longest CPU ops of the job's critical path and
// all CPU ×0.5 — each replayed as a what-if on the graph already built, ranked by how much it
// shortens the job's step (the makespan).

#include "predict/criticalpath.h"
#include "predict/whatif.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::predict {

// A kernel's family: its own name before template arguments and parameters, without the return type
// ("void at::native::vectorized_elementwise_kernel<4, …>(…)" → "at::native::vectorized_elementwise_kernel";
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL" stays). "(anonymous namespace)" is part of a name.
std::string kernelFamily(std::string_view name);
// An ECMAScript regex (as --scale-gpu searches it) that matches exactly the names whose family is `family`.
std::string kernelFamilyPattern(std::string_view family);
// `text` with every regex metacharacter escaped.
std::string escapeRegex(std::string_view text);

enum class OpportunityKind : std::uint8_t {
    KernelFamily, // one kernel family on a critical path, every rank
    AllKernels,   // every compute kernel (not copies, not sets)
    Stream,       // one GPU stream id on a critical path, every rank
    Transfers,    // every transfer (bandwidth ÷, latency ×)
    Bandwidth,    // the network's bandwidth
    Latency,      // the network's latency
    RankCpu,      // a straggler rank's CPU
    CpuOp,        // one CPU op (by name) of one rank on the job's critical path
    AllCpu,       // every rank's CPU
};
std::string_view opportunityKindName(OpportunityKind kind); // "kernel_family", "all_kernels", "stream", …

struct RankGain {
    std::int64_t rank = -1;
    std::int64_t baselineNs = 0, stepNs = 0;
    bool finished = true;
    std::int64_t gainNs() const { return baselineNs - stepNs; }
};

struct Opportunity {
    OpportunityKind kind = OpportunityKind::AllCpu;
    std::string title;             // WhatIf::describe(), with what it stands for
    std::vector<std::string> args; // the `linkscope predict` what-if arguments that replay it
    std::string pattern;           // KernelFamily, AllKernels, RankCpu, AllCpu: the regex
    std::int64_t rank = -1;        // RankCpu, CpuOp: the rank
    std::int64_t stream = -1;      // Stream: the stream id
    double factor = 1;             // what the durations (or the bandwidth) are multiplied by
    WhatIf whatIf;
    std::size_t nodes = 0, onPath = 0; // nodes it changes; of them on a critical path before the change
    std::int64_t pathNs = 0;           // their time on the critical paths before the change (0 for network terms)
    std::int64_t baselineMakespanNs = 0, makespanNs = 0;
    bool finished = true; // every rank finished under it
    std::vector<RankGain> ranks;
    // The job's critical path (the path of the rank that ends last) before and after, by the kind of
    // work whichever rank did it (cpu, gpu, comm, idle; no other_rank).
    std::int64_t criticalRankBefore = -1, criticalRankAfter = -1;
    Breakdown pathBefore, pathAfter;
    std::int64_t gainNs() const { return finished ? baselineMakespanNs - makespanNs : 0; }
    double gainPct() const { return baselineMakespanNs ? 100.0 * double(gainNs()) / double(baselineMakespanNs) : 0.0; }
    // "cpu −12.3 ms, comm +0.4 ms; rank 3 now ends last": what moved on the job's critical path.
    std::string moved() const;
};

// A candidate the sweep does not offer, and why.
struct NotOffered {
    std::string candidate;
    std::string why;
};

struct OpportunityOptions {
    ReplayModel model = ReplayModel::Faithful;
    double factor = 0.5; // durations × factor; the bandwidth ÷ factor
    // A straggler's CPU is offered when its CPU work is at least this share of the job's critical path.
    double stragglerShare = 0.01;
    // CPU ops (a rank's ops of one name) on the job's critical path offered one by one: the longest,
    // at most this many, each at least `cpuOpShare` of the path.
    std::size_t maxCpuOps = 16;
    double cpuOpShare = 0.001;
    int threads = 0; // replays at once; 0: machineThreads()
};

struct Opportunities {
    ReplayModel model = ReplayModel::Faithful;
    std::int64_t baselineMakespanNs = 0;
    std::int64_t criticalRank = -1; // the rank whose step is the makespan
    std::vector<std::int64_t> stragglers;
    std::vector<Opportunity> ranked; // job gain first
    std::vector<NotOffered> notOffered;
    double sweepMs = 0;
    // {"model", "baseline_makespan_ns", "critical_rank", "stragglers", "candidates", "sweep_ms",
    // "opportunities": [...] (the first `limit`, 0: all), "not_offered": [...]}
    nlohmann::json toJson(std::size_t limit = 0) const;
};

// Replays the job once as it is, then once per candidate (on `options.threads` threads). Throws
// std::invalid_argument when the job is empty or a rank does not finish as it is.
Opportunities findOpportunities(const SimJob &job, const OpportunityOptions &options = {});

} // namespace linkscope::core::predict
