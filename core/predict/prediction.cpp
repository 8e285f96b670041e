#include "predict/prediction.h"

#include "base/parallel.h"
#include "predict/pathmembership.h"

namespace linkscope::core::predict {

std::vector<RankPrediction> summarizeReplay(const SimJob &job, const ReplayResult &run, const ReplayResult *baseline,
                                            std::size_t topLimit)
{
    const ReplayResult &base = baseline ? *baseline : run;
    std::vector<RankPrediction> out(job.ranks.size());
    // Each rank's path reads the replay only: the ranks' paths on every core.
    forEachIndexOnThreads(job.ranks.size(), machineThreads(), [&](std::size_t r) {
        RankPrediction &rp = out[r];
        rp.rank = run.ranks[r].rank;
        rp.finished = run.ranks[r].finished;
        rp.stuck = run.ranks[r].stuck;
        rp.stepNs = run.ranks[r].stepNs();
        rp.baselineNs = r < base.ranks.size() ? base.ranks[r].stepNs() : 0;
        rp.path = criticalPath(job, run, r);
        rp.top = topOfPath(job, rp.path, topLimit);
    });
    return out;
}

Prediction predict(const SimJob &job, const WhatIf &whatIf, std::size_t topLimit, ReplayResult *run, ReplayModel model)
{
    const auto t0 = std::chrono::steady_clock::now();
    Prediction p;
    p.whatIf = whatIf.describe();
    p.model = model;
    ReplayOptions quick;
    quick.keepIssueOrder = false;
    quick.model = model;
    ReplayOptions full;
    full.keepIssueOrder = true;
    full.model = model;
    ReplayResult changedHere;
    ReplayResult &changed = run ? *run : changedHere;
    changed = replay(job, whatIf, run ? full : quick);
    ReplayResult baseline;
    if (!whatIf.empty())
        baseline = replay(job, {}, quick);
    const ReplayResult &base = whatIf.empty() ? changed : baseline;
    p.network = changed.network;
    p.makespanNs = changed.makespanNs;
    p.baselineMakespanNs = base.makespanNs;
    p.ranks = summarizeReplay(job, changed, &base, topLimit);
    if (!whatIf.empty()) {
        // What the what-if touches, counted against the paths of the run before it (what is on the
        // path now is what a change can shorten).
        std::vector<RankPath> basePaths(job.ranks.size());
        forEachIndexOnThreads(job.ranks.size(), machineThreads(),
                              [&](std::size_t r) { basePaths[r] = criticalPath(job, base, r); });
        PathMembership onPath = emptyPathMembership(job);
        for (const RankPath &path : basePaths)
            markPath(onPath, path);
        p.matches = matchWhatIf(job, whatIf, onPath);
        p.warnings = whatIfWarnings(job, whatIf, p.matches);
    }
    p.replayMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return p;
}

nlohmann::json Prediction::toJson(const SimJob &job, std::size_t pathLimit) const
{
    nlohmann::json j;
    j["whatif"] = whatIf;
    j["model"] = replayModelName(model);
    if (!matches.empty()) {
        nlohmann::json mj = nlohmann::json::array();
        for (const WhatIfMatch &m : matches)
            mj.push_back({{"term", m.term}, {"option", m.flag}, {"nodes", m.nodes}, {"on_path", m.onPath}});
        j["matches"] = std::move(mj);
    }
    j["warnings"] = warnings;
    j["network"] = {{"bandwidth_gbps", network.bandwidthGBps}, {"latency_ns", network.latencyNs}, {"npus", network.npus}};
    j["makespan_ns"] = makespanNs;
    j["baseline_makespan_ns"] = baselineMakespanNs;
    nlohmann::json ranksJson = nlohmann::json::array();
    for (const RankPrediction &r : ranks) {
        nlohmann::json rj;
        rj["rank"] = r.rank;
        rj["finished"] = r.finished;
        if (!r.finished)
            rj["stuck"] = r.stuck;
        rj["step_ns"] = r.stepNs;
        rj["baseline_step_ns"] = r.baselineNs;
        rj["change_pct"] = r.changePct();
        rj["breakdown"] = r.path.breakdown.toJson();
        nlohmann::json path = nlohmann::json::array();
        const std::size_t from = pathLimit && r.path.steps.size() > pathLimit ? r.path.steps.size() - pathLimit : 0;
        for (std::size_t i = from; i < r.path.steps.size(); ++i) {
            const PathStep &s = r.path.steps[i];
            nlohmann::json sj{{"start_ns", s.startNs}, {"end_ns", s.endNs}, {"category", pathCategoryName(s.category)}};
            if (s.node != kNoNode) {
                const SimRank &rank = job.ranks[static_cast<std::size_t>(s.rank)];
                const SimNode &n = rank.nodes[s.node];
                sj["rank"] = rank.rank;
                sj["id"] = n.id;
                sj["name"] = rank.names[n.name];
                sj["kind"] = nodeKindName(n.kind);
            }
            path.push_back(std::move(sj));
        }
        rj["critical_path"] = std::move(path);
        rj["critical_path_steps"] = r.path.steps.size();
        rj["critical_path_omitted"] = from; // the first steps, left out by pathLimit
        nlohmann::json top = nlohmann::json::array();
        for (const PathShare &s : r.top)
            top.push_back({{"rank", s.rank}, {"name", s.name}, {"kind", nodeKindName(s.kind)}, {"ns", s.ns}, {"count", s.count}});
        rj["top"] = std::move(top);
        ranksJson.push_back(std::move(rj));
    }
    j["ranks"] = std::move(ranksJson);
    return j;
}

} // namespace linkscope::core::predict
