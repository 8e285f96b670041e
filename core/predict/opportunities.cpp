#include "predict/opportunities.h"

#include "base/parallel.h"
#include "predict/opportunitycandidates.h"
#include "predict/pathmembership.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace linkscope::core::predict {

namespace {

std::string number(double k)
{
    std::ostringstream out;
    out << k;
    return out.str();
}

} // namespace

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
    case OpportunityKind::CpuOp:
        return "cpu_op";
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
        {"idle", pathAfter.idleNs - pathBefore.idleNs},
    };
    for (const auto &[what, ns] : diffs) {
        if (std::llabs(ns) < 500) // under 0.001 ms as printed
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
        if (r.ranks[i].stepNs() > r.ranks[best].stepNs())
            best = i;
    return best;
}

} // namespace

Opportunities findOpportunities(const SimJob &job, const OpportunityOptions &options)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (job.ranks.empty())
        throw std::invalid_argument("opportunities: the job has no rank");
    if (!(options.factor > 0 && options.factor < 1))
        throw std::invalid_argument("opportunities: the factor must be between 0 and 1 (a speed-up), not "
                                    + number(options.factor));
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
    PathMembership onPath = emptyPathMembership(job);
    for (const RankPath &path : paths)
        markPath(onPath, path);

    Opportunities out;
    out.model = options.model;
    out.baselineMakespanNs = base.makespanNs;
    const std::size_t last = lastRank(base);
    out.criticalRank = job.ranks[last].rank;
    const std::vector<PathEntry> entries = pathEntries(job, paths[last]);
    out.stragglers = findStragglers(job, entries, paths[last].stepNs, options.stragglerShare);
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
    CandidateInputs inputs;
    inputs.onPath = &onPath;
    inputs.jobPath = &entries;
    inputs.makespanNs = base.makespanNs;
    inputs.stragglers = out.stragglers;
    inputs.syncWaits = syncWaits;
    std::vector<Opportunity> list = opportunityCandidates(job, inputs, options, out.notOffered);
    const Breakdown before = workOfPath(job, paths[last]);

    forEachIndexOnThreads(list.size(), threads, [&](std::size_t i) {
        Opportunity &o = list[i];
        const ReplayResult run = replay(job, o.whatIf, quick);
        o.baselineMakespanNs = base.makespanNs;
        o.makespanNs = run.makespanNs;
        o.finished = run.allFinished();
        for (std::size_t r = 0; r < job.ranks.size(); ++r)
            o.ranks.push_back({job.ranks[r].rank, base.ranks[r].stepNs(), run.ranks[r].stepNs(), run.ranks[r].finished});
        const std::vector<WhatIfMatch> matches = matchWhatIf(job, o.whatIf, onPath);
        for (const WhatIfMatch &m : matches) {
            o.nodes += m.nodes;
            o.onPath += m.onPath;
        }
        o.pathNs = timeOnPath(job, entries, o);
        o.criticalRankBefore = out.criticalRank;
        o.pathBefore = before;
        if (o.finished) {
            const std::size_t after = lastRank(run);
            o.criticalRankAfter = job.ranks[after].rank;
            o.pathAfter = workOfPath(job, criticalPath(job, run, after));
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
