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

namespace linkscope::gen {

struct GeneratorOptions {
    std::uint64_t seed = 1;
    // ProfilerStep iterations to write. 0: keep adding steps until the Kineto output reaches
    // targetKinetoBytes or targetKinetoEvents (at least one step is always written).
    int steps = 0;
    std::uint64_t targetKinetoBytes = 0;
    std::uint64_t targetKinetoEvents = 0; // likewise, until traceEvents has at least this many elements
    int devices = 1;          // 1 or 2 GPUs driven by this process
    int layers = 4;           // forward layers per step (each launches several kernels)
    std::int64_t pid = 2910249;
    int firstStep = 3;        // number of the first ProfilerStep#N
    // Percent of childless CPU ops left out of the host ET (Kineto keeps them, with their
    // Record function id): the truth then names the nearest ancestor with an ET node and adds
    // "innermost" (docs/linking.md, The linkage rule, step 4). 0 by default: real pairs recorded together have full coverage.
    int missingHostNodePercent = 0;
};

struct GeneratorStats {
    std::uint64_t hostBytes = 0;
    std::uint64_t kinetoBytes = 0;
    std::uint64_t truthBytes = 0;
    std::uint64_t steps = 0;
    std::uint64_t hostNodes = 0;       // including the process and thread roots
    std::uint64_t cpuOps = 0;          // Kineto cpu_op + user_annotation events
    std::uint64_t runtimeEvents = 0;   // cuda_runtime + cuda_driver
    std::uint64_t gpuOps = 0;          // kernel + gpu_memcpy + gpu_memset (= ground-truth lines)
    std::uint64_t kinetoEvents = 0;    // every element of traceEvents
    std::uint64_t collectives = 0;     // NCCL kernels
    std::uint64_t graphLaunches = 0;   // cudaGraphLaunch calls
};

// Writes the three outputs. Deterministic for a given options value.
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
GeneratorStats generatePair(const GeneratorOptions &options, std::ostream &host, std::ostream &kineto,
                            std::ostream &truth);

// "1G", "500M", "64k", "1234" → bytes (powers of 1024). Returns false for anything else.
bool parseByteSize(const std::string &text, std::uint64_t &bytes);

} // namespace linkscope::gen
