#include "predict/jobgraph.h"
#include "predict/rankstream.h"

#include "base/parallel.h"
#include "export/chakra/etcheck.h"
#include "io/formats.h"
#include "jobmodel/processgroups.h"
#include "jobmodel/rankrange.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace linkscope::core::predict {

namespace fs = std::filesystem;

namespace {

std::map<std::int64_t, std::string> etFilesIn(const std::string &dir, const std::string &prefix)
{
    const std::regex name("^" + std::regex_replace(prefix, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)")
                          + R"(\.([0-9]{1,9})\.et(\.gz)?$)");
    std::map<std::int64_t, std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::smatch m;
        const std::string file = it->path().filename().string();
        if (std::regex_match(file, m, name) && it->is_regular_file(ec))
            out[std::stoll(m[1].str())] = it->path().string();
    }
    return out;
}

// What a job report says of each rank's measured step: its length, where it began on the rank's
// own clock, and the rank's clock offset (its clock minus the reference rank's).
struct RankWindows {
    std::map<std::int64_t, std::int64_t> measuredNs, beginNs, clockOffsetNs;
    std::vector<std::int64_t> unaligned; // ranks with no collective to align their clock by
};

// A job-report.json's RankWindows (empty when there is no such file). Throws LoadError naming the
// file when it is there but is not a job report.
RankWindows reportWindows(const std::string &path)
{
    RankWindows out;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return out;
    std::ifstream in(path, std::ios::binary);
    try {
        const nlohmann::json report = nlohmann::json::parse(in);
        for (const nlohmann::json &r : report.at("ranks")) {
            if (!r.contains("export") || !r["export"].is_object())
                continue;
            const std::int64_t rank = r.at("rank").get<std::int64_t>();
            if (r["export"].contains("measured_ns"))
                out.measuredNs[rank] = r["export"]["measured_ns"].get<std::int64_t>();
            if (r["export"].contains("window_begin_ns"))
                out.beginNs[rank] = r["export"]["window_begin_ns"].get<std::int64_t>();
        }
        if (report.contains("clocks") && report["clocks"].is_object()) {
            for (const nlohmann::json &o : report["clocks"].value("offsets", nlohmann::json::array()))
                out.clockOffsetNs[o.at("rank").get<std::int64_t>()] = o.at("offset_ns").get<std::int64_t>();
            out.unaligned = report["clocks"].value("unaligned", std::vector<std::int64_t>{});
        }
    } catch (const nlohmann::json::exception &e) {
        throw LoadError(path, 0, std::string("not a job report: ") + e.what());
    }
    return out;
}

// A skew past this is no skew of one step's entry (clocks not tied together): none is used.
constexpr std::int64_t kMaxEntrySkewNs = 3'600'000'000'000;

// SimJob::entryNs from each rank's window begin and clock offset; empty unless every rank of `job`
// has both (and its clock is aligned), or for one rank standing for its job.
std::vector<std::int64_t> entriesOf(const SimJob &job, const RankWindows &w)
{
    if (job.mirrored || job.ranks.size() < 2)
        return {};
    std::vector<std::int64_t> aligned;
    for (const SimRank &r : job.ranks) {
        const auto begin = w.beginNs.find(r.rank);
        if (begin == w.beginNs.end() || std::find(w.unaligned.begin(), w.unaligned.end(), r.rank) != w.unaligned.end())
            return {};
        const auto offset = w.clockOffsetNs.find(r.rank);
        aligned.push_back(begin->second - (offset == w.clockOffsetNs.end() ? 0 : offset->second));
    }
    const std::int64_t first = *std::min_element(aligned.begin(), aligned.end());
    for (std::int64_t &a : aligned)
        a -= first;
    if (*std::max_element(aligned.begin(), aligned.end()) > kMaxEntrySkewNs)
        return {};
    return aligned;
}

// "ranks entered their step up to 30.479 ms apart (rank 0 last) …" when they did (≥ 1 µs).
void noteEntries(JobGraph &g)
{
    const auto last = std::max_element(g.job.entryNs.begin(), g.job.entryNs.end());
    if (last == g.job.entryNs.end() || *last < 1000)
        return;
    std::ostringstream text;
    text.precision(3);
    text << std::fixed << "the ranks entered their measured step up to " << double(*last) / 1e6 << " ms apart (rank "
         << g.job.ranks[static_cast<std::size_t>(last - g.job.entryNs.begin())].rank
         << " last, on the aligned clocks): the faithful model starts each rank there, and a rank's step runs from it";
    g.notes.push_back(text.str());
}

// `linkscope check`'s findings over the files of a graph that loaded: the rules about the simulator
// alone (its exit) left out, and for a mirrored rank those that want every rank's file.
std::vector<std::string> checkFindings(const std::vector<std::string> &paths, const std::string &commGroups, bool mirrored)
{
    std::vector<std::string> out;
    for (const EtCheckFinding &f : checkEtFiles(paths, commGroups, machineThreads()).findings) {
        if (f.rule == "astra_sim_exit_double_free" || (mirrored && f.rule == "group_rank_missing"))
            continue;
        std::string text = f.toString();
        const std::string_view severity = f.severity == EtCheckFinding::Severity::Error ? "error: " : "warning: ";
        if (text.starts_with(severity))
            text.erase(0, severity.size());
        out.push_back(std::move(text)); // a count > 1 is a closing "N more …" that says so
    }
    return out;
}

} // namespace

JobGraph loadEtGraph(const std::vector<std::string> &etFiles, const std::string &commGroupsPath, const std::string &networkPath,
                     std::int64_t mirrorNpus)
{
    JobGraph g;
    g.job = loadJob(etFiles, commGroupsPath, networkPath, mirrorNpus);
    g.findings = checkFindings(etFiles, commGroupsPath, g.job.mirrored);
    return g;
}

bool isJobExport(const std::string &dir, const std::string &prefix) { return !etFilesIn(dir, prefix).empty(); }

JobGraph loadJobExport(const std::string &dir, const std::string &prefix)
{
    const auto files = etFilesIn(dir, prefix);
    if (files.empty())
        throw LoadError(dir, 0, "no " + prefix + ".R.et files");
    std::vector<std::string> paths;
    for (const auto &[rank, path] : files)
        paths.push_back(path);
    const fs::path groups = fs::path(dir) / "comm_group.json", network = fs::path(dir) / "network.yml";
    std::error_code ec;
    JobGraph g = loadEtGraph(paths, fs::exists(groups, ec) ? groups.string() : std::string(),
                             fs::exists(network, ec) ? network.string() : std::string());
    g.networkSource = fs::exists(network, ec) ? network.string() : "run.sh's ring (50 GB/s, 500 ns): no network.yml";
    const RankWindows windows = reportWindows((fs::path(dir) / "job-report.json").string());
    g.measuredNs = windows.measuredNs;
    g.job.entryNs = entriesOf(g.job, windows);
    noteEntries(g);
    return g;
}

JobGraph exportJobGraph(const std::vector<job::RankFiles> &ranks, std::int64_t worldSize, job::JobOptions options)
{
    if (ranks.empty())
        throw std::runtime_error("no ranks to predict");
    // Each rank's .et goes into its replay graph as the export makes it: nothing is written to disk
    // and read back. A stream per rank, made before the workers start (they only look them up).
    std::map<std::int64_t, std::unique_ptr<RankStream>> streams;
    for (const job::RankFiles &r : ranks)
        if (!streams.emplace(r.rank, std::make_unique<RankStream>(r.rank, r.device)).second)
            throw std::runtime_error("rank " + std::to_string(r.rank) + " is given twice");
    options.outDir.clear();
    options.prefix = "trace";
    options.writeEt = true;
    options.checkEt = false;
    options.identifyRun = false;
    options.chakra.target = EtTarget::AstraSim;
    options.etSinkFor = [&streams](std::int64_t rank) {
        RankStream *stream = streams.at(rank).get();
        return [stream](std::string_view bytes) { stream->feed(bytes); };
    };
    std::vector<job::RankSummary> summaries = job::processRanks(ranks, options);
    JobGraph g;
    RankWindows windows;
    for (const job::RankSummary &s : summaries) {
        if (s.exportStats.is_object() && s.exportStats.contains("measured_ns"))
            g.measuredNs[s.rank] = s.exportStats["measured_ns"].get<std::int64_t>();
        if (s.exportStats.is_object() && s.exportStats.contains("window_begin_ns"))
            windows.beginNs[s.rank] = s.exportStats["window_begin_ns"].get<std::int64_t>();
    }
    for (const job::RankSummary &s : summaries)
        if (!s.error.empty())
            throw std::runtime_error("rank " + std::to_string(s.rank) + ": " + s.error);
        else if (s.et.empty())
            throw std::runtime_error("rank " + std::to_string(s.rank) + ": " + (s.note.empty() ? "no .et written" : s.note));
    std::vector<std::int64_t> derived;
    for (const job::RankSummary &s : summaries)
        if (s.hostDerived)
            derived.push_back(s.rank);
    if (!derived.empty()) {
        std::string list;
        for (std::size_t i = 0; i < derived.size() && i < 8; ++i)
            list += (i ? ", " : "") + std::to_string(derived[i]);
        if (derived.size() > 8)
            list += ", … (" + std::to_string(derived.size()) + " ranks)";
        g.notes.push_back("no host execution trace for rank(s) " + list
                          + ": the graph is built from the Kineto trace's own CPU ops (docs/prediction.md, "
                            "\"From a Kineto trace alone\")");
    }
    const job::JobReport report = job::buildJobReport(std::move(summaries), worldSize);
    // `job`'s findings; a pair standing for its job lacks the other ranks by design.
    const bool alone = ranks.size() == 1 && std::max(worldSize, report.worldSize) > 1;
    for (const job::JobFinding &f : report.listedFindings())
        if (f.severity != job::Severity::Info && !(alone && (f.kind == "missing_rank" || f.kind == "rank_absent_from_group")))
            g.findings.push_back(f.kind + ": " + f.message + (f.processGroup.empty() ? "" : " (group " + f.processGroup + ")"));
    // One rank of a larger job stands for it: as many ranks as it or its groups name.
    std::int64_t world = std::max(worldSize, report.worldSize);
    for (const job::ProcessGroup &pg : report.groups)
        for (const std::int64_t r : pg.ranks)
            world = std::max(world, r + 1);
    if (!job::plausibleWorldSize(world))
        throw std::runtime_error("the job names " + std::to_string(world)
                                 + " ranks (world size or process group ranks), more than the "
                                 + std::to_string(job::kMaxWorldSize) + " a job may have");
    const bool mirror = ranks.size() == 1 && world > 1;
    // The comm groups and the network as `linkscope job` writes them (comm_group.json, network.yml)
    // and loadJob reads them back.
    const std::string groupsName = "the job's comm groups (comm_group.json)";
    parseCommGroups(job::commGroupJson(report.groups).dump(2, ' ', false, nlohmann::json::error_handler_t::replace), groupsName,
                    g.job);
    for (const job::RankFiles &r : ranks)
        g.job.ranks.push_back(streams.at(r.rank)->finish(g.job.groupIds));
    streams.clear();
    assembleJob(g.job, mirror ? std::max(world, ranks.front().rank + 1) : 0);
    if (report.network.fitted) {
        const std::string networkName = "the job's network (network.yml)";
        g.job.network = parseNetworkYaml(job::networkYaml(report.network), networkName);
        if (g.job.network.npus && g.job.network.npus != g.job.npus)
            throw LoadError(networkName, 0,
                            "npus_count " + std::to_string(g.job.network.npus) + " but " + std::to_string(g.job.npus) + " ranks");
    }
    g.job.network.npus = g.job.npus;
    checkGroupRanks(g.job, groupsName);
    windows.clockOffsetNs = report.timing.clockOffsetNs;
    windows.unaligned = report.timing.unaligned;
    g.job.entryNs = entriesOf(g.job, windows);
    noteEntries(g);
    g.networkSource = report.network.fitted ? "fitted from " + std::to_string(report.network.samples) + " collectives"
                                            : "run.sh's ring (50 GB/s, 500 ns): not fitted (" + report.network.reason + ")";
    return g;
}

JobGraph exportPairGraph(const std::string &host, const std::string &device, const job::JobOptions &options)
{
    job::RankFiles files;
    files.host = host;
    files.device = device;
    const RankHeader header = peekRankHeader(device);
    files.rank = std::max<std::int64_t>(0, header.rank);
    return exportJobGraph({files}, header.worldSize, options);
}

void useNetworkFile(JobGraph &graph, const std::string &path)
{
    const std::int64_t n = graph.job.npus;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw LoadError(path, 0, "cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    graph.job.network = parseNetworkYaml(text.str(), path);
    graph.job.network.npus = n;
    graph.networkSource = path;
}

} // namespace linkscope::core::predict
