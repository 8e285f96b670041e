// linkscope predict: Linkscope's own replay of a job's exported graph (predict/replay.h), with
// ASTRA-sim's semantics, and what-ifs answered in milliseconds: the step per rank, its breakdown
// along the critical path, the top of that path and the change.

#include "commands/against.h"
#include "commands/commands.h"
#include "commands/opportunities.h"
#include "job/runid.h"

#include "io/file/atomicfile.h"
#include "job/discovery.h"
#include "link/linkset.h"
#include "predict/hugepages.h"
#include "predict/jobgraph.h"
#include "predict/prediction.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace linkscope::cli {

namespace {

namespace fs = std::filesystem;
using namespace linkscope::core;

void printPredictUsage(std::ostream &out)
{
    out << "usage: linkscope predict JOB_DIR [what-ifs] [options]\n"
           "       linkscope predict [--host HOST_ET] --device KINETO [what-ifs] [options]\n"
           "       linkscope predict X.et... [--comm-groups F] [--network F] [what-ifs] [options]\n"
           "  Replays the job's graph (what `linkscope job` exports) and prints each rank's predicted step, its\n"
           "  breakdown along the critical path and the path's top ops\n"
           "  (docs/prediction.md). JOB_DIR holds a job's traces (exported first, the network fitted from\n"
           "  its collectives) or a job export (PREFIX.R.et, comm_group.json, network.yml). One pair stands\n"
           "  for a job whose ranks all run as it does.\n"
           "what-ifs (repeatable; the change is printed against the graph as exported):\n"
        << kWhatIfOptionsUsage
        << "options:\n"
           "  --model M             faithful (default): each CPU thread its own CPU, each GPU stream its own queue,\n"
           "                        kernels for their measured time; astra-sim: ASTRA-sim 518bd51's machine (one\n"
           "                        CPU node and one GPU kernel at a time per rank), as ASTRA-sim replays the .et\n"
           "  --comm-groups F       comm_group.json for .et files; --network F: the network file (any input)\n"
           "  --npus N              one .et file standing for a job of N ranks\n"
           "  --prefix NAME         a job export's file prefix (default trace)\n"
           "  --policy P            linking policy when exporting traces (default: each rank's sidecar, else nesting)\n"
           "  --jobs N              ranks exported at the same time (default 1)\n"
           "  --top N               ops listed per rank (default 5; JSON 10)\n"
           "  --json                print JSON (docs/prediction.md); --path-limit N lists each rank's last N steps\n"
           "                        of its critical path (default 1000, 0 all; the JSON counts what it leaves out)\n"
           "  --strict              refuse (exit 1) a graph `linkscope check` or `linkscope job` flags (a send with no\n"
           "                        receive, a comm_size <= 0, groups the ranks disagree on); without it, each finding is\n"
           "                        a warning on standard error and in the JSON's \"warnings\"\n"
           "  --against B           compare with run B's measured steps (a job folder, a job export, or --against\n"
           "                        HOST_ET --against KINETO): the error per rank and where they part\n"
           "  --schedule FILE       write the replayed schedule (under the what-if) as CSV: rank,id,name,kind,start_ns,\n"
           "                        end_ns,slack_ns (compare with ASTRA-sim's issue/callback log)\n"
           "  --opportunities       what to fix first: candidate changes (kernel families and streams on the critical\n"
           "                        path, communication, stragglers' CPU, ...) each replayed, ranked by the job's gain;\n"
           "                        --opportunities-limit N lists the first N (default 20, JSON all; 0 all)\n"
           "Exit status: 0; 1 if an input cannot be read, a rank never finishes, or --strict refuses a finding; 2 for\n"
           "usage (a what-if that names a rank not in the job included).\n";
}

std::string ms(std::int64_t ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

std::string pct(std::int64_t part, std::int64_t whole)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

// --json's critical path per rank: its last steps (the end of the step), the rest counted. A chain
// of 10^6 nodes printed whole was 157 MB of JSON.
constexpr std::size_t kDefaultPathLimit = 1000;

// What the command line asks for.
struct PredictOptions {
    std::vector<std::string> positional;
    std::string host, device, commGroups, network, prefix = "trace", schedulePath;
    std::int64_t npus = 0;
    std::size_t top = 5, pathLimit = kDefaultPathLimit;
    bool json = false, help = false, opportunities = false, strict = false;
    std::size_t opportunitiesLimit = kDefaultOpportunities;
    predict::ReplayModel model = predict::ReplayModel::Faithful;
    WhatIf whatIf;
    job::JobOptions job;
    std::vector<std::string> against; // --against: the measured run (commands/against.h)
};

// The arguments read; std::invalid_argument names what is wrong.
PredictOptions parsePredictArgs(const Args &args)
{
    PredictOptions o;
    int jobs = 1;
    bool topGiven = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size())
                throw std::invalid_argument(a + " needs a value");
            return args[++i];
        };
        auto count = [&](std::int64_t max) {
            const std::string v = value();
            std::size_t used = 0;
            long long n = -1;
            try {
                n = std::stoll(v, &used);
            } catch (const std::exception &) {
                used = 0;
            }
            if (used != v.size() || n < 0 || n > max)
                throw std::invalid_argument(a + ": '" + v + "' is not a count");
            return n;
        };
        if (a == "--help" || a == "-h") {
            o.help = true;
            return o;
        } else if (a == "--host") {
            o.host = value();
        } else if (a == "--device") {
            o.device = value();
        } else if (a == "--comm-groups") {
            o.commGroups = value();
        } else if (a == "--network") {
            o.network = value();
        } else if (a == "--npus") {
            o.npus = count(1 << 24);
        } else if (a == "--prefix") {
            o.prefix = value();
        } else if (a == "--policy") {
            const std::string p = value();
            const auto policy = policyFromName(p);
            if (!policy)
                throw std::invalid_argument("unknown policy '" + p + "' (nesting, external-id, ev-idx)");
            o.job.link.policy = *policy;
            o.job.policyGiven = true;
        } else if (a == "--jobs") {
            jobs = static_cast<int>(count(256));
        } else if (a == "--top") {
            o.top = static_cast<std::size_t>(count(1000000));
            topGiven = true;
        } else if (a == "--path-limit") {
            o.pathLimit = static_cast<std::size_t>(count(1LL << 40));
        } else if (a == "--against") {
            o.against.push_back(value());
        } else if (a == "--schedule") {
            o.schedulePath = value();
        } else if (a == "--opportunities") {
            o.opportunities = true;
        } else if (a == "--opportunities-limit") {
            o.opportunitiesLimit = static_cast<std::size_t>(count(1000000));
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--strict") {
            o.strict = true;
        } else if (a == "--model") {
            const std::string m = value();
            const auto model = predict::replayModelFromName(m);
            if (!model)
                throw std::invalid_argument("--model: '" + m + "' is not a model (faithful, astra-sim)");
            o.model = *model;
        } else if (applyWhatIfOption(o.whatIf, a, value)) {
        } else if (a.starts_with("--")) {
            throw std::invalid_argument("unknown option " + a);
        } else {
            o.positional.push_back(a);
        }
    }
    if (!o.host.empty() && o.device.empty())
        throw std::invalid_argument("--host needs --device (the Kineto trace; alone, it stands for the host ET too)");
    if (!o.device.empty() && !o.positional.empty())
        throw std::invalid_argument("give a pair (--host, --device), a Kineto trace (--device) or files, not both");
    if (o.device.empty() && o.positional.empty())
        throw std::invalid_argument("give a job folder, a pair or .et files");
    if (o.opportunities && (!o.whatIf.empty() || !o.schedulePath.empty()))
        throw std::invalid_argument("--opportunities replays its own what-ifs: give it without what-ifs and --schedule");
    if (!o.opportunities && o.opportunitiesLimit != kDefaultOpportunities)
        throw std::invalid_argument("--opportunities-limit goes with --opportunities");
    if (o.json && !topGiven)
        o.top = 10;
    o.job.jobs = std::max(1, jobs);
    return o;
}

// The bytes of the regular files in `dir` (what a job export's replay will hold, about).
std::uintmax_t folderBytes(const std::string &dir)
{
    std::error_code ec;
    std::uintmax_t bytes = 0;
    for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
        bytes += e.is_regular_file(ec) ? e.file_size(ec) : 0;
    return bytes;
}

// The graph to replay: a pair exported, a job folder's traces exported or its export read, or .et
// files; then the network file, for the inputs that do not take it themselves. Throws what a reader
// or the export throws; a job folder's layout errors are printed and give std::nullopt.
std::optional<predict::JobGraph> loadPredictGraph(const PredictOptions &o, std::ostream &err)
{
    predict::JobGraph graph;
    std::error_code ec;
    if (!o.device.empty()) {
        graph = predict::exportPairGraph(o.host, o.device, o.job);
    } else if (o.positional.size() == 1 && fs::is_directory(o.positional[0], ec)) {
        if (predict::isJobExport(o.positional[0], o.prefix)) {
            // Files of two `linkscope job` runs side by side (one killed, then run again): said here,
            // not as the mismatch a replay of them would fail on (job/runid.h).
            if (const job::FolderRuns runs = job::checkFolderRuns(o.positional[0], o.prefix); runs.mixed()) {
                err << "predict: error: " << o.positional[0] << ": " << runs.message() << '\n';
                return std::nullopt;
            }
            predict::useHugePageHeap(folderBytes(o.positional[0]) / 2);
            graph = predict::loadJobExport(o.positional[0], o.prefix);
        } else {
            const job::JobLayout layout = job::discoverJob(o.positional);
            if (!layout.errors.empty()) {
                for (const std::string &e : layout.errors)
                    err << "predict: error: " << e << '\n';
                return std::nullopt;
            }
            if (layout.ranks.empty()) {
                err << "predict: " << o.positional[0] << ": no traces and no " << o.prefix << ".R.et files\n";
                return std::nullopt;
            }
            graph = predict::exportJobGraph(layout.ranks, layout.worldSize, o.job);
        }
    } else {
        std::uintmax_t bytes = 0;
        for (const std::string &file : o.positional) {
            const std::uintmax_t size = fs::file_size(file, ec);
            bytes += ec ? 0 : size;
        }
        predict::useHugePageHeap(bytes / 2);
        graph = predict::loadEtGraph(o.positional, o.commGroups, o.network, o.npus);
        graph.networkSource = o.network.empty() ? "run.sh's ring (50 GB/s, 500 ns)" : o.network;
    }
    if (!o.network.empty() && (o.device.size() || fs::is_directory(o.positional[0], ec)))
        predict::useNetworkFile(graph, o.network);
    return graph;
}

// --schedule: every node's replayed start and end and its slack, as CSV, written atomically.
void writeSchedule(const std::string &path, const predict::SimJob &job, const predict::ReplayResult &r)
{
    const auto slack = predict::slack(job, r);
    std::ostringstream csv;
    csv << "rank,id,name,kind,start_ns,end_ns,slack_ns\n";
    for (std::size_t ri = 0; ri < job.ranks.size(); ++ri) {
        const predict::SimRank &rank = job.ranks[ri];
        for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
            std::string name = rank.names[rank.nodes[i].name];
            if (name.find_first_of(",\"\n") != std::string::npos) {
                std::string quoted = "\"";
                for (const char c : name)
                    quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
                name = quoted + "\"";
            }
            csv << rank.rank << ',' << rank.nodes[i].id << ',' << name << ',' << predict::nodeKindName(rank.nodes[i].kind) << ','
                << r.ranks[ri].start[i] << ',' << r.ranks[ri].end[i] << ',' << slack[ri][i] << '\n';
        }
    }
    AtomicFile file(path);
    file.write(csv.str());
    file.commit();
}

// The text report: the graph and network, the what-if, then per rank its step, the path's
// breakdown and the path's top ops.
void printPrediction(std::ostream &out, const predict::JobGraph &graph, const predict::Prediction &p, const WhatIf &whatIf,
                     double loadMs)
{
    char line[256];
    std::snprintf(line, sizeof line, "%.3g GB/s, %.4g ns", p.network.bandwidthGBps, p.network.latencyNs);
    out << "predict: " << graph.job.ranks.size() << " rank(s)"
        << (graph.job.mirrored ? " standing for " + std::to_string(graph.job.npus) : "") << ", " << graph.job.nodeCount()
        << " nodes; network " << line << " (" << graph.networkSource << "); model " << predict::replayModelName(p.model) << '\n';
    out << "what-if: " << p.whatIf << '\n';
    for (const predict::WhatIfMatch &m : p.matches)
        out << "  " << m.term << ": " << m.nodes << " node(s) changed, " << m.onPath << " of them on the critical path\n";
    for (const predict::RankPrediction &r : p.ranks) {
        if (!r.finished) {
            out << "rank " << r.rank << ": never finishes: " << r.stuck << '\n';
            continue;
        }
        out << "rank " << r.rank << ": step " << ms(r.stepNs);
        if (!whatIf.empty()) {
            std::snprintf(line, sizeof line, " (as exported %s, %+.2f%%)", ms(r.baselineNs).c_str(), r.changePct());
            out << line;
        }
        const predict::Breakdown &b = r.path.breakdown;
        out << "\n  critical path: cpu " << pct(b.cpuNs, r.stepNs) << ", gpu " << pct(b.gpuNs, r.stepNs) << ", comm "
            << pct(b.commNs, r.stepNs) << ", other ranks " << pct(b.otherRankNs, r.stepNs);
        if (b.idleNs)
            out << ", idle " << pct(b.idleNs, r.stepNs);
        out << " (" << r.path.steps.size() << " steps)\n";
        for (const predict::PathShare &s : r.top) {
            std::snprintf(line, sizeof line, "    %10s  %5s  ", ms(s.ns).c_str(), pct(s.ns, r.stepNs).c_str());
            out << line << predict::nodeKindName(s.kind) << ' ' << s.name;
            if (s.count > 1)
                out << " ×" << s.count;
            if (s.rank != r.rank)
                out << " (rank " << s.rank << ")";
            out << '\n';
        }
    }
    std::snprintf(line, sizeof line, "loaded in %.0f ms, replayed in %.1f ms\n", loadMs, p.replayMs);
    out << line;
}

} // namespace

int runPredict(const Args &args, std::ostream &out, std::ostream &err)
{
    PredictOptions o;
    try {
        o = parsePredictArgs(args);
    } catch (const std::invalid_argument &e) {
        err << "predict: " << e.what() << '\n';
        printPredictUsage(err);
        return 2;
    }
    if (o.help) {
        printPredictUsage(out);
        return 0;
    }

    std::optional<predict::JobGraph> graph;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        graph = loadPredictGraph(o, err);
    } catch (const std::exception &e) {
        err << "predict: " << e.what() << '\n';
        return 1;
    }
    if (!graph)
        return 1;
    const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const std::string &note : graph->notes)
        err << "predict: note: " << note << '\n';
    for (const std::string &finding : graph->findings)
        err << "predict: warning: " << finding << '\n';
    if (o.strict && !graph->findings.empty()) {
        err << "predict: --strict: " << graph->findings.size()
            << " finding(s) above that `linkscope check` or `linkscope job` would flag; not replayed\n";
        return 1;
    }
    if (o.opportunities)
        return printOpportunities(graph->job, graph->networkSource, loadMs, {o.model, o.opportunitiesLimit, o.json}, out, err);

    predict::Prediction p;
    predict::ReplayResult r; // the what-if's run with its issue order, kept for --schedule's slack
    try {
        p = predict::predict(graph->job, o.whatIf, o.top, o.schedulePath.empty() ? nullptr : &r, o.model);
    } catch (const std::invalid_argument &e) {
        err << "predict: " << e.what() << '\n';
        return 2;
    }
    for (const std::string &w : p.warnings)
        err << "predict: warning: " << w << '\n';
    if (!o.schedulePath.empty()) {
        try {
            writeSchedule(o.schedulePath, graph->job, r);
        } catch (const std::exception &e) {
            err << "predict: " << o.schedulePath << ": " << e.what() << '\n';
            return 1;
        }
    }
    bool stuck = false;
    for (const predict::RankPrediction &rank : p.ranks)
        stuck = stuck || !rank.finished;
    std::optional<predict::Against> against;
    if (!o.against.empty() && !(against = predictAgainst(o.against, graph->job, p, o.whatIf, o.model, o.job, err)))
        return 1;
    if (o.json) {
        nlohmann::json j = p.toJson(graph->job, o.pathLimit);
        for (const std::string &finding : graph->findings)
            j["warnings"].push_back(finding);
        if (against)
            j["against"] = against->toJson();
        j["network"]["source"] = graph->networkSource;
        j["mirrored"] = graph->job.mirrored;
        j["notes"] = graph->notes;
        j["load_ms"] = loadMs;
        j["replay_ms"] = p.replayMs;
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        printPrediction(out, *graph, p, o.whatIf, loadMs);
        if (against)
            out << against->text();
    }
    return stuck ? 1 : 0;
}

} // namespace linkscope::cli
