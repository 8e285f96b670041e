#include "predict.h"

#include "io/formats.h"
#include "job/discovery.h"
#include "predict/jobgraph.h"
#include "predict/opportunities.h"
#include "predict/prediction.h"

#include <pybind11/stl.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace linkscope::python {

namespace py = pybind11;
namespace fs = std::filesystem;
using namespace linkscope::core;

WhatIf parseWhatIf(const std::vector<std::string> &args)
{
    WhatIf whatIf;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &flag = args[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= args.size())
                throw std::invalid_argument(flag + " needs a value");
            return args[++i];
        };
        if (!applyWhatIfOption(whatIf, flag, value))
            throw std::invalid_argument("not a what-if: " + flag);
    }
    return whatIf;
}

namespace {

// As `linkscope predict` builds it (app/commands/predict.cpp, loadPredictGraph).
predict::JobGraph loadGraph(const PredictInputs &in)
{
    predict::JobGraph graph;
    std::error_code ec;
    const bool folder = in.paths.size() == 1 && fs::is_directory(in.paths[0], ec);
    if (!in.device.empty()) {
        job::RankFiles files;
        files.host = in.host;
        files.device = in.device;
        const RankHeader header = peekRankHeader(in.device);
        files.rank = std::max<std::int64_t>(0, header.rank);
        graph = predict::exportJobGraph({files}, header.worldSize, in.job);
    } else if (folder) {
        if (predict::isJobExport(in.paths[0], in.prefix)) {
            graph = predict::loadJobExport(in.paths[0], in.prefix);
        } else {
            const job::JobLayout layout = job::discoverJob(in.paths);
            if (!layout.errors.empty())
                throw std::runtime_error(layout.errors.front());
            if (layout.ranks.empty())
                throw std::runtime_error(in.paths[0] + ": no traces and no " + in.prefix + ".R.et files");
            graph = predict::exportJobGraph(layout.ranks, layout.worldSize, in.job);
        }
    } else if (!in.paths.empty()) {
        graph.job = predict::loadJob(in.paths, in.commGroups, in.network, in.npus);
        graph.networkSource = in.network.empty() ? "run.sh's ring (50 GB/s, 500 ns)" : in.network;
    } else {
        throw std::invalid_argument("give a pair, a job folder or .et files");
    }
    if (!in.network.empty() && (!in.device.empty() || folder))
        predict::useNetworkFile(graph, in.network);
    return graph;
}

} // namespace

py::dict predictTables(const PredictInputs &inputs, const std::vector<std::string> &whatIfArgs, std::size_t top)
{
    const WhatIf whatIf = parseWhatIf(whatIfArgs);
    predict::JobGraph graph;
    predict::Prediction p;
    Table ranks, breakdown, path, tops;
    {
        py::gil_scoped_release release;
        graph = loadGraph(inputs);
        p = predict::predict(graph.job, whatIf, top);

        auto &rank = ranks.ints("rank");
        auto &finished = ranks.bools("finished");
        auto &step = ranks.ints("step_ns");
        auto &baseline = ranks.ints("baseline_step_ns");
        auto &change = ranks.floats("change_pct");
        auto &steps = ranks.ints("critical_path_steps");
        std::vector<std::string> stuck;

        auto &bRank = breakdown.ints("rank");
        std::vector<std::string> bCategory;
        auto &bNs = breakdown.ints("ns");
        auto &bPercent = breakdown.floats("percent");

        auto &pRank = path.ints("rank");
        auto &pStep = path.ints("step");
        Column &pNodeRank = path.nullableInts("node_rank");
        Column &pId = path.nullableInts("node_id");
        std::vector<std::string> pName, pKind, pCategory;
        auto &pStart = path.ints("start_ns");
        auto &pEnd = path.ints("end_ns");
        auto &pDur = path.ints("dur_ns");

        auto &tRank = tops.ints("rank");
        auto &tNodeRank = tops.ints("node_rank");
        std::vector<std::string> tName, tKind;
        auto &tNs = tops.ints("ns");
        auto &tCount = tops.ints("count");
        auto &tPercent = tops.floats("percent");

        for (const predict::RankPrediction &r : p.ranks) {
            rank.push_back(r.rank);
            finished.push_back(r.finished ? 1 : 0);
            stuck.push_back(r.stuck);
            step.push_back(r.stepNs);
            baseline.push_back(r.baselineNs);
            change.push_back(r.changePct());
            steps.push_back(static_cast<std::int64_t>(r.path.steps.size()));
            const predict::Breakdown &b = r.path.breakdown;
            const std::pair<const char *, std::int64_t> parts[] = {
                {"cpu", b.cpuNs}, {"gpu", b.gpuNs}, {"comm", b.commNs}, {"other_rank", b.otherRankNs}, {"idle", b.idleNs}};
            for (const auto &[category, ns] : parts) {
                bRank.push_back(r.rank);
                bCategory.emplace_back(category);
                bNs.push_back(ns);
                bPercent.push_back(r.stepNs ? 100.0 * double(ns) / double(r.stepNs) : 0.0);
            }
            for (std::size_t i = 0; i < r.path.steps.size(); ++i) {
                const predict::PathStep &s = r.path.steps[i];
                pRank.push_back(r.rank);
                pStep.push_back(static_cast<std::int64_t>(i));
                if (s.node != predict::kNoNode) {
                    const predict::SimRank &sr = graph.job.ranks[static_cast<std::size_t>(s.rank)];
                    const predict::SimNode &n = sr.nodes[s.node];
                    Table::push(pNodeRank, sr.rank, false);
                    Table::push(pId, static_cast<std::int64_t>(n.id), false);
                    pName.push_back(sr.names[n.name]);
                    pKind.emplace_back(predict::nodeKindName(n.kind));
                } else {
                    Table::push(pNodeRank, 0, true);
                    Table::push(pId, 0, true);
                    pName.emplace_back();
                    pKind.emplace_back();
                }
                pCategory.emplace_back(predict::pathCategoryName(s.category));
                pStart.push_back(s.startNs);
                pEnd.push_back(s.endNs);
                pDur.push_back(s.endNs - s.startNs);
            }
            for (const predict::PathShare &s : r.top) {
                tRank.push_back(r.rank);
                tNodeRank.push_back(s.rank);
                tName.push_back(s.name);
                tKind.emplace_back(predict::nodeKindName(s.kind));
                tNs.push_back(s.ns);
                tCount.push_back(static_cast<std::int64_t>(s.count));
                tPercent.push_back(r.stepNs ? 100.0 * double(s.ns) / double(r.stepNs) : 0.0);
            }
        }
        ranks.strings("stuck", stuck);
        breakdown.strings("category", bCategory);
        path.strings("name", pName);
        path.strings("kind", pKind);
        path.strings("category", pCategory);
        tops.strings("name", tName);
        tops.strings("kind", tKind);
    }
    py::dict out;
    out["whatif"] = p.whatIf;
    py::dict network;
    network["bandwidth_gbps"] = p.network.bandwidthGBps;
    network["latency_ns"] = p.network.latencyNs;
    network["npus"] = p.network.npus;
    out["network"] = network;
    out["network_source"] = graph.networkSource;
    out["mirrored"] = graph.job.mirrored;
    out["notes"] = graph.notes;
    out["makespan_ns"] = p.makespanNs;
    out["baseline_makespan_ns"] = p.baselineMakespanNs;
    out["replay_ms"] = p.replayMs;
    out["ranks"] = ranks.toPython();
    out["breakdown"] = breakdown.toPython();
    out["critical_path"] = path.toPython();
    out["top"] = tops.toPython();
    return out;
}

py::dict opportunitiesTable(const PredictInputs &inputs, const std::string &model)
{
    const auto replayModel = predict::replayModelFromName(model);
    if (!replayModel)
        throw std::invalid_argument("model: '" + model + "' is not a model (faithful, astra-sim)");
    predict::JobGraph graph;
    predict::Opportunities o;
    Table table;
    {
        py::gil_scoped_release release;
        graph = loadGraph(inputs);
        predict::OpportunityOptions options;
        options.model = *replayModel;
        o = predict::findOpportunities(graph.job, options);
        auto &position = table.ints("position");
        std::vector<std::string> kind, title, args, pattern, moved;
        auto &gain = table.ints("gain_ns");
        auto &gainPct = table.floats("gain_pct");
        auto &makespan = table.ints("makespan_ns");
        auto &finished = table.bools("finished");
        auto &nodes = table.ints("nodes");
        auto &onPath = table.ints("on_path");
        auto &pathNs = table.ints("path_ns");
        Column &rank = table.nullableInts("rank");
        Column &stream = table.nullableInts("stream");
        auto &factor = table.floats("factor");
        auto &rankAfter = table.ints("critical_rank_after");
        for (std::size_t i = 0; i < o.ranked.size(); ++i) {
            const predict::Opportunity &p = o.ranked[i];
            position.push_back(static_cast<std::int64_t>(i + 1));
            kind.emplace_back(predict::opportunityKindName(p.kind));
            title.push_back(p.title);
            std::string joined;
            for (const std::string &a : p.args)
                joined += (joined.empty() ? "" : " ") + a;
            args.push_back(joined);
            pattern.push_back(p.pattern);
            moved.push_back(p.moved());
            gain.push_back(p.gainNs());
            gainPct.push_back(p.gainPct());
            makespan.push_back(p.makespanNs);
            finished.push_back(p.finished ? 1 : 0);
            nodes.push_back(static_cast<std::int64_t>(p.nodes));
            onPath.push_back(static_cast<std::int64_t>(p.onPath));
            pathNs.push_back(p.pathNs);
            Table::push(rank, p.rank, p.rank < 0);
            Table::push(stream, p.stream, p.stream < 0);
            factor.push_back(p.factor);
            rankAfter.push_back(p.criticalRankAfter);
        }
        table.strings("kind", kind);
        table.strings("title", title);
        table.strings("args", args);
        table.strings("pattern", pattern);
        table.strings("moved", moved);
    }
    py::dict out;
    out["model"] = std::string(predict::replayModelName(o.model));
    out["baseline_makespan_ns"] = o.baselineMakespanNs;
    out["critical_rank"] = o.criticalRank;
    out["stragglers"] = o.stragglers;
    out["sweep_ms"] = o.sweepMs;
    out["network_source"] = graph.networkSource;
    py::list notOffered;
    for (const predict::NotOffered &n : o.notOffered)
        notOffered.append(py::make_tuple(n.candidate, n.why));
    out["not_offered"] = notOffered;
    out["opportunities"] = table.toPython();
    return out;
}

} // namespace linkscope::python
