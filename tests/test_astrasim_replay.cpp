// The astra-sim .et target on the real simulator: ../shared/tools/astra-sim/build.sh builds ASTRA-sim
// (about 7 minutes the first time, reused afterwards) and run.sh replays what Linkscope wrote. Every
// rank must finish and the simulator exit 0; the simulated ÷ measured ratio per rank is printed and
// asserted only loosely (0.5–2: the ±5 % target belongs to bench/astrasim.sh). Skipped when the
// folder is absent, as on a plain clone.
//
// Jobs whose ranks issue one collective type on two comm groups smaller than the world (tensor- and
// data-parallel groups) replay on the simulator with tests/astrasim/*.patch applied
// (fixed-simulator.sh): the stock 518bd51 double-frees when it exits and aborts after every rank
// finished (docs/astra-sim-export.md).

#include "astrasimrun.h"
#include "testsupport.h"

#include "astrasimjobs.h"

#include "export/chakra/etcheck.h"
#include "export/exporter.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "jobmodel/processgroups.h"
#include "link/linker.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <fstream>
#include <map>

using namespace linkscope::core;

namespace {

// Where fixed-simulator.sh puts the patched simulator (an ASTRA_SIM_HOME for run.sh).
QString fixedSimulatorHome() { return QString::fromStdString(linkscope::test::paths::astraSimFixedHome()); }

enum class Simulator { Stock, Fixed };

struct Rank {
    std::string host, kineto;
};

using SimRun = linkscope::test::AstraSimRun;

// run.sh PREFIX NPUS LOGDIR [--comm-groups FILE] on the stock or the fixed simulator.
SimRun runSimulator(const std::string &prefix, std::size_t npus, const QString &logDir, const std::string &commGroups,
                    Simulator simulator)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (simulator == Simulator::Fixed)
        env.insert(QStringLiteral("ASTRA_SIM_HOME"), fixedSimulatorHome());
    QStringList options;
    if (!commGroups.empty())
        options << QStringLiteral("--comm-groups") << QString::fromStdString(commGroups);
    return linkscope::test::runAstraSim(QString::fromStdString(prefix), static_cast<int>(npus), logDir, options, env);
}

struct Replayed {
    SimRun run;
    std::vector<double> measuredNs;
    EtCheckResult check;
    QString checkLog; // the check's findings when it failed
};

// Exports every rank with the astra-sim target as PREFIX.R.et, checks them, replays them.
Replayed exportAndReplay(const std::vector<Rank> &ranks, const QTemporaryDir &dir, const QString &name,
                         const std::string &commGroups = {}, Simulator simulator = Simulator::Stock)
{
    Replayed out;
    const std::string prefix = dir.filePath(name).toStdString();
    std::vector<std::string> files;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        HostTrace host = readHostTrace(ranks[r].host);
        DeviceTrace device = readKinetoTrace(ranks[r].kineto);
        LinkSet links = linkTraces(device, &host, {});
        ExportRequest request;
        request.outputs["et"] = prefix + "." + std::to_string(r) + ".et";
        request.chakra.target = EtTarget::AstraSim;
        const ExportReport report = exportLinkedPair(host, device, links, request);
        out.measuredNs.push_back(static_cast<double>(report.chakra.measuredNs()));
        files.push_back(request.path("et"));
    }
    out.check = checkEtFiles(files, commGroups);
    if (!out.check.ok())
        out.checkLog = "linkscope check: " + QString::fromStdString(out.check.toJson().dump(1)) + "\n";
    out.run = runSimulator(prefix, ranks.size(), dir.filePath(name + "_log"), commGroups, simulator);
    return out;
}

// A linkscope-gen job: its comm group file built from the ranks' declarations (jobmodel/processgroups.h),
// without group 0 (every rank already; the simulator asserts on id 0), then exportAndReplay.
Replayed replayGeneratedJob(const linkscope::gen::GeneratorOptions &options, const QTemporaryDir &dir, const QString &name,
                            Simulator simulator)
{
    linkscope::gen::generateJob(options, dir.path().toStdString());
    std::vector<Rank> ranks;
    std::map<std::int64_t, std::vector<job::ProcessGroup>> declared;
    for (int r = 0; r < options.worldSize; ++r) {
        ranks.push_back({dir.filePath(QString("host_%1.json").arg(r)).toStdString(),
                         dir.filePath(QString("kineto_%1.json").arg(r)).toStdString()});
        declared[r] = job::processGroupsFromKineto(readKinetoTrace(ranks.back().kineto));
    }
    std::vector<job::ProcessGroup> groups = job::mergeJobGroups(declared);
    std::erase_if(groups, [](const job::ProcessGroup &g) { return job::processGroupId(g.name) == 0; });
    const std::string commGroups = dir.filePath("comm_group.json").toStdString();
    job::writeCommGroupFile(commGroups, groups);
    return exportAndReplay(ranks, dir, name, commGroups, simulator);
}

bool hasRule(const EtCheckResult &r, const std::string &rule)
{
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const EtCheckFinding &f) { return f.rule == rule; });
}

// Every rank finished and the simulator exited cleanly (not only "every rank finished": the stock
// simulator's double free comes after the last "finished" line).
void verifyCleanRun(const SimRun &run, std::size_t ranks, const char *what)
{
    QVERIFY2(run.simulatedNs.size() == ranks, qPrintable(QString::fromUtf8(what) + ": " + run.log.right(3000)));
    QVERIFY2(run.cleanExit, qPrintable(QString::fromUtf8(what) + ": the simulator's " + run.exit
                                       + " after every rank finished: " + run.log.right(3000)));
}

void verifyEveryRankFinishes(const Replayed &replay, std::size_t ranks, const char *what)
{
    QVERIFY2(replay.check.ok(), qPrintable(replay.checkLog.left(3000)));
    verifyCleanRun(replay.run, ranks, what);
    for (std::size_t r = 0; r < ranks; ++r) {
        const double simulated = replay.run.simulatedNs.at(static_cast<int>(r));
        const double ratio = simulated / replay.measuredNs[r];
        qInfo("%s rank %zu: simulated %.3f ms, measured %.3f ms, ratio %.3f", what, r, simulated / 1e6,
              replay.measuredNs[r] / 1e6, ratio);
        QVERIFY2(ratio > 0.5 && ratio < 2.0, what);
    }
}

} // namespace

class TestAstraSimReplay : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!QFileInfo::exists(linkscope::test::astraSimDir() + "/build.sh"))
            QSKIP(qPrintable("ASTRA-sim not present (" + linkscope::test::astraSimDir()
                             + "/build.sh): the replay tests need ../shared/tools/astra-sim"));
        QProcess build;
        build.setProcessChannelMode(QProcess::MergedChannels);
        build.start(QStringLiteral("bash"), {linkscope::test::astraSimDir() + "/build.sh"});
        QVERIFY(build.waitForFinished(40 * 60 * 1000));
        const QString log = QString::fromUtf8(build.readAll());
        QVERIFY2(build.exitCode() == 0, qPrintable(log.right(3000)));
        const QString binary = log.trimmed().split('\n').last();
        QVERIFY2(QFileInfo(binary).isExecutable(), qPrintable(binary));
        // The same simulator with tests/astrasim/*.patch (about a minute the first time).
        QProcess fix;
        fix.setProcessChannelMode(QProcess::MergedChannels);
        fix.start(QStringLiteral("bash"),
                  {QString::fromStdString(linkscope::test::sourcePath("tests/astrasim/fixed-simulator.sh")),
                   linkscope::test::astraSimDir(), fixedSimulatorHome()});
        QVERIFY(fix.waitForFinished(40 * 60 * 1000));
        const QString fixLog = QString::fromUtf8(fix.readAll());
        QVERIFY2(fix.exitStatus() == QProcess::NormalExit && fix.exitCode() == 0, qPrintable(fixLog.right(3000)));
    }

    void megatron8Ranks()
    {
        std::vector<Rank> ranks;
        for (int r = 0; r < 8; ++r) {
            const std::string et = "astrasim_megatron_tp8_8rank_pair/megatron_et_" + std::to_string(r) + ".json.gz";
            const std::string kineto = "astrasim_megatron_tp8_8rank_pair/megatron_kineto_" + std::to_string(r) + ".json.gz";
            LINKSCOPE_REQUIRE_TRACES(et, kineto);
            ranks.push_back({linkscope::test::tracePath(et), linkscope::test::tracePath(kineto)});
        }
        QTemporaryDir dir;
        const Replayed replay = exportAndReplay(ranks, dir, "megatron");
        verifyEveryRankFinishes(replay, ranks.size(), "megatron");
    }

    // The sample is one rank of an 8-rank job (its distributedInfo): replayed as that job, every rank
    // the sample (the analytical network needs more than one NPU).
    void bundledSample()
    {
        QTemporaryDir dir;
        const Rank sample{linkscope::test::sourcePath("resources/samples/sample_host_et.json"),
                          linkscope::test::sourcePath("resources/samples/sample_kineto.json")};
        const Replayed replay = exportAndReplay(std::vector<Rank>(8, sample), dir, "sample");
        verifyEveryRankFinishes(replay, 8, "sample");
    }

    // A generated 8-rank job (linkscope-gen --ranks 8 --target-events 20000 --seed 3: 52 steps):
    // ProfilerStep#N wrappers, process_group:init nodes, tensor- and data-parallel groups, send/recv
    // pairs. Every rank issues all-reduces on its tensor- and its data-parallel group, the shape the
    // stock simulator double-frees on at exit: `check` warns, and the fixed simulator must exit 0.
    void generatedJob()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options;
        options.seed = 3;
        options.targetKinetoEvents = 20000;
        options.worldSize = 8;
        const Replayed replay = replayGeneratedJob(options, dir, "generated", Simulator::Fixed);
        QVERIFY2(hasRule(replay.check, "astra_sim_exit_double_free"), replay.check.toJson().dump(1).c_str());
        verifyEveryRankFinishes(replay, options.worldSize, "generated");
    }

    // Tensor parallel over all 8 ranks: the data-parallel groups have one rank each, and their
    // all-reduces (which ASTRA-sim never completes) are replayed as compute; no group smaller than
    // the world runs a collective, so the stock simulator must run it to a clean exit.
    void oneRankGroups()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options;
        options.seed = 3;
        options.steps = 6;
        options.worldSize = 8;
        options.tensorParallel = 8;
        const Replayed replay = replayGeneratedJob(options, dir, "tp8", Simulator::Stock);
        QVERIFY(!hasRule(replay.check, "astra_sim_exit_double_free"));
        verifyEveryRankFinishes(replay, options.worldSize, "tp8");
    }

    // The smallest job of that shape (tests/astrasimjobs.h: 4 ranks, two all-reduces each, on a
    // tensor- and a data-parallel group). The fixed simulator runs it to a clean exit, as the stock
    // one does when the second collective is an all-gather (each implementation is freed once); what
    // the stock simulator does with the all-reduce pair is printed (docs/astra-sim-export.md).
    void exitDoubleFree()
    {
        QTemporaryDir dir;
        const auto job = linkscope::test::writeTwoGroupJob(dir.path().toStdString());
        const SimRun fixed = runSimulator(job.prefix, 4, dir.filePath("fixed_log"), job.commGroups, Simulator::Fixed);
        verifyCleanRun(fixed, 4, "two all-reduce groups, fixed simulator");
        const SimRun stock = runSimulator(job.prefix, 4, dir.filePath("stock_log"), job.commGroups, Simulator::Stock);
        qInfo("two all-reduce groups, stock simulator: %d rank(s) finished, %s", static_cast<int>(stock.simulatedNs.size()),
              qPrintable(stock.exit));
        QTemporaryDir other;
        const auto allGather = linkscope::test::writeTwoGroupJob(other.path().toStdString(), ChakraProtoMsg::ALL_GATHER);
        verifyCleanRun(runSimulator(allGather.prefix, 4, other.filePath("stock_log"), allGather.commGroups, Simulator::Stock), 4,
                       "all-reduce then all-gather, stock simulator");
    }
};

QTEST_GUILESS_MAIN(TestAstraSimReplay)
#include "test_astrasim_replay.moc"
