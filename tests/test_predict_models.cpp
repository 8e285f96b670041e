// The two machines the replay runs on (predict/replay.h, docs/prediction.md "Models"): the faithful
// model (one CPU per thread, one queue per GPU stream, lane durations) and ASTRA-sim's (one CPU node
// and one GPU kernel at a time per rank), on small graphs with exact times — two streams that
// overlap, a wait across streams, two threads — and what-ifs that say what they matched: CPU ops
// scaled, a rank selector, a delay on a rank with no ProfilerStep#N, a term that matches nothing;
// one replay summarised as predict() does it, and the path diff of a what-if.

#include "simjobbuilder.h"
#include "testsupport.h"

#include "commands/commands.h"
#include "export/chakra/etformat.h"
#include "gen/tracegenerator.h"
#include "pipeline/pairpipeline.h"
#include "predict/criticalpath.h"
#include "predict/pairgraph.h"
#include "predict/pathdiff.h"
#include "predict/prediction.h"
#include "predict/whatifmatch.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

using namespace linkscope::test::simjob;

namespace {

ReplayOptions model(ReplayModel m)
{
    ReplayOptions o;
    o.model = m;
    return o;
}

std::int64_t endOf(const SimJob &job, ReplayModel m, const WhatIf &w = {}, std::size_t rank = 0)
{
    const ReplayResult r = replay(job, w, model(m));
    return r.ranks[rank].endNs;
}

WhatIf whatIfOf(const std::vector<std::string> &args)
{
    WhatIf w;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string flag = args[i];
        if (!applyWhatIfOption(w, flag, [&] { return args[++i]; }))
            throw std::invalid_argument("not a what-if: " + flag);
    }
    return w;
}

} // namespace

class TestPredictModels : public QObject {
    Q_OBJECT

private slots:
    // Two kernels launched together on two streams run at once on the hardware; ASTRA-sim runs one
    // GPU node at a time.
    void twoStreamsOverlap()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "launch", 2), 100, -1), onLane(gpu(2, "k7", 10, {1}), 100, 7),
                                   onLane(gpu(3, "k8", 10, {1}), 100, 8)}});
        QCOMPARE(job.ranks[0].streams.size(), std::size_t(2));
        QCOMPARE(endOf(job, ReplayModel::Faithful), 12'000);
        QCOMPARE(endOf(job, ReplayModel::AstraSim), 22'000);
        // Kernels ×2: the overlap stays.
        QCOMPARE(endOf(job, ReplayModel::Faithful, whatIfOf({"--scale-gpu", "k=2"})), 22'000);
        QCOMPARE(endOf(job, ReplayModel::AstraSim, whatIfOf({"--scale-gpu", "k=2"})), 42'000);
        // One stream ×2: only that stream's kernel.
        QCOMPARE(endOf(job, ReplayModel::Faithful, whatIfOf({"--scale-stream", "8=3"})), 32'000);
    }

    // A kernel that waits for another stream's kernel (cudaStreamWaitEvent) starts when it ends; two
    // kernels of one stream never overlap.
    void waitAcrossStreams()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "launch", 1), 100, -1), onLane(gpu(2, "a", 10, {1}), 100, 7),
                                   onLane(gpu(3, "b", 5, {1, 2}), 100, 8), onLane(gpu(4, "c", 4, {1}), 100, 7)}});
        const ReplayResult r = replay(job, {}, model(ReplayModel::Faithful));
        QVERIFY(r.allFinished());
        QCOMPARE(r.ranks[0].start[pos(job, 0, 3)], 11'000); // b after a, on its own stream
        QCOMPARE(r.ranks[0].start[pos(job, 0, 4)], 11'000); // c after a: stream 7 is busy until then
        QCOMPARE(r.ranks[0].endNs, 16'000);
        const RankPath path = criticalPath(job, r, 0);
        QCOMPARE(path.breakdown.total(), path.stepNs);
        QCOMPARE(path.stepNs, 16'000);
        // Slack on the lanes: c could end 1 µs later without moving the end.
        const auto s = slack(job, r);
        QCOMPARE(s[0][pos(job, 0, 4)], 1'000);
        QCOMPARE(s[0][pos(job, 0, 3)], 0);
    }

    // Two threads of a rank each run on a CPU of their own.
    void twoThreads()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "main", 10), 100, -1), onLane(cpu(2, "worker", 10), 200, -1),
                                   onLane(cpu(3, "after", 1, {1, 2}), 100, -1)}});
        QCOMPARE(job.ranks[0].threads.size(), std::size_t(2));
        QCOMPARE(endOf(job, ReplayModel::Faithful), 11'000);
        QCOMPARE(endOf(job, ReplayModel::AstraSim), 21'000);
        // The worker's CPU ×0.5 moves nothing: the main thread is as long.
        QCOMPARE(endOf(job, ReplayModel::Faithful, whatIfOf({"--scale-cpu", "worker=0.5"})), 11'000);
        QCOMPARE(endOf(job, ReplayModel::AstraSim, whatIfOf({"--scale-cpu", "worker=0.5"})), 16'000);
        QCOMPARE(endOf(job, ReplayModel::Faithful, whatIfOf({"--scale-cpu", ".*=0.5"})), 5'000 + 500); // in ns
    }

    // The faithful model runs a node for its lane time (nothing cut where lanes overlapped), in ns;
    // ASTRA-sim's for duration_micros.
    void laneDurations()
    {
        const SimJob job = jobOf({{onLane(gpu(1, "k", 5), 1, 7, 9'400), onLane(cpu(2, "c", 3, {1}), 1, -1)}});
        QCOMPARE(job.ranks[0].nodes[0].laneNs, std::int64_t(9'400));
        QCOMPARE(endOf(job, ReplayModel::Faithful), 9'400 + 3'000);
        QCOMPARE(endOf(job, ReplayModel::AstraSim), 5'000 + 3'000);
        // Scaled in ns, not rounded to µs.
        QCOMPARE(endOf(job, ReplayModel::Faithful, whatIfOf({"--scale-gpu", "k=0.5"})), 4'700 + 3'000);
        // The lane time decodes alike from a node's bytes and from the message.
        std::vector<std::int64_t> groups;
        RankBuilder fast(0, "x", groups);
        for (const auto &n : traceOf({onLane(gpu(1, "k", 5), 1, 7, 9'400), onLane(cpu(2, "c", 3, {1}), 4, -1)}).nodes) {
            const std::string bytes = n.SerializeAsString();
            fast.addEncoded(bytes.data(), static_cast<int>(bytes.size()), 0);
        }
        const SimRank r = fast.finish();
        QCOMPARE(r.nodes[0].laneNs, std::int64_t(9'400));
        QCOMPARE(r.streams, std::vector<std::int64_t>({7}));
        QCOMPARE(r.threads, std::vector<std::int64_t>({4}));
    }

    // "[R:]REGEX=K": a leading rank; a regex with '::' is not a rank.
    void rankSelectorParses()
    {
        const WhatIf::NameScale a = parseNameScale("6:aten::mm=0.5", "--scale-cpu");
        QCOMPARE(a.rank, std::int64_t(6));
        QCOMPARE(a.pattern, std::string("aten::mm"));
        QCOMPARE(a.factor, 0.5);
        const WhatIf::NameScale b = parseNameScale("aten::mm=2", "--scale-cpu");
        QCOMPARE(b.rank, std::int64_t(-1));
        QCOMPARE(b.pattern, std::string("aten::mm"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseNameScale("6:=2", "--scale-cpu"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseNameScale("(=2", "--scale-cpu"));
        QVERIFY(whatIfOf({"--scale-cpu", "1:.*=0.5"}).describe().find("rank 1's CPU ops") != std::string::npos);
    }

    // A rank's CPU ×0.5 on a two-rank job whose ranks meet at an all-reduce: the other rank waits less.
    void oneRanksCpu()
    {
        const SimJob job = jobOf({{cpu(1, "work", 10), allReduce(2, 1 << 10, {1}), cpu(3, "tail", 1, {2})},
                                  {cpu(1, "work", 30), allReduce(2, 1 << 10, {1}), cpu(3, "tail", 1, {2})}});
        const WhatIf w = whatIfOf({"--scale-cpu", "1:work=0.5"});
        const Prediction p = predict::predict(job, w, 5, nullptr, ReplayModel::Faithful);
        QVERIFY(p.ranks[0].stepNs < p.ranks[0].baselineNs); // rank 0 waited for rank 1
        QCOMPARE(p.ranks[1].baselineNs - p.ranks[1].stepNs, 15'000);
        QCOMPARE(p.matches.size(), std::size_t(1));
        QCOMPARE(p.matches[0].nodes, std::size_t(1)); // rank 1's work only
        QCOMPARE(p.matches[0].onPath, std::size_t(1));
        QVERIFY(p.warnings.empty());
    }

    // Every term says how many nodes it changed and how many were on a critical path; one that
    // matches nothing is a warning, and an NCCL kernel's name points at the network what-ifs.
    void matchCountsAndWarnings()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "launch", 2), 100, -1), onLane(gpu(2, "gemm_a", 10, {1}), 100, 7),
                                   onLane(gpu(3, "gemm_b", 1, {1}), 100, 8), onLane(cpu(4, "done", 1, {2, 3}), 100, -1)}});
        const Prediction p = predict::predict(job, whatIfOf({"--scale-gpu", "gemm=0.5", "--scale-gpu", "ncclDevKernel=0.5"}));
        QCOMPARE(p.matches.size(), std::size_t(2));
        QCOMPARE(p.matches[0].nodes, std::size_t(2));
        QCOMPARE(p.matches[0].onPath, std::size_t(1)); // gemm_a; gemm_b ran beside it
        QCOMPARE(p.matches[1].nodes, std::size_t(0));
        QCOMPARE(p.warnings.size(), std::size_t(1));
        QVERIFY(p.warnings[0].find("matches no node") != std::string::npos);
        QVERIFY(p.warnings[0].find("--scale-comm") != std::string::npos);
        const nlohmann::json j = p.toJson(job);
        QCOMPARE(j["matches"][0]["nodes"].get<int>(), 2);
        QCOMPARE(j["warnings"].size(), std::size_t(1));
        QCOMPARE(j["model"].get<std::string>(), std::string("faithful"));
    }

    // One replay summarised as predict() summarises it (the GUI's what-if replays and summarises
    // itself), and the path diff: a kernel on the path scaled ×0.1 leaves it, the one that ran
    // beside it joins it, and the breakdown's GPU share shrinks.
    void summaryOfOneReplayAndThePathDiff()
    {
        const SimJob job = jobOf({{onLane(cpu(1, "launch", 2), 100, -1), onLane(gpu(2, "gemm_long", 10, {1}), 100, 7),
                                   onLane(gpu(3, "softmax", 6, {1}), 100, 8), onLane(cpu(4, "done", 1, {2, 3}), 100, -1)}});
        ReplayOptions quick;
        quick.keepIssueOrder = false;
        const ReplayResult base = replay(job, {}, quick);
        const WhatIf w = whatIfOf({"--scale-gpu", "gemm_long=0.1"});
        const ReplayResult changed = replay(job, w, quick);
        const std::vector<RankPrediction> baseRanks = summarizeReplay(job, base, nullptr);
        const std::vector<RankPrediction> ranks = summarizeReplay(job, changed, &base, 3);
        // What predict() says, field by field.
        const Prediction p = predict::predict(job, w, 3);
        QCOMPARE(ranks.size(), p.ranks.size());
        QCOMPARE(ranks[0].stepNs, p.ranks[0].stepNs);
        QCOMPARE(ranks[0].baselineNs, p.ranks[0].baselineNs);
        QCOMPARE(ranks[0].baselineNs, baseRanks[0].stepNs);
        QCOMPARE(ranks[0].path.steps.size(), p.ranks[0].path.steps.size());
        QCOMPARE(ranks[0].path.breakdown.gpuNs, p.ranks[0].path.breakdown.gpuNs);
        QCOMPARE(ranks[0].top.size(), p.ranks[0].top.size());
        QCOMPARE(ranks[0].top[0].name, p.ranks[0].top[0].name);
        QCOMPARE(ranks[0].path.breakdown.total(), ranks[0].stepNs);
        // 2 + 10 + 1 µs before; 2 + 6 + 1 after (softmax now sets the step).
        QCOMPARE(baseRanks[0].stepNs, std::int64_t(13'000));
        QCOMPARE(ranks[0].stepNs, std::int64_t(9'000));
        QVERIFY(ranks[0].path.breakdown.gpuNs < baseRanks[0].path.breakdown.gpuNs);

        const PathDiff d = diffPaths(job, baseRanks[0].path, ranks[0].path, 5);
        QCOMPARE(d.leftCount, std::size_t(1));
        QCOMPARE(d.joinedCount, std::size_t(1));
        QCOMPARE(d.left.at(0).name, std::string("gemm_long"));
        QCOMPARE(d.left.at(0).ns, std::int64_t(10'000)); // its time on the baseline's path
        QCOMPARE(d.joined.at(0).name, std::string("softmax"));
        QCOMPARE(d.joined.at(0).ns, std::int64_t(6'000));
        // A path against itself: nothing moved.
        const PathDiff same = diffPaths(job, baseRanks[0].path, baseRanks[0].path, 5);
        QCOMPARE(same.leftCount + same.joinedCount, std::size_t(0));
        QVERIFY(same.left.empty() && same.joined.empty());
        // The limit caps the names, not the count.
        const PathDiff capped = diffPaths(job, baseRanks[0].path, ranks[0].path, 0);
        QCOMPARE(capped.leftCount, std::size_t(1));
        QVERIFY(capped.left.empty());
    }

    // A rank with no ProfilerStep#N: the delay goes once to its first CPU op, and says so.
    void delayWithoutProfilerStep()
    {
        const SimJob job = jobOf({{cpu(1, "forward", 10), cpu(2, "backward", 10, {1})}});
        QVERIFY(job.ranks[0].steps.empty());
        const Prediction p = predict::predict(job, whatIfOf({"--delay-rank", "0=2"}));
        QCOMPARE(p.ranks[0].stepNs - p.ranks[0].baselineNs, 2'000'000);
        QCOMPARE(p.matches.at(0).nodes, std::size_t(1));
        QCOMPARE(p.warnings.size(), std::size_t(1));
        QVERIFY(p.warnings[0].find("no ProfilerStep#N") != std::string::npos);
        // `linkscope whatif` writes the same into the .et.
        ChakraTrace t = traceOf({cpu(1, "forward", 10), cpu(2, "backward", 10, {1})});
        const WhatIfStats s = applyWhatIf(t, 0, whatIfOf({"--delay-rank", "0=2"}));
        QVERIFY(s.delayOnFirstOp);
        QCOMPARE(t.nodes[0].duration_micros(), std::uint64_t(2'010));
        // With steps, every step is delayed and nothing is said.
        const SimJob stepped = jobOf({{cpu(1, "ProfilerStep#3", 1), cpu(2, "forward", 10, {1})}});
        QVERIFY(predict::predict(stepped, whatIfOf({"--delay-rank", "0=2"})).warnings.empty());
    }

    // The export writes each node's lane time, never cut below the kernel's own time; on the bundled
    // sample the faithful replay is within 2 % of the measured step (3.873 against 3.837 ms when
    // written; ASTRA-sim's model 3.790 ms).
    void samplePairHasLaneTimes()
    {
        PairRequest request;
        request.files = {linkscope::test::sourcePath("resources/samples/sample_host_et.json"),
                         linkscope::test::sourcePath("resources/samples/sample_kineto.json")};
        const OpenedPair pair = openPair(request);
        const PairGraph g = buildPairGraph(*pair.host, *pair.device, *pair.links);
        std::size_t withLane = 0;
        for (const SimNode &n : g.job.ranks[0].nodes)
            if ((n.kind == NodeKind::Cpu || n.kind == NodeKind::Gpu) && n.laneNs >= 0) {
                ++withLane;
                if (n.kind == NodeKind::Gpu)
                    QVERIFY(n.laneNs + 1'000 >= n.durationMicros * 1'000); // nothing cut
            }
        QVERIFY(withLane > 0);
        const std::int64_t faithful = endOf(g.job, ReplayModel::Faithful), astra = endOf(g.job, ReplayModel::AstraSim);
        QVERIFY(faithful > 0 && astra > 0);
        const std::int64_t measured = g.stats.measuredNs();
        qInfo("sample: measured %.3f ms, faithful %.3f ms, astra-sim model %.3f ms", double(measured) / 1e6,
              double(faithful) / 1e6, double(astra) / 1e6);
        QVERIFY(std::abs(double(faithful) / double(measured) - 1) < 0.02);
    }

    // Ranks that entered their step apart (megatron's rank 0, 30 ms after rank 6): the faithful model
    // starts each where it entered (SimJob::entryNs) and a rank's step runs from there; ASTRA-sim's
    // starts every rank at 0.
    void ranksStartWhereTheyEntered()
    {
        auto rankNodes = [] { return std::vector<NodeSpec>{cpu(0, "a", 10), allReduce(1, 1 << 20, {0}), cpu(2, "b", 5, {1})}; };
        SimJob job = jobOf({rankNodes(), rankNodes()});
        job.entryNs = {0, 30'000};
        const ReplayResult faithful = replay(job, {}, model(ReplayModel::Faithful));
        const ReplayResult astra = replay(job, {}, model(ReplayModel::AstraSim));
        QCOMPARE(faithful.ranks[1].entryNs, std::int64_t(30'000));
        QCOMPARE(faithful.ranks[1].start[0], std::int64_t(30'000));
        QCOMPARE(faithful.ranks[0].transferStart[0], std::int64_t(40'000)); // rank 1 arrives last
        // Rank 0's step is rank 1's and its 30 µs head start, less the ring step an early member may
        // end before the last (replay.h).
        const std::int64_t headStart = faithful.ranks[0].stepNs() - faithful.ranks[1].stepNs();
        QVERIFY2(headStart > 20'000 && headStart <= 30'000, qPrintable(QString::number(headStart)));
        QCOMPARE(faithful.ranks[1].stepNs(), faithful.ranks[1].endNs - 30'000);
        QCOMPARE(astra.ranks[1].entryNs, std::int64_t(0));
        QCOMPARE(astra.ranks[0].stepNs(), astra.ranks[1].stepNs());
        // Each rank's path covers its own step, from its entry.
        for (std::size_t r = 0; r < 2; ++r) {
            const RankPath path = criticalPath(job, faithful, r);
            const Breakdown &b = path.breakdown;
            QCOMPARE(path.stepNs, faithful.ranks[r].stepNs());
            QCOMPARE(b.cpuNs + b.gpuNs + b.commNs + b.otherRankNs + b.idleNs, path.stepNs);
        }
        const Prediction p = linkscope::core::predict::predict(job, {});
        QCOMPARE(p.ranks[1].stepNs, faithful.ranks[1].stepNs());

        // From a job export: the job report's window begins and clocks give the entries, and
        // predict says so. Rank 1's window is moved 2 ms later.
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions o;
        o.seed = 11;
        o.steps = 2;
        o.worldSize = 2;
        const std::string in = dir.filePath("in").toStdString(), out = dir.filePath("out").toStdString();
        linkscope::gen::generateJob(o, in);
        std::ostringstream jo, je;
        QCOMPARE(linkscope::cli::runJob({in, "--out", out}, jo, je), 0);
        std::ostringstream b0, e0;
        QCOMPARE(linkscope::cli::runPredict({out, "--json"}, b0, e0), 0);
        QVERIFY2(e0.str().find("entered their measured step") == std::string::npos, e0.str().c_str()); // they entered together
        std::ostringstream a0, ae0;
        QCOMPARE(linkscope::cli::runPredict({out, "--json", "--model", "astra-sim"}, a0, ae0), 0);
        const std::string reportPath = out + "/job-report.json";
        nlohmann::json report = nlohmann::json::parse(std::ifstream(reportPath));
        for (nlohmann::json &r : report["ranks"])
            if (r["rank"] == 1)
                r["export"]["window_begin_ns"] = r["export"]["window_begin_ns"].get<std::int64_t>() + 2'000'000;
        std::ofstream(reportPath) << report.dump();
        std::ostringstream b1, e1;
        QCOMPARE(linkscope::cli::runPredict({out, "--json"}, b1, e1), 0);
        QVERIFY2(e1.str().find("entered their measured step up to 2.0") != std::string::npos, e1.str().c_str());
        QVERIFY(e1.str().find("(rank 1 last") != std::string::npos);
        const nlohmann::json before = nlohmann::json::parse(b0.str()), after = nlohmann::json::parse(b1.str());
        // Rank 1 starts 2 ms late: rank 0 waits for it, rank 1's own step is shorter than rank 0's.
        QVERIFY(after["ranks"][0]["step_ns"].get<std::int64_t>() > before["ranks"][0]["step_ns"].get<std::int64_t>());
        QVERIFY(after["ranks"][1]["step_ns"].get<std::int64_t>() < after["ranks"][0]["step_ns"].get<std::int64_t>());
        // ASTRA-sim's model starts both at 0, as the simulator does: the moved window changes nothing.
        std::ostringstream a1, ae1;
        QCOMPARE(linkscope::cli::runPredict({out, "--json", "--model", "astra-sim"}, a1, ae1), 0);
        for (std::size_t r = 0; r < 2; ++r)
            QCOMPARE(nlohmann::json::parse(a1.str())["ranks"][r]["step_ns"],
                     nlohmann::json::parse(a0.str())["ranks"][r]["step_ns"]);
    }

    // A collective's transfer starts the members' smallest dispatch latency (attr dispatch_ns) after
    // the last arrival in the faithful model — an early member's latency also holds its wait for the
    // others, so the smallest is the kernels' own — and at the last arrival in ASTRA-sim's.
    void collectiveStartsAfterTheSmallestDispatch()
    {
        NodeSpec early = allReduce(1, 1 << 20, {0});
        early.dispatchNs = 30'000;
        NodeSpec late = allReduce(1, 1 << 20, {0});
        late.dispatchNs = 5'000;
        const SimJob job = jobOf({{cpu(0, "a", 10), early}, {cpu(0, "a", 40), late}});
        const ReplayResult faithful = replay(job, {}, model(ReplayModel::Faithful));
        const ReplayResult astra = replay(job, {}, model(ReplayModel::AstraSim));
        for (std::size_t r = 0; r < 2; ++r) {
            QCOMPARE(faithful.ranks[r].transferStart[0], std::int64_t(45'000));
            QCOMPARE(astra.ranks[r].transferStart[0], std::int64_t(40'000));
            QCOMPARE(faithful.ranks[r].endNs - astra.ranks[r].endNs, std::int64_t(5'000));
        }
        // The dispatch is the collective's on the path, not idle time.
        const RankPath path = criticalPath(job, faithful, 0);
        QCOMPARE(path.breakdown.idleNs, std::int64_t(0));
    }

    // An op that launches after a child has ended (NCCL's enqueue after an aten::empty inside
    // nccl:all_reduce) holds its time up to the launch, so the kernel starts where it was launched;
    // the time used to go to the op that starts after the launch and the kernel ran ~145 µs early.
    // Kineto only (µs): my::op [1000,1200) ⊃ aten::empty [1005,1010), cudaLaunchKernel [1150,1155)
    // → my_kernel [1160,1170); aten::add [1210,1220).
    void launchAfterAChildHoldsTheTimeBeforeIt()
    {
        QTemporaryDir dir;
        const std::string kineto = dir.filePath("k.json").toStdString(), schedule = dir.filePath("s.csv").toStdString();
        std::ofstream(kineto) << R"({"schemaVersion": 1, "traceEvents": [
{"ph":"X","cat":"cpu_op","name":"my::op","pid":1,"tid":1,"ts":1000,"dur":200,"args":{"External id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":1005,"dur":5,"args":{"External id":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1150,"dur":5,"args":{"External id":1,"correlation":7}},
{"ph":"X","cat":"kernel","name":"my_kernel","pid":0,"tid":7,"ts":1160,"dur":10,"args":{"External id":1,"correlation":7,"stream":7,"device":0}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1210,"dur":10,"args":{"External id":3}}]})";
        std::ostringstream out, err;
        QCOMPARE(linkscope::cli::runPredict({"--device", kineto, "--schedule", schedule}, out, err), 0);
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> at; // name → (start, end) ns
        std::ifstream csv(schedule);
        std::string line;
        std::getline(csv, line); // rank,id,name,kind,start_ns,end_ns,slack_ns
        while (std::getline(csv, line)) {
            std::vector<std::string> f;
            std::stringstream fields(line);
            for (std::string x; std::getline(fields, x, ',');)
                f.push_back(x);
            QCOMPARE(f.size(), std::size_t(7));
            at[f[2]] = {std::stoll(f[4]), std::stoll(f[5])};
        }
        QVERIFY(at.count("my_kernel") && at.count("my::op") && at.count("aten::add"));
        // The chain runs my::op's 5 µs before its child and its 145 µs after it up to the launch's
        // return, then the child: the kernel starts at 150 µs (the child's 5 µs, which the chain
        // runs after the parent, is the only difference from the measured 155 µs).
        const std::int64_t begin = at["my::op"].first;
        QVERIFY2(std::abs(at["my_kernel"].first - begin - 150'000) <= 1'000,
                 qPrintable(QString("kernel at %1 ns").arg(at["my_kernel"].first - begin)));
        QVERIFY(std::abs(at["aten::add"].second - begin - 220'000) <= 1'000); // the step is unchanged
    }

    // `linkscope predict --model` and the warnings on stderr.
    void predictCommandModels()
    {
        QTemporaryDir dir;
        const std::string et = dir.filePath("trace.0.et").toStdString();
        writeChakraEt(et,
                      traceOf({onLane(cpu(1, "launch", 2), 100, -1), onLane(gpu(2, "k7", 10, {1}), 100, 7),
                               onLane(gpu(3, "k8", 10, {1}), 100, 8)}),
                      {false, false});
        std::ostringstream out, err;
        QCOMPARE(linkscope::cli::runPredict({et, "--json"}, out, err), 0);
        QCOMPARE(nlohmann::json::parse(out.str())["ranks"][0]["step_ns"].get<std::int64_t>(), 12'000);
        std::ostringstream out2, err2;
        QCOMPARE(linkscope::cli::runPredict({et, "--json", "--model", "astra-sim"}, out2, err2), 0);
        QCOMPARE(nlohmann::json::parse(out2.str())["ranks"][0]["step_ns"].get<std::int64_t>(), 22'000);
        std::ostringstream out3, err3;
        QCOMPARE(linkscope::cli::runPredict({et, "--scale-cpu", "nothing=2"}, out3, err3), 0);
        QVERIFY(err3.str().find("warning: --scale-cpu") != std::string::npos);
        QVERIFY(out3.str().find("0 node(s) changed") != std::string::npos);
        std::ostringstream out4, err4;
        QCOMPARE(linkscope::cli::runPredict({et, "--model", "gpu"}, out4, err4), 2);
    }
};

QTEST_GUILESS_MAIN(TestPredictModels)
#include "test_predict_models.moc"
