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
// The request, the report and the entry point, exportLinkedPair(), are in export/exportrequest.h.

#include "export/chakra/etformat.h"
#include "export/exportrequest.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

struct EtPlusNode {
    HostNodeIndex host{};             // HostTrace::nodes index: the node itself, or a GPU node's parent
    EventIndex event{};               // DeviceTrace event: the Kineto op a CPU node matched, or the GPU op
    ExportNodeIndex parent{};         // new id of the ctrl parent, none for a root
    ExportNodeIndex interThreadDep{}; // new id this CPU node waits for on another thread
    GpuLinkIndex gpuLink{};           // LinkSet::gpuLinks index (GPU nodes)
    bool gpu = false;
    bool reparented = false; // the host parent id was absent from the file: attached to its thread root
};

struct EtPlusGraph {
    std::vector<EtPlusNode> nodes;            // nodes[i] has new id i (from 0, as chakra_trace_link numbers them)
    std::vector<ExportNodeIndex> nodeOfHost;  // host node index → position in nodes, or none
    std::vector<ExportNodeIndex> nodeOfEvent; // device event → position in nodes (GPU ops, linked CPU ops), or none
    std::vector<std::uint32_t> syncBegin;     // CSR: nodes[i] waits for syncList[syncBegin[i] .. syncBegin[i+1])
    std::vector<std::uint32_t> syncList;      // (positions)
    std::vector<std::uint32_t> childBegin;    // CSR: children of nodes[i], ascending id
    std::vector<std::uint32_t> childList;
    std::string schema; // schema string written to ET+ (one chakra_converter accepts)
    EtPlusStats stats;
    std::vector<Diagnostic> warnings;

    static std::uint64_t idOf(std::uint32_t position) { return position; }
};

EtPlusGraph buildEtPlusGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links);

// Throws ExportError when the host ET's file changed on disk since loading (checked as a writer starts,
// so the outcome does not depend on what a read cache still holds).
void requireHostSource(const HostTrace &host);
// The root node the observer writes for each thread, under both of its names.
bool isEtThreadRootName(std::string_view name);

// ET+ JSON: top level schema/pid/time/start_ts/finish_ts, nodes sorted by id, one node per line.
// Times are Kineto microseconds as written (exact decimal from the int64 nanoseconds).
std::uint64_t writeEtPlus(const std::string &path, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                          const LinkSet &links, bool gzip = false);

struct ChakraConversion {
    ChakraTrace trace;
    ChakraStats stats;
    std::vector<Diagnostic> warnings;
};

// The whole .et in memory (tests, the GUI's preview). Data deps of each node in ascending id order.
ChakraConversion convertToChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                                 const ChakraOptions &options = {});

// The same in three steps, so a multi-gigabyte export never holds a Node per op: dependencies as
// compact arrays, checked, then each Node built and written one at a time.
struct ChakraPlan {
    std::vector<std::uint32_t> depBegin; // CSR: node i waits for deps[depBegin[i] .. depBegin[i+1]) (positions)
    std::vector<std::uint32_t> deps;
    std::vector<std::uint8_t> keep;            // 0: a dangling node, left out
    std::vector<std::uint64_t> durationMicros; // astra-sim target: each node's duration; empty for Chakra
    std::vector<Nanos> laneNs;     // astra-sim target: each node's time on its own thread or stream (-1: none), attr lane_dur_ns
    std::vector<Nanos> dispatchNs; // astra-sim target: a kernel's dispatch latency within laneNs, attr dispatch_ns
    // astra-sim target: P2P transfers that move only once both sides are there (docs/astra-sim-export.md,
    // "Sends that wait for their receiver"). kRendezvousSend: a send that waits for a one-byte
    // clear-to-send from its receiver (a receive written before it); kRendezvousRecv: a receive that
    // sends it (a send written before it, posted with the receive). Empty: none.
    enum P2pRendezvous : std::uint8_t { kNoRendezvous = 0, kRendezvousSend = 1, kRendezvousRecv = 2 };
    std::vector<std::uint8_t> p2pRendezvous;
    ChakraStats stats; // dependency counts and danglingRemoved
};
// The id of node `position`'s clear-to-send (ChakraPlan::p2pRendezvous) in a graph of `nodes` nodes: after
// every position's id. Its tag is the transfer's with bit 30 set (PyTorch's sequence numbers stay below).
inline std::uint64_t p2pRendezvousId(std::size_t nodes, std::uint32_t position)
{
    return static_cast<std::uint64_t>(nodes) + position;
}
constexpr std::int32_t kP2pRendezvousTagBit = 1 << 30;
ChakraPlan planChakra(const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                      const ChakraOptions &options = {});
// Cycles in data_deps, then in ctrl_deps, named by id and name (ids exist and are unique by construction).
EtValidation validateChakraPlan(const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                                const DeviceTrace &device);
// Writes atomically without validating (validate first). `stats` gets node type counts; warnings are appended.
std::uint64_t writeChakraPlan(const std::string &path, const ChakraPlan &plan, const EtPlusGraph &graph, const HostTrace &host,
                              const DeviceTrace &device, const LinkSet &links, const ChakraOptions &options, bool gzip,
                              ChakraStats &stats, std::vector<Diagnostic> &warnings);
// The same bytes handed to `sink` (ExportRequest::etSink) instead of a file; returns how many.
std::uint64_t streamChakraPlan(const std::function<void(std::string_view)> &sink, const ChakraPlan &plan,
                               const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device, const LinkSet &links,
                               const ChakraOptions &options, ChakraStats &stats, std::vector<Diagnostic> &warnings);

// What an export target's check and writer see (export/targets.h). `host` and `graph` are null for a
// Kineto trace alone (only targets that do not need the host ET run then); `chakraPlan` carries what
// the .et target's check prepared for its writer.
struct ExportContext {
    const HostTrace *host;
    const DeviceTrace &device;
    const LinkSet &links;
    const ExportRequest &request;
    const EtPlusGraph *graph;
    ExportReport &report;
    ChakraPlan chakraPlan;
};

} // namespace linkscope::core
