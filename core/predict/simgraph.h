#pragma once
// The graph Linkscope's replay runs (predict/replay.h): what ASTRA-sim 518bd51 reads of a job's .et
// files, comm_group.json and network.yml, in arrays (docs/prediction.md). Built once per job; a
// what-if changes durations and the network at replay time, never the graph.

#include "export/chakra/etbounds.h"
#include "jobmodel/crossrank.h"
#include "model/common.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// The Chakra types are declared here, defined in export/chakra/etformat.h (with the protobuf messages): a
// caller that does not build or read a .et does not compile the protobuf headers.
namespace ChakraProtoMsg {
class Node;
}

namespace linkscope::core {
struct ChakraTrace;
}

namespace linkscope::core::predict {

class HugeBuffer;

// Which of the rank's resources a node holds while it runs (ASTRA-sim's HardwareResource): one CPU
// node at a time (every thread), one GPU compute node at a time (every stream), one collective or
// send at a time. A receive holds nothing; a metadata or invalid node finishes as it is issued.
enum class NodeKind : std::uint8_t { Cpu, Gpu, Collective, Send, Recv, Skip };
std::string_view nodeKindName(NodeKind kind); // "cpu", "gpu", "collective", "send", "recv", "skip"

struct SimNode {
    std::uint64_t id = 0;
    NodeKind kind = NodeKind::Skip;
    std::uint16_t lane = 0;                 // Cpu: index into SimRank::threads; Gpu: into SimRank::streams
    std::uint32_t name = 0;                 // into SimRank::names
    std::int64_t durationMicros = 0;        // as written (ASTRA-sim runs 0 as 1 ns)
    std::int64_t laneNs = -1;               // attr lane_dur_ns: its time on its own thread or stream (-1: not written)
    std::uint32_t depBegin = 0, depEnd = 0; // into SimRank::deps: positions of the nodes it waits for
    std::int32_t comm = -1;                 // into SimRank::comms for Collective/Send/Recv
    std::int32_t dispatchNs = 0;            // Gpu: attr dispatch_ns, the dispatch latency within its time (kept by a what-if)
    std::int64_t stream = -1;               // GPU nodes' "stream" attribute
};

struct SimComm {
    job::CallKind kind = job::CallKind::Unknown;
    std::int64_t bytes = 0;
    std::int32_t group = -1; // into SimJob::groups; -1: every rank (pg_name "" or "0")
    std::int64_t peer = -1;  // Send: comm_dst; Recv: comm_src
    std::int64_t tag = 0;
};

struct SimRank {
    std::int64_t rank = -1;
    std::string path;                           // where it was read from (messages)
    std::vector<SimNode> nodes;                 // ascending id: position = issue priority
    std::vector<std::uint32_t> deps;            // data_deps ∪ ctrl_deps, as positions
    std::vector<std::uint32_t> succBegin, succ; // successors (CSR, built from deps)
    std::vector<std::string> names;             // interned node names
    std::vector<SimComm> comms;
    // Positions of the rank's ProfilerStep#N nodes (a delayed rank's delay goes there, as
    // `linkscope whatif` writes it).
    std::vector<std::uint32_t> steps;
    // The CPU threads (attr `tid`) and GPU streams (attr `stream`) of the rank's nodes, in order of
    // first appearance: SimNode::lane indexes them. At most kMaxLanes of each; more share the last.
    std::vector<std::int64_t> threads, streams;
    std::int64_t totalNs = 0; // its node times summed (export/chakra/etbounds.h), ≤ kMaxEtTotalNs
};
inline constexpr std::size_t kMaxLanes = 4096;

// The analytical ring of ASTRA-sim's network file (what `linkscope job` fits and writes).
struct Network {
    std::int64_t npus = 0;
    double bandwidthGBps = 50; // the file's GB/s (its GB is 2^30 bytes)
    double latencyNs = 500;
};

struct SimJob {
    std::vector<SimRank> ranks;                    // ascending rank, ranks 0..N-1 expected
    std::vector<std::int64_t> groupIds;            // comm_group.json's ids
    std::vector<std::vector<std::int64_t>> groups; // their ranks, in the file's (ring) order
    Network network;
    std::int64_t npus = 0; // ranks in the simulation
    // One rank standing for a job of `npus` ranks that all run as it does (a single pair): each of
    // its collectives starts when it arrives, a receive's message leaves its peer when the receive
    // is issued.
    bool mirrored = false;
    // Per rank (as `ranks`): when it entered its measured step on the job's aligned clock, after the
    // rank that entered first (`linkscope job`'s clocks and each rank's window_begin_ns). The faithful
    // model starts each rank there, and a rank's step runs from it; empty: every rank at 0.
    std::vector<std::int64_t> entryNs;
    std::size_t nodeCount() const;
};

// Builds one rank node by node (from a file being scanned, or a trace in memory). `groupIds` maps a
// node's pg_name to SimJob::groups: a pg_name not in it throws LoadError naming the file, the node
// and its offset, as ASTRA-sim would stop there.
struct NodeFields;
class RankBuilder {
public:
    RankBuilder(std::int64_t rank, std::string path, const std::vector<std::int64_t> &groupIds);
    // Before the job's groups are known (a rank built while the others are still being exported): a
    // pg_name not yet in `learnedGroupIds` is appended to it, and SimComm::group indexes that list
    // until regroupRank maps it onto the job's.
    RankBuilder(std::int64_t rank, std::string path, std::vector<std::int64_t> *learnedGroupIds);
    // Room for about this many nodes and dependencies (growing vectors page-fault on every doubling).
    void reserve(std::size_t nodes, std::size_t deps);
    void add(const ChakraProtoMsg::Node &node, std::size_t offset);
    // The same from a Node's serialized bytes, decoding only what the replay reads (not the inputs,
    // outputs or other attributes): several times faster than parsing the message. Throws
    // LoadError for bytes that are not a Node.
    void addEncoded(const char *bytes, int size, std::size_t offset);
    // Sorts by id, resolves dependencies, builds successors; throws LoadError for a duplicate id, a
    // dependency on a node not in the file, or a cycle (ASTRA-sim would abort or never finish).
    SimRank finish();

private:
    SimRank m_rank;
    const std::vector<std::int64_t> &m_groupIds;
    std::vector<std::int64_t> *m_learnedGroupIds = nullptr;
    std::vector<std::uint64_t> m_rawDeps; // ids, per node [depBegin, depEnd)
    std::vector<std::size_t> m_offsets;
    std::deque<std::string> m_nameStore;                         // names in first-seen order (stable addresses)
    std::unordered_map<std::string_view, std::uint32_t> m_names; // views into m_nameStore
    void addFields(const NodeFields &fields, std::size_t depBegin, std::size_t offset);
    struct LaneCache {
        std::unordered_map<std::int64_t, std::uint16_t> lanes;
        std::int64_t lastId = 0;
        int lastLane = -1;
    };
    LaneCache m_threadLanes, m_streamLanes;
    EtTimeSum m_times;
    static std::uint16_t laneOf(std::vector<std::int64_t> &ids, LaneCache &cache, std::int64_t id);
};
SimRank buildRank(const ChakraTrace &trace, std::int64_t rank, const std::vector<std::int64_t> &groupIds);
// A rank built with learned group ids (RankBuilder's second constructor) moved onto the job's
// `groupIds` (SimJob::groupIds). Throws LoadError naming the rank's path and a pg_name the job has
// no group for, as reading the .et with the job's comm group file would.
void regroupRank(SimRank &rank, const std::vector<std::int64_t> &learnedGroupIds, const std::vector<std::int64_t> &groupIds);

// One rank's .et file (plain or gzip'ed) as loadJob reads it. Throws LoadError as frameChakraEtFile
// and RankBuilder do.
SimRank loadRank(const std::string &path, std::int64_t rank, const std::vector<std::int64_t> &groupIds);
// The same, reading through `buffer` (one per loading thread: its pages are touched once for all
// the files that thread reads).
SimRank loadRank(const std::string &path, std::int64_t rank, const std::vector<std::int64_t> &groupIds, HugeBuffer &buffer);

// Reads .et files (rank from the name's `.R.et`, else the position), the comm group file (empty path:
// none) and the network file (empty path: run.sh's ring, 50 GB/s, 500 ns, npus = the ranks). The
// files must be ranks 0..N-1 — unless `mirrorNpus` > 0: then one file, a rank of a job of that many
// ranks (SimJob::mirrored). Throws LoadError naming the file and, where there is one, the line or node.
SimJob loadJob(const std::vector<std::string> &etFiles, const std::string &commGroupsPath, const std::string &networkPath,
               std::int64_t mirrorNpus = 0);

// What loadJob does once every rank is read: the ranks sorted and checked (0..N-1, or one rank of a
// mirrored job of `mirrorNpus` ranks), the job's time bounded, SimJob::mirrored and npus set.
// Throws LoadError naming the rank's path.
void assembleJob(SimJob &job, std::int64_t mirrorNpus);
// Every group's ranks within the job's npus; `groupsName` names the comm groups in the message.
void checkGroupRanks(const SimJob &job, const std::string &groupsName);

// {"<id>": [ranks]} as ASTRA-sim's --comm-group-configuration reads it. Throws LoadError.
void parseCommGroups(const std::string &text, const std::string &name, SimJob &job);
// `topology: [ Ring ]`, `npus_count: [ N ]`, `bandwidth: [ GBps ]`, `latency: [ ns ]` (one
// dimension; what run.sh and `linkscope job` write). Throws LoadError naming the file and line.
Network parseNetworkYaml(const std::string &text, const std::string &name);

} // namespace linkscope::core::predict
