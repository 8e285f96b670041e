// Linkscope's replay of an exported graph (predict/replay.h, docs/prediction.md): small hand-made
// graphs with exact times (a chain, a fork/join, a sync edge, the issue order, a collective across two
// ranks, a send and its receive, what-ifs), the critical path and slack on them, bad inputs named, and
// — when ../shared/tools/astra-sim is there — agreement with ASTRA-sim on a generated job, as exported
// and under a what-if.

#include "astrasimrun.h"
#include "testsupport.h"

#include "commands/commands.h"
#include "export/chakra/etformat.h"
#include "gen/tracegenerator.h"
#include "job/networkfit.h"
#include "pipeline/pairpipeline.h"
#include "predict/criticalpath.h"
#include "predict/hugepages.h"
#include "predict/pairgraph.h"
#include "predict/prediction.h"
#include "predict/replay.h"
#include "predict/simgraph.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

using namespace linkscope::core;
using namespace linkscope::core::predict;
using linkscope::core::job::CallKind;

#include "simjobbuilder.h"

namespace {

using namespace linkscope::test::simjob;

} // namespace

class TestPredict : public QObject {
    Q_OBJECT

private slots:
    // A chain runs end to end; 0 µs is 1 ns, as in ASTRA-sim.
    void chain()
    {
        const SimJob job = jobOf({{cpu(1, "a", 1), cpu(2, "b", 2, {1}), cpu(3, "c", 0, {2}), cpu(4, "d", 3, {3})}});
        const ReplayResult r = replay(job);
        QVERIFY(r.allFinished());
        QCOMPARE(r.ranks[0].endNs, 6001);
        const RankPath path = criticalPath(job, r, 0);
        QCOMPARE(path.breakdown.cpuNs, 6001);
        QCOMPARE(path.breakdown.total(), path.stepNs);
        QCOMPARE(path.steps.size(), std::size_t(4));
        const auto sl = slack(job, r);
        for (const std::int64_t s : sl[0])
            QCOMPARE(s, 0);
    }

    // A CPU op launches a kernel and a CPU op; the join waits for both (the sync edge: CPU after GPU).
    void forkJoinAndSync()
    {
        const SimJob job = jobOf(
            {{cpu(1, "launch", 2), gpu(2, "gemm", 5, {1}), cpu(3, "python", 1, {1}), cpu(4, "item", 1, {2, 3})}});
        const ReplayResult r = replay(job);
        const RankReplay &rr = r.ranks[0];
        QCOMPARE(rr.start[pos(job, 0, 2)], 2000);
        QCOMPARE(rr.end[pos(job, 0, 2)], 7000);
        QCOMPARE(rr.start[pos(job, 0, 4)], 7000);
        QCOMPARE(rr.endNs, 8000);
        const RankPath path = criticalPath(job, r, 0);
        QCOMPARE(path.breakdown.cpuNs, 3000);
        QCOMPARE(path.breakdown.gpuNs, 5000);
        const auto sl = slack(job, r);
        QCOMPARE(sl[0][pos(job, 0, 3)], 4000); // the Python op could take 4 µs longer
        QCOMPARE(sl[0][pos(job, 0, 2)], 0);
        // Kernels 2× faster: the join moves 2.5 µs earlier (ASTRA-sim's model: 2 µs, as whole µs).
        WhatIf w;
        w.gpu.push_back(parseGpuScale("gemm=0.5"));
        QCOMPARE(replay(job, w).ranks[0].endNs, 5500);
        ReplayOptions astra;
        astra.model = ReplayModel::AstraSim;
        QCOMPARE(replay(job, w, astra).ranks[0].endNs, 6000); // llround(5 × 0.5) = 3 µs, as applyWhatIf writes it
    }

    // One CPU node at a time, the lowest id first, even when the higher id became ready first.
    void issueOrderAndOneCpuAtATime()
    {
        const SimJob job = jobOf({{cpu(1, "root", 1), cpu(5, "late", 4, {1}), cpu(3, "early", 2, {1})}});
        const ReplayResult r = replay(job);
        QCOMPARE(r.ranks[0].start[pos(job, 0, 3)], 1000);
        QCOMPARE(r.ranks[0].start[pos(job, 0, 5)], 3000);
        QCOMPARE(r.ranks[0].endNs, 7000);
        // The second op waited for the CPU, not for a dependency: its cause is the first.
        QCOMPARE(r.ranks[0].cause[pos(job, 0, 5)].node, pos(job, 0, 3));
    }

    // A collective starts when its last member arrives and takes ASTRA-sim's ring time; the member
    // that arrived early runs one ring step ahead (each step waits for the previous rank's send).
    void collectiveAcrossTwoRanks()
    {
        const std::int64_t bytes = 1 << 20;
        const SimJob job = jobOf({{cpu(1, "fwd", 1), allReduce(2, bytes, {1}), cpu(3, "opt", 1, {2})},
                                  {cpu(1, "fwd", 100), allReduce(2, bytes, {1}), cpu(3, "opt", 1, {2})}});
        const auto cost = job::astraSimCollectiveCost(CallKind::AllReduce, {}, 2, bytes);
        QVERIFY(cost);
        const std::int64_t c = std::llround(cost->bytesTerm / (50 * job::kAstraSimGB) + cost->latencyCoefficient * 500
                                            + cost->constantNs);
        const double step = double(c) / 8; // 4 chunks × 2 steps
        const ReplayResult r = replay(job);
        QVERIFY(r.allFinished());
        const std::int64_t late = r.ranks[1].end[pos(job, 1, 2)], early = r.ranks[0].end[pos(job, 0, 2)];
        QVERIFY2(std::llabs(late - (100000 + c)) <= 1, qPrintable(QString::number(late)));
        QVERIFY2(std::llabs(early - std::llround(100000 + c - step)) <= 1, qPrintable(QString::number(early)));
        QCOMPARE(r.ranks[0].endNs, early + 1000);
        // Rank 0's step: its own 1 µs, the 100 µs it waited for rank 1, and the transfer.
        const RankPath path = criticalPath(job, r, 0);
        QCOMPARE(path.breakdown.otherRankNs, 100000);
        QCOMPARE(path.breakdown.commNs, early - 100000);
        QCOMPARE(path.breakdown.cpuNs, 1000);
        QCOMPARE(path.breakdown.total(), path.stepNs);
        // Whose: rank 1's CPU (its 100 µs fwd), all of the other-rank time; rank 1 waited for no one.
        const std::vector<OtherRankShare> others = otherRanksOfPath(job, path);
        QCOMPARE(others.size(), std::size_t(1));
        QCOMPARE(others[0].rank, job.ranks[1].rank);
        QCOMPARE(others[0].cpuNs, 100000);
        QCOMPARE(others[0].gpuNs, 0);
        QCOMPARE(others[0].totalNs(), path.breakdown.otherRankNs);
        QVERIFY(otherRanksOfPath(job, criticalPath(job, r, 1)).empty());
        // Rank 0's fwd could take 99 µs longer; rank 1's none.
        const auto sl = slack(job, r);
        QCOMPARE(sl[0][pos(job, 0, 1)], 99000);
        QCOMPARE(sl[1][pos(job, 1, 1)], 0);
        // Arriving together, both end `cost` after the arrival.
        const SimJob together = jobOf(
            {{cpu(1, "fwd", 5), allReduce(2, bytes, {1})}, {cpu(1, "fwd", 5), allReduce(2, bytes, {1})}});
        const ReplayResult t = replay(together);
        QCOMPARE(t.ranks[0].endNs, 5000 + c);
        QCOMPARE(t.ranks[1].endNs, 5000 + c);
        // Network 2× faster: the transfer shrinks (a bandwidth-bound 1 MiB: nearly half).
        WhatIf w;
        w.bandwidthFactor = 2;
        const std::int64_t faster = replay(job, w).ranks[0].endNs;
        QVERIFY(faster < r.ranks[0].endNs);
        QVERIFY(faster > 101000 + c / 2 - c / 8);
        // A delayed rank: its ProfilerStep node takes 1 ms more; with none (here) its first CPU op
        // does, and rank 0 waits for it at the collective …
        WhatIf d;
        d.rankDelayMs[1] = 1;
        QCOMPARE(replay(job, d).ranks[0].endNs, r.ranks[0].endNs + 1'000'000);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, [&] {
            WhatIf bad;
            bad.rankDelayMs[9] = 1;
            replay(job, bad);
        }());
    }

    // … and with a ProfilerStep node, every other rank waits for it at the collective.
    void delayedRank()
    {
        const SimJob job = jobOf(
            {{cpu(1, "ProfilerStep#3", 1), allReduce(2, 4096, {1})}, {cpu(1, "ProfilerStep#3", 1), allReduce(2, 4096, {1})}});
        const std::int64_t base = replay(job).ranks[0].endNs;
        WhatIf d;
        d.rankDelayMs[1] = 2;
        const ReplayResult late = replay(job, d);
        QCOMPARE(late.ranks[1].endNs, base + 2000000);
        // The rank that waited is ahead by at most one ring step.
        QVERIFY(late.ranks[0].endNs <= late.ranks[1].endNs && late.ranks[0].endNs > base + 2000000 - (base - 1000) / 8 - 2);
    }

    // A send takes hops × latency + bytes ÷ bandwidth; the receive ends when the message is there.
    void sendAndReceive()
    {
        const std::int64_t bytes = 1073741824; // 1 s at 1 "GB/s" (GB = 2^30 B)
        Network net;
        net.bandwidthGBps = 1;
        net.latencyNs = 100;
        const SimJob job = jobOf(
            {{cpu(1, "a", 2), p2p(2, true, 1, bytes, {1})}, {p2p(1, false, 0, bytes, {}), cpu(2, "b", 1, {1})}}, net);
        const ReplayResult r = replay(job);
        QVERIFY(r.allFinished());
        const std::int64_t arrival = 2000 + 100 + 1000000000;
        // (± 1 ns: bytes ÷ bandwidth in floating point, truncated as the simulator's event time is)
        QVERIFY(std::llabs(r.ranks[1].end[pos(job, 1, 1)] - arrival) <= 1);
        QVERIFY(std::llabs(r.ranks[1].endNs - (arrival + 1000)) <= 1);
        const RankPath path = criticalPath(job, r, 1);
        QVERIFY(std::llabs(path.breakdown.commNs - 1000000100) <= 1);
        QCOMPARE(path.breakdown.otherRankNs, 2000);
        QCOMPARE(path.breakdown.cpuNs, 1000);
        const std::vector<OtherRankShare> others = otherRanksOfPath(job, path);
        QCOMPARE(others.size(), std::size_t(1));
        QCOMPARE(others[0].rank, job.ranks[0].rank);
        QCOMPARE(others[0].cpuNs, 2000);
    }

    // A collective on a group of one never completes in ASTRA-sim: the replay says so.
    void neverFinishes()
    {
        SimJob job;
        job.groupIds = {1};
        job.groups = {{0}};
        job.ranks.push_back(buildRank(traceOf({cpu(1, "a", 1), allReduce(2, 64, {1}, "1")}), 0, job.groupIds));
        job.ranks.push_back(buildRank(traceOf({cpu(1, "a", 1)}, 1), 1, job.groupIds));
        job.npus = 2;
        job.network.npus = 2;
        const ReplayResult r = replay(job);
        QVERIFY(!r.ranks[0].finished);
        QVERIFY2(r.ranks[0].stuck.find("never completes") != std::string::npos, r.ranks[0].stuck.c_str());
        QVERIFY(r.ranks[1].finished);
        QVERIFY(criticalPath(job, r, 0).steps.empty());
    }

    // One rank standing for a job of 4: its collectives start as it arrives.
    void mirrored()
    {
        SimJob job = jobOf({{cpu(1, "a", 1), allReduce(2, 1 << 16, {1})}});
        job.mirrored = true;
        job.npus = 4;
        job.network.npus = 4;
        const auto cost = job::astraSimCollectiveCost(CallKind::AllReduce, {}, 4, 1 << 16);
        const std::int64_t c = std::llround(cost->bytesTerm / (50 * job::kAstraSimGB) + cost->latencyCoefficient * 500
                                            + cost->constantNs);
        QCOMPARE(replay(job).ranks[0].endNs, 1000 + c);
    }

    void badInputsAreNamed()
    {
        SimJob job;
        try {
            buildRank(traceOf({cpu(1, "a", 1, {9})}), 0, job.groupIds);
            QFAIL("a dependency on a node not in the file was accepted");
        } catch (const LoadError &e) {
            QVERIFY2(std::string(e.what()).find("depends on node 9") != std::string::npos, e.what());
        }
        try {
            buildRank(traceOf({cpu(1, "a", 1, {2}), cpu(2, "b", 1, {1})}), 0, job.groupIds);
            QFAIL("a cycle was accepted");
        } catch (const LoadError &e) {
            QVERIFY2(std::string(e.what()).find("cycle") != std::string::npos, e.what());
        }
        try {
            buildRank(traceOf({allReduce(1, 64, {}, "5")}), 0, job.groupIds);
            QFAIL("an unknown pg_name was accepted");
        } catch (const LoadError &e) {
            QVERIFY2(std::string(e.what()).find("pg_name '5'") != std::string::npos, e.what());
        }
        try {
            parseNetworkYaml("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ fast ]\nlatency: [ 5 ]\n", "net.yml");
            QFAIL("a bad bandwidth was accepted");
        } catch (const LoadError &e) {
            QCOMPARE(e.file(), std::string("net.yml"));
            QCOMPARE(e.offset(), std::uint64_t(37)); // the third line
        }
        const Network n = parseNetworkYaml(
            "# fitted\ntopology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 229.5 ]  # GB/s\nlatency: [ 544 ]\n", "n");
        QCOMPARE(n.npus, 8);
        QCOMPARE(n.bandwidthGBps, 229.5);
        QCOMPARE(n.latencyNs, 544.0);
        QVERIFY_THROWS_EXCEPTION(LoadError, parseNetworkYaml("bandwidth: [ 1 ]\n", "n"));
        QVERIFY_THROWS_EXCEPTION(LoadError, parseCommGroups("{\"a\": [0]}", "g", job));
        QVERIFY_THROWS_EXCEPTION(LoadError, parseCommGroups("[1", "g", job));
    }

    // A plain .et is read in blocks and framed by loadRank itself: the same rank as the reader's path
    // (a gzip'ed copy takes it), nodes out of id order placed by id, and the reader's own error for
    // a truncated file or a repeated id.
    void blockReadRanksMatchTheReader()
    {
        QTemporaryDir dir;
        const ChakraTrace t = traceOf(
            {cpu(4, "d", 1, {3}), cpu(1, "a", 3), gpu(3, "k", 4, {1}), allReduce(2, 1 << 20, {1}), p2p(0, true, 1, 99, {})});
        const std::string plain = dir.filePath("plain.0.et").toStdString(), gz = dir.filePath("gz.0.et").toStdString();
        writeChakraEt(plain, t, {false, false});
        writeChakraEt(gz, t, {true, false});
        const std::vector<std::int64_t> groups;
        const SimRank a = loadRank(plain, 0, groups), b = loadRank(gz, 0, groups);
        QCOMPARE(a.nodes.size(), std::size_t(5));
        QCOMPARE(b.nodes.size(), a.nodes.size());
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
            QCOMPARE(a.nodes[i].id, std::uint64_t(i)); // issue order is id order
            QCOMPARE(b.nodes[i].id, a.nodes[i].id);
            QCOMPARE(int(b.nodes[i].kind), int(a.nodes[i].kind));
            QCOMPARE(b.nodes[i].durationMicros, a.nodes[i].durationMicros);
            QCOMPARE(a.names[a.nodes[i].name], b.names[b.nodes[i].name]);
        }
        QCOMPARE(a.deps, b.deps);
        QCOMPARE(a.succ, b.succ);
        // Truncated: the error frameChakraEtFile gives.
        const std::string bytes = serializeChakraEt(t, false);
        const std::string cut = dir.filePath("cut.0.et").toStdString();
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
        std::string expected;
        try {
            frameChakraEtFile(cut, [](const char *, int, std::size_t, std::size_t) {});
        } catch (const LoadError &e) {
            expected = e.what();
        }
        QVERIFY(!expected.empty());
        try {
            loadRank(cut, 0, groups);
            QFAIL("a truncated file was read");
        } catch (const LoadError &e) {
            QCOMPARE(std::string(e.what()), expected);
        }
        // A repeated id among unsorted dense ids: named as the stable sort names it.
        const std::string twice = dir.filePath("twice.0.et").toStdString();
        std::ofstream(twice, std::ios::binary)
            << serializeChakraEt(traceOf({cpu(2, "b", 1), cpu(1, "a", 1), cpu(2, "c", 1)}), false);
        QVERIFY_THROWS_EXCEPTION(LoadError, loadRank(twice, 0, groups));
    }

    // One buffer serves the files a thread reads, whatever their order and size: a node larger than
    // a block (the buffer grows, keeping the bytes not yet framed) and a small file after it.
    void oneBufferReadsSeveralRanks()
    {
        HugeBuffer buffer;
        buffer.reserve(100);
        QVERIFY(buffer.capacity() >= 100);
        std::memcpy(buffer.data(), "framed", 6);
        buffer.reserve(buffer.capacity() + 1, 6);
        QCOMPARE(std::string(buffer.data(), 6), std::string("framed"));

        QTemporaryDir dir;
        const std::string big = dir.filePath("big.0.et").toStdString(), small = dir.filePath("small.1.et").toStdString();
        const std::string longName(std::size_t(9) << 20, 'n'); // more than one 8 MiB block
        writeChakraEt(big, traceOf({cpu(0, "a", 1), cpu(1, longName, 2, {0}), cpu(2, "c", 3, {1})}), {false, false});
        writeChakraEt(small, traceOf({cpu(0, "s", 5)}), {false, false});
        const std::vector<std::int64_t> groups;
        const SimRank a = loadRank(big, 0, groups, buffer);
        const SimRank b = loadRank(small, 1, groups, buffer);
        const SimRank again = loadRank(big, 0, groups);
        QCOMPARE(a.nodes.size(), std::size_t(3));
        QCOMPARE(a.names[a.nodes[1].name].size(), longName.size());
        QCOMPARE(a.names[a.nodes[2].name], std::string("c"));
        QCOMPARE(a.deps, again.deps);
        QCOMPARE(b.nodes.size(), std::size_t(1));
        QCOMPARE(b.names[b.nodes[0].name], std::string("s"));
        QCOMPARE(b.nodes[0].durationMicros, std::int64_t(5));
    }

    // The same node decoded from its bytes (the fast path a file takes) as from the message.
    void encodedNodesDecodeAlike()
    {
        const ChakraTrace t = traceOf(
            {cpu(1, "a", 3), gpu(2, "k", 4, {1}), allReduce(3, 1 << 20, {2}), p2p(4, true, 1, 99, {3})});
        std::vector<std::int64_t> groups;
        RankBuilder fast(0, "x", groups);
        for (const auto &n : t.nodes) {
            const std::string bytes = n.SerializeAsString();
            fast.addEncoded(bytes.data(), static_cast<int>(bytes.size()), 0);
        }
        const SimRank a = fast.finish(), b = buildRank(t, 0, groups);
        QCOMPARE(a.nodes.size(), b.nodes.size());
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
            QCOMPARE(a.nodes[i].id, b.nodes[i].id);
            QCOMPARE(int(a.nodes[i].kind), int(b.nodes[i].kind));
            QCOMPARE(a.nodes[i].durationMicros, b.nodes[i].durationMicros);
            QCOMPARE(a.nodes[i].depEnd - a.nodes[i].depBegin, b.nodes[i].depEnd - b.nodes[i].depBegin);
        }
        QCOMPARE(a.comms.size(), std::size_t(2));
        QCOMPARE(a.comms[0].bytes, 1 << 20);
        QCOMPARE(a.comms[1].peer, 1);
        RankBuilder broken(0, "x", groups);
        QVERIFY_THROWS_EXCEPTION(LoadError, broken.addEncoded("\x0a\xff", 2, 0));
    }

    // The open pair's graph, built in memory: it replays to the end, and its nodes point back at the
    // Kineto ops and GPU ops the timeline draws.
    void pairGraphInMemory()
    {
        PairRequest request;
        request.files = {linkscope::test::sourcePath("resources/samples/sample_host_et.json"),
                         linkscope::test::sourcePath("resources/samples/sample_kineto.json")};
        const OpenedPair pair = openPair(request);
        const PairGraph g = buildPairGraph(*pair.host, *pair.device, *pair.links);
        QCOMPARE(g.job.ranks.size(), std::size_t(1));
        const ReplayResult r = replay(g.job);
        QVERIFY2(r.allFinished(), r.ranks[0].stuck.c_str());
        QVERIFY(r.ranks[0].endNs > 0);
        std::size_t gpuMapped = 0;
        for (std::uint32_t i = 0; i < g.eventOf.size(); ++i)
            if (g.job.ranks[0].nodes[i].kind == NodeKind::Gpu && g.eventOf[i].valid()) {
                ++gpuMapped;
                QCOMPARE(g.nodeOfEvent(g.eventOf[i]), i);
            }
        QVERIFY(gpuMapped > 0);
        const RankPath path = criticalPath(g.job, r, 0);
        QCOMPARE(path.breakdown.total(), path.stepNs);
    }

    // `linkscope predict` on a generated job's traces: every rank finishes, the breakdown sums to
    // the step, and a what-if that slows the kernels slows the prediction.
    void predictCommand()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.worldSize = 2;
        linkscope::gen::generateJob(o, dir.filePath("job").toStdString());
        std::ostringstream out, err;
        QCOMPARE(linkscope::cli::runPredict({dir.filePath("job").toStdString(), "--json"}, out, err), 0);
        const nlohmann::json j = nlohmann::json::parse(out.str());
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        for (const auto &r : j["ranks"]) {
            QVERIFY(r["finished"].get<bool>());
            const auto &b = r["breakdown"];
            QCOMPARE(b["cpu_ns"].get<std::int64_t>() + b["gpu_ns"].get<std::int64_t>() + b["comm_ns"].get<std::int64_t>()
                         + b["other_rank_ns"].get<std::int64_t>() + b["idle_ns"].get<std::int64_t>(),
                     r["step_ns"].get<std::int64_t>());
            QVERIFY(!r["critical_path"].empty());
        }
        std::ostringstream slower, err2;
        QCOMPARE(linkscope::cli::runPredict(
                     {dir.filePath("job").toStdString(), "--json", "--scale-gpu", "^(?!Memcpy|Memset|nccl)=2"}, slower, err2),
                 0);
        const nlohmann::json s = nlohmann::json::parse(slower.str());
        QVERIFY(s["ranks"][0]["step_ns"].get<std::int64_t>() > s["ranks"][0]["baseline_step_ns"].get<std::int64_t>());
        // Usage errors and a missing input.
        std::ostringstream o2, e2;
        QCOMPARE(linkscope::cli::runPredict({"--scale-gpu", "x"}, o2, e2), 2);
        QCOMPARE(linkscope::cli::runPredict({dir.filePath("nothing.et").toStdString()}, o2, e2), 1);
    }

    // The replay under ASTRA-sim's model against ASTRA-sim on the same files: within 1 % per rank, as
    // exported and under a kernel, a network and a delayed-rank what-if (the ranks then reach
    // collectives apart).
    void agreesWithAstraSim()
    {
        if (!QFileInfo::exists(linkscope::test::astraSimDir() + "/build.sh"))
            QSKIP(qPrintable("ASTRA-sim not present (" + linkscope::test::astraSimDir()
                             + "): the agreement test needs ../shared/tools/astra-sim"));
        QProcess build;
        build.start(QStringLiteral("bash"), {linkscope::test::astraSimDir() + "/build.sh"});
        QVERIFY(build.waitForFinished(40 * 60 * 1000) && build.exitCode() == 0);
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 3;
        o.worldSize = 2;
        linkscope::gen::generateJob(o, dir.filePath("job").toStdString());
        std::ostringstream jo, je;
        QCOMPARE(linkscope::cli::runJob({dir.filePath("job").toStdString(), "--out", dir.filePath("out").toStdString()}, jo, je),
                 0);
        const std::vector<std::vector<std::string>> cases{
            {}, {"--scale-gpu", "^(?!Memcpy|Memset|nccl)=2"}, {"--scale-comm", "4"}, {"--delay-rank", "1=2"}};
        int n = 0;
        for (const auto &whatIf : cases) {
            const QString target = whatIf.empty() ? dir.filePath("out") : dir.filePath("w" + QString::number(n++));
            if (!whatIf.empty()) {
                std::vector<std::string> args{dir.filePath("out").toStdString(), target.toStdString()};
                args.insert(args.end(), whatIf.begin(), whatIf.end());
                std::ostringstream wo, we;
                QCOMPARE(linkscope::cli::runWhatIf(args, wo, we), 0);
            }
            std::vector<std::string> args{dir.filePath("out").toStdString(), "--json", "--model", "astra-sim"};
            args.insert(args.end(), whatIf.begin(), whatIf.end());
            std::ostringstream po, pe;
            QCOMPARE(linkscope::cli::runPredict(args, po, pe), 0);
            const nlohmann::json p = nlohmann::json::parse(po.str());
            const std::map<int, double> sim = linkscope::test::simulateJobExport(target, 2);
            QCOMPARE(sim.size(), std::size_t(2));
            for (const auto &r : p["ranks"]) {
                const double ours = r["step_ns"].get<double>(), theirs = sim.at(r["rank"].get<int>());
                qInfo("%s rank %d: linkscope %.3f ms, ASTRA-sim %.3f ms (%+.3f%%)",
                      whatIf.empty() ? "as exported" : whatIf[0].c_str(), r["rank"].get<int>(), ours / 1e6, theirs / 1e6,
                      100 * (ours / theirs - 1));
                QVERIFY(std::abs(ours / theirs - 1) < 0.01);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestPredict)
#include "test_predict.moc"
