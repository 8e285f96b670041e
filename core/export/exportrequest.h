#pragma once
// What a caller of an export needs and nothing more: the request (outputs, gzip, the .et's target and
// options, progress), the report (each output's statistics and size, the warnings), and the calls
// that run it. Holds no protobuf type, so the GUI's dialogs and controllers and a job's runner
// include this, not export/exporter.h (the ET+ graph, the Chakra plan and the protobuf messages
// behind them).

#include "export/blockedtime.h"
#include "link/linkset.h"
#include "model/common.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

struct EtPlusStats {
    std::size_t hostNodes = 0;
    std::size_t linkedHostNodes = 0; // host nodes with Kineto timing
    std::size_t gpuNodes = 0;
    std::size_t gpuOpsNotExported = 0; // GPU ops without a host parent (orphans): listed in warnings by reason
    std::size_t reparentedHostNodes = 0;
    std::size_t interThreadDeps = 0;
    std::size_t syncDeps = 0;
    std::size_t syncEdgesNotExported = 0; // an end had no exported node
    std::size_t syncEdgesNotCausal = 0;   // the waiting op starts before the GPU op (would be a false dependency)
};

// What a .et is written for. Chakra: what chakra_converter writes from the same ET+ (corrected, see
// the reference §4). AstraSim: what the ASTRA-sim of ../shared/tools/astra-sim replays to completion
// with a simulated time close to the measured one (docs/astra-sim-export.md): no METADATA node
// (process groups come from comm_group.json), durations of the time each node really holds its
// resource, the dependencies the simulator needs and Chakra drops, inputs/outputs in the converter's
// Python text.
enum class EtTarget : std::uint8_t { Chakra, AstraSim };
std::string_view etTargetName(EtTarget target); // "chakra", "astra-sim"
std::optional<EtTarget> etTargetFromName(std::string_view name);

struct ChakraOptions {
    bool streamOrderDeps = true;     // GPU op waits for the previous op on its (device, stream)
    bool syncDeps = true;            // the CPU op continuing after a synchronisation waits for the GPU op
    bool startTimes = true;          // start_time_micros from the Kineto ts
    bool removeDanglingNodes = true; // as chakra_converter: nodes with no dependency either way and no children
    EtTarget target = EtTarget::Chakra;

    // --- astra-sim target only (ignored for Chakra) ---
    // CPU nodes get the time their thread really spent in them: an instant when several threads
    // are inside ops belongs to the one whose activity began last (a wrapper such as ProfilerStep#N
    // or an op blocked on another thread keeps only its own time). Off: exclusive durations.
    bool ownTimeDurations = true;
    // The gaps between a thread's ops, and a parent's time between its children, are folded into
    // the node that runs next on the thread (Chakra #220 loses them). Off: dropped.
    bool keepGaps = true;
    // Each collective waits for the previous collective of its process group, in launch order
    // (Chakra PR #191).
    bool pgOrderDeps = true;
    // cudaEventRecord / cudaStreamWaitEvent pairs between a communication and a compute GPU op
    // (Chakra #186): the communication op waits for the compute op, and the reverse.
    bool commWaitsComputeDeps = true;
    bool computeWaitsCommDeps = true;
    // Time a thread spends blocked — in a synchronize, a blocking copy or an implicit sync waiting
    // for the GPU, or in an op waiting for another thread — is taken out of the CPU durations, and
    // the work that continues after it waits for what it waited for (export/blockedtime.h). Off: the
    // blocked time stays in the CPU node that holds it (the replay then adds up to the measured
    // time whatever the GPU and the network do).
    bool blockedAsDependencies = true;
    // Process group name → the integer id comm_group.json gives it; written as pg_name. Names not
    // listed get job::processGroupId(name) (the name itself for "0", "1", …; a warning names others).
    std::map<std::string, std::string> pgIds;
};

struct ChakraStats {
    std::size_t nodes = 0;
    std::size_t commColl = 0, commSend = 0, commRecv = 0, comp = 0, metadata = 0;
    std::size_t chainDeps = 0, launchDeps = 0, interThreadDeps = 0, streamOrderDeps = 0, syncDeps = 0;
    std::size_t danglingRemoved = 0;
    std::size_t unclassifiedCollectives = 0; // NCCL kernels with no recognisable collective: written as COMP_NODE
    std::size_t commWithoutSize = 0;
    // astra-sim target
    std::size_t pgOrderDeps = 0, commWaitsComputeDeps = 0, computeWaitsCommDeps = 0;
    std::size_t threadWaitDeps = 0, threadStartDeps = 0; // a thread's work after it waited for / was idle until another's
    BlockedTimeStats blocked;                            // blocked time taken out of CPU durations, and what stayed
    std::size_t metadataDropped = 0;                     // process_group:init nodes left out (groups come from comm_group.json)
    std::size_t p2pRendezvous = 0;                       // clear-to-send sends/receives added (ChakraPlan::p2pRendezvous)
    std::size_t commReplayed =
        0; // communication ops written as COMP_NODE: no type/size/peers the simulator can run, or a one-rank group
    // Kineto span of the exported nodes (first start, last end), ns; 0/0 when none has timing.
    Nanos spanBegin = 0, spanEnd = 0;
    // Kineto's profiled iterations (ProfilerStep#N ops: first start, last end), ns; 0/0 when none.
    Nanos iterationBegin = 0, iterationEnd = 0;
    // What a replay is compared with: from the iteration start (else the span start) to the later of
    // the iteration end and the span end.
    // Where that window begins (ns, the Kineto trace's own clock).
    Nanos windowBegin() const { return iterationEnd > iterationBegin ? iterationBegin : spanBegin; }
    Nanos measuredNs() const
    {
        if (iterationEnd <= iterationBegin)
            return spanEnd - spanBegin;
        return std::max(iterationEnd, spanEnd) - iterationBegin;
    }
    std::uint64_t cpuDurationMicros = 0, gpuCompDurationMicros = 0; // Σ duration_micros over CPU / GPU compute nodes
    // astra-sim target: GPU compute time as ASTRA-sim runs it (one kernel at a time: overlaps cut),
    // and the kernel time that ran beside another stream's kernel (cut from the .et's durations; a
    // what-if that changes how streams overlap is off in ASTRA-sim by up to this much).
    Nanos gpuBusyNs = 0, gpuOverlapNs = 0;
    double gpuOverlapPct() const { return gpuBusyNs > 0 ? 100.0 * double(gpuOverlapNs) / double(gpuBusyNs) : 0.0; }
};

// Chrome trace JSON of the device trace with one flow ("s" on the parent CPU op, "f" on the GPU op)
// per GPU→parent link; corrected links (ParentRule::Manual) use their own name and category.
// `host` may be null.
std::uint64_t writePerfettoTrace(const std::string &path, const DeviceTrace &device, const LinkSet &links, const HostTrace *host,
                                 bool gzip = false);

// Called before each stage of an export with the stage's name and (stages done, stages in all),
// and once at the end with (n, n). Return false to stop before the next stage: the export throws
// Cancelled and the outputs already written are kept (each is complete: writes are atomic).
using ExportProgressFn = std::function<bool(std::string_view stage, std::size_t done, std::size_t total)>;

// The built-in export targets' names (export/targets.h holds the table).
inline constexpr std::string_view kEtPlusTarget = "etplus";
inline constexpr std::string_view kEtTarget = "et";
inline constexpr std::string_view kPerfettoTarget = "perfetto";

struct ExportRequest {
    // One entry per target to write: its name in the export-target table (export/targets.h) → the
    // file. A target absent, or with an empty path, is not written.
    std::map<std::string, std::string, std::less<>> outputs;
    bool gzip = false; // applies to every output
    ChakraOptions chakra;
    ExportProgressFn progress; // optional
    // When set, the .et target's bytes come here instead of going to its path (which then only names
    // them in messages): whole length-delimited messages, the metadata first, then the nodes in id
    // order, a run of them per call, on the exporting thread. `linkscope predict` builds its graph
    // from them without a file (predict/rankstream.h).
    std::function<void(std::string_view)> etSink;

    // The output path of `target`; empty when it is not requested.
    const std::string &path(std::string_view target) const
    {
        static const std::string none;
        const auto it = outputs.find(target);
        return it == outputs.end() ? none : it->second;
    }
    bool requests(std::string_view target) const { return !path(target).empty(); }
};

struct ExportReport {
    EtPlusStats etPlus;
    ChakraStats chakra;
    std::map<std::string, std::uint64_t, std::less<>> bytes; // on disk, one entry per target written
    std::vector<Diagnostic> warnings;

    std::uint64_t bytesOf(std::string_view target) const
    {
        const auto it = bytes.find(target);
        return it == bytes.end() ? 0 : it->second;
    }
    std::uint64_t totalBytes() const
    {
        std::uint64_t total = 0;
        for (const auto &[target, size] : bytes)
            total += size;
        return total;
    }
    // "bytes" holds every target of the table (0 when not written).
    nlohmann::json toJson() const;
};

// What a job keeps of an export (the rank summary's "export"): measured_ns, the dependencies per
// kind, the blocked time taken out and kept, the CPU and GPU compute durations.
nlohmann::json exportSummary(const ExportReport &report);

// ASTRA-sim runs one GPU kernel at a time per rank, so the astra-sim .et cuts the kernel time that ran
// beside another stream's kernel (ChakraStats::gpuOverlapNs). At or above this share of the GPU's
// busy time, a what-if that changes how streams overlap is off in ASTRA-sim by a share that matters.
inline constexpr double kStreamOverlapWarnPct = 5.0;
// The warning for `overlapNs` of `busyNs` (empty below kStreamOverlapWarnPct): what was cut and
// what to use instead.
std::string streamOverlapWarning(Nanos overlapNs, Nanos busyNs);

// Writes what the request names; throws ExportError (e.g. a dependency cycle, named; a target the
// table does not have; a target that needs the host ET when `host` is null) or WriteError. An output
// that fails is not left behind; outputs written before it are kept. Without a host ET (a Kineto
// trace alone) only the targets that do not need it can be written, and no ET+ graph is built.
ExportReport exportLinkedPair(const HostTrace *host, const DeviceTrace &device, const LinkSet &links,
                              const ExportRequest &request);
inline ExportReport exportLinkedPair(const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                                     const ExportRequest &request)
{
    return exportLinkedPair(&host, device, links, request);
}

} // namespace linkscope::core
