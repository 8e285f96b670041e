#pragma once
// The streams of a generated device and the CUDA events between them (--compute-streams,
// --copy-stream), and the time scales of the what-if knobs that act on a rank's CPU and on kernels by
// name (--cpu-scale, --cpu-scale-rank, --kernel-scale).
//
// Events follow the rule Linkscope's linker reads from the runtime calls alone (docs/linking.md,
// Edges): a cudaEventRecord stands for the last GPU op its thread launched before it, a
// cudaStreamWaitEvent pairs with the thread's last cudaEventRecord before it and makes the stream
// of the thread's next launch wait. The generator writes its fork, join and copy events so that rule
// holds, and schedules with the same rule, so the trace says exactly what the schedule did.

#include "gen/tracegenerator.h"

#include <array>
#include <cstdint>
#include <regex>
#include <string_view>
#include <utility>
#include <vector>

namespace linkscope::gen {

using Nanos = std::int64_t;

constexpr int kComputeStream = 7;
constexpr std::array<int, 3> kSideStreams = {8, 9, 10}; // --compute-streams 2..4
constexpr int kCopyStream = 13;                         // --copy-stream
constexpr int kGraphStream = 20;
constexpr int kCommStream = 40; // the same ids on both devices: lanes must be keyed by (device, stream)

// The streams of one device, in the order the Kineto metadata names them: compute, graph and comm,
// then the side streams and the copy stream the options add.
std::vector<int> deviceStreams(const GeneratorOptions &options);

// The side stream layer `layer` forks to: the side streams take turns, layer by layer.
int sideStream(const GeneratorOptions &options, int layer);

// Per thread: its last launch and the event it recorded, and the wait its next launch owes.
class StreamEvents {
public:
    void reset(std::size_t threads) { threads_.assign(threads, {}); }
    // A GPU op `thread` launched, on `stream`, ending at `end`.
    void launched(int thread, int stream, Nanos end);
    int lastStream(int thread) const { return threads_[static_cast<std::size_t>(thread)].lastStream; }
    // cudaEventRecord: the event completes when the thread's last launch ends.
    void record(int thread);
    // cudaStreamWaitEvent: the stream of the thread's next launch starts no earlier than the event.
    void wait(int thread);
    // At that next launch: the time its stream waits for (0: none); the wait is used up.
    Nanos takeWait(int thread);
    // Puts back a wait taken for a launch that did not happen (a collective a fault drops).
    void owe(int thread, Nanos until);

private:
    struct Thread {
        int lastStream = -1;
        Nanos lastEnd = 0;
        Nanos recorded = 0;
        Nanos waitUntil = 0;
    };
    std::vector<Thread> threads_;
};

// What one rank's what-if scales make of a drawn time; the draw is made first, so every later draw
// is the same whatever the scales.
class TimeScales {
public:
    TimeScales(const GeneratorOptions &options, int rank);
    // CPU time (an op's own time, a gap between ops, a runtime call's duration): × --cpu-scale and
    // the rank's --cpu-scale-rank factors.
    Nanos cpu(Nanos drawn) const { return cpuFactor_ == 1.0 ? drawn : scaled(drawn, cpuFactor_); }
    double cpuFactor() const { return cpuFactor_; }
    // A non-NCCL kernel: × --compute-scale and every --kernel-scale whose pattern the name contains.
    Nanos kernel(Nanos drawn, std::string_view name);

private:
    static Nanos scaled(Nanos drawn, double factor);
    double cpuFactor_ = 1.0;
    double computeScale_ = 1.0;
    std::vector<std::pair<std::regex, double>> patterns_;
    std::vector<std::pair<const char *, double>> byName_; // kernel names are constants: one search per name
};

} // namespace linkscope::gen
