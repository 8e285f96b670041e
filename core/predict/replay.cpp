#include "predict/replay.h"

#include "job/networkfit.h"
#include "predict/namememo.h"

#include <queue>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace linkscope::core::predict {

bool ReplayResult::allFinished() const
{
    return std::all_of(ranks.begin(), ranks.end(), [](const RankReplay &r) { return r.finished; });
}

std::string_view replayModelName(ReplayModel model) { return model == ReplayModel::AstraSim ? "astra-sim" : "faithful"; }

std::optional<ReplayModel> replayModelFromName(std::string_view name)
{
    if (name == "faithful")
        return ReplayModel::Faithful;
    if (name == "astra-sim" || name == "astrasim")
        return ReplayModel::AstraSim;
    return std::nullopt;
}

int resourceCount(const SimRank &rank, ReplayModel model)
{
    if (model == ReplayModel::AstraSim)
        return 3;
    return static_cast<int>(std::max<std::size_t>(rank.threads.size(), 1) + std::max<std::size_t>(rank.streams.size(), 1)) + 1;
}

int resourceOf(const SimRank &rank, const SimNode &node, ReplayModel model)
{
    const bool astra = model == ReplayModel::AstraSim;
    const int threads = static_cast<int>(std::max<std::size_t>(rank.threads.size(), 1));
    switch (node.kind) {
    case NodeKind::Cpu:
        return astra ? 0 : std::min<int>(node.lane, threads - 1);
    case NodeKind::Gpu:
        return astra ? 1
                     : threads + std::min<int>(node.lane, static_cast<int>(std::max<std::size_t>(rank.streams.size(), 1)) - 1);
    case NodeKind::Collective:
    case NodeKind::Send:
        return astra ? 2 : resourceCount(rank, model) - 1;
    case NodeKind::Recv:
    case NodeKind::Skip:
        return -1;
    }
    return -1;
}

std::uint32_t Durations::firstCpuNode(const SimRank &rank)
{
    for (std::size_t i = 0; i < rank.nodes.size(); ++i)
        if (rank.nodes[i].kind == NodeKind::Cpu)
            return static_cast<std::uint32_t>(i);
    return kNoNode;
}

Durations::Durations(const SimJob &job, const WhatIf &whatIf, ReplayModel model)
    : m_job(job), m_model(model), m_network(job.network)
{
    m_network.bandwidthGBps = scaledBandwidthGBps(job.network.bandwidthGBps, whatIf);
    m_network.latencyNs = scaledLatencyNs(job.network.latencyNs, whatIf);
    m_delayMicros.assign(job.ranks.size(), 0);
    m_delayNode.assign(job.ranks.size(), kNoNode);
    for (const auto &delay : whatIf.rankDelayMs) {
        const std::int64_t rank = delay.first;
        const auto it = std::find_if(job.ranks.begin(), job.ranks.end(), [rank](const SimRank &r) { return r.rank == rank; });
        if (it == job.ranks.end())
            throw std::invalid_argument("--delay-rank: the job has no rank " + std::to_string(rank));
        const std::size_t r = static_cast<std::size_t>(it - job.ranks.begin());
        m_delayMicros[r] = std::min(saturatedNs(delay.second * 1000.0), kMaxScaledNs / 1000);
        if (it->steps.empty())
            m_delayNode[r] = firstCpuNode(*it);
    }
    // A factor per interned name (it does not depend on the node; a stream's factor is applied per
    // node below), searched once per distinct name (namememo.h).
    m_nameFactor.resize(job.ranks.size());
    m_cpuNameFactor.resize(job.ranks.size());
    if (whatIf.gpu.empty() && whatIf.cpu.empty() && whatIf.streamFactor.empty())
        return;
    // The ranks of a job mostly share their names (TP and DP ranks run the same ops): a name's
    // factor is searched once for the job while no term names a rank, else once per rank.
    const auto anyRank = [](const std::vector<WhatIf::NameScale> &scales) {
        return std::any_of(scales.begin(), scales.end(), [](const WhatIf::NameScale &s) { return s.rank >= 0; });
    };
    const bool perRank = anyRank(whatIf.gpu) || anyRank(whatIf.cpu);
    const auto everyRank = [](std::int64_t) { return false; };
    // -1: unchanged (no rounding).
    if (!whatIf.gpu.empty() || !whatIf.streamFactor.empty())
        m_nameFactor = perDistinctName<double>(
            job, NodeKind::Gpu, perRank, 1.0,
            [&whatIf](const std::string &name, std::int64_t rank) {
                const auto [factor, matched] = whatIf.gpuFactor(name, -1, rank);
                return matched ? factor : -1.0;
            },
            everyRank);
    if (!whatIf.cpu.empty())
        m_cpuNameFactor = perDistinctName<double>(
            job, NodeKind::Cpu, perRank, -1.0,
            [&whatIf](const std::string &name, std::int64_t rank) {
                const auto [factor, matched] = whatIf.cpuFactor(name, rank);
                return matched ? factor : -1.0;
            },
            everyRank);
    m_streams = whatIf.streamFactor;
}

std::int64_t Durations::computeNs(std::size_t r, std::uint32_t node) const
{
    const SimNode &n = m_job.ranks[r].nodes[node];
    double factor = 1;
    bool matched = false;
    if (n.kind == NodeKind::Gpu && !m_nameFactor[r].empty()) {
        factor = m_nameFactor[r][n.name];
        matched = factor >= 0;
        if (!matched)
            factor = 1;
        if (const auto s = m_streams.find(n.stream); s != m_streams.end()) {
            factor *= s->second;
            matched = true;
        }
    } else if (n.kind == NodeKind::Cpu && !m_cpuNameFactor[r].empty()) {
        factor = m_cpuNameFactor[r][n.name];
        matched = factor >= 0;
        if (!matched)
            factor = 1;
    }
    std::int64_t delayMicros = 0;
    if (n.kind == NodeKind::Cpu && m_delayMicros[r]) {
        const std::vector<std::uint32_t> &steps = m_job.ranks[r].steps;
        if (m_delayNode[r] == node || std::binary_search(steps.begin(), steps.end(), node))
            delayMicros = m_delayMicros[r];
    }
    if (m_model == ReplayModel::Faithful) { // in ns: the lane time where the export wrote it
        // The reader bounds a file's times (export/chakra/etbounds.h); a graph built otherwise is clamped there.
        const std::int64_t base = n.laneNs >= 0 ? std::min(n.laneNs, kMaxEtLaneNs)
                                                : std::clamp<std::int64_t>(n.durationMicros, 0, kMaxEtLaneNs / 1000) * 1000;
        const std::int64_t ns = matched ? scaledNs(base, n.dispatchNs, factor) : base;
        return std::max<std::int64_t>(ns + delayMicros * 1000, 1);
    }
    std::int64_t micros = std::clamp<std::int64_t>(n.durationMicros, 0, kMaxEtLaneNs / 1000);
    if (matched) // as applyWhatIf writes it into the .et: whole microseconds
        micros = scaledMicros(micros, n.dispatchNs, factor);
    micros += delayMicros;
    return micros == 0 ? 1 : micros * 1000;
}

std::int64_t Durations::collectiveNs(const SimJob &job, std::size_t r, const SimComm &comm) const
{
    if (comm.kind == job::CallKind::Broadcast)
        return -2; // replayed: the node's own duration
    static const std::vector<std::int64_t> world;
    const std::vector<std::int64_t> &group = comm.group >= 0 ? job.groups[static_cast<std::size_t>(comm.group)] : world;
    (void)r;
    const auto cost = job::astraSimCollectiveCost(comm.kind, group, job.npus, comm.bytes);
    if (!cost)
        return -1;
    const double bytesPerNs = m_network.bandwidthGBps * job::kAstraSimGB;
    return saturatedNs(cost->bytesTerm / bytesPerNs + cost->latencyCoefficient * m_network.latencyNs + cost->constantNs);
}

std::int64_t Durations::sendNs(std::int64_t src, std::int64_t dst, std::int64_t bytes) const
{
    const std::int64_t npus = std::max<std::int64_t>(m_network.npus, 1);
    const std::int64_t d = std::llabs(src - dst) % npus;
    const double hops = static_cast<double>(std::min(d, npus - d));
    const double bytesPerNs = m_network.bandwidthGBps * job::kAstraSimGB;
    const double ns = hops * m_network.latencyNs + static_cast<double>(bytes) / bytesPerNs;
    return ns < static_cast<double>(kMaxScaledNs) ? static_cast<std::int64_t>(std::max(ns, 0.0)) : kMaxScaledNs;
}

namespace {

// now + d, saturating: the clock stays an int64 however many saturated times follow each other.
std::int64_t after(std::int64_t now, std::int64_t d)
{
    return now > std::numeric_limits<std::int64_t>::max() - d ? std::numeric_limits<std::int64_t>::max() : now + d;
}

struct Event {
    std::int64_t time;
    std::uint64_t seq;
    std::int32_t rank;
    std::uint32_t node;
    bool operator>(const Event &o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

// Groups up to this size get the ring's step-by-step timing when their members arrive apart; larger
// ones end together (the difference is at most one step of 2(n−1)).
constexpr std::size_t kRingStepLimit = 64;

using MinHeap = std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>>;

struct RankState {
    std::vector<std::uint32_t> waiting; // dependencies not finished
    std::vector<MinHeap> ready;         // per resource (resourceOf): ready, by id (= position)
    std::vector<char> busy;             // per resource
    std::vector<std::int32_t> resource; // per node: resourceOf
    std::vector<std::uint32_t> free;    // ready nodes that hold no resource (receives, skips)
    std::size_t done = 0;
    std::vector<std::uint32_t> groupSeq; // per group (+1: the world): collectives issued so far
};

struct Meeting { // one collective instance: the k-th of a group
    std::size_t arrived = 0;
    std::int64_t lastArrival = -1;
    std::int64_t dispatchNs = std::numeric_limits<std::int64_t>::max(); // the members' smallest (faithful model)
    Cause last;
    std::vector<Cause> members;
};

struct Message {               // one send, matched to one receive in order
    std::int64_t arrival = -1; // -1: not sent yet
    std::int32_t sendRank = -1;
    std::uint32_t sendNode = kNoNode;
    std::int64_t sendStart = 0;
    std::int32_t recvRank = -1; // a receive waiting for it
    std::uint32_t recvNode = kNoNode;
};

class Simulator {
public:
    Simulator(const SimJob &job, const WhatIf &whatIf, const ReplayOptions &options)
        : m_job(job), m_dur(job, whatIf, options.model), m_options(options)
    {
        m_out.network = m_dur.network();
        m_out.model = options.model;
        const std::size_t n = job.ranks.size();
        m_state.resize(n);
        m_out.ranks.resize(n);
        for (std::size_t r = 0; r < n; ++r) {
            const SimRank &rank = job.ranks[r];
            RankState &s = m_state[r];
            RankReplay &out = m_out.ranks[r];
            out.rank = rank.rank;
            out.start.assign(rank.nodes.size(), -1);
            out.end.assign(rank.nodes.size(), -1);
            out.cause.assign(rank.nodes.size(), {});
            out.transferStart.assign(rank.comms.size(), -1);
            out.peer.assign(rank.comms.size(), {});
            out.meeting.assign(rank.comms.size(), -1);
            s.waiting.resize(rank.nodes.size());
            s.groupSeq.assign(job.groups.size() + 1, 0);
            const std::size_t resources = static_cast<std::size_t>(resourceCount(rank, options.model));
            s.ready.resize(resources);
            s.busy.assign(resources, 0);
            s.resource.resize(rank.nodes.size());
            for (std::size_t i = 0; i < rank.nodes.size(); ++i)
                s.resource[i] = resourceOf(rank, rank.nodes[i], options.model);
            for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
                s.waiting[i] = rank.nodes[i].depEnd - rank.nodes[i].depBegin;
                if (!s.waiting[i])
                    makeReady(r, static_cast<std::uint32_t>(i));
            }
        }
        if (options.keepIssueOrder)
            m_out.issueOrder.reserve(job.nodeCount());
    }

    ReplayResult run()
    {
        // The faithful model starts each rank where it entered its step (SimJob::entryNs); ASTRA-sim
        // starts every rank at 0.
        for (std::size_t r = 0; r < m_job.ranks.size(); ++r) {
            const std::int64_t entry = m_options.model == ReplayModel::Faithful && r < m_job.entryNs.size()
                                           ? std::max<std::int64_t>(m_job.entryNs[r], 0)
                                           : 0;
            m_out.ranks[r].entryNs = entry;
            m_out.ranks[r].endNs = entry;
            issueReady(r, entry, {});
        }
        while (!m_events.empty()) {
            const Event e = m_events.top();
            m_events.pop();
            complete(static_cast<std::size_t>(e.rank), e.node, e.time);
        }
        for (std::size_t r = 0; r < m_job.ranks.size(); ++r) {
            RankReplay &out = m_out.ranks[r];
            out.finished = m_state[r].done == m_job.ranks[r].nodes.size();
            if (!out.finished)
                out.stuck = whyStuck(r);
            m_out.makespanNs = std::max(m_out.makespanNs, out.endNs);
        }
        return std::move(m_out);
    }

private:
    const SimJob &m_job;
    Durations m_dur;
    ReplayOptions m_options;
    ReplayResult m_out;
    std::vector<RankState> m_state;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
    std::uint64_t m_seq = 0;
    std::vector<std::uint32_t> m_issuing;                  // issueReady's free nodes (a buffer kept between calls)
    std::vector<std::uint32_t> m_batch;                    // issueReady's nodes that take a resource (likewise)
    std::unordered_map<std::uint64_t, Meeting> m_meetings; // (group, k)
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, std::vector<Message>> m_messages;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, std::pair<std::size_t, std::size_t>>
        m_messageCursor; // sends, receives so far

    void makeReady(std::size_t r, std::uint32_t node)
    {
        RankState &s = m_state[r];
        const std::int32_t resource = s.resource[node];
        if (resource >= 0)
            s.ready[static_cast<std::size_t>(resource)].push(node);
        else
            s.free.push_back(node);
    }

    void schedule(std::size_t r, std::uint32_t node, std::int64_t time)
    {
        m_events.push({time, m_seq++, static_cast<std::int32_t>(r), node});
    }

    // ASTRA-sim's issue_dep_free_nodes: every ready node whose resource is free, in id order.
    void issueReady(std::size_t r, std::int64_t now, Cause trigger)
    {
        RankState &s = m_state[r];
        std::vector<std::uint32_t> &batch = m_batch;
        batch.clear();
        for (std::size_t k = 0; k < s.ready.size(); ++k)
            if (!s.busy[k] && !s.ready[k].empty()) {
                batch.push_back(s.ready[k].top());
                s.ready[k].pop();
                s.busy[k] = 1;
            }
        if (batch.empty() && s.free.empty())
            return;
        std::vector<std::uint32_t> &freeNodes = m_issuing; // issue() never makes a node ready: s.free stays empty
        freeNodes.swap(s.free);
        std::sort(batch.begin(), batch.end());
        std::sort(freeNodes.begin(), freeNodes.end());
        // Merge the two id-ordered lists.
        const std::size_t k = batch.size();
        std::size_t a = 0, b = 0;
        while (a < k || b < freeNodes.size()) {
            const bool takeA = b >= freeNodes.size() || (a < k && batch[a] < freeNodes[b]);
            issue(r, takeA ? batch[a++] : freeNodes[b++], now, trigger);
        }
        freeNodes.clear(); // its buffer is the next s.free's
        freeNodes.swap(s.free);
    }

    void issue(std::size_t r, std::uint32_t node, std::int64_t now, Cause trigger)
    {
        const SimRank &rank = m_job.ranks[r];
        const SimNode &n = rank.nodes[node];
        RankReplay &out = m_out.ranks[r];
        out.start[node] = now;
        out.cause[node] = trigger;
        if (m_options.keepIssueOrder)
            m_out.issueOrder.emplace_back(static_cast<std::int32_t>(r), node);
        switch (n.kind) {
        case NodeKind::Cpu:
        case NodeKind::Gpu: {
            const std::int64_t d = m_dur.computeNs(r, node);
            std::int64_t &busy = n.kind == NodeKind::Cpu ? out.cpuBusyNs : out.gpuBusyNs;
            busy = after(busy, d);
            schedule(r, node, after(now, d));
            break;
        }
        case NodeKind::Skip:
            schedule(r, node, now);
            break;
        case NodeKind::Collective:
            arrive(r, node, now);
            break;
        case NodeKind::Send:
            send(r, node, now);
            break;
        case NodeKind::Recv:
            receive(r, node, now);
            break;
        }
    }

    void arrive(std::size_t r, std::uint32_t node, std::int64_t now)
    {
        const SimRank &rank = m_job.ranks[r];
        const SimComm &comm = rank.comms[static_cast<std::size_t>(rank.nodes[node].comm)];
        const std::int64_t cost = m_dur.collectiveNs(m_job, r, comm);
        if (cost == -2) { // a broadcast: replayed for its own time on this rank
            const std::int64_t d = m_dur.computeNs(r, node);
            m_out.ranks[r].transferStart[static_cast<std::size_t>(rank.nodes[node].comm)] = now;
            m_out.ranks[r].commBusyNs = after(m_out.ranks[r].commBusyNs, d);
            schedule(r, node, after(now, d));
            return;
        }
        const std::size_t g = comm.group >= 0 ? static_cast<std::size_t>(comm.group) : m_job.groups.size();
        const std::uint64_t key = (static_cast<std::uint64_t>(g) << 32) | m_state[r].groupSeq[g]++;
        Meeting &m = m_meetings[key];
        m.members.push_back({static_cast<std::int32_t>(r), node});
        ++m.arrived;
        m.dispatchNs = std::min<std::int64_t>(m.dispatchNs,
                                              m_options.model == ReplayModel::Faithful ? rank.nodes[node].dispatchNs : 0);
        if (now >= m.lastArrival) {
            m.lastArrival = now;
            m.last = {static_cast<std::int32_t>(r), node};
        }
        const std::size_t size = m_job.mirrored    ? 1
                                 : comm.group >= 0 ? m_job.groups[g].size()
                                                   : static_cast<std::size_t>(m_job.npus);
        if (m.arrived < size || cost < 0)
            return; // the transfer starts when the last member arrives (never, on a group of one)
        // The faithful model: the transfer starts once the kernels are dispatched, the members'
        // smallest dispatch latency after the last arrival (attr dispatch_ns; 0 in ASTRA-sim's).
        const std::int64_t dispatch = std::max<std::int64_t>(m.dispatchNs, 0);
        m.lastArrival = after(m.lastArrival, dispatch);
        const auto index = static_cast<std::int32_t>(m_out.meetings.size());
        const std::vector<std::int64_t> ends = memberEnds(comm, m, cost, dispatch);
        for (std::size_t k = 0; k < m.members.size(); ++k) {
            const Cause &member = m.members[k];
            const std::size_t mr = static_cast<std::size_t>(member.rank);
            const std::size_t c = static_cast<std::size_t>(m_job.ranks[mr].nodes[member.node].comm);
            RankReplay &out = m_out.ranks[mr];
            out.transferStart[c] = m.lastArrival;
            out.commBusyNs = after(out.commBusyNs, ends[k] - m.lastArrival);
            out.peer[c] = m.last;
            out.meeting[c] = index;
            schedule(mr, member.node, ends[k]);
        }
        m_out.meetings.push_back(std::move(m.members));
        m_meetings.erase(key);
    }

    // When each member's collective ends. Members that arrived together end `cost` after the last
    // arrival. When they arrived apart, ASTRA-sim's ring lets a rank run ahead: each chunk is S
    // steps, a step sends to the next rank of the ring and waits for the previous one's, so a rank
    // that arrived early finishes up to a step earlier than the last (ringEnds).
    std::vector<std::int64_t> memberEnds(const SimComm &comm, const Meeting &m, std::int64_t cost, std::int64_t dispatch) const
    {
        const std::size_t n = m.members.size();
        std::vector<std::int64_t> ends(n, after(m.lastArrival, cost));
        const bool ring = comm.kind == job::CallKind::AllReduce || comm.kind == job::CallKind::ReduceScatter
                          || comm.kind == job::CallKind::AllGather;
        if (!ring || n < 2 || n > kRingStepLimit || m_job.mirrored)
            return ends;
        // Arrival per ring position (the group's order in comm_group.json; the world: rank order).
        std::vector<std::int64_t> order(n);
        if (comm.group >= 0)
            order = m_job.groups[static_cast<std::size_t>(comm.group)];
        else
            for (std::size_t i = 0; i < n; ++i)
                order[i] = m_job.ranks[i].rank;
        std::vector<double> start(n, 0);
        std::vector<std::size_t> memberAt(n, n);
        for (std::size_t k = 0; k < n; ++k) {
            const std::int64_t rank = m_job.ranks[static_cast<std::size_t>(m.members[k].rank)].rank;
            const auto it = std::find(order.begin(), order.end(), rank);
            if (it == order.end())
                return ends;
            const std::size_t p = static_cast<std::size_t>(it - order.begin());
            memberAt[p] = k;
            start[p] = static_cast<double>(
                after(m_out.ranks[static_cast<std::size_t>(m.members[k].rank)].start[m.members[k].node], dispatch));
        }
        if (std::all_of(start.begin(), start.end(), [&](double s) { return static_cast<std::int64_t>(s) == m.lastArrival; }))
            return ends;
        const double chunks = comm.bytes % 4 ? 5 : 4;
        const double steps = comm.kind == job::CallKind::AllReduce ? 2.0 * double(n - 1) : double(n - 1);
        const double d = double(cost) / (chunks * steps);
        // recv[p]: when position p received the current step; send: when it sent it.
        std::vector<double> ready = start, send(n), recv(n);
        for (int c = 0; c < static_cast<int>(chunks); ++c) {
            std::vector<double> entered = ready; // when p began the chunk's step 0
            for (int s = 0; s < static_cast<int>(steps); ++s) {
                for (std::size_t p = 0; p < n; ++p)
                    send[p] = entered[p];
                for (std::size_t p = 0; p < n; ++p)
                    recv[p] = std::max(entered[p], send[(p + n - 1) % n] + d);
                entered = recv;
            }
            ready = entered;
        }
        for (std::size_t p = 0; p < n; ++p)
            if (memberAt[p] < n)
                ends[memberAt[p]] = std::max<std::int64_t>(m.lastArrival, std::llround(ready[p]));
        return ends;
    }

    auto messageKey(std::size_t r, std::uint32_t node, bool sending) const
    {
        const SimRank &rank = m_job.ranks[r];
        const SimComm &c = rank.comms[static_cast<std::size_t>(rank.nodes[node].comm)];
        return sending ? std::make_tuple(rank.rank, c.peer, c.tag, c.bytes) : std::make_tuple(c.peer, rank.rank, c.tag, c.bytes);
    }

    Message &slot(const std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t> &key, bool sending)
    {
        std::vector<Message> &list = m_messages[key];
        auto &cursor = m_messageCursor[key];
        const std::size_t index = sending ? cursor.first++ : cursor.second++;
        if (list.size() <= index)
            list.resize(index + 1);
        return list[index];
    }

    void send(std::size_t r, std::uint32_t node, std::int64_t now)
    {
        const SimRank &rank = m_job.ranks[r];
        const std::size_t c = static_cast<std::size_t>(rank.nodes[node].comm);
        const SimComm &comm = rank.comms[c];
        const std::int64_t d = m_dur.sendNs(rank.rank, comm.peer, comm.bytes);
        Message &msg = slot(messageKey(r, node, true), true);
        msg.arrival = after(now, d);
        msg.sendRank = static_cast<std::int32_t>(r);
        msg.sendNode = node;
        msg.sendStart = now;
        m_out.ranks[r].transferStart[c] = now;
        m_out.ranks[r].commBusyNs = after(m_out.ranks[r].commBusyNs, d);
        schedule(r, node, after(now, d));
        if (msg.recvRank >= 0 && !m_job.mirrored) { // a receive was waiting: it ends when the message arrives
            const std::size_t rr = static_cast<std::size_t>(msg.recvRank);
            const SimRank &recvRank = m_job.ranks[rr];
            const std::size_t rc = static_cast<std::size_t>(recvRank.nodes[msg.recvNode].comm);
            m_out.ranks[rr].transferStart[rc] = now;
            m_out.ranks[rr].peer[rc] = {msg.sendRank, node};
            m_out.ranks[r].peer[c] = {msg.recvRank, msg.recvNode};
            schedule(rr, msg.recvNode, msg.arrival);
        }
    }

    void receive(std::size_t r, std::uint32_t node, std::int64_t now)
    {
        const SimRank &rank = m_job.ranks[r];
        const std::size_t c = static_cast<std::size_t>(rank.nodes[node].comm);
        if (m_job.mirrored) { // the peer, running as this rank does, sends as this receive is issued
            const SimComm &comm = rank.comms[c];
            m_out.ranks[r].transferStart[c] = now;
            schedule(r, node, after(now, m_dur.sendNs(comm.peer, rank.rank, comm.bytes)));
            return;
        }
        Message &msg = slot(messageKey(r, node, false), false);
        if (msg.arrival < 0) {
            msg.recvRank = static_cast<std::int32_t>(r);
            msg.recvNode = node;
            return;
        }
        m_out.ranks[r].transferStart[c] = msg.sendStart;
        const std::size_t sr = static_cast<std::size_t>(msg.sendRank);
        m_out.ranks[sr].peer[static_cast<std::size_t>(m_job.ranks[sr].nodes[msg.sendNode].comm)] = {static_cast<std::int32_t>(r),
                                                                                                    node};
        if (msg.arrival > now)
            m_out.ranks[r].peer[c] = {msg.sendRank, msg.sendNode};
        schedule(r, node, std::max(now, msg.arrival));
    }

    void complete(std::size_t r, std::uint32_t node, std::int64_t now)
    {
        const SimRank &rank = m_job.ranks[r];
        RankState &s = m_state[r];
        RankReplay &out = m_out.ranks[r];
        out.end[node] = now;
        out.endNs = std::max(out.endNs, now);
        ++s.done;
        if (const std::int32_t resource = s.resource[node]; resource >= 0)
            s.busy[static_cast<std::size_t>(resource)] = 0;
        for (std::uint32_t k = rank.succBegin[node]; k < rank.succBegin[node + 1]; ++k)
            if (--s.waiting[rank.succ[k]] == 0)
                makeReady(r, rank.succ[k]);
        issueReady(r, now, {static_cast<std::int32_t>(r), node});
    }

    std::string whyStuck(std::size_t r) const
    {
        const SimRank &rank = m_job.ranks[r];
        const RankReplay &out = m_out.ranks[r];
        const std::size_t left = rank.nodes.size() - m_state[r].done;
        for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
            if (out.start[i] < 0 || out.end[i] >= 0)
                continue;
            const SimNode &n = rank.nodes[i];
            std::string what = std::string(nodeKindName(n.kind)) + " node " + std::to_string(n.id) + " (" + rank.names[n.name]
                               + ")";
            if (n.kind == NodeKind::Collective) {
                const SimComm &c = rank.comms[static_cast<std::size_t>(n.comm)];
                const std::string group = c.group >= 0
                                              ? "group " + std::to_string(m_job.groupIds[static_cast<std::size_t>(c.group)])
                                              : "every rank";
                const std::size_t size = c.group >= 0 ? m_job.groups[static_cast<std::size_t>(c.group)].size()
                                                      : static_cast<std::size_t>(m_job.npus);
                if (size < 2 || m_dur.collectiveNs(m_job, r, c) == -1)
                    return std::to_string(left) + " nodes never ran: " + what + " is a collective ASTRA-sim never completes ("
                           + group + " of " + std::to_string(size) + " rank(s))";
                return std::to_string(left) + " nodes never ran: " + what + " waits for " + group
                       + ", whose other members never issued it";
            }
            if (n.kind == NodeKind::Recv) {
                const std::int64_t peer = rank.comms[static_cast<std::size_t>(n.comm)].peer;
                return std::to_string(left) + " nodes never ran: " + what + " waits for a send from rank " + std::to_string(peer)
                       + (peer < 0 || peer >= m_job.npus
                              ? ", which is not a rank of the job (0.." + std::to_string(m_job.npus - 1) + ")"
                              : " that never came");
            }
        }
        return std::to_string(left) + " nodes never ran";
    }
};

} // namespace

ReplayResult replay(const SimJob &job, const WhatIf &whatIf, const ReplayOptions &options)
{
    return Simulator(job, whatIf, options).run();
}

} // namespace linkscope::core::predict
