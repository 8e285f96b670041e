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

// Defined in export/chakra/etformat.h (with the protobuf messages it holds).
struct ChakraTrace;

// What a what-if may ask (docs/prediction.md, "What-if"): a factor past these is refused where it
// is parsed, so that what `linkscope whatif` writes stays within what `linkscope predict` reads.
inline constexpr double kMaxWhatIfFactor = 1e6;   // every scale: 0 ≤ K ≤ this
inline constexpr double kMinNetworkFactor = 1e-6; // --scale-comm, --scale-network: K ≥ this (not 0)
inline constexpr double kMaxWhatIfDelayMs = 1e7;  // --delay-rank: 0 ≤ MS ≤ this
// A scaled time saturates here (1e15 ns, about 11.6 days; several terms multiply): nothing a
// what-if computes overflows an int64 of ns, even summed over many nodes.
inline constexpr std::int64_t kMaxScaledNs = 1'000'000'000'000'000;
// The network file's values after a what-if stay within what the reader takes (> 0, ≤ 1e15).
inline constexpr double kMinScaledBandwidthGBps = 1e-9;
inline constexpr double kMaxNetworkValue = 1e15;
// A name is matched on at most its first kMaxMatchedNameChars characters: the cost of a search
// (linear in the name for most patterns, quadratic with a lookahead past the start) stays bounded.
inline constexpr std::size_t kMaxMatchedNameChars = 4096;

// A double of ns (or µs) rounded and saturated into [0, kMaxScaledNs]; NaN saturates too.
inline std::int64_t saturatedNs(double v)
{
    if (!(v < static_cast<double>(kMaxScaledNs)))
        return kMaxScaledNs;
    return v > 0 ? std::llround(v) : 0;
}

// `pattern` (ECMAScript) compiled to search a name in time linear in its length for the patterns
// std::regex's backtracking takes exponential or deeply recursive time on ('(a+)+$', '.*gemm' on a
// long name): libstdc++'s breadth-first executor, anchored, after '[\s\S]*'. Throws
// std::regex_error when the pattern is not a regex or has a back-reference (that executor has none).
std::regex compileNamePattern(const std::string &pattern);
// Whether a regex from compileNamePattern is found in `name` (its first kMaxMatchedNameChars).
bool searchName(const std::string &name, const std::regex &compiled);

struct WhatIf {
    // Nodes whose name matches `pattern` (ECMAScript, searched) take `factor` times as long; on rank
    // `rank` only, or on every rank (-1). `compiled` comes from compileNamePattern.
    struct NameScale {
        std::string pattern;
        double factor = 1;
        std::int64_t rank = -1;
        std::regex compiled;
        bool appliesTo(std::int64_t r) const { return rank < 0 || rank == r; }
        bool matches(const std::string &name) const { return searchName(name, compiled); }
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
// Both saturate at kMaxScaledNs (of ns, of µs) whatever the factor.
inline std::int64_t scaledNs(std::int64_t ns, std::int64_t keepNs, double factor)
{
    const std::int64_t keep = std::clamp<std::int64_t>(keepNs, 0, std::max<std::int64_t>(ns, 0));
    return saturatedNs(static_cast<double>(keep) + static_cast<double>(ns - keep) * factor);
}
inline std::int64_t scaledMicros(std::int64_t micros, std::int64_t keepNs, double factor)
{
    if (keepNs <= 0)
        return std::min(saturatedNs(static_cast<double>(micros) * factor), kMaxScaledNs / 1000);
    const double ns = static_cast<double>(micros) * 1000.0;
    const double keep = std::min(static_cast<double>(keepNs), ns);
    return std::min(saturatedNs((keep + (ns - keep) * factor) / 1000.0), kMaxScaledNs / 1000);
}

// A number in [low, high]; throws std::invalid_argument naming `what`, the text and the range otherwise
// (not a number, inf, nan, out of range).
double parseFactor(const std::string &text, const std::string &what, double low = 0, double high = kMaxWhatIfFactor);
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
// Both values are kept within [kMinScaledBandwidthGBps, kMaxNetworkValue] and [0, kMaxNetworkValue].
std::string scaleNetworkYaml(const std::string &text, const WhatIf &whatIf);
double scaledBandwidthGBps(double bandwidthGBps, const WhatIf &whatIf);
double scaledLatencyNs(double latencyNs, const WhatIf &whatIf);

} // namespace linkscope::core
