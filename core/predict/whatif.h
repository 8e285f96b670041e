#pragma once
// What-if as data (docs/astra-sim-export.md, "What-if"): a change to a job's exported graph that
// the simulator (ASTRA-sim, or Linkscope's own replay) then answers. Kernels faster or slower by
// name, every transfer faster or slower, a rank that starts each step late. Applied to the .et files
// and the network file a job export wrote, without reading the traces again.

#include "model/common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace linkscope::core {

// Defined in export/etformat.h (with the protobuf messages it holds).
struct ChakraTrace;

struct WhatIf {
    // Nodes whose name matches `pattern` (ECMAScript, searched) take `factor` times as long; on rank
    // `rank` only, or on every rank (-1).
    struct NameScale {
        std::string pattern;
        double factor = 1;
        std::int64_t rank = -1;
        std::regex compiled;
        bool appliesTo(std::int64_t r) const { return rank < 0 || rank == r; }
    };
    using GpuScale = NameScale;
    std::vector<NameScale> gpu;                  // GPU compute nodes
    std::vector<NameScale> cpu;                  // CPU nodes
    std::map<std::int64_t, double> streamFactor; // GPU compute ops on stream S: duration × K
    double transferFactor = 1;                   // every transfer ×: bandwidth ÷, latency × (NCCL k× slower)
    double bandwidthFactor = 1;                  // the network's bandwidth × (latency unchanged)
    double latencyFactor = 1;                    // the network's latency × (bandwidth unchanged)
    std::map<std::int64_t, double> rankDelayMs;  // rank → ms more CPU time at the start of every profiled step

    bool empty() const
    {
        return gpu.empty() && cpu.empty() && streamFactor.empty() && transferFactor == 1 && bandwidthFactor == 1
               && latencyFactor == 1 && rankDelayMs.empty();
    }
    bool changesNetwork() const { return transferFactor != 1 || bandwidthFactor != 1 || latencyFactor != 1; }
    // The factor a GPU compute node of rank `rank` is multiplied by (its name's patterns and its
    // stream), and whether any applies.
    std::pair<double, bool> gpuFactor(const std::string &name, std::int64_t stream, std::int64_t rank = -1) const;
    // The same for a CPU node.
    std::pair<double, bool> cpuFactor(const std::string &name, std::int64_t rank = -1) const;
    std::string describe() const;
};

// A kernel's time scaled by a what-if: all but its first `keepNs` (its dispatch latency, attr
// dispatch_ns: the time from when it could start to its start, which a faster kernel does not
// shorten). In ns (lane_dur_ns), and in whole µs (duration_micros, as ASTRA-sim reads it).
inline std::int64_t scaledNs(std::int64_t ns, std::int64_t keepNs, double factor)
{
    const std::int64_t keep = std::clamp<std::int64_t>(keepNs, 0, std::max<std::int64_t>(ns, 0));
    return keep + std::llround(static_cast<double>(ns - keep) * factor);
}
inline std::int64_t scaledMicros(std::int64_t micros, std::int64_t keepNs, double factor)
{
    if (keepNs <= 0)
        return std::llround(static_cast<double>(micros) * factor);
    const double ns = static_cast<double>(micros) * 1000.0;
    const double keep = std::min(static_cast<double>(keepNs), ns);
    return std::llround((keep + (ns - keep) * factor) / 1000.0);
}

// A non-negative number; throws std::invalid_argument naming `what` otherwise.
double parseFactor(const std::string &text, const std::string &what);
// "[R:]REGEX=K" (split at the last '='; a leading run of digits and ':' names the rank), "R=MS", "S=K"
// (a stream). Throw std::invalid_argument naming what is wrong; `flag` names the option in messages.
WhatIf::NameScale parseNameScale(const std::string &text, const std::string &flag);
inline WhatIf::NameScale parseGpuScale(const std::string &text) { return parseNameScale(text, "--scale-gpu"); }
std::pair<std::int64_t, double> parseRankDelay(const std::string &text);
std::pair<std::int64_t, double> parseStreamScale(const std::string &text);

// The what-if options `linkscope predict` and `linkscope whatif` share, as usage lines.
extern const char kWhatIfOptionsUsage[];
// When `flag` is one of those options, applies its argument (`value()` reads it) to `whatIf` and
// returns true; false (nothing read) otherwise. Throws std::invalid_argument naming what is wrong.
bool applyWhatIfOption(WhatIf &whatIf, const std::string &flag, const std::function<std::string()> &value);

struct WhatIfStats {
    std::size_t gpuNodesScaled = 0;
    std::size_t cpuNodesScaled = 0;
    std::size_t stepsDelayed = 0;
    bool delayOnFirstOp = false; // the delayed rank has no ProfilerStep#N: the delay went to its first CPU node
};

// Scales the GPU compute nodes (COMP_NODE, is_cpu_op false) that match a pattern or a stream and the
// CPU nodes that match a CPU pattern (duration_micros and lane_dur_ns), and, on the delayed rank,
// adds the delay to every ProfilerStep#N node (its own time before its first child: the step's
// start) — or, when the rank has none, once to its first CPU node. Communication nodes take their
// time from the network, not from here.
WhatIfStats applyWhatIf(ChakraTrace &trace, std::int64_t rank, const WhatIf &whatIf);

// The network file with its bandwidth × bandwidthFactor ÷ transferFactor and its latency ×
// transferFactor × latencyFactor. Throws std::runtime_error when `text` has no bandwidth or latency line.
std::string scaleNetworkYaml(const std::string &text, const WhatIf &whatIf);

} // namespace linkscope::core
