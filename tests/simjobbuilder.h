#pragma once
// Small replay graphs built node by node for the predict tests (predict/simgraph.h): a node's kind,
// duration, dependencies, communication fields, and optionally its thread, stream and lane time, as
// the astra-sim target writes them.

#include "export/chakra/etformat.h"
#include "predict/replay.h"
#include "predict/simgraph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::test::simjob {

using namespace linkscope::core;
using namespace linkscope::core::predict;

struct NodeSpec {
    std::uint64_t id;
    std::string name;
    ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE;
    bool cpu = true;
    std::uint64_t micros = 0;
    std::vector<std::uint64_t> deps;
    std::int64_t commType = -1, bytes = 0, peer = -1;
    std::string pg;
    // Written only when set: the thread (attr tid), the stream (attr stream), the time on its own
    // lane (attr lane_dur_ns, what the faithful model runs).
    std::int64_t tid = -1, stream = -1, laneNs = -1;
    std::int64_t dispatchNs = 0; // attr dispatch_ns, written when > 0
};

inline NodeSpec onLane(NodeSpec n, std::int64_t tid, std::int64_t stream, std::int64_t laneNs = -1)
{
    n.tid = tid;
    n.stream = stream;
    n.laneNs = laneNs;
    return n;
}

inline NodeSpec cpu(std::uint64_t id, std::string name, std::uint64_t micros, std::vector<std::uint64_t> deps = {})
{
    return {id, std::move(name), ChakraProtoMsg::COMP_NODE, true, micros, std::move(deps), -1, 0, -1, {}};
}
inline NodeSpec gpu(std::uint64_t id, std::string name, std::uint64_t micros, std::vector<std::uint64_t> deps = {})
{
    return {id, std::move(name), ChakraProtoMsg::COMP_NODE, false, micros, std::move(deps), -1, 0, -1, {}};
}
inline NodeSpec allReduce(std::uint64_t id, std::int64_t bytes, std::vector<std::uint64_t> deps, std::string pg = "")
{
    NodeSpec n{id, "nccl:all_reduce", ChakraProtoMsg::COMM_COLL_NODE, false, 0, std::move(deps), -1, 0, -1, {}};
    n.commType = 0;
    n.bytes = bytes;
    n.pg = std::move(pg);
    return n;
}
inline NodeSpec p2p(std::uint64_t id, bool send, std::int64_t peer, std::int64_t bytes, std::vector<std::uint64_t> deps)
{
    NodeSpec n{id,
               send ? "nccl:send" : "nccl:recv",
               send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE,
               false,
               0,
               std::move(deps),
               -1,
               0,
               -1,
               {}};
    n.bytes = bytes;
    n.peer = peer;
    return n;
}

inline ChakraTrace traceOf(const std::vector<NodeSpec> &specs, std::int64_t rank = 0)
{
    ChakraTrace t;
    t.path = "rank" + std::to_string(rank) + ".et";
    for (const NodeSpec &s : specs) {
        ChakraProtoMsg::Node n;
        n.set_id(s.id);
        n.set_name(s.name);
        n.set_type(s.type);
        n.set_duration_micros(s.micros);
        for (const std::uint64_t d : s.deps)
            n.add_data_deps(d);
        auto *a = n.add_attr();
        a->set_name("is_cpu_op");
        a->set_bool_val(s.cpu);
        for (const auto &[key, value] :
             {std::pair{"tid", s.tid}, std::pair{"stream", s.stream}, std::pair{"lane_dur_ns", s.laneNs}})
            if (value >= 0) {
                a = n.add_attr();
                a->set_name(key);
                a->set_int64_val(value);
            }
        if (s.dispatchNs > 0) {
            a = n.add_attr();
            a->set_name("dispatch_ns");
            a->set_int64_val(s.dispatchNs);
        }
        if (s.type != ChakraProtoMsg::COMP_NODE) {
            if (s.commType >= 0) {
                a = n.add_attr();
                a->set_name("comm_type");
                a->set_int64_val(s.commType);
            }
            a = n.add_attr();
            a->set_name("comm_size");
            a->set_int64_val(s.bytes);
            if (s.peer >= 0) {
                a = n.add_attr();
                a->set_name(s.type == ChakraProtoMsg::COMM_SEND_NODE ? "comm_dst" : "comm_src");
                a->set_int32_val(static_cast<std::int32_t>(s.peer));
                a = n.add_attr();
                a->set_name("comm_tag");
                a->set_int32_val(7);
            }
            if (!s.pg.empty()) {
                a = n.add_attr();
                a->set_name("pg_name");
                a->set_string_val(s.pg);
            }
        }
        t.nodes.push_back(n);
    }
    return t;
}

inline SimJob jobOf(const std::vector<std::vector<NodeSpec>> &ranks, Network net = {})
{
    SimJob job;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        job.ranks.push_back(
            buildRank(traceOf(ranks[r], static_cast<std::int64_t>(r)), static_cast<std::int64_t>(r), job.groupIds));
    job.npus = static_cast<std::int64_t>(ranks.size());
    job.network = net;
    job.network.npus = job.npus;
    return job;
}

inline std::uint32_t pos(const SimJob &job, std::size_t rank, std::uint64_t id)
{
    const auto &nodes = job.ranks[rank].nodes;
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].id == id)
            return i;
    return kNoNode;
}

// The first way two ranks' graphs differ (their paths aside), or empty: the rank, every node field,
// the dependencies both ways, names, steps, lanes, the summed time and every communication.
inline std::string rankDifference(const SimRank &a, const SimRank &b)
{
    const std::string at = "rank " + std::to_string(a.rank) + ": ";
    if (a.rank != b.rank)
        return at + "rank " + std::to_string(b.rank) + " on the other side";
    if (a.nodes.size() != b.nodes.size())
        return at + std::to_string(a.nodes.size()) + " nodes against " + std::to_string(b.nodes.size());
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const SimNode &n = a.nodes[i], &m = b.nodes[i];
        if (!(n.id == m.id && n.kind == m.kind && n.lane == m.lane && n.name == m.name && n.durationMicros == m.durationMicros
              && n.laneNs == m.laneNs && n.depBegin == m.depBegin && n.depEnd == m.depEnd && n.comm == m.comm
              && n.dispatchNs == m.dispatchNs && n.stream == m.stream))
            return at + "node " + std::to_string(i) + " (id " + std::to_string(n.id) + ")";
    }
    if (a.deps != b.deps || a.succBegin != b.succBegin || a.succ != b.succ)
        return at + "dependencies";
    if (a.names != b.names || a.steps != b.steps || a.threads != b.threads || a.streams != b.streams)
        return at + "names, steps or lanes";
    if (a.totalNs != b.totalNs)
        return at + "total " + std::to_string(a.totalNs) + " ns against " + std::to_string(b.totalNs);
    if (a.comms.size() != b.comms.size())
        return at + std::to_string(a.comms.size()) + " communications against " + std::to_string(b.comms.size());
    for (std::size_t c = 0; c < a.comms.size(); ++c) {
        const SimComm &p = a.comms[c], &q = b.comms[c];
        if (!(p.kind == q.kind && p.bytes == q.bytes && p.group == q.group && p.peer == q.peer && p.tag == q.tag))
            return at + "communication " + std::to_string(c);
    }
    return {};
}

} // namespace linkscope::test::simjob
