#pragma once
// Export of a linked pair: ET+ JSON (what chakra_trace_link writes), Chakra protobuf .et (what
// chakra_converter writes, with the linking of docs/linking.md), and a Perfetto/Chrome trace
// with a flow arrow per GPU→parent link.
//
// All three start from one EtPlusGraph: the host nodes in original-id order with each GPU op
// placed right after its parent (the id convention Chakra's converter relies on), renumbered once
// with every reference (parent, inter-thread, sync) mapped through the same table, so none of
// Chakra's id-remapping defects (references to ids that were renumbered, or dropped) can occur.
//
// Entry point for the CLI and the benchmark: exportLinkedPair().

#include "export/blockedtime.h"
#include "export/etformat.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace linkscope::core {

struct EtPlusNode {
    HostNodeIndex host{};              // HostTrace::nodes index: the node itself, or a GPU node's parent
    EventIndex event{};                // DeviceTrace event: the Kineto op a CPU node matched, or the GPU op
    ExportNodeIndex parent{};          // new id of the ctrl parent, none for a root
    ExportNodeIndex interThreadDep{};  // new id this CPU node waits for on another thread
    GpuLinkIndex gpuLink{};            // LinkSet::gpuLinks index (GPU nodes)
    bool gpu = false;
    bool reparented = false;         // the host parent id was absent from the file: attached to its thread root
};

struct EtPlusStats {
    std::size_t hostNodes = 0;
    std::size_t linkedHostNodes = 0;      // host nodes with Kineto timing
    std::size_t gpuNodes = 0;
    std::size_t gpuOpsNotExported = 0;    // GPU ops without a host parent (orphans): listed in warnings by reason
    std::size_t reparentedHostNodes = 0;
    std::size_t interThreadDeps = 0;
    std::size_t syncDeps = 0;
    std::size_t syncEdgesNotExported = 0; // an end had no exported node
    std::size_t syncEdgesNotCausal = 0;   // the waiting op starts before the GPU op (would be a false dependency)
};

struct EtPlusGraph {
    std::vector<EtPlusNode> nodes;        // nodes[i] has new id i (from 0, as chakra_trace_link numbers them)
    std::vector<ExportNodeIndex> nodeOfHost;  // host node index → position in nodes, or none
    std::vector<ExportNodeIndex> nodeOfEvent; // device event → position in nodes (GPU ops, linked CPU ops), or none
    std::vector<std::uint32_t> syncBegin;   // CSR: nodes[i] waits for syncList[syncBegin[i] .. syncBegin[i+1])
    std::vector<std::uint32_t> syncList;    // (positions)
    std::vector<std::uint32_t> childBegin;  // CSR: children of nodes[i], ascending id
    std::vector<std::uint32_t> childList;
    std::string schema;                     // schema string written to ET+ (one chakra_converter accepts)
    EtPlusStats stats;
    std::vector<Diagnostic> warnings;

    static std::uint64_t idOf(std::uint32_t position) { return position; }
};

EtPlusGraph buildEtPlusGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links);

// A host node span's raw JSON, for the writers. Throws ExportError when the host ET's file changed on
// disk since it was loaded: an export never writes an empty or a wrong span.
std::string hostSpanText(const HostTrace &host, Span span);
// Throws ExportError when the host ET's file changed on disk since loading (checked as a writer starts,
// so the outcome does not depend on what a read cache still holds).
void requireHostSource(const HostTrace &host);
// The root node the observer writes for each thread, under both of its names.
bool isEtThreadRootName(std::string_view name);

// ET+ JSON: top level schema/pid/time/start_ts/finish_ts, nodes sorted by id, one node per line.
// Times are Kineto microseconds as written (exact decimal from the int64 nanoseconds).
std::uint64_t writeEtPlus(const std::string &path, const EtPlusGraph &graph, const HostTrace &host,
                          const DeviceTrace &device, const LinkSet &links, bool gzip = false);

// What a .et is written for. Chakra: what chakra_converter writes from the same ET+ (corrected, see
// the reference §4). AstraSim: what the ASTRA-sim of ../shared/tools/astra-sim replays to completion
// with a simulated time close to the measured one (docs/astra-sim-export.md): no METADATA node
// (process groups come from comm_group.json), durations of the time each node really holds its
// resource, the dependencies the simulator needs and Chakra drops, inputs/outputs in the converter's
// Python text.
enum class EtTarget : std::uint8_t { Chakra, AstraSim };
std::string_view etTargetName(EtTarget target);                 // "chakra", "astra-sim"
std::optional<EtTarget> etTargetFromName(std::string_view name);

struct ChakraOptions {
    bool streamOrderDeps = true;   // GPU op waits for the previous op on its (device, stream)
    bool syncDeps = true;          // the CPU op continuing after a synchronisation waits for the GPU op
    bool startTimes = true;        // start_time_micros from the Kineto ts
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
    BlockedTimeStats blocked;               // blocked time taken out of CPU durations, and what stayed
    std::size_t metadataDropped = 0;        // process_group:init nodes left out (groups come from comm_group.json)
    std::size_t p2pRendezvous = 0;          // clear-to-send sends/receives added (ChakraPlan::p2pRendezvous)
    std::size_t commReplayed = 0;           // communication ops written as COMP_NODE: no type/size/peers the simulator can run, or a one-rank group
    // Kineto span of the exported nodes (first start, last end), ns; 0/0 when none has timing.
    Nanos spanBegin = 0, spanEnd = 0;
    // Kineto's profiled iterations (ProfilerStep#N ops: first start, last end), ns; 0/0 when none.
    Nanos iterationBegin = 0, iterationEnd = 0;
    // What a replay is compared with: from the iteration start (else the span start) to the later of
    // the iteration end and the span end.
    Nanos measuredNs() const
    {
        if (iterationEnd <= iterationBegin)
            return spanEnd - spanBegin;
        return std::max(iterationEnd, spanEnd) - iterationBegin;
    }
    std::uint64_t cpuDurationMicros = 0, gpuCompDurationMicros = 0; // Σ duration_micros over CPU / GPU compute nodes
};

struct ChakraConversion {
    ChakraTrace trace;
    ChakraStats stats;
    std::vector<Diagnostic> warnings;
};

// The whole .et in memory (tests, the GUI's preview). Data deps of each node in ascending id order.
ChakraConversion convertToChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                                 const LinkSet &links, const ChakraOptions &options = {});

// The same in three steps, so a multi-gigabyte export never holds a Node per op: dependencies as
// compact arrays, checked, then each Node built and written one at a time.
struct ChakraPlan {
    std::vector<std::uint32_t> depBegin; // CSR: node i waits for deps[depBegin[i] .. depBegin[i+1]) (positions)
    std::vector<std::uint32_t> deps;
    std::vector<std::uint8_t> keep;      // 0: a dangling node, left out
    std::vector<std::uint64_t> durationMicros; // astra-sim target: each node's duration; empty for Chakra
    // astra-sim target: P2P transfers that move only once both sides are there (docs/astra-sim-export.md,
    // "Sends that wait for their receiver"). kRendezvousSend: a send that waits for a one-byte
    // clear-to-send from its receiver (a receive written before it); kRendezvousRecv: a receive that
    // sends it (a send written before it, posted with the receive). Empty: none.
    enum P2pRendezvous : std::uint8_t { kNoRendezvous = 0, kRendezvousSend = 1, kRendezvousRecv = 2 };
    std::vector<std::uint8_t> p2pRendezvous;
    ChakraStats stats;                   // dependency counts and danglingRemoved
};
// The id of node `position`'s clear-to-send (ChakraPlan::p2pRendezvous) in a graph of `nodes` nodes: after
// every position's id. Its tag is the transfer's with bit 30 set (PyTorch's sequence numbers stay below).
inline std::uint64_t p2pRendezvousId(std::size_t nodes, std::uint32_t position) { return static_cast<std::uint64_t>(nodes) + position; }
constexpr std::int32_t kP2pRendezvousTagBit = 1 << 30;
ChakraPlan planChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                      const ChakraOptions &options = {});
// Cycles in data_deps, then in ctrl_deps, named by id and name (ids exist and are unique by construction).
EtValidation validateChakraPlan(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device);
// Writes atomically without validating (validate first). `stats` gets node type counts; warnings are appended.
std::uint64_t writeChakraPlan(const std::string &path, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                              const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, bool gzip,
                              ChakraStats &stats, std::vector<Diagnostic> &warnings);

// Chrome trace JSON of the device trace with one flow ("s" on the parent CPU op, "f" on the GPU op)
// per GPU→parent link; corrected links (ParentRule::Manual) use their own name and category.
// `host` may be null.
std::uint64_t writePerfettoTrace(const std::string &path, const DeviceTrace &device, const LinkSet &links,
                                 const HostTrace *host, bool gzip = false);

// --- one call for the CLI and linkscope-bench ---

// Called before each stage of an export with the stage's name and (stages done, stages in all),
// and once at the end with (n, n). Return false to stop before the next stage: the export throws
// Cancelled and the outputs already written are kept (each is complete: writes are atomic).
using ExportProgressFn = std::function<bool(std::string_view stage, std::size_t done, std::size_t total)>;

struct ExportRequest {
    std::string etPath;       // empty: not written
    std::string etPlusPath;
    std::string perfettoPath;
    bool gzip = false;        // applies to every output
    ChakraOptions chakra;
    ExportProgressFn progress; // optional
};

struct ExportReport {
    EtPlusStats etPlus;
    ChakraStats chakra;
    std::uint64_t etBytes = 0, etPlusBytes = 0, perfettoBytes = 0; // on disk
    std::vector<Diagnostic> warnings;
    nlohmann::json toJson() const;
};

// What a job keeps of an export (the rank summary's "export"): measured_ns, the dependencies per
// kind, the blocked time taken out and kept, the CPU and GPU compute durations.
nlohmann::json exportSummary(const ExportReport &report);

// Writes what the request names; throws ExportError (e.g. a dependency cycle, named) or WriteError.
// An output that fails is not left behind; outputs written before it are kept.
ExportReport exportLinkedPair(const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                              const ExportRequest &request);

} // namespace linkscope::core
