// Prediction (docs/astra-sim-export.md, "The network" and "What-if"): ASTRA-sim's collective cost
// against times the simulator printed, the network fitted from a generated job whose bandwidth is
// known, what-ifs applied to .et files and to the network file, and — when ../shared/tools/astra-sim
// is there — one kernel what-if and one network what-if predicted by ASTRA-sim from configuration A
// and compared with the generator's configuration B (loosely, 0.8–1.25: the ±5 % targets belong to
// bench/whatif.sh).

#include "astrasimrun.h"
#include "testsupport.h"

#include "commands/commands.h"
#include "export/chakra/etformat.h"
#include "gen/tracegenerator.h"
#include "job/networkfit.h"
#include "predict/whatif.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace linkscope::core;
using linkscope::core::job::CallKind;

namespace {

// ASTRA-sim's time for a collective with the cost model (GB/s as the network file writes it).
double modelNs(CallKind kind, const std::vector<std::int64_t> &group, std::int64_t npus, std::int64_t bytes, double gbps,
               double latencyNs)
{
    const auto cost = job::astraSimCollectiveCost(kind, group, npus, bytes);
    return cost->bytesTerm / (gbps * job::kAstraSimGB) + cost->latencyCoefficient * latencyNs + cost->constantNs;
}

// `linkscope job DIR --out OUT`, in process.
int runJob(const std::string &dir, const std::string &out)
{
    std::ostringstream o, e;
    const int code = linkscope::cli::runJob({dir, "--out", out, "--jobs", "1"}, o, e);
    if (code != 0)
        qWarning("%s%s", o.str().c_str(), e.str().c_str());
    return code;
}

nlohmann::json readJson(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// rank → measured ns of a job report's ranks.
std::map<int, double> measured(const std::string &report)
{
    std::map<int, double> out;
    const nlohmann::json j = readJson(report);
    for (const auto &r : j["ranks"])
        out[r["rank"].get<int>()] = r["export"]["measured_ns"].get<double>();
    return out;
}

linkscope::gen::GeneratorOptions twoRanks()
{
    linkscope::gen::GeneratorOptions o;
    o.seed = 5;
    o.steps = 3;
    o.worldSize = 2;
    return o;
}

} // namespace

class TestWhatIf : public QObject {
    Q_OBJECT

private slots:
    // Times ASTRA-sim 518bd51 printed for one collective (Ring_4chunks, ring of 8, 50 GB/s, 500 ns):
    // the model is within 0.5 % (it leaves out the simulator's per-step rounding to the nanosecond).
    void costMatchesTheSimulator_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QList<qint64>>("group");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<double>("simulatedNs");
        QTest::newRow("all-reduce, all 8, 1 MiB") << int(CallKind::AllReduce) << QList<qint64>{} << qint64(1 << 20) << 64440.0;
        QTest::newRow("all-reduce {0,1}, 64 MiB")
            << int(CallKind::AllReduce) << QList<qint64>{0, 1} << qint64(64 << 20) << 1317024.0;
        QTest::newRow("all-gather, all 8, 16 MiB")
            << int(CallKind::AllGather) << QList<qint64>{} << qint64(16 << 20) << 2201820.0;
        QTest::newRow("all-to-all {1,5}, 64 KiB") << int(CallKind::AllToAll) << QList<qint64>{1, 5} << qint64(64 << 10) << 8688.0;
    }
    void costMatchesTheSimulator()
    {
        QFETCH(int, kind);
        QFETCH(QList<qint64>, group);
        QFETCH(qint64, bytes);
        QFETCH(double, simulatedNs);
        const std::vector<std::int64_t> ranks(group.begin(), group.end());
        const double model = modelNs(static_cast<CallKind>(kind), ranks, 8, bytes, 50.0, 500.0);
        QVERIFY2(std::abs(model / simulatedNs - 1) < 0.005,
                 qPrintable(QString("model %1 ns, simulator %2 ns").arg(model).arg(simulatedNs)));
        QVERIFY(!job::astraSimCollectiveCost(CallKind::Broadcast, ranks, 8, bytes));
    }

    // A generated job's NCCL kernels follow a network of 12.5 GB/s (10^9 B) bus bandwidth: the fit
    // recovers it within 5 %, and the network file says it in ASTRA-sim's GB (2^30 B).
    void fitRecoversTheGeneratorsBandwidth()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options = twoRanks();
        options.worldSize = 8;
        linkscope::gen::generateJob(options, dir.filePath("in").toStdString());
        QCOMPARE(runJob(dir.filePath("in").toStdString(), dir.filePath("out").toStdString()), 0);
        const nlohmann::json net = readJson(dir.filePath("out/job-report.json").toStdString())["network"];
        QVERIFY2(net["fitted"].get<bool>(), net.dump().c_str());
        const double gbps = net["bandwidth_gbps"].get<double>() * job::kAstraSimGB;
        QVERIFY2(std::abs(gbps / 12.5 - 1) < 0.05, net.dump().c_str());
        QVERIFY(net["samples"].get<int>() > 10);
        QVERIFY(net["mean_abs_error_pct"].get<double>() < 10);
        std::ifstream yml(dir.filePath("out/network.yml").toStdString());
        std::stringstream text;
        text << yml.rdbuf();
        QVERIFY2(text.str().find("npus_count: [ 8 ]") != std::string::npos, text.str().c_str());
        QVERIFY(text.str().find("bandwidth: [ " + std::to_string(net["bandwidth_gbps"].get<double>()).substr(0, 4))
                != std::string::npos);
    }

    void applyToEt()
    {
        ChakraTrace trace;
        auto add = [&](std::uint64_t id, const std::string &name, bool cpu, std::uint64_t micros,
                       ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE) {
            ChakraProtoMsg::Node &n = trace.nodes.emplace_back();
            n.set_id(id);
            n.set_name(name);
            n.set_type(type);
            n.set_duration_micros(micros);
            auto *a = n.add_attr();
            a->set_name("is_cpu_op");
            a->set_bool_val(cpu);
        };
        add(0, "ProfilerStep#3", true, 10);
        add(1, "aten::mm", true, 5);
        add(2, "ampere_sgemm_128x64_nn", false, 100);
        add(3, "Memcpy DtoH (Device -> Pinned)", false, 8);
        add(4, "ncclDevKernel_AllReduce", false, 300, ChakraProtoMsg::COMM_COLL_NODE);
        WhatIf w;
        w.gpu.push_back(parseGpuScale("^(?!Memcpy|Memset|nccl)=0.5"));
        w.rankDelayMs[1] = 2;
        ChakraTrace rank0 = trace, rank1 = trace;
        const WhatIfStats s0 = applyWhatIf(rank0, 0, w);
        QCOMPARE(s0.gpuNodesScaled, std::size_t(1));
        QCOMPARE(s0.stepsDelayed, std::size_t(0));
        QCOMPARE(rank0.nodes[2].duration_micros(), std::uint64_t(50));
        QCOMPARE(rank0.nodes[3].duration_micros(), std::uint64_t(8));   // a copy: not a compute kernel
        QCOMPARE(rank0.nodes[4].duration_micros(), std::uint64_t(300)); // communication: from the network
        QCOMPARE(rank0.nodes[0].duration_micros(), std::uint64_t(10));
        const WhatIfStats s1 = applyWhatIf(rank1, 1, w);
        QCOMPARE(s1.stepsDelayed, std::size_t(1));
        QCOMPARE(rank1.nodes[0].duration_micros(), std::uint64_t(2010));
        QCOMPARE(rank1.nodes[1].duration_micros(), std::uint64_t(5));
    }

    void scaleNetworkFile()
    {
        const std::string yml = "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n";
        WhatIf slower;
        slower.transferFactor = 4;
        const std::string out = scaleNetworkYaml(yml, slower);
        QVERIFY2(out.find("bandwidth: [ 12.5 ]  # GB/s") != std::string::npos, out.c_str());
        QVERIFY2(out.find("latency: [ 2000 ]  # ns") != std::string::npos, out.c_str());
        QVERIFY(out.find("npus_count: [ 8 ]") != std::string::npos);
        WhatIf wider;
        wider.bandwidthFactor = 100;
        QVERIFY(scaleNetworkYaml(yml, wider).find("bandwidth: [ 5000 ]") != std::string::npos);
        QVERIFY(scaleNetworkYaml(yml, wider).find("latency: [ 500 ]") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, scaleNetworkYaml("topology: [ Ring ]\n", slower));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, scaleNetworkYaml("bandwidth: [ fast ]\nlatency: [ 1 ]\n", slower));
    }

    void parseErrors()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGpuScale("gemm"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGpuScale("gemm=fast"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGpuScale("(=2"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseRankDelay("x=2"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseRankDelay("1=-2"));
        QCOMPARE(parseGpuScale("a=b=0.5").pattern, std::string("a=b"));
        QCOMPARE(parseRankDelay("3=1.5"), std::make_pair(std::int64_t(3), 1.5));
        std::ostringstream o, e;
        QCOMPARE(linkscope::cli::runWhatIf({"a", "b", "--scale-comm", "0"}, o, e), 2);
        QCOMPARE(linkscope::cli::runWhatIf({"a"}, o, e), 2);
        QTemporaryDir dir;
        QCOMPARE(linkscope::cli::runWhatIf({dir.path().toStdString(), dir.path().toStdString()}, o, e), 2);        // onto itself
        QCOMPARE(linkscope::cli::runWhatIf({dir.path().toStdString(), dir.filePath("x").toStdString()}, o, e), 1); // no .et
    }

    // `linkscope predict` and `linkscope whatif` read their what-ifs through one parser.
    void sharedOptions()
    {
        WhatIf w;
        std::vector<std::string> args{"--scale-gpu",     "gemm=0.5", "--scale-stream",  "7=2", "--scale-comm", "4",
                                      "--scale-network", "2",        "--scale-latency", "0",   "--delay-rank", "1=3",
                                      "--delay-rank",    "1=2"};
        for (std::size_t i = 0; i < args.size(); i += 2)
            QVERIFY(applyWhatIfOption(w, args[i], [&] { return args[i + 1]; }));
        QCOMPARE(w.gpu.size(), std::size_t(1));
        QCOMPARE(w.gpu[0].factor, 0.5);
        QCOMPARE(w.streamFactor.at(7), 2.0);
        QCOMPARE(w.transferFactor, 4.0);
        QCOMPARE(w.bandwidthFactor, 2.0);
        QCOMPARE(w.latencyFactor, 0.0);     // a latency of zero is a valid what-if
        QCOMPARE(w.rankDelayMs.at(1), 5.0); // repeated delays add up
        bool read = false;
        QVERIFY(!applyWhatIfOption(w, "--prefix", [&] {
            read = true;
            return std::string("x");
        }));
        QVERIFY(!read); // an option that is not a what-if reads no value
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applyWhatIfOption(w, "--scale-network", [] { return std::string("0"); }));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 applyWhatIfOption(w, "--scale-stream", [] { return std::string("x=2"); }));
        std::ostringstream o, e;
        linkscope::cli::runWhatIf({"--help"}, o, e);
        QVERIFY(o.str().find("--scale-stream") != std::string::npos);
        QVERIFY(o.str().find("--scale-latency") != std::string::npos);
    }

    // On the simulator: configuration A exported and changed predicts configuration B.
    void predictsChangedConfigurations_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QStringList>("whatIf");
        QTest::addColumn<double>("computeScale");
        QTest::addColumn<double>("commScale");
        QTest::newRow("compute kernels x2") << "k2" << QStringList{"--scale-gpu", "^(?!Memcpy|Memset|nccl)=2"} << 2.0 << 1.0;
        QTest::newRow("NCCL x4 through the network") << "n4" << QStringList{"--scale-comm", "4"} << 1.0 << 4.0;
    }
    void predictsChangedConfigurations()
    {
        QFETCH(QString, what);
        QFETCH(QStringList, whatIf);
        QFETCH(double, computeScale);
        QFETCH(double, commScale);
        if (!QFileInfo::exists(linkscope::test::astraSimDir() + "/build.sh"))
            QSKIP(qPrintable("ASTRA-sim not present (" + linkscope::test::astraSimDir()
                             + "): the prediction test needs ../shared/tools/astra-sim"));
        QProcess build;
        build.start(QStringLiteral("bash"), {linkscope::test::astraSimDir() + "/build.sh"});
        QVERIFY(build.waitForFinished(40 * 60 * 1000) && build.exitCode() == 0);

        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions a = twoRanks(), b = twoRanks();
        b.computeScale = computeScale;
        b.commScale = commScale;
        linkscope::gen::generateJob(a, dir.filePath("a").toStdString());
        linkscope::gen::generateJob(b, dir.filePath("b").toStdString());
        QCOMPARE(runJob(dir.filePath("a").toStdString(), dir.filePath("a-out").toStdString()), 0);
        QCOMPARE(runJob(dir.filePath("b").toStdString(), dir.filePath("b-out").toStdString()), 0);
        std::vector<std::string> args{dir.filePath("a-out").toStdString(), dir.filePath("pred").toStdString()};
        for (const QString &w : whatIf)
            args.push_back(w.toStdString());
        std::ostringstream o, e;
        QCOMPARE(linkscope::cli::runWhatIf(args, o, e), 0);
        const std::map<int, double> predicted = linkscope::test::simulateJobExport(dir.filePath("pred"), 2);
        const std::map<int, double> identity = linkscope::test::simulateJobExport(dir.filePath("a-out"), 2);
        const std::map<int, double> truthA = measured(dir.filePath("a-out/job-report.json").toStdString());
        const std::map<int, double> truthB = measured(dir.filePath("b-out/job-report.json").toStdString());
        QCOMPARE(predicted.size(), std::size_t(2));
        QCOMPARE(identity.size(), std::size_t(2));
        QCOMPARE(truthA.size(), std::size_t(2));
        QCOMPARE(truthB.size(), std::size_t(2));
        for (int r = 0; r < 2; ++r) {
            const double ratio = predicted.at(r) / truthB.at(r);
            qInfo("%s rank %d: A measured %.3f ms, A replayed %.3f ms; B predicted %.3f ms, B measured %.3f ms, ratio %.3f",
                  qPrintable(what), r, truthA.at(r) / 1e6, identity.at(r) / 1e6, predicted.at(r) / 1e6, truthB.at(r) / 1e6,
                  ratio);
            QVERIFY2(ratio > 0.8 && ratio < 1.25, qPrintable(what));
            // The change moved the prediction the way it moved the truth.
            QVERIFY((predicted.at(r) > identity.at(r)) == (truthB.at(r) > truthA.at(r)));
        }
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "test_whatif.moc"
