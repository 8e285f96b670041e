#pragma once
// Synthetic trace pairs with a known answer: a PyTorch host execution trace (ET, schema
// 1.1.1-chakra.0.0.4, nested layout), the matching Kineto trace (newer style: baseTimeNanoseconds,
// "us.nnn" timestamps, Record function id == rf_id) and a ground-truth file naming, for every GPU op,
// the CPU op that truly launched it under the linkage rule of docs/linking.md
// (innermost cpu_op/user_annotation with an ET node on the launch thread enclosing the launch,
// ProfilerStep#N excluded).
//
// The content is built to trip the known wrong rules: finished sibling ops just before launches
// (the Ev Idx / latest-starting trap), NCCL kernels whose External id names record_param_comms while
// the nccl:* user annotation encloses the launch (the External-id trap), launches inside
// record_function blocks, CUDA-graph launches with many kernels per correlation and no External id,
// memsets, several CPU threads running at the same time, the same stream ids on two devices,
// string pids, timestamps too large for a double to hold to the nanosecond.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::gen {

// A deviation one rank of a generated job makes from the others, for testing the cross-rank checks.
// `index` counts the rank's collectives on `processGroup` in the clean job (0-based, the position a
// cross-rank check reports); for DropRecv it counts the rank's receives (P2P) instead.
struct GeneratorFault {
    enum class Kind : std::uint8_t {
        Skip,     // the rank does not issue collective `index` of the group (no ops, no kernel)
        Resize,   // the rank's collective `index` has twice the elements
        Swap,     // the rank issues collectives `index` and `index + 1` in the other order
        DropRecv, // the rank does not post its receive number `index`: the peer's send is unpaired
    };
    Kind kind = Kind::Skip;
    int rank = 0;
    std::string processGroup = "0";
    int index = 0;
};
// "skip:RANK:PG:INDEX", "resize:…", "swap:…", "drop-recv:RANK:PG:INDEX" → fault. False if malformed.
bool parseFault(const std::string &text, GeneratorFault &fault);

struct GeneratorOptions {
    std::uint64_t seed = 1;
    // ProfilerStep iterations to write. 0: keep adding steps until the Kineto output reaches
    // targetKinetoBytes or targetKinetoEvents (at least one step is always written).
    int steps = 0;
    std::uint64_t targetKinetoBytes = 0;
    std::uint64_t targetKinetoEvents = 0; // likewise, until traceEvents has at least this many elements
    int devices = 1;                      // 1 or 2 GPUs driven by this process
    int layers = 4;                       // forward layers per step (each launches several kernels)
    std::int64_t pid = 2910249;
    int firstStep = 3; // number of the first ProfilerStep#N
    // Percent of childless CPU ops left out of the host ET (Kineto keeps them, with their
    // Record function id): the truth then names the nearest ancestor with an ET node and adds
    // "innermost" (docs/linking.md, The linkage rule, step 4). 0 by default: real pairs recorded together have full coverage.
    int missingHostNodePercent = 0;

    // --- multi-rank jobs (rank >= 0) ---
    // One process and one GPU per rank (devices is forced to 1). Ranks of one job share the seed, so
    // they run the same program with the same random draws: collectives issued in the same order with
    // the same sizes; what differs is the rank's clock (clockOffsetNs), its arrival at each collective,
    // its process groups and its P2P direction. Process groups: "0" (default_pg, all ranks); with
    // tensorParallel > 1, "1".."W/tp" (tensor_parallel: consecutive ranks) and the next tp names
    // (data_parallel: ranks with the same r % tp). Per step: an all-gather on "0" (every other step),
    // an all-reduce on the rank's tensor-parallel group per forward layer, one send/recv between rank
    // pairs (2k → 2k+1) on "0" when the world size is even, and bucket all-reduces on the
    // data-parallel group in backward. rank < 0 writes the single-process trace.
    //
    // Scheduling (causal, in the job's true time = a rank's timestamps − clockOffsetNs):
    //  * CPU: each thread runs on its own. Every collective's launch path takes a rank 200 µs of CPU
    //    time, the launch a delay into it that differs per rank and collective (a hash of seed, rank
    //    and position, larger on the straggler): the arrival jitter, which does not add up from one
    //    collective to the next. A launch never waits for other ranks. A cudaStreamSynchronize /
    //    cudaDeviceSynchronize lasts until the GPU work it waits for ends.
    //  * A rank is ready for a collective at max(launch call start + 15 µs, its comm stream free, the
    //    compute work the comm stream waits for (cudaEventRecord + cudaStreamWaitEvent before the
    //    launch)). The kernel starts on every member at the latest member's ready time (send/recv:
    //    the pair's) and lasts the network model's time (collectiveTransferNs × commScale), so a
    //    collective's kernels start and end together on every rank. A collective some member does not
    //    issue (fault Skip / DropRecv) starts at the latest ready time of the members that do.
    //  * The compute stream waits (cudaEventRecord right after the collective's launch, then
    //    cudaStreamWaitEvent just before the thread's next compute-stream launch) for each forward
    //    tensor-parallel all-reduce, for the send/recv, and, on the autograd thread, for the last
    //    data-parallel bucket all-reduce (DDP's finalize: a copy kernel on the compute stream under
    //    aten::copy_, before the optimizer's kernels; also in the single-process trace).
    //  generateJob (and generatePair of one rank, which computes the whole job's schedule once per
    //  options) finds the start times by a fixed point over passes, step by step: see GeneratorStats.
    int rank = -1;
    int worldSize = 1;
    int tensorParallel = 0;             // 0: 2 when the world size is even and at least 4, else 1
    int straggler = -1;                 // this rank arrives last at most collectives (-1: none)
    std::vector<GeneratorFault> faults; // applied to the rank they name

    // --- what-if knobs ---
    // A changed configuration (B) generated from the same seed as the original (A) makes the same
    // random draws in the same order: every name, id, size, count and CPU op is the same, only times
    // differ, and B's times are its ground truth (scheduled causally, see "Scheduling" above).
    //
    // Every kernel that is not an NCCL kernel (GEMMs, elementwise, reductions, Triton, CUDA-graph
    // kernels) lasts computeScale × its drawn duration, rounded to the nanosecond (the draw is made
    // as before, then scaled). Memcpy and memset are not scaled.
    double computeScale = 1.0;
    // Every NCCL kernel lasts commScale × collectiveTransferNs(…) (the network model below).
    double commScale = 1.0;
    // The network model's bus bandwidth (GB/s, 1e9 bytes per second) and per-step latency (µs).
    double netBandwidthGBps = 12.5;
    double netLatencyUs = 5.0;
    // Rank `rank` (0 for the single-process trace) spends `ms` milliseconds of extra CPU time at the
    // start of every ProfilerStep: a gap inside ProfilerStep#N before its first child (Python, no op).
    // Entries naming the same rank add up.
    struct RankDelay {
        int rank = 0;
        double ms = 0;
    };
    std::vector<RankDelay> rankDelays;
    // A non-NCCL kernel whose name contains a match of `pattern` (ECMAScript, searched, as
    // `linkscope predict --scale-gpu` matches) lasts `factor` × what --compute-scale makes of its
    // drawn duration; the factors of several matching entries multiply.
    struct KernelScale {
        std::string pattern;
        double factor = 1.0;
    };
    std::vector<KernelScale> kernelScales;
    // Every rank's CPU time × cpuScale, and rank `rank`'s (0 for the single-process trace) × `factor`
    // of each cpuRankScales entry naming it (the factors multiply): a CPU op's own time, the gaps
    // between ops (the step's first op, a thread's start, the next step's start), a runtime call's
    // duration and the arrival jitter's time in a collective's launch path. Not scaled: the time a
    // thread is blocked (a cudaStreamSynchronize / cudaDeviceSynchronize still lasts until the GPU
    // work it waits for ends, then the call's own tail, scaled), when a kernel can start after its
    // launch (the dispatch gap, kLaunchLatency), GPU durations, and --delay-rank.
    double cpuScale = 1.0;
    struct RankScale {
        int rank = 0;
        double factor = 1.0;
    };
    std::vector<RankScale> cpuRankScales;

    // --- streams ---
    // Compute streams per device, 1..4. With 1 every compute kernel runs on stream 7 (and the output
    // is what it has always been). With N ≥ 2, side streams 8, 9, 10 (N − 1 of them, taking turns
    // layer by layer) run part of each layer's kernels at the same time as stream 7, each kernel for
    // its full duration (no contention model): a kernel starts at max(its launch call's start + the
    // dispatch gap, its stream's previous op end, the end of the op its stream waits for). A fork
    // is a cudaEventRecord right after a stream-7 launch and a cudaStreamWaitEvent just before the
    // side stream's launch; a join a cudaEventRecord right after the side stream's last launch and a
    // cudaStreamWaitEvent just before the next launch, whose stream waits (gen/streams.h):
    //  * forward layer: after the GEMM (stream 7; with --copy-stream after the clamp) a fork; the
    //    clamp (and on even layers the layer norm) follow on stream 7; the side stream runs the layer
    //    norm (odd layers) or the attention block's bmm and softmax (even layers), then the join.
    //  * backward layer: when the thread's last launch was on stream 7 (the layer before, with no
    //    bucket all-reduce since) a fork before the first mm, which stays on stream 7 and overlaps the
    //    second mm on the side stream; otherwise the fork follows the first mm. The join's record
    //    follows the second mm; the sum runs on stream 7 beside it and AccumulateGrad's add waits.
    int computeStreams = 1;
    // Host-to-device copies on copy stream 13 (pinned memory, non_blocking): the step's input at its
    // start, and a prefetch in every forward layer after its GEMM; each copy is followed by a
    // cudaEventRecord and a cudaStreamWaitEvent, so the thread's next launch (the layer's clamp, the
    // first layer's GEMM) waits for the copy while the kernels launched before it run.
    //
    // With side streams or copies, the event a collective's c10d op records for the comm stream to
    // wait on stands for the thread's last launch, whatever its stream (as the linker reads it), not
    // for stream 7: after a join the comm stream waits for the side stream's last kernel.
    bool copyStream = false;
};
// "R=MS" (rank, milliseconds ≥ 0) → delay. False if malformed.
bool parseRankDelay(const std::string &text, GeneratorOptions::RankDelay &delay);
// "R=K" (rank, K > 0) → scale. False if malformed.
bool parseRankScale(const std::string &text, GeneratorOptions::RankScale &scale);
// "REGEX=K" (split at the last '=', K > 0, REGEX a valid ECMAScript regex) → scale. False if malformed.
bool parseKernelScale(const std::string &text, GeneratorOptions::KernelScale &scale);

// The network model every NCCL kernel's duration comes from (NCCL's ring convention), in ns. The
// generator's collectives move 8 KB to 4 MB per rank (all-gather: that times n out):
//   S = bytes (the collective's input; for all-gather its output), BW = busBandwidthGBps × 1e9 B/s,
//   L = latencyUs µs, n = groupSize;
//   all-reduce ("allreduce")                       2(n−1)/n · S/BW + 2(n−1) · L
//   all-gather ("_allgather_base", "allgather"),
//   reduce-scatter ("_reduce_scatter_base", …)     (n−1)/n · S/BW + (n−1) · L
//   send / recv (and any other name)               S/BW + L
//   a group of one rank (n ≤ 1)                    L (the kernel runs, nothing moves)
// times `scale`, rounded to the nearest nanosecond.
std::int64_t collectiveTransferNs(std::string_view collective, std::int64_t groupSize, std::int64_t bytes,
                                  double busBandwidthGBps, double latencyUs, double scale = 1.0);

// The clock offset (ns) of a rank of a job generated with `seed` relative to rank 0 (0 for rank 0):
// a rank's timestamps are the job's true times plus this.
std::int64_t clockOffsetNs(std::uint64_t seed, int rank);

// The process-group names and tensor-parallel size generateJob uses, resolved from the options.
int resolvedTensorParallel(const GeneratorOptions &options);

struct GeneratorStats {
    std::uint64_t hostBytes = 0;
    std::uint64_t kinetoBytes = 0;
    std::uint64_t truthBytes = 0;
    std::uint64_t steps = 0;
    std::uint64_t hostNodes = 0;     // including the process and thread roots
    std::uint64_t cpuOps = 0;        // Kineto cpu_op + user_annotation events
    std::uint64_t runtimeEvents = 0; // cuda_runtime + cuda_driver
    std::uint64_t gpuOps = 0;        // kernel + gpu_memcpy + gpu_memset (= ground-truth lines)
    std::uint64_t kinetoEvents = 0;  // every element of traceEvents
    std::uint64_t collectives = 0;   // NCCL kernels
    std::uint64_t graphLaunches = 0; // cudaGraphLaunch calls
    // Job mode: passes over every rank the job's collective schedule took (summed over the steps),
    // and the most one step took.
    std::uint64_t schedulePasses = 0;
    std::uint64_t maxStepPasses = 0;
};

// Writes the three outputs. Deterministic for a given options value. With options.rank >= 0, one
// rank of the job of options.worldSize ranks, exactly as generateJob writes it.
//
// Ground truth: one JSON object per line, one line per GPU op, in the order the ops appear in the
// Kineto file:
//   {"pid":0,"correlation":5012,"name":"...","cat":"kernel","ts_ns":...,"dur_ns":...,"device":0,"stream":7,
//    "launch":{"name":"cudaLaunchKernel","pid":...,"tid":...,"ts_ns":...},
//    "parent":{"name":"aten::addmm","cat":"cpu_op","ev_idx":40,"rf_id":19,"et_id":30,"external_id":17},
//    "external_id_op":{...same keys...} | null,   // the cpu_op whose External id the launch carries
//    "latest_starting":{...same keys...} | null,  // latest-starting op before the launch (pre-#185 rule)
//    "innermost":{...same keys...}}               // only when the innermost enclosing op has no ET node
// ts_ns is the Kineto "ts" exactly as written, in ns (relative to baseTimeNanoseconds), so it
// matches DeviceEvent::ts.
GeneratorStats generatePair(const GeneratorOptions &options, std::ostream &host, std::ostream &kineto, std::ostream &truth);

// Every rank of a job: DIR/host_<r>.json, DIR/kineto_<r>.json and, with `truth`, DIR/truth_<r>.jsonl
// for r in [0, options.worldSize) (options.rank is ignored). Rank 0 decides the number of steps when
// it is given by size; the others write as many. The collective schedule is computed first (every
// rank in memory, step by step, until no start changes; nothing is written), then the ranks are
// written; `threads` ranks are worked on at the same time in both.
// Files are written to a temporary name and renamed. Throws std::runtime_error naming a file that
// cannot be written, and std::invalid_argument, before writing anything, for a fault that cannot
// happen (a rank outside the job, a group the rank is not in, a position past what it issues:
// gen/faultcheck.h). Returns each rank's stats.
std::vector<GeneratorStats> generateJob(const GeneratorOptions &options, const std::string &dir, bool truth = false,
                                        int threads = 1);

// "1G", "500M", "64k", "1234" → bytes (powers of 1024). Returns false for anything else.
bool parseByteSize(const std::string &text, std::uint64_t &bytes);

} // namespace linkscope::gen
