#include "predict/opportunities.h"

#include "base/parallel.h"
#include "predict/whatifmatch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace linkscope::core::predict {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";
// Compute kernels: not the copies and sets (linkscope-gen's --compute-scale leaves those too).
constexpr const char *kComputeKernels = "^(?!Memcpy|Memset|nccl)";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string number(double k)
{
    std::ostringstream out;
    out << k;
    return out.str();
}

} // namespace

std::string kernelFamily(std::string_view name)
{
    std::string_view s = trim(name);
    if (s.starts_with("void "))
        s = trim(s.substr(5));
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s.substr(i).starts_with(kAnonymous)) {
            out += kAnonymous;
            i += kAnonymous.size();
            continue;
        }
        if (s[i] == '<' || s[i] == '(')
            break;
        out += s[i++];
    }
    const std::string_view family = trim(out);
    return family.empty() ? std::string(trim(name)) : std::string(family);
}

std::string escapeRegex(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string kernelFamilyPattern(std::string_view family)
{
    // After the family: the end, or (after spaces) its template arguments or parameters — not more
    // of a longer name, and not an "(anonymous namespace)" that belongs to a longer family.
    return "^(void )?" + escapeRegex(family) + "\\s*(<|\\((?!anonymous namespace\\))|$)";
}

std::string_view opportunityKindName(OpportunityKind kind)
{
    switch (kind) {
    case OpportunityKind::KernelFamily:
        return "kernel_family";
    case OpportunityKind::AllKernels:
        return "all_kernels";
    case OpportunityKind::Stream:
        return "stream";
    case OpportunityKind::Transfers:
        return "transfers";
    case OpportunityKind::Bandwidth:
        return "bandwidth";
    case OpportunityKind::Latency:
        return "latency";
    case OpportunityKind::RankCpu:
        return "rank_cpu";
    case OpportunityKind::AllCpu:
        return "all_cpu";
    }
    return "unknown";
}

std::string Opportunity::moved() const
{
    if (!finished)
        return "a rank no longer finishes";
    std::string out;
    const std::pair<const char *, std::int64_t> diffs[] = {
        {"cpu", pathAfter.cpuNs - pathBefore.cpuNs},
        {"gpu", pathAfter.gpuNs - pathBefore.gpuNs},
        {"comm", pathAfter.commNs - pathBefore.commNs},
        {"other ranks", pathAfter.otherRankNs - pathBefore.otherRankNs},
        {"idle", pathAfter.idleNs - pathBefore.idleNs},
    };
    for (const auto &[what, ns] : diffs) {
        if (ns == 0)
            continue;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s %s%.3f ms", what, ns < 0 ? "−" : "+", double(ns < 0 ? -ns : ns) / 1e6);
        out += (out.empty() ? "" : ", ") + std::string(buf);
    }
    if (out.empty())
        out = "nothing on the critical path moved";
    if (criticalRankAfter != criticalRankBefore)
        out += "; rank " + std::to_string(criticalRankAfter) + " now ends last (was rank " + std::to_string(criticalRankBefore)
               + ")";
    return out;
}

namespace {

WhatIf::NameScale nameScale(const std::string &pattern, double factor, std::int64_t rank = -1)
{
    WhatIf::NameScale s;
    s.pattern = pattern;
    s.factor = factor;
    s.rank = rank;
    s.compiled = std::regex(pattern, std::regex::ECMAScript);
    return s;
}

// The distinct (rank, name, kind, stream) of the job's critical path and their time on it: what a
// candidate's time on the path is summed from (one regex search per entry, not per step).
struct PathEntry {
    std::size_t rank = 0;
    std::uint32_t name = 0;
    NodeKind kind = NodeKind::Cpu;
    std::int64_t stream = -1;
    std::int64_t ns = 0;
};

std::vector<PathEntry> pathEntries(const SimJob &job, const RankPath &path)
{
    std::map<std::tuple<std::size_t, std::uint32_t, NodeKind, std::int64_t>, std::int64_t> byKey;
    for (const PathStep &s : path.steps) {
        if (s.node == kNoNode || s.rank < 0)
            continue;
        const std::size_t r = static_cast<std::size_t>(s.rank);
        const SimNode &n = job.ranks[r].nodes[s.node];
        byKey[{r, n.name, n.kind, n.kind == NodeKind::Gpu ? n.stream : -1}] += s.endNs - s.startNs;
    }
    std::vector<PathEntry> out;
    for (const auto &[key, ns] : byKey)
        out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), ns});
    return out;
}

std::int64_t timeOnPath(const SimJob &job, const std::vector<PathEntry> &entries, const Opportunity &o)
{
    std::int64_t ns = 0;
    const bool network = o.whatIf.changesNetwork();
    for (const PathEntry &e : entries) {
        const SimRank &rank = job.ranks[e.rank];
        bool hit = false;
        if (e.kind == NodeKind::Gpu)
            hit = o.whatIf.gpuFactor(rank.names[e.name], e.stream, rank.rank).second;
        else if (e.kind == NodeKind::Cpu)
            hit = o.whatIf.cpuFactor(rank.names[e.name], rank.rank).second;
        else if (e.kind == NodeKind::Collective || e.kind == NodeKind::Send || e.kind == NodeKind::Recv)
            hit = network;
        if (hit)
            ns += e.ns;
    }
    return ns;
}

std::size_t lastRank(const ReplayResult &r)
{
    std::size_t best = 0;
    for (std::size_t i = 1; i < r.ranks.size(); ++i)
        if (r.ranks[i].endNs > r.ranks[best].endNs)
            best = i;
    return best;
}

Opportunity candidate(OpportunityKind kind, std::string title, double factor)
{
    Opportunity o;
    o.kind = kind;
    o.title = std::move(title);
    o.factor = factor;
    return o;
}

// The candidates, from what the baseline's critical paths hold.
std::vector<Opportunity> candidates(const SimJob &job, const PathMembership &onPath, const std::vector<std::int64_t> &stragglers,
                                    std::size_t syncWaits, const OpportunityOptions &options, std::vector<NotOffered> &notOffered)
{
    const double k = options.factor;
    const std::string times = " ×" + number(k);
    std::set<std::string> families;
    std::set<std::int64_t> streams;
    bool anyGpu = false, anyCpu = false, anyComm = false;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const SimRank &rank = job.ranks[r];
        std::vector<char> seen(rank.names.size(), 0);
        for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
            const SimNode &n = rank.nodes[i];
            anyGpu = anyGpu || n.kind == NodeKind::Gpu;
            anyCpu = anyCpu || n.kind == NodeKind::Cpu;
            anyComm = anyComm || n.kind == NodeKind::Collective || n.kind == NodeKind::Send || n.kind == NodeKind::Recv;
            if (n.kind != NodeKind::Gpu || !onPath[r][i])
                continue;
            if (n.stream >= 0)
                streams.insert(n.stream);
            if (!seen[n.name]) {
                seen[n.name] = 1;
                families.insert(kernelFamily(rank.names[n.name]));
            }
        }
    }
    std::vector<Opportunity> out;
    for (const std::string &family : families) {
        Opportunity o = candidate(OpportunityKind::KernelFamily, "GPU kernels " + family + times, k);
        o.pattern = kernelFamilyPattern(family);
        o.whatIf.gpu.push_back(nameScale(o.pattern, k));
        o.args = {"--scale-gpu", o.pattern + "=" + number(k)};
        out.push_back(std::move(o));
    }
    if (anyGpu) {
        Opportunity o = candidate(OpportunityKind::AllKernels, "all compute kernels" + times, k);
        o.pattern = kComputeKernels;
        o.whatIf.gpu.push_back(nameScale(o.pattern, k));
        o.args = {"--scale-gpu", o.pattern + "=" + number(k)};
        out.push_back(std::move(o));
    }
    for (const std::int64_t stream : streams) {
        Opportunity o = candidate(OpportunityKind::Stream, "GPU stream " + std::to_string(stream) + times, k);
        o.stream = stream;
        o.whatIf.streamFactor[stream] = k;
        o.args = {"--scale-stream", std::to_string(stream) + "=" + number(k)};
        out.push_back(std::move(o));
    }
    if (anyComm) {
        Opportunity t = candidate(OpportunityKind::Transfers, "all communication" + times, k);
        t.whatIf.transferFactor = k;
        t.args = {"--scale-comm", number(k)};
        out.push_back(std::move(t));
        Opportunity b = candidate(OpportunityKind::Bandwidth, "network bandwidth ×" + number(1 / k), 1 / k);
        b.whatIf.bandwidthFactor = 1 / k;
        b.args = {"--scale-network", number(1 / k)};
        out.push_back(std::move(b));
        Opportunity l = candidate(OpportunityKind::Latency, "network latency" + times, k);
        l.whatIf.latencyFactor = k;
        l.args = {"--scale-latency", number(k)};
        out.push_back(std::move(l));
    } else {
        notOffered.push_back({"communication, bandwidth, latency", "the job has no collective, send or receive"});
    }
    if (anyCpu && job.ranks.size() > 1)
        for (const std::int64_t rank : stragglers) {
            Opportunity o = candidate(OpportunityKind::RankCpu, "rank " + std::to_string(rank) + "'s CPU" + times, k);
            o.pattern = ".*";
            o.rank = rank;
            o.whatIf.cpu.push_back(nameScale(o.pattern, k, rank));
            o.args = {"--scale-cpu", std::to_string(rank) + ":.*=" + number(k)};
            out.push_back(std::move(o));
        }
    if (anyCpu) {
        Opportunity o = candidate(OpportunityKind::AllCpu, "all CPU" + times, k);
        o.pattern = ".*";
        o.whatIf.cpu.push_back(nameScale(o.pattern, k));
        o.args = {"--scale-cpu", ".*=" + number(k)};
        out.push_back(std::move(o));
    }
    notOffered.push_back(
        {"a blocking sync removed",
         "a what-if changes durations and the network, never a dependency, and a sync is one (the op after the call waits for "
         "the GPU op it synced on; its blocked time is already out of the CPU): removing it needs a term of its own in the "
         "replay, in `linkscope whatif`'s .et writer and in the slack. On the job's critical path "
             + std::to_string(syncWaits) + " CPU op(s) started when a GPU op they synced on ended"});
    return out;
}

// Ranks whose CPU work is at least `share` of the job's critical path, and the rank that ends last.
std::vector<std::int64_t> findStragglers(const SimJob &job, const RankPath &path, std::size_t last, double share)
{
    std::map<std::int64_t, std::int64_t> cpuNs;
    for (const PathStep &s : path.steps)
        if (s.node != kNoNode && s.rank >= 0) {
            const SimRank &rank = job.ranks[static_cast<std::size_t>(s.rank)];
            if (rank.nodes[s.node].kind == NodeKind::Cpu)
                cpuNs[rank.rank] += s.endNs - s.startNs;
        }
    std::set<std::int64_t> out{job.ranks[last].rank};
    for (const auto &[rank, ns] : cpuNs)
        if (double(ns) >= share * double(path.stepNs))
            out.insert(rank);
    return {out.begin(), out.end()};
}

} // namespace

Opportunities findOpportunities(const SimJob &job, const OpportunityOptions &options)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (job.ranks.empty())
        throw std::invalid_argument("opportunities: the job has no rank");
    if (!(options.factor > 0 && options.factor < 1))
        throw std::invalid_argument("opportunities: the factor must be between 0 and 1 (a speed-up), not " + number(options.factor));
    ReplayOptions quick;
    quick.keepIssueOrder = false;
    quick.model = options.model;
    const int threads = options.threads > 0 ? options.threads : machineThreads();
    const ReplayResult base = replay(job, {}, quick);
    for (const RankReplay &r : base.ranks)
        if (!r.finished)
            throw std::invalid_argument("opportunities: rank " + std::to_string(r.rank)
                                        + " does not finish as exported, so no change can be compared: " + r.stuck);
    std::vector<RankPath> paths(job.ranks.size());
    forEachIndexOnThreads(job.ranks.size(), threads, [&](std::size_t r) { paths[r] = criticalPath(job, base, r); });
    PathMembership onPath(job.ranks.size());
    for (std::size_t r = 0; r < job.ranks.size(); ++r)
        onPath[r].assign(job.ranks[r].nodes.size(), 0);
    for (const RankPath &path : paths)
        for (const PathStep &s : path.steps)
            if (s.node != kNoNode && s.rank >= 0)
                onPath[static_cast<std::size_t>(s.rank)][s.node] = 1;

    Opportunities out;
    out.model = options.model;
    out.baselineMakespanNs = base.makespanNs;
    const std::size_t last = lastRank(base);
    out.criticalRank = job.ranks[last].rank;
    out.stragglers = findStragglers(job, paths[last], last, options.stragglerShare);
    // CPU ops on the job's path that started when a GPU op or a transfer of their rank ended: a sync's wait.
    std::size_t syncWaits = 0;
    for (const PathStep &s : paths[last].steps) {
        if (s.node == kNoNode || s.rank < 0)
            continue;
        const std::size_t r = static_cast<std::size_t>(s.rank);
        const Cause c = base.ranks[r].cause[s.node];
        syncWaits += job.ranks[r].nodes[s.node].kind == NodeKind::Cpu && c.rank == s.rank && c.node != kNoNode
                     && job.ranks[r].nodes[c.node].kind != NodeKind::Cpu && job.ranks[r].nodes[c.node].kind != NodeKind::Skip;
    }
    std::vector<Opportunity> list = candidates(job, onPath, out.stragglers, syncWaits, options, out.notOffered);
    const std::vector<PathEntry> entries = pathEntries(job, paths[last]);

    forEachIndexOnThreads(list.size(), threads, [&](std::size_t i) {
        Opportunity &o = list[i];
        const ReplayResult run = replay(job, o.whatIf, quick);
        o.baselineMakespanNs = base.makespanNs;
        o.makespanNs = run.makespanNs;
        o.finished = run.allFinished();
        for (std::size_t r = 0; r < job.ranks.size(); ++r)
            o.ranks.push_back({job.ranks[r].rank, base.ranks[r].endNs, run.ranks[r].endNs, run.ranks[r].finished});
        const std::vector<WhatIfMatch> matches = matchWhatIf(job, o.whatIf, onPath);
        for (const WhatIfMatch &m : matches) {
            o.nodes += m.nodes;
            o.onPath += m.onPath;
        }
        o.pathNs = timeOnPath(job, entries, o);
        o.criticalRankBefore = out.criticalRank;
        o.pathBefore = paths[last].breakdown;
        if (o.finished) {
            const std::size_t after = lastRank(run);
            o.criticalRankAfter = job.ranks[after].rank;
            o.pathAfter = criticalPath(job, run, after).breakdown;
        }
    });
    std::stable_sort(list.begin(), list.end(), [](const Opportunity &a, const Opportunity &b) {
        if (a.gainNs() != b.gainNs())
            return a.gainNs() > b.gainNs();
        std::int64_t sa = 0, sb = 0;
        for (const RankGain &g : a.ranks)
            sa += g.gainNs();
        for (const RankGain &g : b.ranks)
            sb += g.gainNs();
        return sa > sb;
    });
    out.ranked = std::move(list);
    out.sweepMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

nlohmann::json Opportunities::toJson(std::size_t limit) const
{
    nlohmann::json j;
    j["model"] = replayModelName(model);
    j["baseline_makespan_ns"] = baselineMakespanNs;
    j["critical_rank"] = criticalRank;
    j["stragglers"] = stragglers;
    j["candidates"] = ranked.size();
    j["sweep_ms"] = sweepMs;
    nlohmann::json list = nlohmann::json::array();
    const std::size_t n = limit ? std::min(limit, ranked.size()) : ranked.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Opportunity &o = ranked[i];
        nlohmann::json oj{{"position", i + 1},
                          {"kind", opportunityKindName(o.kind)},
                          {"title", o.title},
                          {"whatif", o.whatIf.describe()},
                          {"args", o.args},
                          {"factor", o.factor},
                          {"gain_ns", o.gainNs()},
                          {"gain_pct", o.gainPct()},
                          {"makespan_ns", o.makespanNs},
                          {"baseline_makespan_ns", o.baselineMakespanNs},
                          {"finished", o.finished},
                          {"nodes", o.nodes},
                          {"on_path", o.onPath},
                          {"path_ns", o.pathNs}};
        if (!o.pattern.empty())
            oj["pattern"] = o.pattern;
        if (o.rank >= 0)
            oj["rank"] = o.rank;
        if (o.stream >= 0)
            oj["stream"] = o.stream;
        nlohmann::json ranksJson = nlohmann::json::array();
        for (const RankGain &g : o.ranks)
            ranksJson.push_back({{"rank", g.rank},
                                 {"finished", g.finished},
                                 {"baseline_step_ns", g.baselineNs},
                                 {"step_ns", g.stepNs},
                                 {"gain_ns", g.gainNs()},
                                 {"gain_pct", g.baselineNs ? 100.0 * double(g.gainNs()) / double(g.baselineNs) : 0.0}});
        oj["ranks"] = std::move(ranksJson);
        oj["critical_path"] = {{"rank_before", o.criticalRankBefore},
                               {"rank_after", o.criticalRankAfter},
                               {"before", o.pathBefore.toJson()},
                               {"after", o.pathAfter.toJson()},
                               {"moved", o.moved()}};
        list.push_back(std::move(oj));
    }
    j["opportunities"] = std::move(list);
    nlohmann::json no = nlohmann::json::array();
    for (const NotOffered &n : notOffered)
        no.push_back({{"candidate", n.candidate}, {"why", n.why}});
    j["not_offered"] = std::move(no);
    return j;
}

} // namespace linkscope::core::predict
