// Prediction from a Kineto trace alone (pipeline/derivedhost.h, docs/prediction.md "From a Kineto
// trace alone"): the host ET derived from the Kineto CPU ops (tree, threads, comm attrs, the exact
// join), the prediction of a generated job from its Kineto traces against the one from its pairs (as
// exported and under what-ifs), the astra-sim .et written from a Kineto trace alone and checked, and
// every Kineto trace at hand predicted without error.

#include "simjobbuilder.h"
#include "testsupport.h"

#include "commands/commands.h"
#include "export/chakra/etcheck.h"
#include "gen/tracegenerator.h"
#include "pipeline/derivedhost.h"
#include "pipeline/pairpipeline.h"
#include "predict/jobgraph.h"

#include <QDir>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace linkscope::core;
namespace fs = std::filesystem;

namespace {

std::string sampleKineto() { return linkscope::test::paths::sourceDir() + "/resources/samples/sample_kineto.json"; }
std::string sampleHost() { return linkscope::test::paths::sourceDir() + "/resources/samples/sample_host_et.json"; }

OpenedPair openAlone(const std::string &device)
{
    PairRequest request;
    request.files.device = device;
    return openPair(request);
}

// `linkscope predict ARGS --json`, parsed; the exit status must be 0.
nlohmann::json predictJson(std::vector<std::string> args, std::string *errText = nullptr)
{
    args.push_back("--json");
    std::ostringstream out, err;
    const int status = linkscope::cli::runPredict(args, out, err);
    if (errText)
        *errText = err.str();
    if (status != 0)
        qWarning().noquote() << QString::fromStdString(err.str());
    [&] { QCOMPARE(status, 0); }();
    return status == 0 ? nlohmann::json::parse(out.str()) : nlohmann::json();
}

std::map<std::int64_t, std::int64_t> stepsOf(const nlohmann::json &p)
{
    std::map<std::int64_t, std::int64_t> steps;
    for (const auto &r : p["ranks"])
        steps[r["rank"].get<std::int64_t>()] = r["step_ns"].get<std::int64_t>();
    return steps;
}

// A copy of a job folder's Kineto traces only (symlinks), as a user without host ETs has it.
void kinetoOnlyCopy(const fs::path &from, const fs::path &to)
{
    fs::create_directories(to);
    for (const fs::directory_entry &e : fs::directory_iterator(from)) {
        const std::string name = e.path().filename().string();
        if (name.find("kineto") != std::string::npos)
            fs::create_symlink(fs::absolute(e.path()), to / name);
    }
}

} // namespace

class TestPredictKineto : public QObject {
    Q_OBJECT

private slots:
    // The derived tree: one node per Kineto CPU op, nested as the index nests them, thread roots
    // under a process root, each node naming its event, comm attrs from the collective args.
    void derivedTree()
    {
        const OpenedPair pair = openAlone(sampleKineto());
        QVERIFY(!pair.host);
        const DeviceTrace &device = *pair.device;
        const std::shared_ptr<const HostTrace> host = deriveHostEt(device, *pair.index);
        QVERIFY(host->derived());
        QCOMPARE(host->derivedFrom.size(), host->nodes.size());
        std::size_t cpuOps = 0, collectives = 0;
        for (EventIndex e{0}; e.in(device.events.size()); ++e) {
            const DeviceEvent &ev = device.event(e);
            if (ev.phase == Phase::Complete && isCpuOpCategory(ev.category)) {
                ++cpuOps;
                collectives += ev.hasCollective() ? 1 : 0;
            }
        }
        QVERIFY(cpuOps > 10);
        std::size_t threadRoots = 0, ops = 0;
        std::map<std::int64_t, int> tids;
        for (HostNodeIndex i{0}; i.in(host->nodes.size()); ++i) {
            const HostNode &n = host->node(i);
            const EventIndex from = host->derivedFrom[i.get()];
            if (!from.valid()) {
                threadRoots += host->name(n) == "[pytorch|profiler|execution_trace|thread]" ? 1 : 0;
                continue;
            }
            ++ops;
            QCOMPARE(host->name(n), device.name(device.event(from)));
            QVERIFY(host->contains(n.parent));
            const HostNode &parent = host->node(n.parent);
            QVERIFY(parent.id < n.id);
            QCOMPARE(parent.tid, n.tid);
            tids[n.tid]++;
            // The parent encloses the op in time (or is its thread's root).
            if (const EventIndex p = host->derivedFrom[n.parent.get()]; p.valid()) {
                QVERIFY(device.event(p).ts <= device.event(from).ts);
                QVERIFY(device.event(p).end() >= device.event(from).end());
            }
        }
        QCOMPARE(ops, cpuOps);
        QCOMPARE(threadRoots, tids.size());
        QVERIFY(host->commAttrs.size() >= collectives); // and record_param_comms sized by its Input Dims
        QCOMPARE(tids.begin()->first, std::int64_t(1));

        // Attached to the links: every linked GPU op's parent has its host node; the join is exact.
        const std::shared_ptr<const LinkSet> links = attachDerivedHost(*pair.links, *host, device);
        QCOMPARE(links->join.method, HostJoinMethod::Derived);
        QCOMPARE(links->join.matched, cpuOps);
        std::size_t linked = 0;
        for (std::size_t i = 0; i < links->gpuLinks.size(); ++i) {
            const GpuLink &l = links->gpuLinks[i];
            QCOMPARE(l.parent, pair.links->gpuLinks[i].parent); // nothing relinked
            if (l.parent.valid()) {
                ++linked;
                QVERIFY(host->contains(l.hostNode));
                QCOMPARE(host->derivedFrom[l.hostNode.get()], l.parent);
            }
        }
        QVERIFY(linked > 0);
    }

    // A hostile nesting: partial overlaps, zero durations and an op on a thread of its own still give
    // a tree (every node placed, parents before children).
    void derivedTreeOnOddNesting()
    {
        const std::string text = R"({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":5,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":5,"dur":0},
 {"ph":"X","cat":"user_annotation","name":"d","pid":1,"tid":2,"ts":1,"dur":3},
 {"ph":"X","cat":"cpu_op","name":"e","pid":1,"tid":2,"ts":2,"dur":1}]})";
        QTemporaryDir dir;
        const std::string path = dir.filePath("odd.json").toStdString();
        std::ofstream(path) << text;
        const OpenedPair pair = openAlone(path);
        const std::shared_ptr<const HostTrace> host = deriveHostEt(*pair.device, *pair.index);
        QCOMPARE(host->nodes.size(), std::size_t(1 + 2 + 5));
        for (const HostNode &n : host->nodes)
            if (n.id != 1)
                QVERIFY(n.parentId >= 1 && n.parentId < n.id);
        const HostNode *e = nullptr;
        for (const HostNode &n : host->nodes)
            if (host->name(n) == "e")
                e = &n;
        QVERIFY(e);
        QCOMPARE(host->name(host->node(e->parent)), std::string_view("d"));
        QCOMPARE(host->node(e->parent).scope, kUserScope);
    }

    // `predict --device` alone on the sample agrees with the pair's prediction: the sample's Kineto
    // trace has a CPU op for every ET op the export times.
    void sampleAgreesWithPair()
    {
        std::string notes;
        const nlohmann::json alone = predictJson({"--device", sampleKineto()}, &notes);
        const nlohmann::json pair = predictJson({"--host", sampleHost(), "--device", sampleKineto()});
        QVERIFY(QString::fromStdString(notes).contains("no host execution trace"));
        QVERIFY(!alone["notes"].empty());
        QVERIFY(pair["notes"].empty());
        const auto a = stepsOf(alone), p = stepsOf(pair);
        QCOMPARE(a.size(), p.size());
        for (const auto &[rank, step] : p) {
            const double diff = std::abs(double(a.at(rank)) / double(step) - 1);
            QVERIFY2(diff < 0.01, qPrintable(QString("rank %1: alone %2 ns, pair %3 ns").arg(rank).arg(a.at(rank)).arg(step)));
        }
    }

    // A generated 2-rank job whose ranks meet at collectives: predicted from its Kineto traces alone
    // and from its pairs, as exported and under what-ifs, per rank within 1 % (identity) and 2 %
    // (what-ifs) of each other.
    void generatedJobAgreesWithPairs()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions o;
        o.seed = 11;
        o.steps = 2;
        o.worldSize = 2;
        const fs::path job = dir.filePath("job").toStdString(), alone = dir.filePath("alone").toStdString();
        linkscope::gen::generateJob(o, job.string());
        kinetoOnlyCopy(job, alone);
        QVERIFY(!fs::is_empty(alone));
        const std::vector<std::vector<std::string>> whatIfs{{},
                                                            {"--scale-gpu", "^(?!Memcpy|Memset|nccl)=0.5"},
                                                            {"--scale-comm", "4"},
                                                            {"--delay-rank", "1=2"},
                                                            {"--scale-cpu", ".*=0.5"}};
        for (const auto &w : whatIfs) {
            std::vector<std::string> pa{job.string()}, aa{alone.string()};
            pa.insert(pa.end(), w.begin(), w.end());
            aa.insert(aa.end(), w.begin(), w.end());
            const auto p = stepsOf(predictJson(pa)), a = stepsOf(predictJson(aa));
            QCOMPARE(a.size(), std::size_t(2));
            QCOMPARE(p.size(), std::size_t(2));
            const double bound = w.empty() ? 0.01 : 0.02;
            for (const auto &[rank, step] : p) {
                const double diff = std::abs(double(a.at(rank)) / double(step) - 1);
                QVERIFY2(diff < bound, qPrintable(QString("%1 rank %2: alone %3 ns, pair %4 ns")
                                                      .arg(QString::fromStdString(w.empty() ? "identity" : w[0] + " " + w[1]))
                                                      .arg(rank)
                                                      .arg(a.at(rank))
                                                      .arg(step)));
            }
        }
    }

    // predict builds a job's graph from the export in memory (predict/rankstream.h): node for node
    // the graph `linkscope job` writes and loadJobExport reads back, with its groups, network and
    // entries — for pairs and for Kineto traces alone.
    void inMemoryGraphIsTheWrittenOne()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.worldSize = 4; // tensor- and data-parallel groups beside the world's
        const fs::path job = dir.filePath("job").toStdString(), alone = dir.filePath("alone").toStdString();
        linkscope::gen::generateJob(o, job.string());
        kinetoOnlyCopy(job, alone);
        for (const fs::path &in : {job, alone}) {
            const std::string out = (fs::path(dir.path().toStdString()) / ("out-" + in.filename().string())).string();
            std::ostringstream jo, je;
            QCOMPARE(linkscope::cli::runJob({in.string(), "--out", out}, jo, je), 0);
            const predict::JobGraph written = predict::loadJobExport(out);
            const job::JobLayout layout = job::discoverJob({in.string()});
            QVERIFY(layout.errors.empty());
            const predict::JobGraph memory = predict::exportJobGraph(layout.ranks, layout.worldSize, job::JobOptions{});
            const predict::SimJob &a = written.job, &b = memory.job;
            QCOMPARE(b.ranks.size(), a.ranks.size());
            QCOMPARE(b.groupIds, a.groupIds);
            QCOMPARE(b.groups, a.groups);
            QCOMPARE(b.npus, a.npus);
            QCOMPARE(b.mirrored, a.mirrored);
            QCOMPARE(b.network.npus, a.network.npus);
            QCOMPARE(b.network.bandwidthGBps, a.network.bandwidthGBps);
            QCOMPARE(b.network.latencyNs, a.network.latencyNs);
            QCOMPARE(b.entryNs, a.entryNs);
            QCOMPARE(memory.measuredNs, written.measuredNs);
            std::size_t collectives = 0;
            for (std::size_t r = 0; r < a.ranks.size(); ++r) {
                const std::string difference = linkscope::test::simjob::rankDifference(a.ranks[r], b.ranks[r]);
                QVERIFY2(difference.empty(), qPrintable(QString::fromStdString(in.string() + ": " + difference)));
                for (const predict::SimComm &c : a.ranks[r].comms)
                    collectives += c.group >= 0;
            }
            QVERIFY2(collectives > 0, "the job's collectives name their groups"); // so regroupRank was tried
        }
    }

    // export --target astra-sim from a Kineto trace alone writes a .et the checker passes; the chakra
    // target still needs the host ET, and says so.
    void exportFromKinetoAlone()
    {
        QTemporaryDir dir;
        const std::string et = dir.filePath("alone.et").toStdString();
        std::ostringstream out, err;
        QCOMPARE(linkscope::cli::runExport({"--device", sampleKineto(), "--et", et, "--target", "astra-sim"}, out, err), 0);
        QVERIFY2(QString::fromStdString(err.str()).contains("no host execution trace"), err.str().c_str());
        const EtCheckResult check = checkEtFiles({et});
        QVERIFY2(check.ok(), qPrintable(QString::fromStdString(check.toJson().dump())));
        QVERIFY(check.nodes > 10);
        std::ostringstream o2, e2;
        QCOMPARE(linkscope::cli::runExport({"--device", sampleKineto(), "--et", dir.filePath("c.et").toStdString()}, o2, e2), 2);
        QVERIFY(QString::fromStdString(e2.str()).contains("--target astra-sim"));
    }

    // Every Kineto trace at hand predicts (bundled ones always; ../shared's when present): each rank
    // finishes, or the reason it cannot is named — never a refusal of the whole trace.
    void everyKinetoTracePredicts()
    {
        const std::vector<std::string> traces{
            "hta_kineto_nccl/nccl_data.json.gz",
            "hta_kineto_nccl/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
            "hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz",
            "astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz",
            "param_linear_resnet_1gpu_pairs/linear_kineto.json.gz",
            "param_linear_resnet_1gpu_pairs/resnet_kineto.json.gz",
            "hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
            "hta_kineto_large/trace_diff_control.json.gz",
            "hta_kineto_large/negative_queue_length_rank0.json.gz",
        };
        std::size_t predicted = 0;
        for (const std::string &relative : traces) {
            const std::string path = linkscope::test::tracePath(relative);
            if (!fs::exists(path))
                continue;
            const nlohmann::json p = predictJson({"--device", path});
            QVERIFY2(!p["ranks"].empty(), path.c_str());
            for (const auto &r : p["ranks"]) {
                QVERIFY2(r["finished"].get<bool>(), qPrintable(QString::fromStdString(path + ": " + r.dump())));
                QVERIFY2(r["step_ns"].get<std::int64_t>() > 0, path.c_str());
            }
            ++predicted;
        }
        QVERIFY(predicted >= 3); // the bundled ones
    }
};

QTEST_GUILESS_MAIN(TestPredictKineto)
#include "test_predict_kineto.moc"
