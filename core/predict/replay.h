#pragma once
// A discrete-event replay of a job's exported graph (docs/prediction.md), under one of two models of
// the machine. ReplayModel::AstraSim is ASTRA-sim 518bd51's: each rank runs one CPU node, one GPU
// compute node and one collective or send at a time; CPU and GPU nodes take duration_micros (0: 1 ns).
// ReplayModel::Faithful is the hardware's: each CPU thread of a rank is a CPU of its own, each GPU
// stream a queue of its own, and a node takes its time on its own lane (attr lane_dur_ns, nothing
// cut where lanes overlapped; duration_micros where it is not written). Both: among the ready nodes
// of a resource the lowest id is issued first, every time a node of the rank finishes; a collective starts on its group when
// the last member issues it and takes the analytical ring's time (job/networkfit.h's cost, the
// network file's bandwidth and latency); a send takes hops × latency + bytes ÷ bandwidth and a
// receive ends when its message has arrived. A what-if (predict/whatif.h) changes durations and the
// network as it replays: the graph is built once.

#include "predict/simgraph.h"
#include "predict/whatif.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::predict {

enum class ReplayModel : std::uint8_t {
    Faithful, // one CPU per thread, one queue per GPU stream, lane durations
    AstraSim, // ASTRA-sim's machine: one CPU node, one GPU compute node at a time per rank
};
std::string_view replayModelName(ReplayModel model); // "faithful", "astra-sim"
// "faithful", "astra-sim" (also "astrasim"); nullopt otherwise.
std::optional<ReplayModel> replayModelFromName(std::string_view name);

inline constexpr std::uint32_t kNoNode = 0xffffffffu;

// What made a node start when it did: the node whose end issued it (a dependency that finished last,
// or the node that freed the resource). kNoNode: issued at time 0.
struct Cause {
    std::int32_t rank = -1;       // index into SimJob::ranks
    std::uint32_t node = kNoNode; // position in that rank
};

struct RankReplay {
    std::int64_t rank = -1;
    bool finished = false;
    std::string stuck;                                      // why not finished (a collective whose group never met, …)
    std::int64_t endNs = 0;                                 // when its last node finished (ASTRA-sim's "finished" cycles)
    std::int64_t entryNs = 0;                               // when it started (SimJob::entryNs, faithful model; else 0)
    std::int64_t stepNs() const { return endNs - entryNs; } // its step: from its entry to its end
    std::vector<std::int64_t> start;                        // per node: issued
    std::vector<std::int64_t> end;                          // per node: finished (-1: never ran)
    std::vector<Cause> cause;
    std::vector<std::int64_t> transferStart; // per SimRank::comms: when the transfer began (collective: the last
                                             // arrival; receive: the message's send)
    // Per SimRank::comms: a collective's last-arriving member (whose arrival started the transfer); a
    // receive's send when the message arrived after the receive was issued; a send's receive.
    std::vector<Cause> peer;
    std::vector<std::int32_t> meeting; // per SimRank::comms: a collective's index in ReplayResult::meetings
    std::int64_t cpuBusyNs = 0, gpuBusyNs = 0, commBusyNs = 0;
};

struct ReplayResult {
    std::vector<RankReplay> ranks; // as SimJob::ranks
    std::int64_t makespanNs = 0;
    std::vector<std::pair<std::int32_t, std::uint32_t>> issueOrder; // (rank index, node) as issued
    std::vector<std::vector<Cause>> meetings;                       // each collective that ran: its members' nodes
    // Effective network and per-node durations used (after the what-if).
    Network network;
    ReplayModel model = ReplayModel::Faithful; // the machine it ran on
    bool allFinished() const;
};

struct ReplayOptions {
    bool keepIssueOrder = true; // needed by slack (predict/criticalpath.h)
    ReplayModel model = ReplayModel::Faithful;
};

// The resource a node holds while it runs, per rank: under AstraSim 0 = the CPU, 1 = the GPU, 2 = the
// communication slot; under Faithful each thread (SimRank::threads), then each stream
// (SimRank::streams), then the communication slot. -1: none (a receive, a skipped node).
int resourceOf(const SimRank &rank, const SimNode &node, ReplayModel model);
int resourceCount(const SimRank &rank, ReplayModel model);

// Throws std::invalid_argument for a what-if that names a rank not in the job.
ReplayResult replay(const SimJob &job, const WhatIf &whatIf = {}, const ReplayOptions &options = {});

// The duration (ns) a CPU or GPU compute node (or a broadcast) of rank `r` takes under the what-if
// and the model (AstraSim: duration_micros, scaled and rounded to whole µs as `linkscope whatif`
// writes it; Faithful: lane_dur_ns, scaled in ns); the network time of a collective or send.
class Durations {
public:
    Durations(const SimJob &job, const WhatIf &whatIf, ReplayModel model = ReplayModel::Faithful);
    std::int64_t computeNs(std::size_t rankIndex, std::uint32_t node) const;
    // The node a delayed rank's delay goes to when it has no ProfilerStep#N: its first CPU node.
    static std::uint32_t firstCpuNode(const SimRank &rank);
    std::int64_t collectiveNs(const SimJob &job, std::size_t rankIndex, const SimComm &comm) const; // -1: never completes
    std::int64_t sendNs(std::int64_t src, std::int64_t dst, std::int64_t bytes) const;
    const Network &network() const { return m_network; }

private:
    const SimJob &m_job;
    ReplayModel m_model;
    Network m_network;
    std::vector<std::vector<double>> m_nameFactor;    // per rank, per interned name: GPU nodes (-1: unchanged)
    std::vector<std::vector<double>> m_cpuNameFactor; // the same for CPU nodes
    std::map<std::int64_t, double> m_streams;         // stream → factor
    std::vector<std::int64_t> m_delayMicros;          // per rank index
    std::vector<std::uint32_t> m_delayNode;           // per rank index: the first CPU node when it has no steps
};

} // namespace linkscope::core::predict
