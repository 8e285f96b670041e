// linkscope predict: Linkscope's own replay of a job's exported graph (predict/replay.h), with
// ASTRA-sim's semantics, and what-ifs answered in milliseconds: the step per rank, its breakdown
// along the critical path, the top of that path and the change.

#include "commands/commands.h"

#include "io/atomicfile.h"
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
#include <sstream>

namespace linkscope::cli {

namespace {

namespace fs = std::filesystem;
using namespace linkscope::core;

void printPredictUsage(std::ostream &out)
{
    out << "usage: linkscope predict JOB_DIR [what-ifs] [options]\n"
           "       linkscope predict --host HOST_ET --device KINETO [what-ifs] [options]\n"
           "       linkscope predict X.et... [--comm-groups F] [--network F] [what-ifs] [options]\n"
           "  Replays the job's ASTRA-sim graph (what `linkscope job` exports) as ASTRA-sim 518bd51 would, and\n"
           "  prints each rank's predicted step, its breakdown along the critical path and the path's top ops\n"
           "  (docs/prediction.md). JOB_DIR holds a job's traces (exported first, the network fitted from\n"
           "  its collectives) or a job export (PREFIX.R.et, comm_group.json, network.yml). One pair stands\n"
           "  for a job whose ranks all run as it does.\n"
           "what-ifs (repeatable; the change is printed against the graph as exported):\n"
        << kWhatIfOptionsUsage
        << "options:\n"
           "  --comm-groups F       comm_group.json for .et files; --network F: the network file (any input)\n"
           "  --npus N              one .et file standing for a job of N ranks\n"
           "  --prefix NAME         a job export's file prefix (default trace)\n"
           "  --policy P            linking policy when exporting traces (default: each rank's sidecar, else nesting)\n"
           "  --jobs N              ranks exported at the same time (default 1)\n"
           "  --top N               ops listed per rank (default 5; JSON 10)\n"
           "  --json                print JSON (docs/prediction.md); --path-limit N caps each path's steps\n"
           "  --schedule FILE       write the replayed schedule (under the what-if) as CSV: rank,id,name,kind,start_ns,\n"
           "                        end_ns,slack_ns (compare with ASTRA-sim's issue/callback log)\n"
           "Exit status: 0; 1 if an input cannot be read or a rank never finishes; 2 for usage.\n";
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

} // namespace

int runPredict(const Args &args, std::ostream &out, std::ostream &err)
{
    std::vector<std::string> positional;
    std::string host, device, commGroups, network, prefix = "trace", schedulePath;
    std::int64_t npus = 0;
    int jobs = 1;
    std::size_t top = 5, pathLimit = 0;
    bool json = false, topGiven = false;
    WhatIf whatIf;
    job::JobOptions options;
    try {
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
                printPredictUsage(out);
                return 0;
            } else if (a == "--host") {
                host = value();
            } else if (a == "--device") {
                device = value();
            } else if (a == "--comm-groups") {
                commGroups = value();
            } else if (a == "--network") {
                network = value();
            } else if (a == "--npus") {
                npus = count(1 << 24);
            } else if (a == "--prefix") {
                prefix = value();
            } else if (a == "--policy") {
                const std::string p = value();
                const auto policy = policyFromName(p);
                if (!policy)
                    throw std::invalid_argument("unknown policy '" + p + "' (nesting, external-id, ev-idx)");
                options.link.policy = *policy;
                options.policyGiven = true;
            } else if (a == "--jobs") {
                jobs = static_cast<int>(count(256));
            } else if (a == "--top") {
                top = static_cast<std::size_t>(count(1000000));
                topGiven = true;
            } else if (a == "--path-limit") {
                pathLimit = static_cast<std::size_t>(count(1LL << 40));
            } else if (a == "--schedule") {
                schedulePath = value();
            } else if (a == "--json") {
                json = true;
            } else if (applyWhatIfOption(whatIf, a, value)) {
            } else if (a.starts_with("--")) {
                throw std::invalid_argument("unknown option " + a);
            } else {
                positional.push_back(a);
            }
        }
        if (host.empty() != device.empty())
            throw std::invalid_argument("give --host and --device together");
        if (!host.empty() && !positional.empty())
            throw std::invalid_argument("give a pair (--host, --device) or files, not both");
        if (host.empty() && positional.empty())
            throw std::invalid_argument("give a job folder, a pair or .et files");
    } catch (const std::invalid_argument &e) {
        err << "predict: " << e.what() << '\n';
        printPredictUsage(err);
        return 2;
    }
    if (json && !topGiven)
        top = 10;
    options.jobs = std::max(1, jobs);

    predict::JobGraph graph;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        std::error_code ec;
        if (!host.empty()) {
            job::RankFiles files;
            files.host = host;
            files.device = device;
            const job::KinetoHeader header = job::peekKinetoHeader(device);
            files.rank = std::max<std::int64_t>(0, header.rank);
            graph = predict::exportJobGraph({files}, header.worldSize, options);
        } else if (positional.size() == 1 && fs::is_directory(positional[0], ec)) {
            if (predict::isJobExport(positional[0], prefix)) {
                std::uintmax_t bytes = 0;
                for (const fs::directory_entry &e : fs::directory_iterator(positional[0], ec))
                    bytes += e.is_regular_file(ec) ? e.file_size(ec) : 0;
                predict::useHugePageHeap(bytes / 2);
                graph = predict::loadJobExport(positional[0], prefix);
            } else {
                const job::JobLayout layout = job::discoverJob(positional);
                if (!layout.errors.empty()) {
                    for (const std::string &e : layout.errors)
                        err << "predict: error: " << e << '\n';
                    return 1;
                }
                if (layout.ranks.empty()) {
                    err << "predict: " << positional[0] << ": no traces and no " << prefix << ".R.et files\n";
                    return 1;
                }
                graph = predict::exportJobGraph(layout.ranks, layout.worldSize, options);
            }
        } else {
            std::uintmax_t bytes = 0;
            for (const std::string &file : positional) {
                const std::uintmax_t size = fs::file_size(file, ec);
                bytes += ec ? 0 : size;
            }
            predict::useHugePageHeap(bytes / 2);
            graph.job = predict::loadJob(positional, commGroups, network, npus);
            graph.networkSource = network.empty() ? "run.sh's ring (50 GB/s, 500 ns)" : network;
        }
        if (!network.empty() && (host.size() || fs::is_directory(positional[0], ec))) {
            const std::int64_t n = graph.job.npus;
            std::ifstream in(network, std::ios::binary);
            if (!in)
                throw LoadError(network, 0, "cannot open");
            std::ostringstream text;
            text << in.rdbuf();
            graph.job.network = predict::parseNetworkYaml(text.str(), network);
            graph.job.network.npus = n;
            graph.networkSource = network;
        }
    } catch (const std::exception &e) {
        err << "predict: " << e.what() << '\n';
        return 1;
    }
    const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    predict::Prediction p;
    predict::ReplayResult r; // the what-if's run with its issue order, kept for --schedule's slack
    try {
        p = predict::predict(graph.job, whatIf, top, schedulePath.empty() ? nullptr : &r);
    } catch (const std::invalid_argument &e) {
        err << "predict: " << e.what() << '\n';
        return 2;
    }
    if (!schedulePath.empty()) {
        try {
            const auto slack = predict::slack(graph.job, r);
            std::ostringstream csv;
            csv << "rank,id,name,kind,start_ns,end_ns,slack_ns\n";
            for (std::size_t ri = 0; ri < graph.job.ranks.size(); ++ri) {
                const predict::SimRank &rank = graph.job.ranks[ri];
                for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
                    std::string name = rank.names[rank.nodes[i].name];
                    if (name.find_first_of(",\"\n") != std::string::npos) {
                        std::string quoted = "\"";
                        for (const char c : name)
                            quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
                        name = quoted + "\"";
                    }
                    csv << rank.rank << ',' << rank.nodes[i].id << ',' << name << ',' << predict::nodeKindName(rank.nodes[i].kind)
                        << ',' << r.ranks[ri].start[i] << ',' << r.ranks[ri].end[i] << ',' << slack[ri][i] << '\n';
                }
            }
            AtomicFile file(schedulePath);
            file.write(csv.str());
            file.commit();
        } catch (const std::exception &e) {
            err << "predict: " << schedulePath << ": " << e.what() << '\n';
            return 1;
        }
    }
    bool stuck = false;
    for (const predict::RankPrediction &r : p.ranks)
        stuck = stuck || !r.finished;
    if (json) {
        nlohmann::json j = p.toJson(graph.job, pathLimit);
        j["network"]["source"] = graph.networkSource;
        j["mirrored"] = graph.job.mirrored;
        j["load_ms"] = loadMs;
        j["replay_ms"] = p.replayMs;
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return stuck ? 1 : 0;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%.3g GB/s, %.4g ns", p.network.bandwidthGBps, p.network.latencyNs);
    out << "predict: " << graph.job.ranks.size() << " rank(s)"
        << (graph.job.mirrored ? " standing for " + std::to_string(graph.job.npus) : "") << ", " << graph.job.nodeCount()
        << " nodes; network " << line << " (" << graph.networkSource << ")\n";
    out << "what-if: " << p.whatIf << '\n';
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
    return stuck ? 1 : 0;
}

} // namespace linkscope::cli
