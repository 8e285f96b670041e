// The astra-sim .et target on the real simulator: ../shared/tools/astra-sim/build.sh builds ASTRA-sim
// (about 7 minutes the first time, reused afterwards) and run.sh replays what Linkscope wrote. Every
// rank must finish; the simulated ÷ measured ratio per rank is printed and asserted only loosely
// (0.5–2: the ±5 % target belongs to bench/astrasim.sh). Skipped when the folder is absent, as on a
// plain clone.

#include "testsupport.h"

#include "export/etcheck.h"
#include "export/exporter.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "job/processgroups.h"
#include "link/linker.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <fstream>
#include <map>

using namespace linkscope::core;

namespace {

QString astraSimDir()
{
    return QDir(QStringLiteral(LINKSCOPE_ASTRA_SIM_DIR)).absolutePath();
}

struct Rank {
    std::string host, kineto;
};

struct Replayed {
    std::map<int, double> simulatedNs; // rank → cycles
    std::vector<double> measuredNs;
    bool checked = false; // linkscope check passed
    QString log;
};

// Exports every rank with the astra-sim target as PREFIX.R.et, checks them, replays them.
Replayed exportAndReplay(const std::vector<Rank> &ranks, const QTemporaryDir &dir, const QString &name,
                         const std::string &commGroups = {})
{
    Replayed out;
    const std::string prefix = dir.filePath(name).toStdString();
    std::vector<std::string> files;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        HostTrace host = readHostTrace(ranks[r].host);
        DeviceTrace device = readKinetoTrace(ranks[r].kineto);
        LinkSet links = linkTraces(device, &host, {});
        ExportRequest request;
        request.etPath = prefix + "." + std::to_string(r) + ".et";
        request.chakra.target = EtTarget::AstraSim;
        const ExportReport report = exportLinkedPair(host, device, links, request);
        out.measuredNs.push_back(static_cast<double>(report.chakra.measuredNs()));
        files.push_back(request.etPath);
    }
    const EtCheckResult check = checkEtFiles(files, commGroups);
    out.checked = check.ok();
    if (!check.ok())
        out.log = "linkscope check: " + QString::fromStdString(check.toJson().dump(1)) + "\n";
    QProcess run;
    run.setProcessChannelMode(QProcess::MergedChannels);
    QStringList args{astraSimDir() + "/run.sh", QString::fromStdString(prefix), QString::number(ranks.size()), dir.filePath(name + "_log")};
    if (!commGroups.empty())
        args << QStringLiteral("--comm-groups") << QString::fromStdString(commGroups);
    run.start(QStringLiteral("bash"), args);
    run.waitForFinished(30 * 60 * 1000);
    out.log += QString::fromUtf8(run.readAll());
    static const QRegularExpression finished(QStringLiteral("sys\\[(\\d+)\\] finished, (\\d+) cycles"));
    for (auto it = finished.globalMatch(out.log); it.hasNext();) {
        const auto m = it.next();
        out.simulatedNs[m.captured(1).toInt()] = m.captured(2).toDouble();
    }
    return out;
}

void verifyEveryRankFinishes(const Replayed &replay, std::size_t ranks, const char *what)
{
    QVERIFY2(replay.checked, qPrintable(replay.log.left(3000)));
    QVERIFY2(replay.simulatedNs.size() == ranks, qPrintable(QString::fromUtf8(what) + ": " + replay.log.right(3000)));
    for (std::size_t r = 0; r < ranks; ++r) {
        const double ratio = replay.simulatedNs.at(static_cast<int>(r)) / replay.measuredNs[r];
        qInfo("%s rank %zu: simulated %.3f ms, measured %.3f ms, ratio %.3f", what, r, replay.simulatedNs.at(static_cast<int>(r)) / 1e6,
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
        if (!QFileInfo::exists(astraSimDir() + "/build.sh"))
            QSKIP(qPrintable("ASTRA-sim not present (" + astraSimDir() + "/build.sh): the replay tests need ../shared/tools/astra-sim"));
        QProcess build;
        build.setProcessChannelMode(QProcess::MergedChannels);
        build.start(QStringLiteral("bash"), {astraSimDir() + "/build.sh"});
        QVERIFY(build.waitForFinished(40 * 60 * 1000));
        const QString log = QString::fromUtf8(build.readAll());
        QVERIFY2(build.exitCode() == 0, qPrintable(log.right(3000)));
        const QString binary = log.trimmed().split('\n').last();
        QVERIFY2(QFileInfo(binary).isExecutable(), qPrintable(binary));
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

    // A generated 8-rank job (linkscope-gen --ranks): ProfilerStep#N wrappers, process_group:init
    // nodes, tensor- and data-parallel groups, send/recv pairs. Groups go to the simulator in a comm
    // group file built from the ranks' declarations (job/processgroups.h), without group 0 (every
    // rank already; the simulator asserts on id 0).
    void generatedJob()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options;
        options.seed = 5;
        options.steps = 3;
        options.worldSize = 8;
        linkscope::gen::generateJob(options, dir.path().toStdString());
        std::vector<Rank> ranks;
        std::map<std::int64_t, std::vector<job::ProcessGroup>> declared;
        for (int r = 0; r < options.worldSize; ++r) {
            ranks.push_back({dir.filePath(QString("host_%1.json").arg(r)).toStdString(),
                             dir.filePath(QString("kineto_%1.json").arg(r)).toStdString()});
            declared[r] = job::processGroupsFromKineto(readKinetoTrace(ranks.back().kineto));
        }
        std::vector<job::ProcessGroup> groups = job::mergeJobGroups(declared);
        QVERIFY(groups.size() > 1);
        std::erase_if(groups, [](const job::ProcessGroup &g) { return job::processGroupId(g.name) == 0; });
        const std::string commGroups = dir.filePath("comm_group.json").toStdString();
        job::writeCommGroupFile(commGroups, groups);
        const Replayed replay = exportAndReplay(ranks, dir, "generated", commGroups);
        verifyEveryRankFinishes(replay, ranks.size(), "generated");
    }
};

QTEST_GUILESS_MAIN(TestAstraSimReplay)
#include "test_astrasim_replay.moc"
