#pragma once
// What-if as data (docs/astra-sim-export.md, "What-if"): a change to a job's exported graph that
// the simulator (ASTRA-sim, or Linkscope's own replay) then answers. Kernels faster or slower by
// name, every transfer faster or slower, a rank that starts each step late. Applied to the .et files
// and the network file a job export wrote, without reading the traces again.

#include "model/common.h"

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
    struct GpuScale {
        std::string pattern; // ECMAScript regex, searched in the GPU compute node's name
        double factor = 1;   // duration ×
        std::regex compiled;
    };
    std::vector<GpuScale> gpu;
    std::map<std::int64_t, double> streamFactor; // GPU compute ops on stream S: duration × K
    double transferFactor = 1;                   // every transfer ×: bandwidth ÷, latency × (NCCL k× slower)
    double bandwidthFactor = 1;                  // the network's bandwidth × (latency unchanged)
    double latencyFactor = 1;                    // the network's latency × (bandwidth unchanged)
    std::map<std::int64_t, double> rankDelayMs;  // rank → ms more CPU time at the start of every profiled step

    bool empty() const
    {
        return gpu.empty() && streamFactor.empty() && transferFactor == 1 && bandwidthFactor == 1 && latencyFactor == 1
               && rankDelayMs.empty();
    }
    bool changesNetwork() const { return transferFactor != 1 || bandwidthFactor != 1 || latencyFactor != 1; }
    // The factor a GPU compute node's duration is multiplied by (its name's patterns and its stream),
    // and whether any applies.
    std::pair<double, bool> gpuFactor(const std::string &name, std::int64_t stream) const;
    std::string describe() const;
};

// A non-negative number; throws std::invalid_argument naming `what` otherwise.
double parseFactor(const std::string &text, const std::string &what);
// "REGEX=K" (split at the last '='), "R=MS", "S=K" (a stream). Throw std::invalid_argument naming what is wrong.
WhatIf::GpuScale parseGpuScale(const std::string &text);
std::pair<std::int64_t, double> parseRankDelay(const std::string &text);
std::pair<std::int64_t, double> parseStreamScale(const std::string &text);

// The what-if options `linkscope predict` and `linkscope whatif` share, as usage lines.
extern const char kWhatIfOptionsUsage[];
// When `flag` is one of those options, applies its argument (`value()` reads it) to `whatIf` and
// returns true; false (nothing read) otherwise. Throws std::invalid_argument naming what is wrong.
bool applyWhatIfOption(WhatIf &whatIf, const std::string &flag, const std::function<std::string()> &value);

struct WhatIfStats {
    std::size_t gpuNodesScaled = 0;
    std::size_t stepsDelayed = 0;
};

// Scales the GPU compute nodes (COMP_NODE, is_cpu_op false) that match a pattern or a stream, and, on the delayed rank,
// adds the delay to every ProfilerStep#N node (its own time before its first child: the step's
// start). Communication nodes take their time from the network, not from here.
WhatIfStats applyWhatIf(ChakraTrace &trace, std::int64_t rank, const WhatIf &whatIf);

// The network file with its bandwidth × bandwidthFactor ÷ transferFactor and its latency ×
// transferFactor × latencyFactor. Throws std::runtime_error when `text` has no bandwidth or latency line.
std::string scaleNetworkYaml(const std::string &text, const WhatIf &whatIf);

} // namespace linkscope::core
