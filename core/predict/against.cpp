#include "predict/against.h"

#include "job/discovery.h"
#include "pipeline/pairpipeline.h"
#include "predict/replay.h"
#include "report/opname.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

namespace linkscope::core::predict {

namespace {

// The GPU compute time of one job's ranks under a what-if: per kernel family (summed over `ranks`)
// and per (rank, stream).
struct Times {
    std::map<std::string, std::int64_t> families;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> streams;
    std::map<std::int64_t, std::int64_t> cpu; // per rank: its CPU nodes, every thread's summed
};

Times nodeTimes(const SimJob &job, const WhatIf &whatIf, ReplayModel model, const std::vector<std::int64_t> &ranks)
{
    Times out;
    const Durations durations(job, whatIf, model);
    for (std::size_t ri = 0; ri < job.ranks.size(); ++ri) {
        const SimRank &rank = job.ranks[ri];
        if (!std::binary_search(ranks.begin(), ranks.end(), rank.rank))
            continue;
        std::vector<std::string> family(rank.names.size());
        for (std::size_t i = 0; i < rank.names.size(); ++i)
            family[i] = normalizeOpName(rank.names[i]);
        for (std::uint32_t i = 0; i < rank.nodes.size(); ++i) {
            const SimNode &node = rank.nodes[i];
            if (node.kind == NodeKind::Cpu)
                out.cpu[rank.rank] += durations.computeNs(ri, i);
            if (node.kind != NodeKind::Gpu)
                continue;
            const std::int64_t ns = durations.computeNs(ri, i);
            out.families[family[node.name]] += ns;
            out.streams[{rank.rank, node.stream}] += ns;
        }
    }
    return out;
}

std::string ms(std::int64_t ns)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.3f ms", double(ns) / 1e6);
    return text;
}

std::string signedMs(std::int64_t ns)
{
    char text[48];
    std::snprintf(text, sizeof text, "%+.3f ms", double(ns) / 1e6);
    return text;
}

std::string pct(double p, const char *format = "%+.2f %%")
{
    char text[32];
    std::snprintf(text, sizeof text, format, p);
    return text;
}

nlohmann::json figureJson(const AgainstFigure &f)
{
    nlohmann::json j = {
        {"predicted_ns", f.predictedNs}, {"measured_ns", f.measuredNs}, {"gap_ns", f.gapNs()}, {"error_pct", f.errorPct()}};
    if (f.rank >= 0)
        j["rank"] = f.rank;
    if (!f.name.empty())
        j["name"] = f.name;
    return j;
}

} // namespace

MeasuredRun readMeasuredRun(const std::vector<std::string> &inputs, const job::JobOptions &options)
{
    MeasuredRun out;
    out.source = inputs.size() == 2 ? inputs[0] + " + " + inputs[1] : inputs.empty() ? std::string() : inputs[0];
    std::error_code ec;
    if (inputs.size() == 1 && std::filesystem::is_directory(inputs[0], ec)) {
        if (isJobExport(inputs[0])) {
            out.graph = loadJobExport(inputs[0]);
        } else {
            const job::JobLayout layout = job::discoverJob(inputs);
            if (!layout.errors.empty())
                throw std::runtime_error(inputs[0] + ": " + layout.errors.front());
            if (layout.ranks.empty())
                throw std::runtime_error(inputs[0] + ": no traces and no trace.R.et files");
            out.graph = exportJobGraph(layout.ranks, layout.worldSize, options);
        }
    } else if (inputs.size() == 1 || inputs.size() == 2) {
        const PairFiles files = resolvePairFiles(inputs[0], inputs.size() > 1 ? inputs[1] : std::string());
        if (files.host.empty())
            throw std::runtime_error(inputs[0]
                                     + ": a Kineto trace alone has no measured step to compare with "
                                       "(give its host ET too: --against HOST_ET --against KINETO)");
        out.graph = exportPairGraph(files.host, files.device, options);
    } else {
        throw std::invalid_argument("--against takes a folder, or a host ET and its Kineto trace");
    }
    return out;
}

double AgainstFigure::errorPct() const { return measuredNs ? 100.0 * (double(predictedNs) / double(measuredNs) - 1.0) : 0.0; }

Against compareAgainst(const SimJob &a, const Prediction &prediction, const WhatIf &whatIf, ReplayModel model, const JobGraph &b,
                       const std::string &source)
{
    Against out;
    out.source = source;
    if (b.measuredNs.empty())
        throw std::invalid_argument(source
                                    + ": no measured step (a job's traces, a pair, or a job export with its "
                                      "job-report.json)");
    std::vector<std::int64_t> compared;
    for (const RankPrediction &r : prediction.ranks) {
        const auto it = b.measuredNs.find(r.rank);
        if (it == b.measuredNs.end()) {
            out.warnings.push_back("rank " + std::to_string(r.rank) + " is predicted but not measured in " + source);
            continue;
        }
        if (!r.finished) {
            out.warnings.push_back("rank " + std::to_string(r.rank) + " never finishes in the prediction: " + r.stuck);
            continue;
        }
        out.ranks.push_back({r.rank, {}, r.stepNs, it->second});
        compared.push_back(r.rank);
    }
    for (const auto &measured : b.measuredNs) {
        const int rank = measured.first;
        if (std::none_of(prediction.ranks.begin(), prediction.ranks.end(),
                         [&](const RankPrediction &r) { return r.rank == rank; }))
            out.warnings.push_back("rank " + std::to_string(rank) + " is measured in " + source + " but not predicted");
    }
    if (out.ranks.empty())
        throw std::invalid_argument("no rank of the prediction can be compared with " + source
                                    + (out.warnings.empty() ? std::string() : ": " + out.warnings.front()));
    std::sort(out.ranks.begin(), out.ranks.end(), [](const AgainstFigure &x, const AgainstFigure &y) { return x.rank < y.rank; });
    std::sort(compared.begin(), compared.end());

    // bench/whatif.sh's figures: the error of the mean step, and the rank whose error is largest.
    double sumP = 0, sumM = 0;
    for (const AgainstFigure &f : out.ranks) {
        sumP += double(f.predictedNs);
        sumM += double(f.measuredNs);
        if (out.worstRank < 0 || std::abs(f.errorPct()) > std::abs(out.worstErrorPct)) {
            out.worstRank = f.rank;
            out.worstErrorPct = f.errorPct();
        }
    }
    const double n = double(out.ranks.size());
    out.meanPredictedNs = static_cast<std::int64_t>(std::llround(sumP / n));
    out.meanMeasuredNs = static_cast<std::int64_t>(std::llround(sumM / n));
    out.meanErrorPct = sumM > 0 ? 100.0 * (sumP / sumM - 1.0) : 0.0;

    const Times predicted = nodeTimes(a, whatIf, model, compared);
    const Times measured = nodeTimes(b.job, {}, model, compared);
    for (const std::int64_t rank : compared) {
        const auto p = predicted.cpu.find(rank), m = measured.cpu.find(rank);
        out.cpu.push_back({rank, "CPU", p == predicted.cpu.end() ? 0 : p->second, m == measured.cpu.end() ? 0 : m->second});
    }
    std::map<std::string, AgainstFigure> families;
    for (const auto &[name, ns] : predicted.families)
        families[name] = {-1, name, ns, 0};
    for (const auto &[name, ns] : measured.families) {
        AgainstFigure &f = families[name];
        f.name = name;
        f.measuredNs = ns;
    }
    for (auto &[name, f] : families)
        out.families.push_back(std::move(f));
    std::stable_sort(out.families.begin(), out.families.end(), [](const AgainstFigure &x, const AgainstFigure &y) {
        return std::llabs(x.gapNs()) > std::llabs(y.gapNs());
    });
    std::map<std::pair<std::int64_t, std::int64_t>, AgainstFigure> streams;
    for (int side = 0; side < 2; ++side)
        for (const auto &[key, ns] : side ? measured.streams : predicted.streams) {
            AgainstFigure &f = streams[key];
            f.rank = key.first;
            f.name = "stream " + std::to_string(key.second);
            (side ? f.measuredNs : f.predictedNs) = ns;
        }
    for (auto &[key, f] : streams)
        out.streams.push_back(std::move(f));
    return out;
}

nlohmann::json Against::toJson(std::size_t top) const
{
    nlohmann::json ranksJson = nlohmann::json::array(), familiesJson = nlohmann::json::array(),
                   streamsJson = nlohmann::json::array(), cpuJson = nlohmann::json::array();
    for (const AgainstFigure &f : cpu)
        cpuJson.push_back(figureJson(f));
    for (const AgainstFigure &f : ranks)
        ranksJson.push_back(figureJson(f));
    for (std::size_t i = 0; i < families.size() && (top == 0 || i < top); ++i)
        familiesJson.push_back(figureJson(families[i]));
    for (const AgainstFigure &f : streams)
        streamsJson.push_back(figureJson(f));
    return {{"source", source},
            {"mean_predicted_ns", meanPredictedNs},
            {"mean_measured_ns", meanMeasuredNs},
            {"error_pct", meanErrorPct},
            {"worst_rank", worstRank},
            {"worst_error_pct", worstErrorPct},
            {"ranks", std::move(ranksJson)},
            {"kernel_families", std::move(familiesJson)},
            {"streams", std::move(streamsJson)},
            {"cpu", std::move(cpuJson)},
            {"warnings", warnings}};
}

std::string Against::text(std::size_t top) const
{
    std::ostringstream out;
    out << "against " << source << " (measured: the export's measured_ns, bench/whatif.sh's truth)\n";
    for (const AgainstFigure &f : ranks)
        out << "  rank " << f.rank << ": predicted " << ms(f.predictedNs) << ", measured " << ms(f.measuredNs) << ", error "
            << pct(f.errorPct()) << '\n';
    out << "  mean: predicted " << ms(meanPredictedNs) << ", measured " << ms(meanMeasuredNs) << ", error " << pct(meanErrorPct)
        << "; worst rank " << worstRank << ' ' << pct(worstErrorPct, "%+.4f %%") << " (" << ranks.size() << " ranks)\n";
    const std::size_t n = top ? std::min(top, families.size()) : families.size();
    out << "where they part: GPU time per kernel family, over the ranks (" << n << " of " << families.size()
        << ", by |predicted − measured|)\n";
    for (std::size_t i = 0; i < n; ++i) {
        const AgainstFigure &f = families[i];
        out << "  " << ms(f.predictedNs) << " vs " << ms(f.measuredNs) << "  " << signedMs(f.gapNs()) << " (" << pct(f.errorPct())
            << ")  " << f.name << '\n';
    }
    out << "per stream (GPU compute time)\n";
    for (const AgainstFigure &f : streams)
        out << "  rank " << f.rank << ' ' << f.name << ": " << ms(f.predictedNs) << " vs " << ms(f.measuredNs) << "  "
            << signedMs(f.gapNs()) << " (" << pct(f.errorPct()) << ")\n";
    out << "per rank (CPU time, every thread's summed)\n";
    for (const AgainstFigure &f : cpu)
        out << "  rank " << f.rank << ": " << ms(f.predictedNs) << " vs " << ms(f.measuredNs) << "  " << signedMs(f.gapNs())
            << " (" << pct(f.errorPct()) << ")\n";
    for (const std::string &w : warnings)
        out << "warning: " << w << '\n';
    return out.str();
}

} // namespace linkscope::core::predict
