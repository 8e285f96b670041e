#pragma once
// The network a job ran on, fitted from its own collectives (docs/astra-sim-export.md, "The
// network"). A collective kernel's time on a rank includes waiting for the other ranks; ASTRA-sim
// models that wait itself, from the dependencies. What the network must give is the transfer: the
// time from the last rank's arrival to the end, which is the shortest kernel of the collective
// across its ranks (the last to arrive waits least; TraceLens's NcclAnalyser takes the same
// minimum). Those transfers, with each collective's bytes and group, fit one bandwidth and one
// latency of ASTRA-sim's analytical ring (its time for a collective is linear in 1/bandwidth and
// latency, astraSimCollectiveCost below), written as the network file `run.sh --network` takes.

#include "jobmodel/crossrank.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core::job {

struct JobReport;

// ASTRA-sim 518bd51's simulated time (ns) of a collective of `bytes` (its comm_size: for an
// all-gather the input of one rank) on a ring of `npus` with the system configuration run.sh uses
// (Ring_4chunks: 4 chunks run one after another, endpoint delay 10 ns, local memory 1600 GB/s):
//   T = bytesTerm / bandwidth' + latencyCoefficient · latency + constantNs
// where bandwidth' is the network file's bandwidth in bytes per ns (its "GB" is 2^30 bytes:
// kAstraSimGB) and the latency is in ns. Read from the simulator's source (Ring.cc, Sys.cc,
// MemBus.cc, PacketBundle.cc, the analytical Ring topology) and checked against it to the
// nanosecond on 288 collectives (docs/astra-sim-export.md, "The network"). `groupRanks`: the
// group's ranks in comm_group.json's order (its ring order); empty: every rank. The latency
// coefficient is the chunks' sends times the hops between neighbours of the group's ring, per
// member. nullopt for a kind the simulator does not time from the network.
inline constexpr double kAstraSimGB = 1073741824.0 / 1e9; // bytes per ns in one "GB/s"
struct CollectiveCost {
    double bytesTerm = 0;          // bytes moved one after another by one rank
    double latencyCoefficient = 0; // multiplies the latency in ns
    double constantNs = 0;         // endpoint delays and local reductions: no network what-if moves them
};
std::optional<CollectiveCost> astraSimCollectiveCost(CallKind kind, const std::vector<std::int64_t> &groupRanks,
                                                     std::int64_t npus, std::int64_t bytes);

struct TransferSample {
    std::string group;
    std::int64_t index = -1; // position in the group's sequence
    CallKind kind = CallKind::Unknown;
    std::int64_t bytes = 0;
    std::int64_t groupSize = 0;
    std::int64_t transferNs = 0; // shortest kernel across the group's ranks
    std::int64_t lastRank = -1;  // the rank whose kernel that was (the last to arrive)
    std::int64_t longestNs = 0;  // longest kernel: transfer plus the longest wait
};

struct NetworkFit {
    bool fitted = false;
    std::string reason;       // why not fitted
    double bandwidthGBps = 0; // bytes per ns
    double latencyNs = 0;
    std::int64_t npus = 0;
    std::size_t samples = 0;
    double meanAbsErrorPct = 0;  // of the transfers, |model − transfer| / transfer
    double totalErrorPct = 0;    // (Σ model − Σ transfer) / Σ transfer
    std::int64_t transferNs = 0; // Σ transfers
    std::int64_t kernelNs = 0;   // Σ longest kernels (what a fit on one rank's kernels would see)
    struct Group {
        std::string name;
        std::int64_t size = 0;
        std::size_t samples = 0;
        double bandwidthGBps = 0, latencyNs = 0; // this group's own fit (0: not enough distinct sizes)
        double busBandwidthGBps = 0;             // nccl-tests' bus bandwidth of its largest collective
    };
    std::vector<Group> groups;
    nlohmann::json toJson() const;
};

// The transfers of every collective all of whose group's ranks ran it, from a job report.
std::vector<TransferSample> transferSamples(const JobReport &report);

// Least squares on ASTRA-sim's cost (absolute time: long collectives, which shape the step, weigh
// most); latency ≥ 0, bandwidth > 0.
NetworkFit fitNetwork(const std::vector<TransferSample> &samples, const JobReport &report, std::int64_t npus);

// The network file of ASTRA-sim's analytical backend (what run.sh writes, with these numbers):
// topology Ring, npus_count, bandwidth (GB/s), latency (ns). `scale` multiplies the bandwidth and
// divides the latency (a what-if on the network: every transfer `scale`× faster).
std::string networkYaml(const NetworkFit &fit, double scale = 1.0);

} // namespace linkscope::core::job
