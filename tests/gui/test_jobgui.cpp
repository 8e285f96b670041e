// The job in the GUI: a generated 8-rank job with one injected fault and a straggler opens in the job
// dock; the overview shows a row per rank, the fault's finding names its rank, selecting it frames
// that collective on every rank; clicking a collective matches it across ranks with its skew;
// double-clicking a rank opens its full lanes; the GUI's job export equals `linkscope job`'s output
// byte for byte.

#include "commands/commands.h"
#include "edit/sidecar.h"
#include "pipeline/pairpipeline.h"
#include "gen/tracegenerator.h"
#include "jobdock.h"
#include "joboverview.h"
#include "mainwindow.h"
#include "testsupport.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <QUndoStack>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

namespace {

std::string generatedJob(const QTemporaryDir &dir)
{
    gen::GeneratorOptions o;
    o.seed = 17;
    o.steps = 2;
    o.layers = 3;
    o.worldSize = 8;
    o.straggler = 3;
    gen::GeneratorFault f;
    if (!gen::parseFault("skip:6:5:1", f))
        return {};
    o.faults.push_back(f);
    const std::string path = (fs::path(dir.path().toStdString()) / "job").string();
    gen::generateJob(o, path, false, 2);
    return path;
}

std::map<std::string, std::string> filesIn(const std::string &dir)
{
    std::map<std::string, std::string> out;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            out[e.path().filename().string()] = test::readFile(e.path().string());
    return out;
}

} // namespace

class TestJobGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_job = generatedJob(m_dir);
        QVERIFY(!m_job.empty());
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->openJob(QString::fromStdString(m_job));
        QSignalSpy opened(m_window->jobDock(), &JobDock::jobOpened);
        QVERIFY(opened.wait(60000));
    }

    void overviewHasARowPerRank()
    {
        JobDock *dock = m_window->jobDock();
        QVERIFY(dock->job());
        QCOMPARE(dock->overview()->rowCount(), 8);
        for (qint64 r = 0; r < 8; ++r)
            QVERIFY2(dock->overview()->rowRect(r).isValid(), qPrintable(QStringLiteral("rank %1 not shown").arg(r)));
        QVERIFY(dock->summaryText().contains(QStringLiteral("8 ranks")));
        // The generator's straggler is tinted, no other rank is.
        QCOMPARE(dock->overview()->stragglers(), (std::set<qint64>{3}));
        QVERIFY(dock->summaryText().contains(QStringLiteral("rank 3")));
    }

    void theFaultsFindingNamesItsRankAndFramesTheCollective()
    {
        JobDock *dock = m_window->jobDock();
        QTreeWidget *list = dock->findingsList();
        QCOMPARE(list->topLevelItemCount(), 1);
        QTreeWidgetItem *item = list->topLevelItem(0);
        QCOMPARE(item->text(1), QStringLiteral("missing_collective"));
        QCOMPARE(item->text(4), QStringLiteral("6"));
        QCOMPARE(item->text(2), QStringLiteral("5"));
        QCOMPARE(item->text(3), QStringLiteral("1"));
        JobOverview *overview = dock->overview();
        overview->frameAll();
        const qint64 wholeSpan = overview->viewEnd() - overview->viewStart();
        dock->selectFinding(0);
        QVERIFY(overview->selection());
        QCOMPARE(overview->selection()->group, QStringLiteral("5"));
        QCOMPARE(overview->selection()->index, qint64(1));
        QCOMPARE(dock->currentRank(), qint64(6));
        // Framed: every member's call of that collective is inside the view, and the view is the
        // collective's extent with a margin, not the whole job.
        const auto calls = dock->job()->report.callsAt("5", 1);
        QVERIFY(calls.size() >= 2);
        qint64 lo = std::numeric_limits<qint64>::max(), hi = std::numeric_limits<qint64>::min();
        for (const auto &[rank, call] : calls) {
            QVERIFY(rank != 6);
            const auto span = overview->alignedCall(rank, call);
            QVERIFY(span);
            QVERIFY(span->first >= overview->viewStart() && span->second <= overview->viewEnd());
            lo = std::min(lo, span->first);
            hi = std::max(hi, span->second);
        }
        const qint64 viewSpan = overview->viewEnd() - overview->viewStart();
        QVERIFY(viewSpan < wholeSpan);
        QVERIFY(viewSpan <= 2 * std::max<qint64>(hi - lo, 1000));
        QVERIFY(overview->selectionText().contains(QStringLiteral("#1 in group 5")));
        m_window->grab().toImage().save(QStringLiteral(LINKSCOPE_BINARY_DIR "/test_jobgui_finding.png"));
    }

    void clickingACollectiveMatchesItAcrossRanks()
    {
        JobOverview *overview = m_window->jobDock()->overview();
        overview->clearSelection();
        overview->frameAll();
        const auto &report = m_window->jobDock()->job()->report;
        // Rank 0's first collective on the default group, clicked where it is drawn.
        const auto calls = report.callsAt("0", 0);
        QVERIFY(!calls.empty());
        const auto [rank, call] = calls.front();
        const auto span = overview->alignedCall(rank, call);
        QVERIFY(span);
        overview->frameRange(span->first, span->second);
        const QRect row = overview->rowRect(rank);
        QVERIFY(row.isValid());
        const double npp = double(overview->viewEnd() - overview->viewStart()) / (overview->width() - JobOverview::kHeaderWidth);
        const int x = JobOverview::kHeaderWidth + int(double((span->first + span->second) / 2 - overview->viewStart()) / npp);
        QSignalSpy selected(overview, &JobOverview::collectiveSelected);
        QTest::mouseClick(overview, Qt::LeftButton, {}, QPoint(x, row.top() + 4));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(overview->selection()->group, QStringLiteral("0"));
        QCOMPARE(overview->selection()->index, qint64(0));
        QVERIFY2(overview->selectionText().contains(QStringLiteral("arrival skew")), qPrintable(overview->selectionText()));
        QVERIFY(overview->selectionText().contains(QStringLiteral("on 8 ranks")));
        m_window->grab().toImage().save(QStringLiteral(LINKSCOPE_BINARY_DIR "/test_jobgui_overview.png"));
    }

    void doubleClickOpensTheRanksLanes()
    {
        JobOverview *overview = m_window->jobDock()->overview();
        overview->frameAll();
        const QRect row = overview->rowRect(5);
        QVERIFY(row.isValid());
        QSignalSpy loaded(m_window.get(), &MainWindow::documentChanged);
        QTest::mouseDClick(overview, Qt::LeftButton, {}, QPoint(20, row.center().y()));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document());
        QVERIFY2(m_window->windowTitle().contains(QStringLiteral("_5")), qPrintable(m_window->windowTitle()));
        QCOMPARE(overview->openRank(), qint64(5));
        m_window->grab().toImage().save(QStringLiteral(LINKSCOPE_BINARY_DIR "/test_jobgui_drillin.png"));
    }

    void guiExportEqualsTheJobCommand()
    {
        const std::string gui = m_dir.path().toStdString() + "/gui-out";
        const std::string cli = m_dir.path().toStdString() + "/cli-out";
        JobDock *dock = m_window->jobDock();
        QSignalSpy exported(dock, &JobDock::exported);
        dock->exportTo(QString::fromStdString(gui));
        QVERIFY(exported.wait(120000));
        std::ostringstream out, err;
        QCOMPARE(cli::runJob({m_job, "--out", cli}, out, err), 0);
        const auto a = filesIn(gui), b = filesIn(cli);
        QCOMPARE(a.size(), b.size());
        QVERIFY(a.count("comm_group.json") && a.count("job-report.json") && a.count("trace.0.et"));
        for (const auto &[name, bytes] : b) {
            QVERIFY2(a.count(name), name.c_str());
            QVERIFY2(a.at(name) == bytes, (name + " differs").c_str());
        }
    }

    void fixAcrossRanksIsOneUndoableStep()
    {
        // Under the external-id rule NCCL kernels land on record_param_comms on every rank.
        QTemporaryDir dir;
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 1;
        o.layers = 2;
        o.worldSize = 4;
        const std::string job = (fs::path(dir.path().toStdString()) / "job").string();
        gen::generateJob(o, job, false, 2);
        JobDock *dock = m_window->jobDock();
        QSignalSpy opened(dock, &JobDock::jobOpened);
        dock->open(QString::fromStdString(job), core::Policy::ExternalId);
        QVERIFY(opened.wait(60000));
        const std::string kind = "nccl_parent_is_record_param_comms";
        auto counts = [&] {
            std::map<qint64, std::size_t> out;
            for (const auto &r : dock->job()->report.ranks)
                out[r.rank] = r.findings.count(kind) ? r.findings.at(kind) : 0;
            return out;
        };
        const auto before = counts();
        QCOMPARE(before.size(), std::size_t(4));
        for (const auto &[rank, n] : before)
            QVERIFY2(n > 0, qPrintable(QStringLiteral("rank %1 has no NCCL finding").arg(rank)));

        QSignalSpy changed(dock, &JobDock::sidecarsChanged);
        dock->fixAcrossRanks(core::FindingKind::NcclParentIsRecordParamComms);
        QVERIFY(changed.wait(60000));
        QCOMPARE(dock->undoStack()->count(), 1);
        QCOMPARE(changed.last().at(0).value<QList<qint64>>().size(), 4);
        std::map<qint64, std::string> written;
        for (const auto &r : dock->job()->layout.ranks) {
            const std::string sidecar = core::defaultSidecarPath(r.device);
            QVERIFY2(fs::exists(sidecar), sidecar.c_str());
            written[r.rank] = test::readFile(sidecar);
            // The rank reopened with its own sidecar has no such finding left.
            core::PairRequest request;
            request.files = {r.host, r.device};
            request.link.policy = core::Policy::ExternalId;
            request.sidecar = sidecar;
            const core::OpenedPair pair = core::openPair(request);
            QVERIFY(pair.sidecarApplied);
            QCOMPARE(core::countFindingsByKind(pair.links->findings)[std::size_t(core::FindingKind::NcclParentIsRecordParamComms)], std::size_t(0));
        }
        for (const auto &[rank, n] : counts())
            QCOMPARE(n, std::size_t(0));

        // One step undoes every rank: the sidecars the fix created are gone, the counts are back.
        dock->undoStack()->undo();
        for (const auto &r : dock->job()->layout.ranks)
            QVERIFY(!fs::exists(core::defaultSidecarPath(r.device)));
        QCOMPARE(counts(), before);
        dock->undoStack()->redo();
        for (const auto &r : dock->job()->layout.ranks)
            QCOMPARE(test::readFile(core::defaultSidecarPath(r.device)), written[r.rank]);
        for (const auto &[rank, n] : counts())
            QCOMPARE(n, std::size_t(0));
        // A sidecar changed behind the step's back is left alone by the undo.
        const std::string touched = core::defaultSidecarPath(dock->job()->layout.ranks.front().device);
        {
            std::ofstream(touched, std::ios::app) << " ";
        }
        const std::string edited = test::readFile(touched);
        QSignalSpy undone(dock, &JobDock::sidecarsChanged);
        dock->undoStack()->undo();
        QCOMPARE(undone.count(), 1);
        QVERIFY(undone.last().at(1).toString().contains(QStringLiteral("changed since")));
        QCOMPARE(test::readFile(touched), edited);
        for (std::size_t i = 1; i < dock->job()->layout.ranks.size(); ++i)
            QVERIFY(!fs::exists(core::defaultSidecarPath(dock->job()->layout.ranks[i].device)));
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    QTemporaryDir m_dir;
    std::string m_job;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestJobGui)
#include "test_jobgui.moc"
