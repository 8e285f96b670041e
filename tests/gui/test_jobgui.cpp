// The job in the GUI: a generated 8-rank job with one injected fault and a straggler opens in the job
// dock; the overview shows a row per rank, the fault's finding names its rank, selecting it frames
// that collective on every rank; clicking a collective matches it across ranks with its skew;
// double-clicking a rank opens its full lanes; the GUI's job export equals `linkscope job`'s output
// byte for byte.

#include "commands/commands.h"
#include "docks/detailsdock.h"
#include "docks/findingsdock.h"
#include "edit/sidecar.h"
#include "gen/tracegenerator.h"
#include "ground/eventselection.h"
#include "jobview/jobdock.h"
#include "jobview/joboverview.h"
#include "jobview/rankpanes.h"
#include "pipeline/pairpipeline.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <QUndoStack>

#include <nlohmann/json.hpp>

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

// A JSON output without what tells one run from another (job/runid.h: the run's id and start, and
// the written .et's size and mtime), which differ between two runs by design.
std::string withoutRunId(const std::string &name, const std::string &bytes)
{
    if (!name.ends_with(".json") || name == "comm_group.json")
        return bytes;
    nlohmann::json j = nlohmann::json::parse(bytes);
    j.erase("job_run");
    if (j.contains("run") && j["run"].is_object()) {
        j["run"].erase("job_run");
        j["run"].erase("et_written");
    }
    return j.dump();
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
        const qint64 wholeSpan = overview->viewState()->viewEnd() - overview->viewState()->viewStart();
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
            QVERIFY(span->first >= overview->viewState()->viewStart() && span->second <= overview->viewState()->viewEnd());
            lo = std::min(lo, span->first);
            hi = std::max(hi, span->second);
        }
        const qint64 viewSpan = overview->viewState()->viewEnd() - overview->viewState()->viewStart();
        QVERIFY(viewSpan < wholeSpan);
        QVERIFY(viewSpan <= 2 * std::max<qint64>(hi - lo, 1000));
        QVERIFY(overview->selectionText().contains(QStringLiteral("#1 in group 5")));
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobgui_finding.png"));
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
        const double npp = double(overview->viewState()->viewEnd() - overview->viewState()->viewStart())
                           / (overview->width() - JobOverview::kHeaderWidth);
        const int x = JobOverview::kHeaderWidth
                      + int(double((span->first + span->second) / 2 - overview->viewState()->viewStart()) / npp);
        QSignalSpy selected(overview, &JobOverview::collectiveSelected);
        QTest::mouseClick(overview, Qt::LeftButton, {}, QPoint(x, row.top() + 4));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(overview->selection()->group, QStringLiteral("0"));
        QCOMPARE(overview->selection()->index, qint64(0));
        QVERIFY2(overview->selectionText().contains(QStringLiteral("arrival skew")), qPrintable(overview->selectionText()));
        QVERIFY(overview->selectionText().contains(QStringLiteral("on 8 ranks")));
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobgui_overview.png"));
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
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobgui_drillin.png"));
    }

    void crossRankFindingsAreInTheFindingsDockAndNameTheRank()
    {
        // The main window shows rank 5 (previous case): the Findings dock lists the job's finding
        // above rank 5's own, and Details names the rank of every event.
        FindingsDock *findings = m_window->review()->findingsDock();
        JobFindingsList *list = findings->jobFindings();
        QVERIFY(list->isVisibleTo(findings));
        QCOMPARE(list->findingCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(1), QStringLiteral("missing_collective"));
        QCOMPARE(list->topLevelItem(0)->text(4), QStringLiteral("6"));
        QVERIFY(list->summary().contains(QStringLiteral("1 error")));
        JobDock *dock = m_window->jobDock();
        dock->overview()->clearSelection();
        list->setCurrentFinding(-1);
        list->setCurrentItem(list->topLevelItem(0)); // as a click does
        QVERIFY(dock->overview()->selection());
        QCOMPARE(dock->overview()->selection()->group, QStringLiteral("5"));
        QCOMPARE(dock->overview()->selection()->index, qint64(1));
        QCOMPARE(dock->findingsList()->currentFinding(), 0);
        // And back: the job dock's list moves the Findings dock's.
        list->setCurrentFinding(-1);
        dock->selectFinding(0);
        QCOMPARE(list->currentFinding(), 0);
        m_window->selection()->select(core::EventIndex(0));
        QVERIFY2(m_window->detailsDock()->html().contains(QStringLiteral("Rank 5 of the job")),
                 qPrintable(m_window->detailsDock()->html().left(400)));
        QVERIFY(m_window->windowTitle().startsWith(QStringLiteral("Rank 5")));
        QVERIFY(m_window->rankPanes()->mainTitle()->text().contains(QStringLiteral("Rank 5")));
    }

    void severalRanksSideBySideOnTheAlignedClock()
    {
        RankPanes *panes = m_window->rankPanes();
        JobDock *dock = m_window->jobDock();
        QCOMPARE(panes->mainRank(), qint64(5));
        // A collective of a group rank 5 is in, and two other members of it to show beside.
        const auto &report = dock->job()->report;
        QString group;
        std::vector<std::pair<std::int64_t, std::size_t>> calls;
        for (const auto &g : report.groups) {
            const auto at = report.callsAt(g.name, 1);
            if (at.size() >= 3 && std::any_of(at.begin(), at.end(), [](const auto &c) { return c.first == 5; })) {
                group = QString::fromStdString(g.name);
                calls = at;
                break;
            }
        }
        QVERIFY(!group.isEmpty());
        std::vector<qint64> beside;
        for (const auto &c : calls)
            if (c.first != 5 && beside.size() < 2)
                beside.push_back(c.first);
        const qint64 a = beside[0], b = beside[1];
        dock->requestBeside(a);
        dock->requestBeside(b);
        dock->requestBeside(5); // the main rank: no pane
        QCOMPARE(int(panes->panes().size()), 2);
        for (qint64 r : beside) {
            RankPane *pane = panes->pane(r);
            QVERIFY(pane);
            if (!pane->isLoaded()) {
                QSignalSpy loaded(pane, &RankPane::loaded);
                QVERIFY(loaded.wait(60000));
            }
            QVERIFY(pane->view()->document());
            QVERIFY(pane->view()->document()->devicePath().contains(QStringLiteral("_%1").arg(r)));
            QVERIFY(pane->titleText().contains(QStringLiteral("Rank %1").arg(r)));
            QVERIFY(pane->view()->document()->counts().gpuOps > 0);
            // No overview strip of its own: its height goes to the lanes, below its ruler.
            QCOMPARE(pane->view()->overviewHeight(), 0);
            QCOMPARE(pane->view()->contentRect().top(), TimelineView::kRulerHeight);
        }
        // The main rank (the one the docks act on) keeps half the height, the panes share the rest.
        for (qint64 r : beside)
            QVERIFY2(m_window->timeline()->height() >= 3 * panes->pane(r)->view()->height() / 2,
                     qPrintable(QStringLiteral("main lanes %1 px, rank %2's %3 px")
                                    .arg(m_window->timeline()->height())
                                    .arg(r)
                                    .arg(panes->pane(r)->view()->height())));
        // A collective picked in the overview is framed in every rank's lanes: each view holds that
        // rank's launch and kernel of it, and is not the whole trace.
        dock->overview()->selectCollective(group, 1, true);
        auto viewOf = [&](qint64 rank) { return rank == 5 ? m_window->timeline() : panes->pane(rank)->view(); };
        for (const auto &[rank, call] : calls) {
            if (rank != a && rank != b && rank != 5)
                continue;
            const core::job::CollectiveCall &c = report.rank(rank)->calls[call];
            TimelineView *v = viewOf(rank);
            const core::Nanos base = v->document()->device().baseTimeNs.value_or(0);
            QVERIFY2(c.launchNs - base >= v->state().viewStart() && c.endNs - base <= v->state().viewEnd(),
                     qPrintable(QStringLiteral("rank %1: call %2..%3 not in view %4..%5")
                                    .arg(rank)
                                    .arg(c.launchNs - base)
                                    .arg(c.endNs - base)
                                    .arg(v->state().viewStart())
                                    .arg(v->state().viewEnd())));
            QVERIFY(v->state().viewEnd() - v->state().viewStart() <= 2 * (c.endNs - c.launchNs) + 4 * 1000 * 1000);
        }
        // Panning or zooming one pane moves the others by the same instants.
        TimelineView *main = m_window->timeline();
        main->panByPixels(-120);
        main->zoomAt(0.5, main->contentRect().center().x());
        for (qint64 r : beside) {
            TimelineView *v = panes->pane(r)->view();
            QCOMPARE(v->state().viewStart(), panes->mapTime(5, *main->document(), r, *v->document(), main->state().viewStart()));
            QCOMPARE(v->state().viewEnd(), panes->mapTime(5, *main->document(), r, *v->document(), main->state().viewEnd()));
            QCOMPARE(v->headerWidth(), main->headerWidth());
        }
        TimelineView *vb = panes->pane(b)->view();
        vb->panByPixels(60);
        QCOMPARE(main->state().viewStart(), panes->mapTime(b, *vb->document(), 5, *main->document(), vb->state().viewStart()));
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobgui_beside.png"));

        // "Edit here" swaps rank a in without reading it again; rank 5 keeps its lanes in a's place.
        const DocumentPtr docA = panes->pane(a)->linkedDocument();
        const auto before = panes->referenceView();
        QVERIFY(before);
        QSignalSpy changed(m_window.get(), &MainWindow::documentChanged);
        m_window->editRankHere(a);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(panes->mainRank(), a);
        QVERIFY(m_window->document()->deviceShared() == docA->deviceShared());
        QVERIFY(m_window->windowTitle().startsWith(QStringLiteral("Rank %1").arg(a)));
        QVERIFY(!panes->pane(a));
        QVERIFY(panes->pane(5) && panes->pane(5)->isLoaded());
        QCOMPARE(panes->paneIndex(5), 0);
        QCOMPARE(*panes->referenceView(), *before);
        QCOMPARE(m_window->review()->findingsDock()->jobFindings()->findingCount(), 1);
        // Open rank on a rank shown beside swaps it in as well.
        dock->requestRank(b);
        QCOMPARE(panes->mainRank(), b);
        QVERIFY(!panes->pane(b));
        QVERIFY(panes->pane(a));
        panes->closeAll();
        QTRY_VERIFY(panes->panes().empty());
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
            QVERIFY2(withoutRunId(name, a.at(name)) == withoutRunId(name, bytes), (name + " differs").c_str());
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
            QCOMPARE(
                core::countFindingsByKind(pair.links->findings)[std::size_t(core::FindingKind::NcclParentIsRecordParamComms)],
                std::size_t(0));
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
