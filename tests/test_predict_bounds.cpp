// Hostile .et jobs for `linkscope predict` and `linkscope check` (issue 42): node times near the top of
// an int64 are refused where they are read, naming the file, the node and the bound, and `check`
// refuses what `predict` would not replay as written. The inputs are generated here, not shipped.

#include "clitestsupport.h"
#include "simjobbuilder.h"

#include "export/etbounds.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

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
};

QTEST_GUILESS_MAIN(TestPredictBounds)
#include "test_predict_bounds.moc"
