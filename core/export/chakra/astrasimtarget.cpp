#include "export/chakra/astrasimtarget.h"

#include "export/chakra/chakrakind.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace linkscope::core {

namespace {

// A stretch of one lane's time that one node owns unless a later-starting piece of another lane
// covers it.
struct Piece {
    Nanos begin, end;
    std::uint32_t owner; // graph position
};

struct TimedNode {
    Nanos ts, end;
    std::uint32_t node;
};

// The pieces of one thread (ops sorted by start, longer first on ties: the nesting order). `holes`
// (sorted, disjoint): blocked time, given to no node; the op a hole is in has "a child started"
// after it, so its time after the hole goes to the op that continues (the one that waits for what
// the hole waited for).
// `launches` (sorted): when the thread's launch calls returned. The op a launch is in runs until
// then; its time after it goes to the op that runs next, as after a child, so that the GPU op,
// which waits for the whole of its launching node, starts where it was launched and not where its
// launching op ended. An op's time after a child and up to its first launch (NCCL's enqueue after an
// `aten::empty` inside `nccl:all_reduce`) stays the op's for the same reason — the op that runs next
// starts after the launch — unless a launch or a blocked interval came first inside the op (moving
// the time before them would delay their GPU work, or run it before what the thread waited for).
void threadPieces(const std::vector<TimedNode> &ops, bool keepGaps, std::span<const BlockedInterval> holes,
                  std::span<const Nanos> launches, std::vector<Piece> &out)
{
    struct Open {
        Nanos end;
        std::uint32_t node;
        bool childStarted;
        bool settled = false; // a launch or a blocked interval came inside: its later time cannot move before them
    };
    std::vector<Open> stack;
    const std::size_t m = ops.size();
    std::size_t next = 0, hole = 0, launch = 0;
    Nanos t = m ? ops[0].ts : 0;
    auto settle = [&] {
        for (Open &o : stack)
            o.settled = true;
    };
    auto emitPlain = [&](Nanos from, Nanos to, bool endsAtLaunch) {
        const std::uint32_t upcoming = next < m ? ops[next].node : ops[m - 1].node;
        if (!stack.empty()) {
            const Open &inside = stack.back();
            if (!inside.childStarted || (endsAtLaunch && !inside.settled))
                out.push_back({from, to, inside.node});
            else
                out.push_back({from, to, keepGaps ? upcoming : inside.node});
        } else if (keepGaps) {
            out.push_back({from, to, upcoming});
        }
    };
    auto emit = [&](Nanos to) {
        while (t < to) {
            while (hole < holes.size() && holes[hole].end <= t)
                ++hole;
            if (hole < holes.size() && holes[hole].begin <= t) { // blocked: nobody's time
                t = std::min(to, holes[hole].end);
                if (!stack.empty())
                    stack.back().childStarted = true;
                settle();
                continue;
            }
            Nanos until = hole < holes.size() ? std::min(to, holes[hole].begin) : to;
            while (launch < launches.size() && launches[launch] <= t)
                ++launch;
            const bool split = launch < launches.size() && launches[launch] < until;
            if (split)
                until = launches[launch];
            emitPlain(t, until, split);
            t = until;
            if (split && !stack.empty()) {
                stack.back().childStarted = true;
                settle();
            }
        }
    };
    while (next < m || !stack.empty()) {
        const Nanos nextStart = next < m ? ops[next].ts : std::numeric_limits<Nanos>::max();
        if (!stack.empty() && stack.back().end <= nextStart) {
            emit(stack.back().end);
            stack.pop_back();
        } else {
            emit(nextStart);
            if (!stack.empty())
                stack.back().childStarted = true;
            stack.push_back({ops[next].end, ops[next].node, false, false});
            ++next;
        }
    }
}

// Gives every instant covered by some piece to the covering piece that began last; with
// `fillGaps`, an instant no piece covers (between the first begin and the last end) goes to the
// next piece that begins. Pieces owned by kBlocked are blocked time: they hold an instant only when
// no other piece covers it, and give it to nobody.
constexpr std::uint32_t kBlocked = std::numeric_limits<std::uint32_t>::max();

// `filled`, when given, also receives what each piece got from the gaps before it (the part of its
// duration no lane covered).
void sweep(const std::vector<Piece> &pieces, bool fillGaps, std::vector<Nanos> &durationNs, bool earliestWins = false,
           std::vector<Nanos> *filled = nullptr)
{
    if (pieces.empty())
        return;
    struct Boundary {
        Nanos at;
        bool opens;
        std::uint32_t piece;
    };
    std::vector<Boundary> bounds;
    bounds.reserve(pieces.size() * 2);
    for (std::uint32_t k = 0; k < pieces.size(); ++k) {
        bounds.push_back({pieces[k].begin, true, k});
        bounds.push_back({pieces[k].end, false, k});
    }
    std::sort(bounds.begin(), bounds.end(), [](const Boundary &a, const Boundary &b) {
        return std::tie(a.at, a.opens, a.piece) < std::tie(b.at, b.opens, b.piece); // closings first
    });
    auto key = [&](std::uint32_t k) {
        if (pieces[k].owner == kBlocked)
            return std::make_pair(std::numeric_limits<Nanos>::min(), k);
        return std::make_pair(earliestWins ? -pieces[k].begin : pieces[k].begin, k);
    };
    std::set<std::pair<Nanos, std::uint32_t>> open; // (begin, piece)
    Nanos pendingGap = 0;
    Nanos last = bounds.front().at;
    for (const Boundary &b : bounds) {
        if (b.at > last) {
            if (!open.empty()) {
                const std::uint32_t owner = pieces[open.rbegin()->second].owner;
                if (owner != kBlocked)
                    durationNs[owner] += b.at - last;
            } else if (fillGaps) {
                pendingGap += b.at - last;
            }
            last = b.at;
        }
        if (b.opens) {
            open.insert(key(b.piece));
            if (pendingGap && pieces[b.piece].owner != kBlocked) {
                durationNs[pieces[b.piece].owner] += pendingGap;
                if (filled)
                    (*filled)[pieces[b.piece].owner] += pendingGap;
                pendingGap = 0;
            }
        } else {
            open.erase(key(b.piece));
        }
    }
}

// ns → µs along a sequence, carrying the remainder: the rounded durations sum to the rounded total.
void roundAlong(std::span<const std::uint32_t> sequence, const std::vector<Nanos> &durationNs, std::vector<std::uint64_t> &micros)
{
    Nanos total = 0;
    std::int64_t written = 0;
    for (std::uint32_t node : sequence) {
        total += std::max<Nanos>(durationNs[node], 0);
        const std::int64_t upTo = (total + 500) / 1000;
        micros[node] = static_cast<std::uint64_t>(std::max<std::int64_t>(upTo - written, 0));
        written = std::max(written, upTo);
    }
}

} // namespace

bool astraSimRunsCollective(std::int64_t commType)
{
    return commType == ChakraProtoMsg::ALL_REDUCE || commType == ChakraProtoMsg::ALL_TO_ALL
           || commType == ChakraProtoMsg::ALL_GATHER || commType == ChakraProtoMsg::REDUCE_SCATTER
           || commType == ChakraProtoMsg::BROADCAST;
}

std::map<std::string, std::string> readProcessGroupIds(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw LoadError(path, kUnknownOffset, "cannot open the process group id file");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error &e) {
        throw LoadError(path, e.byte > 0 ? e.byte - 1 : 0, std::string("not JSON: ") + e.what());
    }
    if (!j.is_object())
        throw LoadError(path, 0, "expected a JSON object {\"process group name\": integer id}");
    std::map<std::string, std::string> ids;
    for (auto it = j.begin(); it != j.end(); ++it) {
        std::string id;
        if (it.value().is_number_integer() && it.value().get<std::int64_t>() >= 0)
            id = std::to_string(it.value().get<std::int64_t>());
        else if (it.value().is_string())
            id = it.value().get<std::string>();
        if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw LoadError(path, kUnknownOffset, "process group \"" + it.key() + "\": the id must be a non-negative integer");
        ids.emplace(it.key(), id);
    }
    return ids;
}

bool isProcessGroupMetadataName(std::string_view name) { return name.find("process_group:init") != std::string_view::npos; }

AstraSimDurations astraSimDurations(const EtPlusGraph &graph, const DeviceTrace &device, const LinkSet &links,
                                    std::span<const std::uint32_t> chainBegin, std::span<const std::uint32_t> chainList,
                                    std::span<const std::uint8_t> gpuCompute, const ChakraOptions &options, Nanos leadInFrom,
                                    const BlockedIntervals *blocked)
{
    const std::size_t n = graph.nodes.size();
    std::vector<Nanos> durationNs(n, 0);
    AstraSimDurations out;
    std::vector<std::uint64_t> &micros = out.micros;
    micros.assign(n, 0);
    std::vector<Nanos> &laneNs = out.laneNs;
    laneNs.assign(n, -1);
    out.dispatchNs.assign(n, 0);

    // CPU: pieces per thread, then one sweep over all threads of the rank.
    std::vector<Piece> pieces, holes;
    std::vector<TimedNode> ops;
    static const std::vector<BlockedInterval> kNoHoles;
    static const std::vector<Nanos> kNoLaunches;
    auto endOf = [](const DeviceEvent &e) { return e.ts + std::max<Nanos>(e.dur, 0); };

    // With keepGaps: when each thread's launches of exported GPU ops returned (they split their
    // launching op), and when each GPU op could have started — its launch returned, the previous op
    // of its stream ended, what it waited for on another stream ended (its dispatch latency, below).
    std::map<ThreadIndex, std::vector<Nanos>> launchEnds;
    std::vector<Nanos> readyAt;
    if (options.keepGaps) {
        readyAt.assign(n, std::numeric_limits<Nanos>::min());
        std::map<std::pair<std::int32_t, std::int64_t>, std::vector<TimedNode>> byStream;
        for (std::uint32_t i = 0; i < n; ++i) {
            const EtPlusNode &node = graph.nodes[i];
            if (!node.gpu || !device.contains(node.event))
                continue;
            const DeviceEvent &e = device.event(node.event);
            byStream[{e.device, e.stream}].push_back({e.ts, endOf(e), i});
            if (node.gpuLink.in(links.gpuLinks.size()) && device.contains(links.gpuLinks[node.gpuLink].launch)) {
                const DeviceEvent &l = device.event(links.gpuLinks[node.gpuLink].launch);
                launchEnds[l.thread].push_back(endOf(l));
                readyAt[i] = std::max(readyAt[i], endOf(l));
            }
            for (std::uint32_t k = graph.syncBegin[i]; k < graph.syncBegin[i + 1]; ++k) {
                const EventIndex w = graph.nodes[graph.syncList[k]].event;
                if (device.contains(w))
                    readyAt[i] = std::max(readyAt[i], device.event(w).end());
            }
        }
        for (auto &[stream, list] : byStream) {
            std::sort(list.begin(), list.end(),
                      [](const TimedNode &a, const TimedNode &b) { return std::tie(a.ts, a.node) < std::tie(b.ts, b.node); });
            for (std::size_t k = 1; k < list.size(); ++k)
                readyAt[list[k].node] = std::max(readyAt[list[k].node], list[k - 1].end);
        }
        for (auto &[thread, list] : launchEnds)
            std::sort(list.begin(), list.end());
    }
    const std::size_t chains = chainBegin.empty() ? 0 : chainBegin.size() - 1;
    for (std::size_t c = 0; c < chains; ++c) {
        ops.clear();
        for (std::uint32_t k = chainBegin[c]; k < chainBegin[c + 1]; ++k) {
            const std::uint32_t node = chainList[k];
            const EventIndex event = graph.nodes[node].event;
            if (event.isNone())
                continue;
            const DeviceEvent &e = device.event(event);
            ops.push_back({e.ts, e.ts + std::max<Nanos>(e.dur, 0), node});
        }
        std::sort(ops.begin(), ops.end(), [](const TimedNode &a, const TimedNode &b) {
            return std::tie(a.ts, b.end, a.node) < std::tie(b.ts, a.end, b.node);
        });
        const std::vector<BlockedInterval> *threadHoles = &kNoHoles;
        const std::vector<Nanos> *threadLaunches = &kNoLaunches;
        if (!ops.empty()) {
            const ThreadIndex thread = device.event(graph.nodes[ops.front().node].event).thread;
            if (auto it = launchEnds.find(thread); it != launchEnds.end())
                threadLaunches = &it->second;
            if (blocked)
                if (auto it = blocked->find(thread); it != blocked->end()) {
                    threadHoles = &it->second;
                    for (const BlockedInterval &h : it->second)
                        holes.push_back({h.begin, h.end, kBlocked});
                }
        }
        if (options.ownTimeDurations || options.keepGaps)
            threadPieces(ops, options.keepGaps, *threadHoles, *threadLaunches, pieces);
        else
            for (const TimedNode &op : ops) // exclusive times, as the Chakra target
                durationNs[op.node] = graph.nodes[op.node].event.in(links.exclusiveDur.size())
                                          ? links.exclusiveDur[graph.nodes[op.node].event]
                                          : op.end - op.ts;
    }
    if (options.keepGaps && leadInFrom != kNoLeadIn && !pieces.empty()) {
        const auto first = std::min_element(pieces.begin(), pieces.end(),
                                            [](const Piece &a, const Piece &b) { return a.begin < b.begin; });
        if (first->begin > leadInFrom)
            durationNs[first->owner] += first->begin - leadInFrom;
    }
    // Each thread on its own (one CPU per thread): its pieces, and the exclusive times or the
    // lead-in already given above.
    for (std::size_t c = 0; c < chains; ++c)
        for (std::uint32_t k = chainBegin[c]; k < chainBegin[c + 1]; ++k)
            if (!graph.nodes[chainList[k]].event.isNone())
                laneNs[chainList[k]] = durationNs[chainList[k]];
    for (const Piece &p : pieces)
        laneNs[p.owner] += p.end - p.begin;
    if (options.ownTimeDurations) {
        // An instant no thread covers (and no blocked interval holds) goes to the next piece that
        // starts, on its own lane as in ASTRA-sim's one CPU: it is time the work after it waited.
        std::vector<Nanos> filled(n, 0);
        pieces.insert(pieces.end(), holes.begin(), holes.end());
        sweep(pieces, options.keepGaps, durationNs, false, &filled);
        for (std::uint32_t i = 0; i < n; ++i)
            if (filled[i] && laneNs[i] >= 0)
                laneNs[i] += filled[i];
    } else
        for (const Piece &p : pieces) // each thread on its own: overlaps between threads counted twice
            durationNs[p.owner] += p.end - p.begin;

    // GPU compute: one sweep per device over its kernels (idle GPU time comes from the
    // dependencies). Communication nodes keep their measured duration. With keepGaps, a kernel
    // also holds its dispatch latency: the time (up to kMaxDispatchNs) from when it could have
    // started — its launch returned, the previous op of its stream ended, what it waited for on
    // another stream ended — to its start, which no dependency gives it (ASTRA-sim starts a GPU node
    // the instant its dependencies finish).
    constexpr Nanos kMaxDispatchNs = 50'000;
    std::map<std::int32_t, std::vector<Piece>> gpuPieces;
    std::map<std::int32_t, std::vector<TimedNode>> gpuOrder;
    for (std::uint32_t i = 0; i < n; ++i) {
        const EtPlusNode &node = graph.nodes[i];
        if (!node.gpu || node.event.isNone())
            continue;
        const DeviceEvent &e = device.event(node.event);
        const Nanos end = e.ts + std::max<Nanos>(e.dur, 0);
        // When it could have started (at most kMaxDispatchNs before its start): its dispatch latency.
        // A communication kernel's is written beside its duration: the faithful replay starts a
        // collective's transfer that long after the last member arrived, taking the smallest of the
        // members' (an early member's also holds its wait for the others).
        Nanos begin = e.ts;
        if (!readyAt.empty() && readyAt[i] != std::numeric_limits<Nanos>::min() && readyAt[i] < e.ts)
            begin = std::max(readyAt[i], e.ts - kMaxDispatchNs);
        out.dispatchNs[i] = e.ts - begin;
        if (i < gpuCompute.size() && gpuCompute[i]) {
            gpuPieces[e.device].push_back({begin, end, i});
            gpuOrder[e.device].push_back({e.ts, end, i});
            laneNs[i] = end - begin;
        } else {
            durationNs[i] = end - e.ts;
            micros[i] = static_cast<std::uint64_t>((end - e.ts + 500) / 1000);
        }
    }
    for (auto &[deviceId, list] : gpuPieces) {
        if (options.ownTimeDurations)
            sweep(list, false, durationNs, true);
        else
            for (const Piece &p : list)
                durationNs[p.owner] = p.end - p.begin;
    }

    for (const auto &[deviceId, list] : gpuPieces)
        for (const Piece &p : list) {
            out.gpuBusyNs += durationNs[p.owner];
            out.gpuOverlapNs += laneNs[p.owner] - durationNs[p.owner];
        }

    std::vector<std::uint32_t> sequence;
    for (std::size_t c = 0; c < chains; ++c)
        roundAlong(chainList.subspan(chainBegin[c], chainBegin[c + 1] - chainBegin[c]), durationNs, micros);
    for (auto &[deviceId, list] : gpuOrder) {
        std::sort(list.begin(), list.end(),
                  [](const TimedNode &a, const TimedNode &b) { return std::tie(a.ts, a.node) < std::tie(b.ts, b.node); });
        sequence.clear();
        for (const TimedNode &t : list)
            sequence.push_back(t.node);
        roundAlong(sequence, durationNs, micros);
    }
    return out;
}

AstraGpuKind astraGpuKind(const CommInfo &comm)
{
    AstraGpuKind kind;
    const ChakraCommNode written = chakraCommNodeOf(comm.kind);
    kind.type = written.type;
    if (!comm.isComm || written.type == ChakraProtoMsg::COMP_NODE)
        return kind;
    bool runnable = comm.bytes > 0;
    // A collective of a one-rank group moves nothing between ranks, and ASTRA-sim never completes
    // one (its ring has no step: the rank stops there and the simulator exits 0 unfinished).
    if (written.type == ChakraProtoMsg::COMM_COLL_NODE)
        runnable = runnable && astraSimRunsCollective(written.commType) && comm.groupSize != 1;
    else if (isP2P(comm.kind))
        runnable = runnable && comm.src >= 0 && comm.dst >= 0 && comm.tag >= 0;
    if (!runnable) {
        kind.type = ChakraProtoMsg::COMP_NODE;
        kind.demoted = true;
    }
    return kind;
}

} // namespace linkscope::core
