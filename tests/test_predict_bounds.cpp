// Hostile .et jobs for `linkscope predict` and `linkscope check` (issue 42): node times near the top of
// an int64 are refused where they are read, naming the file, the node and the bound, and `check`
// refuses what `predict` would not replay as written. The inputs are generated here, not shipped.

#include "clitestsupport.h"
#include "simjobbuilder.h"

#include "export/chakra/etbounds.h"
#include "export/chakra/etformat.h"
#include "predict/rankstream.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <limits>

using namespace linkscope::test;
using namespace linkscope::test::simjob;

namespace {

// `ranks` written as DIR/trace.R.et with a ring network file; the paths of the .et files.
std::vector<std::string> writeJob(const QTemporaryDir &dir, const std::vector<std::vector<NodeSpec>> &ranks)
{
    std::vector<std::string> files;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        files.push_back(dir.filePath(QString("trace.%1.et").arg(r)).toStdString());
        writeChakraEt(files.back(), traceOf(ranks[r], static_cast<std::int64_t>(r)), {false, false});
    }
    writeText(dir.filePath("network.yml").toStdString(), "topology: [ Ring ]\nnpus_count: [ " + std::to_string(ranks.size())
                                                             + " ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
    return files;
}

// A chain of `n` CPU nodes of `micros` each (ids 1..n), the last one a send-free all-reduce's neighbour.
std::vector<NodeSpec> chain(std::size_t n, std::uint64_t micros)
{
    std::vector<NodeSpec> nodes;
    for (std::uint64_t i = 1; i <= n; ++i)
        nodes.push_back(
            cpu(i, "op" + std::to_string(i), micros, i > 1 ? std::vector<std::uint64_t>{i - 1} : std::vector<std::uint64_t>{}));
    return nodes;
}

CliRun check(const std::vector<std::string> &files) { return runCli(linkscope::cli::runCheck, files); }

} // namespace

class TestPredictBounds : public QObject {
    Q_OBJECT
private slots:
    // predict's in-memory graph (predict/rankstream.h) is fed the .et's bytes in the export's runs: in
    // runs of any size it builds what loadRank builds from the file (its groups learned, then moved
    // onto the job's), and a cut or broken stream is a LoadError naming the rank's file and offset.
    void aStreamInAnyPiecesIsTheFile()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("trace.0.et").toStdString();
        std::vector<NodeSpec> nodes = chain(40, 3);
        nodes.push_back(allReduce(41, 1 << 20, {40}, "7"));
        nodes.push_back(allReduce(42, 1 << 10, {41}, "3"));
        nodes.push_back(allReduce(43, 1 << 12, {42}));
        writeChakraEt(file, traceOf(nodes, 0), {false, false});
        std::ifstream in(file, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::vector<std::int64_t> groups{1, 3, 7};
        const SimRank want = loadRank(file, 0, groups);
        QCOMPARE(want.comms.size(), std::size_t(3));
        for (const std::size_t piece : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(64), bytes.size()}) {
            RankStream stream(0, "k.json");
            for (std::size_t at = 0; at < bytes.size(); at += piece)
                stream.feed(std::string_view(bytes).substr(at, piece));
            const SimRank got = stream.finish(groups);
            QCOMPARE(got.path, std::string("k.json"));
            const std::string difference = rankDifference(want, got);
            QVERIFY2(difference.empty(),
                     qPrintable(QString::fromStdString("in pieces of " + std::to_string(piece) + ": " + difference)));
        }
        QCOMPARE(want.comms[0].group, 2); // "7"
        QCOMPARE(want.comms[1].group, 1); // "3"
        QCOMPARE(want.comms[2].group, -1);
        // A group the job does not have, a stream cut inside a node, an empty one, a bad length.
        const auto refused = [&](std::string_view fed, const std::vector<std::int64_t> &ids, const QString &expected) {
            RankStream stream(0, "k.json");
            try {
                stream.feed(fed);
                (void)stream.finish(ids);
            } catch (const LoadError &e) {
                const QString what = QString::fromStdString(e.what());
                QVERIFY2(what.contains("k.json") && what.contains(expected), qPrintable(what));
                return;
            }
            QFAIL(qPrintable("accepted; expected: " + expected));
        };
        refused(bytes, {1, 3}, "pg_name '7' is not a group");
        refused(std::string_view(bytes).substr(0, bytes.size() - 3), groups, "ends inside a message");
        refused({}, groups, "is empty");
        refused(std::string(12, '\xff'), groups, "message length");
    }

    // 2^63−1 µs predicted a 4 ms step; 2^63 and 1e16 µs counted as 0. Each is refused now, by the
    // reader (predict, exit 1) and by check (rule duration_range), naming the file, the node and the bound.
    void nodeTimesPastTheBoundAreRefused_data()
    {
        QTest::addColumn<quint64>("micros");
        QTest::addColumn<qint64>("laneNs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("2^63-1 us") << quint64(std::numeric_limits<std::int64_t>::max()) << qint64(-1) << "duration_micros";
        QTest::newRow("2^63 us") << (quint64(1) << 63) << qint64(-1) << "duration_micros";
        QTest::newRow("1e16 us") << quint64(10'000'000'000'000'000ull) << qint64(-1) << "duration_micros";
        QTest::newRow("2^64-1 us") << std::numeric_limits<quint64>::max() << qint64(-1) << "duration_micros";
        QTest::newRow("lane 2^63-1 ns") << quint64(5) << qint64(std::numeric_limits<std::int64_t>::max()) << "lane_dur_ns";
    }
    void nodeTimesPastTheBoundAreRefused()
    {
        QFETCH(quint64, micros);
        QFETCH(qint64, laneNs);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        std::vector<NodeSpec> rank = chain(3, 10);
        rank[1].micros = micros;
        rank[1].laneNs = laneNs;
        const auto files = writeJob(dir, {rank});
        const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString()});
        QCOMPARE(p.code, 1);
        for (const std::string &part : {files[0], std::string("node 2"), expected.toStdString(), std::string("bound")})
            QVERIFY2(p.err.find(part) != std::string::npos, p.err.c_str());
        QVERIFY2(p.out.empty(), p.out.c_str());
        const CliRun c = check(files);
        QCOMPARE(c.code, 1);
        QVERIFY2(c.out.find("node 2: duration_range: " + expected.toStdString()) != std::string::npos, c.out.c_str());
        if (laneNs < 0) { // inspect's summary of the file says so, its total saturated rather than wrapped
            const nlohmann::json summary = summarizeEtFile(files[0]);
            QVERIFY(summary["total_duration_micros"].get<std::uint64_t>() >= micros);
            QVERIFY2(summary["warnings"].dump().find("past the bound") != std::string::npos, summary.dump().c_str());
        }
        QVERIFY2(c.out.find("2000000000000") != std::string::npos || c.out.find("2000000000000000") != std::string::npos,
                 c.out.c_str());
    }

    // At the bound a node is replayed as written: 2e12 µs is 2e15 ns, exactly.
    void nodeTimesAtTheBoundAreReplayedAsWritten()
    {
        QTemporaryDir dir;
        std::vector<NodeSpec> rank = chain(3, 10);
        rank[1].micros = kMaxEtDurationMicros;
        const auto files = writeJob(dir, {rank});
        const CliRun c = check(files);
        QVERIFY2(c.code == 0, c.out.c_str());
        const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--json"});
        QVERIFY2(p.code == 0, p.err.c_str());
        const nlohmann::json j = nlohmann::json::parse(p.out);
        QCOMPARE(j["ranks"][0]["step_ns"].get<std::int64_t>(), kMaxEtLaneNs + 20'000);
        QCOMPARE(j["ranks"][0]["breakdown"]["cpu_ns"].get<std::int64_t>(), kMaxEtLaneNs + 20'000);
    }

    // Nodes each within the bound whose sum passes 2^62 ns: refused by both, naming the node where
    // the sum passes (a rank) or the file that takes the job past it.
    void summedTimesPastTheBoundAreRefused()
    {
        const std::size_t perRank = static_cast<std::size_t>(kMaxEtTotalNs / kMaxEtLaneNs) + 1; // 2306 nodes
        {
            QTemporaryDir dir;
            const auto files = writeJob(dir, {chain(perRank, kMaxEtDurationMicros)});
            const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString()});
            QCOMPARE(p.code, 1);
            QVERIFY2(p.has("node " + std::to_string(perRank)) && p.has("2^62 ns"), p.err.c_str());
            const CliRun c = check(files);
            QCOMPARE(c.code, 1);
            QVERIFY2(c.has("node " + std::to_string(perRank) + ": duration_total"), c.out.c_str());
        }
        {
            QTemporaryDir dir; // each rank within the bound, the two together past it
            const auto files = writeJob(
                dir, {chain(perRank / 2 + 1, kMaxEtDurationMicros), chain(perRank / 2 + 1, kMaxEtDurationMicros)});
            const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString()});
            QCOMPARE(p.code, 1);
            QVERIFY2(p.has(files[1]) && p.has("the job's"), p.err.c_str());
            const CliRun c = check(files);
            QCOMPARE(c.code, 1);
            QVERIFY2(c.has(files[1] + ": duration_total"), c.out.c_str());
        }
    }

    // Graphs `check` or `job` flags were replayed with exit 0 and no word: each finding is now a
    // warning (stderr and the JSON's "warnings"), and --strict refuses the graph (exit 1).
    void predictWarnsOnWhatCheckFlags_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("send with no receive") << 0 << "unpaired_send";
        QTest::newRow("negative comm size") << 1 << "comm_size -5 (must be > 0)";
        QTest::newRow("ranks disagree") << 2 << "collective_mismatch";
        QTest::newRow("send outside the job") << 3 << "a send to rank 5, which has no file (the job's ranks: 0..1)";
    }
    void predictWarnsOnWhatCheckFlags()
    {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        std::vector<std::vector<NodeSpec>> ranks{{cpu(1, "a", 10)}, {cpu(1, "a", 10)}};
        if (kind == 0 || kind == 3) {
            ranks[0].push_back(p2p(2, true, kind == 0 ? 1 : 5, 1024, {1}));
        } else {
            ranks[0].push_back(allReduce(2, kind == 1 ? -5 : 1024, {1}));
            ranks[1].push_back(allReduce(2, kind == 1 ? -5 : 1024, {1}));
            if (kind == 2)
                ranks[1][1].commType = 2; // an all-gather where rank 0 all-reduces
        }
        QTemporaryDir dir;
        const auto files = writeJob(dir, ranks);
        const std::string want = expected.toStdString();
        const CliRun c = check(files);
        QVERIFY2(c.code == 1 && c.has(want), c.out.c_str());
        const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--json"});
        QVERIFY2(p.err.find("predict: warning: ") != std::string::npos && p.err.find(want) != std::string::npos, p.err.c_str());
        const nlohmann::json j = nlohmann::json::parse(p.out);
        bool listed = false;
        for (const nlohmann::json &w : j["warnings"])
            listed = listed || w.get<std::string>().find(want) != std::string::npos;
        QVERIFY2(listed, j["warnings"].dump().c_str());
        // .et files named one by one: the same.
        const CliRun named = runCli(linkscope::cli::runPredict, files);
        QVERIFY2(named.err.find(want) != std::string::npos, named.err.c_str());
        const CliRun strict = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--strict"});
        QCOMPARE(strict.code, 1);
        QVERIFY2(strict.has("--strict") && strict.out.empty(), strict.all().c_str());
    }

    // A clean job: no warning, and --strict replays it.
    void strictReplaysACleanJob()
    {
        QTemporaryDir dir;
        std::vector<std::vector<NodeSpec>> ranks{{cpu(1, "a", 10), allReduce(2, 1024, {1})},
                                                 {cpu(1, "a", 10), allReduce(2, 1024, {1})}};
        writeJob(dir, ranks);
        const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--strict", "--json"});
        QVERIFY2(p.code == 0 && p.err.empty(), p.err.c_str());
        QVERIFY(nlohmann::json::parse(p.out)["warnings"].empty());
    }

    // Messages that named the effect name the cause; whatif and predict agree on a rank not in the job.
    void messagesNameTheCause()
    {
        QTemporaryDir dir;
        std::vector<std::vector<NodeSpec>> ranks{{cpu(1, "a", 10), allReduce(2, 1024, {1}, "3")},
                                                 {cpu(1, "a", 10), allReduce(2, 1024, {1}, "3"), p2p(3, false, 7, 64, {2})}};
        const auto files = writeJob(dir, ranks);
        const std::string folder = dir.path().toStdString();
        writeText(folder + "/comm_group.json", R"({"3": [0, 1, 1]})");
        const CliRun twice = runCli(linkscope::cli::runPredict, {folder});
        QCOMPARE(twice.code, 1);
        QVERIFY2(twice.has("group \"3\": rank 1 is listed twice"), twice.err.c_str());
        writeText(folder + "/comm_group.json", R"({"3": [0, 1]})");
        const CliRun outside = runCli(linkscope::cli::runPredict, {folder});
        QCOMPARE(outside.code, 1); // rank 1 never finishes: its receive's peer is not a rank
        QVERIFY2(outside.has("waits for a send from rank 7, which is not a rank of the job (0..1)"), outside.all().c_str());
        QVERIFY2(outside.has("a receive from rank 7, which has no file"), outside.err.c_str());

        writeText(folder + "/network.yml", "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 1e308 ]\nlatency: [ 500 ]\n");
        const CliRun huge = runCli(linkscope::cli::runPredict, {folder});
        QCOMPARE(huge.code, 1);
        QVERIFY2(huge.has("'bandwidth': 1e308 is out of range (at most 1e15)"), huge.err.c_str());

        const std::string copy = folder + "/delayed";
        const CliRun whatif = runCli(linkscope::cli::runWhatIf, {folder, copy, "--delay-rank", "99=5"});
        QCOMPARE(whatif.code, 2);
        QVERIFY2(whatif.has("--delay-rank: the job has no rank 99"), whatif.err.c_str());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(copy)));
        writeText(folder + "/network.yml", "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
        QCOMPARE(runCli(linkscope::cli::runPredict, {folder, "--delay-rank", "99=5"}).code, 2);
    }

    // --json lists the last 1000 steps of each rank's critical path by default and counts the rest
    // (a 10^6-node chain printed 157 MB); --path-limit 0 lists them all.
    void jsonPathIsBounded()
    {
        QTemporaryDir dir;
        writeJob(dir, {chain(3000, 1)});
        const CliRun p = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--json"});
        QVERIFY2(p.code == 0, p.err.c_str());
        const nlohmann::json r = nlohmann::json::parse(p.out)["ranks"][0];
        const auto steps = r["critical_path_steps"].get<std::size_t>();
        QVERIFY(steps >= 3000);
        QCOMPARE(r["critical_path"].size(), std::size_t(1000));
        QCOMPARE(r["critical_path_omitted"].get<std::size_t>(), steps - 1000);
        QCOMPARE(r["critical_path"].back()["id"].get<std::uint64_t>(), std::uint64_t(3000)); // the end of the step
        const CliRun all = runCli(linkscope::cli::runPredict, {dir.path().toStdString(), "--json", "--path-limit", "0"});
        const nlohmann::json a = nlohmann::json::parse(all.out)["ranks"][0];
        QCOMPARE(a["critical_path"].size(), steps);
        QCOMPARE(a["critical_path_omitted"].get<std::size_t>(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestPredictBounds)
#include "test_predict_bounds.moc"
