// The job's prediction in the GUI (docs/prediction.md): a generated 4-rank job opens, its prediction
// runs in the background and arrives in the job dock with each rank's step equal to a direct
// exportJobGraph + predict of the same ranks; in critical-path mode the overview draws the slowest
// rank's path across the rows its steps are on, collectives at their measured kernels; a rank
// clicked in the list gets its path drawn; turning the mode off removes it.

#include "gen/tracegenerator.h"
#include "jobview/jobdock.h"
#include "jobview/joboverview.h"
#include "prediction/jobpredictionpanel.h"
#include "prediction/opportunitiesview.h"
#include "prediction/predictdock.h"
#include "prediction/whatifdiffview.h"
#include "prediction/whatifpanel.h"
#include "shell/mainwindow.h"
#include "testsupport.h"

#include "predict/jobgraph.h"
#include "predict/opportunities.h"
#include "predict/prediction.h"

#include <QAction>
#include <QElapsedTimer>
#include <QLocale>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <algorithm>
#include <filesystem>

using namespace linkscope;
using namespace linkscope::ui;
namespace predict = linkscope::core::predict;
namespace fs = std::filesystem;

namespace {

QString msText(std::int64_t ns) { return QLocale().toString(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

} // namespace

class TestJobPath : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.worldSize = 4;
        m_job = (fs::path(m_dir.path().toStdString()) / "job").string();
        gen::generateJob(o, m_job, false, 2);
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1600, 1000);
        m_window->predictDock()->criticalPathAction()->setChecked(true);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QElapsedTimer clock;
        clock.start();
        m_window->openJob(QString::fromStdString(m_job));
        QSignalSpy opened(m_window->jobDock(), &JobDock::jobOpened);
        QVERIFY(opened.wait(60000));
        // Opened before it is predicted: the prediction comes in the background.
        JobPredictor *predictor = m_window->jobDock()->predictor();
        QVERIFY(predictor->running());
        QVERIFY(!predictor->prediction());
        QVERIFY(m_window->jobDock()->predictionPanel()->statusText().contains(QStringLiteral("Predicting")));
        QTRY_VERIFY_WITH_TIMEOUT(predictor->prediction() != nullptr || !predictor->error().isEmpty(), 180000);
        QVERIFY2(predictor->prediction(), qPrintable(predictor->error()));
        qInfo("job predicted %.2f s after it opened: export + fit + load %.1f ms, predict %.1f ms", clock.elapsed() / 1000.0,
              predictor->prediction()->buildMs, predictor->prediction()->predictMs);
    }

    void eachRanksStepIsTheDirectPrediction()
    {
        JobDock *dock = m_window->jobDock();
        const JobPredictionPtr shown = dock->predictor()->prediction();
        // What the GUI promises: exportJobGraph of the ranks the loader found, the astra-sim target,
        // one worker, then predict without a what-if.
        core::job::JobOptions options;
        options.jobs = 1;
        const predict::JobGraph graph = predict::exportJobGraph(dock->job()->layout.ranks, dock->job()->layout.worldSize,
                                                                options);
        const predict::Prediction direct = predict::predict(graph.job, {});
        QCOMPARE(direct.ranks.size(), std::size_t(4));
        QCOMPARE(shown->prediction.ranks.size(), direct.ranks.size());
        QCOMPARE(dock->predictionPanel()->list()->topLevelItemCount(), 4);
        std::int64_t slowest = -1, slowestNs = -1, slowestWait = 0;
        for (const predict::RankPrediction &r : direct.ranks) {
            QVERIFY(r.finished);
            QVERIFY(r.stepNs > 0);
            const int i = shown->indexOf(r.rank);
            QVERIFY(i >= 0);
            QCOMPARE(shown->prediction.ranks[std::size_t(i)].stepNs, r.stepNs);
            QCOMPARE(shown->prediction.ranks[std::size_t(i)].path.breakdown.total(), r.stepNs);
            QCOMPARE(dock->predictionPanel()->stepText(r.rank), msText(r.stepNs));
            // The longest step; of equal ones, the rank that waited least for the others.
            if (r.stepNs > slowestNs || (r.stepNs == slowestNs && r.path.breakdown.otherRankNs < slowestWait)) {
                slowest = r.rank;
                slowestNs = r.stepNs;
                slowestWait = r.path.breakdown.otherRankNs;
            }
        }
        QCOMPARE(shown->slowestRank(), slowest);
        QVERIFY2(dock->predictionPanel()->statusText().contains(msText(slowestNs)),
                 qPrintable(dock->predictionPanel()->statusText()));
        QCOMPARE(QString::fromStdString(shown->graph.networkSource), QString::fromStdString(graph.networkSource));
    }

    // The job is the unit: the what-if under the list replays the job's graph, every rank with its
    // collectives joined, so a delayed rank holds back the ranks that meet it; each rank's step under
    // it is the direct prediction's. A rank the job does not have is named as such.
    void aWhatIfActsOnTheWholeJob()
    {
        JobDock *dock = m_window->jobDock();
        JobPredictionPanel *panel = dock->predictionPanel();
        const JobPredictionPtr p = dock->predictor()->prediction();
        WhatIfPanel *whatIf = panel->whatIf();
        // With a job open, the what-if is the Prediction dock's: the job's tools are placed there.
        QVERIFY(m_window->predictDock()->isAncestorOf(panel->jobTools()));
        QVERIFY(panel->jobTools()->isVisibleTo(m_window->predictDock()));
        whatIf->setTarget(WhatIfPanel::Target::RankDelay);
        // The slowest rank is offered first.
        QCOMPARE(whatIf->parameter(), QString::number(p->slowestRank()));
        whatIf->setValue(25);
        whatIf->setParameter(QStringLiteral("2"));
        const WhatIfOutcome &outcome = whatIf->current();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QCOMPARE(outcome.ranks.size(), std::size_t(4));
        core::WhatIf delay;
        delay.rankDelayMs[2] = 25;
        const predict::Prediction direct = predict::predict(p->graph.job, delay);
        std::int64_t slowest = 0;
        int heldBack = 0;
        for (const predict::RankPrediction &r : direct.ranks) {
            QVERIFY(r.finished);
            const auto it = std::find_if(outcome.ranks.begin(), outcome.ranks.end(),
                                         [&](const WhatIfRankStep &s) { return s.rank == r.rank; });
            QVERIFY(it != outcome.ranks.end());
            QCOMPARE(it->stepNs, r.stepNs);
            QCOMPARE(it->baselineNs, r.baselineNs);
            QVERIFY2(panel->whatIfText(r.rank).startsWith(msText(r.stepNs)), qPrintable(panel->whatIfText(r.rank)));
            slowest = std::max(slowest, r.stepNs);
            heldBack += r.rank != 2 && r.stepNs > r.baselineNs;
        }
        QCOMPARE(outcome.stepNs, slowest);
        QVERIFY2(heldBack > 0, "a rank delayed by 25 ms per step holds back the ranks that meet it at a collective");
        QVERIFY(outcome.matchCounted);

        whatIf->setParameter(QStringLiteral("99"));
        QVERIFY2(whatIf->current().error.contains(QStringLiteral("no rank 99")), qPrintable(whatIf->current().error));
        QVERIFY(panel->whatIfText(0).isEmpty());
        whatIf->setTarget(WhatIfPanel::Target::GpuKernels);
        whatIf->setParameter(QString());
        QVERIFY(panel->whatIfText(0).isEmpty());
    }

    // A what-if you can read: the job's what-if shows, for the rank whose step is the job's, the
    // breakdown and top ops beside the baseline's and the path diff. The longest GPU kernel family
    // on that rank's path scaled ×0.01 leaves the path, the GPU share of the breakdown shrinks, and
    // each rank's breakdown under the what-if is the direct prediction's.
    void aWhatIfShowsItsPathBesideTheBaseline()
    {
        JobPredictionPanel *panel = m_window->jobDock()->predictionPanel();
        const JobPredictionPtr p = m_window->jobDock()->predictor()->prediction();
        const predict::RankPrediction &slowest = p->prediction.ranks.at(std::size_t(p->indexOf(p->slowestRank())));
        const auto gpu = std::find_if(slowest.top.begin(), slowest.top.end(),
                                      [](const predict::PathShare &s) { return s.kind == predict::NodeKind::Gpu; });
        QVERIFY2(gpu != slowest.top.end(), "a GPU kernel on the slowest rank's path");
        const std::string family = predict::kernelFamily(gpu->name);
        const std::string pattern = predict::kernelFamilyPattern(family);
        WhatIfPanel *whatIf = panel->whatIf();
        whatIf->setTarget(WhatIfPanel::Target::GpuKernels);
        whatIf->setValue(0.01);
        whatIf->setParameter(QString::fromStdString(pattern));
        const WhatIfOutcome &outcome = whatIf->current();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.pathKnown);
        const WhatIfPathChange &c = outcome.path;
        const int i = p->indexOf(c.rank);
        QVERIFY(i >= 0);
        // The path shown is the one whose step is the job's, against the same rank's baseline.
        QCOMPARE(c.breakdown.total(), outcome.stepNs);
        QCOMPARE(c.baselineBreakdown.total(), p->prediction.ranks[std::size_t(i)].stepNs);
        // Shorter: the step, and the family's own time on the path (the path may move to other GPU work).
        QVERIFY(outcome.stepNs < outcome.baselineNs);
        const auto familyNs = [&](const std::vector<predict::PathShare> &top) {
            std::int64_t ns = 0;
            for (const predict::PathShare &s : top)
                ns += predict::kernelFamily(s.name) == family ? s.ns : 0;
            return ns;
        };
        QVERIFY(familyNs(c.top) < familyNs(c.baselineTop));
        // Every rank's breakdown is what predict() finds for the same what-if.
        core::WhatIf w;
        w.gpu.push_back(core::parseGpuScale(pattern + "=0.01"));
        const predict::Prediction direct = predict::predict(p->graph.job, w);
        QCOMPARE(outcome.ranks.size(), direct.ranks.size());
        for (std::size_t r = 0; r < direct.ranks.size(); ++r) {
            QCOMPARE(outcome.ranks[r].breakdown.gpuNs, direct.ranks[r].path.breakdown.gpuNs);
            QCOMPARE(outcome.ranks[r].breakdown.total(), direct.ranks[r].stepNs);
            QCOMPARE(outcome.ranks[r].baselineBreakdown.total(), p->prediction.ranks[r].stepNs);
        }
        // The family left the path: counted, and named among the longest that left it.
        QVERIFY(c.diff.leftCount > 0);
        QVERIFY2(std::any_of(c.diff.left.begin(), c.diff.left.end(),
                             [&](const predict::PathShare &s) { return predict::kernelFamily(s.name) == family; }),
                 qPrintable(QString::fromStdString(family)));
        // The view shows it: the breakdown as baseline → what-if with the change, the family in the diff.
        WhatIfDiffView *view = whatIf->diffView();
        QTableWidget *b = view->breakdownTable();
        QCOMPARE(b->rowCount(), 6);
        QCOMPARE(b->item(1, WhatIfDiffView::Share)->text(), QStringLiteral("gpu"));
        QCOMPARE(b->item(1, WhatIfDiffView::Baseline)->text(), msText(c.baselineBreakdown.gpuNs));
        QCOMPARE(b->item(1, WhatIfDiffView::WhatIf)->text(), msText(c.breakdown.gpuNs));
        QCOMPARE(b->item(1, WhatIfDiffView::Delta)->text().startsWith(QStringLiteral("−")),
                 c.breakdown.gpuNs < c.baselineBreakdown.gpuNs);
        QCOMPARE(b->item(5, WhatIfDiffView::WhatIf)->text(), msText(outcome.stepNs));
        QVERIFY2(view->pathDiffText().contains(QString::fromStdString(family)), qPrintable(view->pathDiffText()));
        QVERIFY(view->topTable()->rowCount() > 0);
        // Every transfer ×0.1: the path's communication falls with the step (the generated job waits
        // 3 ms a step in its collectives).
        whatIf->setTarget(WhatIfPanel::Target::Communication);
        whatIf->setValue(0.1);
        const WhatIfOutcome &comm = whatIf->current();
        QVERIFY2(comm.pathKnown, qPrintable(comm.error));
        QVERIFY(comm.stepNs < comm.baselineNs);
        QVERIFY(comm.path.baselineBreakdown.commNs > 0);
        QVERIFY2(comm.path.breakdown.commNs < comm.path.baselineBreakdown.commNs,
                 qPrintable(
                     QStringLiteral("comm %1 -> %2 ns").arg(comm.path.baselineBreakdown.commNs).arg(comm.path.breakdown.commNs)));
        QVERIFY(view->breakdownTable()->item(2, WhatIfDiffView::Delta)->text().startsWith(QStringLiteral("−")));
        whatIf->setTarget(WhatIfPanel::Target::GpuKernels);
        // Not replayed: the view is cleared rather than left at an old answer.
        whatIf->setParameter(QString());
        QVERIFY(!whatIf->current().pathKnown);
        QCOMPARE(view->breakdownTable()->rowCount(), 0);
        QVERIFY(view->pathDiffText().isEmpty());
    }

    // What to fix first, on the job: the sweep runs in the background on the job's graph and lists
    // what findOpportunities ranks, in its order; a change chosen is replayed by the job's what-if,
    // with every rank's step in the list.
    void opportunitiesRankTheJobsChanges()
    {
        JobPredictionPanel *panel = m_window->jobDock()->predictionPanel();
        const JobPredictionPtr p = m_window->jobDock()->predictor()->prediction();
        OpportunitiesView *view = panel->opportunities();
        view->find();
        QVERIFY(view->waitUntilFound());
        QVERIFY2(view->result(), qPrintable(view->statusText()));
        predict::OpportunityOptions options;
        options.threads = 1;
        const predict::Opportunities direct = predict::findOpportunities(p->graph.job, options);
        QVERIFY(!direct.ranked.empty());
        QCOMPARE(view->list()->topLevelItemCount(), int(direct.ranked.size()));
        for (std::size_t i = 0; i < direct.ranked.size(); ++i) {
            QCOMPARE(view->result()->ranked[i].title, direct.ranked[i].title);
            QCOMPARE(view->result()->ranked[i].makespanNs, direct.ranked[i].makespanNs);
            QVERIFY(view->list()
                        ->topLevelItem(int(i))
                        ->text(OpportunitiesView::GainColumn)
                        .startsWith(msText(direct.ranked[i].makespanNs)));
        }
        view->choose(0);
        const WhatIfOutcome &shown = panel->whatIf()->current();
        QVERIFY2(shown.error.isEmpty(), qPrintable(shown.error));
        QCOMPARE(shown.stepNs, direct.ranked[0].makespanNs);
        QVERIFY(panel->whatIf()->resultText().contains(QString::fromStdString(direct.ranked[0].title).toHtmlEscaped()));
        for (const predict::RankGain &g : direct.ranked[0].ranks)
            QVERIFY2(panel->whatIfText(g.rank).startsWith(msText(g.stepNs)), qPrintable(panel->whatIfText(g.rank)));
        QVERIFY(panel->whatIf()->isVisibleTo(panel));
        // The form says what is shown (it was left at the previous what-if): every change the sweep
        // offers is one term, which the form spells.
        for (std::size_t i = 0; i < direct.ranked.size(); ++i) {
            view->choose(int(i));
            const std::optional<linkscope::core::WhatIf> form = panel->whatIf()->formWhatIf(nullptr);
            QVERIFY2(form, qPrintable(QString::fromStdString(direct.ranked[i].title)));
            QCOMPARE(form->describe(), direct.ranked[i].whatIf.describe());
        }
        view->choose(0);
        // Back to the form: the shown change is dropped.
        panel->whatIf()->setTarget(WhatIfPanel::Target::GpuKernels);
        panel->whatIf()->setParameter(QStringLiteral("gemm"));
        QVERIFY(!panel->whatIf()->resultText().contains(QString::fromStdString(direct.ranked[0].title).toHtmlEscaped()));
    }

    // "Other ranks" names whose work the rank waited for (megatron read "Other 99.9 %" on every
    // rank but one, with nothing saying it was rank 6's CPU).
    void theOtherRanksColumnNamesTheRankWaitedFor()
    {
        JobDock *dock = m_window->jobDock();
        const JobPredictionPtr p = dock->predictor()->prediction();
        QTreeWidget *list = dock->predictionPanel()->list();
        QCOMPARE(list->headerItem()->text(JobPredictionPanel::OtherColumn), QStringLiteral("Other ranks"));
        int named = 0;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = list->topLevelItem(i);
            const std::int64_t rank = item->data(0, Qt::UserRole).toLongLong();
            const predict::RankPrediction &r = p->prediction.ranks[std::size_t(p->indexOf(rank))];
            const auto others = predict::otherRanksOfPath(p->graph.job, r.path);
            const QString text = item->text(JobPredictionPanel::OtherColumn);
            if (others.empty()) {
                QVERIFY2(!text.contains(QStringLiteral("rank")), qPrintable(text));
                continue;
            }
            ++named;
            QVERIFY2(text.endsWith(QStringLiteral("(rank %1)").arg(others.front().rank)), qPrintable(text));
            std::int64_t sum = 0;
            for (const auto &o : others)
                sum += o.totalNs();
            QCOMPARE(sum, r.path.breakdown.otherRankNs);
            QVERIFY(
                item->toolTip(JobPredictionPanel::OtherColumn).contains(QStringLiteral("rank %1: CPU").arg(others.front().rank)));
        }
        QVERIFY2(named > 0, "in a 4-rank job some rank waits for another");
    }

    void criticalPathModeDrawsThePathAcrossRanks()
    {
        JobDock *dock = m_window->jobDock();
        QVERIFY(dock->criticalPathMode());
        const JobPredictionPtr p = dock->predictor()->prediction();
        QCOMPARE(dock->pathRank(), p->slowestRank());
        checkDrawnPath(p->slowestRank());
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobpath_slowest.png"));
        // A rank that waited for another: its path goes through that rank's row and back.
        std::int64_t waiting = -1;
        for (const predict::RankPrediction &r : p->prediction.ranks)
            if (r.path.breakdown.otherRankNs > 0)
                waiting = r.rank;
        QVERIFY2(waiting >= 0, "in a 4-rank job some rank waits for another");
        dock->choosePathRank(waiting);
        const std::set<std::int64_t> ranks = checkDrawnPath(waiting);
        QVERIFY2(ranks.size() >= 2, "the path of a rank that waited crosses ranks");
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobpath_crossing.png"));
        dock->choosePathRank(-1);
    }

    void aRankClickedInTheListGetsItsPath()
    {
        JobDock *dock = m_window->jobDock();
        const JobPredictionPtr p = dock->predictor()->prediction();
        const std::int64_t other = p->slowestRank() == 0 ? 1 : 0;
        QTreeWidget *list = dock->predictionPanel()->list();
        QTreeWidgetItem *item = nullptr;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->data(0, Qt::UserRole).toLongLong() == other)
                item = list->topLevelItem(i);
        QVERIFY(item);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
        QCOMPARE(dock->pathRank(), other);
        QVERIFY(dock->overview()->criticalPath());
        QCOMPARE(dock->overview()->criticalPath()->rank, other);
        dock->choosePathRank(-1);
        QCOMPARE(dock->overview()->criticalPath()->rank, p->slowestRank());
    }

    // The overview draws the path the timeline draws: switched to the what-if's (from a right-click
    // menu's switch), it draws the path under the job's what-if, of the rank whose step is
    // the job's under it; back to the baseline's, the baseline's.
    void theOverviewDrawsTheWhatIfPathWhenChosen()
    {
        JobDock *dock = m_window->jobDock();
        PredictDock *predict = m_window->predictDock();
        WhatIfPanel *whatIf = dock->predictionPanel()->whatIf();
        whatIf->setTarget(WhatIfPanel::Target::Communication);
        whatIf->setValue(0.25);
        const WhatIfOutcome &w = whatIf->current();
        QVERIFY2(w.pathKnown, qPrintable(w.error));
        QVERIFY(dock->overview()->criticalPath());
        QCOMPARE(dock->overview()->criticalPath()->stepNs,
                 dock->predictor()
                     ->prediction()
                     ->prediction.ranks[std::size_t(dock->predictor()->prediction()->indexOf(dock->pathRank()))]
                     .stepNs);
        // The switch the overview's and the timeline's right-click menus hold.
        QMenu menu;
        predict->addPathActions(&menu);
        QAction *toWhatIf = menu.findChild<QAction *>(QStringLiteral("pathWhatIf"));
        QAction *toBaseline = menu.findChild<QAction *>(QStringLiteral("pathBaseline"));
        QVERIFY(toWhatIf && toBaseline);
        QVERIFY(toBaseline->isChecked() && !toWhatIf->isChecked());
        toWhatIf->trigger();
        QCOMPARE(predict->pathShown(), PredictDock::PathShown::WhatIf);
        QVERIFY(dock->overview()->criticalPath());
        QCOMPARE(dock->overview()->criticalPath()->rank, w.path.rank);
        QCOMPARE(dock->overview()->criticalPath()->stepNs, w.path.path.stepNs);
        QVERIFY(w.path.path.stepNs < w.baselineNs);
        // A new what-if redraws it.
        whatIf->setValue(0.5);
        QCOMPARE(dock->overview()->criticalPath()->stepNs, whatIf->current().path.path.stepNs);
        predict->setPathShown(PredictDock::PathShown::Baseline);
        QCOMPARE(dock->overview()->criticalPath()->rank, dock->pathRank());
        QVERIFY(dock->overview()->criticalPath()->stepNs > whatIf->current().path.path.stepNs);
    }

    void turningTheModeOffRemovesThePath()
    {
        JobDock *dock = m_window->jobDock();
        m_window->predictDock()->criticalPathAction()->setChecked(false);
        QVERIFY(!dock->criticalPathMode());
        QVERIFY(!dock->overview()->criticalPath());
        dock->overview()->repaint();
        QVERIFY(dock->overview()->pathRanksDrawn().empty());
        m_window->predictDock()->criticalPathAction()->setChecked(true);
        QVERIFY(dock->overview()->criticalPath());
    }

    void openingAJobAgainForgetsTheRunningPrediction()
    {
        JobDock *dock = m_window->jobDock();
        QSignalSpy opened(dock, &JobDock::jobOpened);
        dock->open(QString::fromStdString(m_job));
        QVERIFY(!dock->predictor()->prediction());
        QVERIFY(!dock->overview()->criticalPath());
        QVERIFY(opened.wait(60000));
        const JobPtr reopened = dock->job();
        QVERIFY(dock->predictor()->waitUntilPredicted());
        QVERIFY(dock->predictor()->prediction());
        QCOMPARE(dock->predictor()->prediction()->folder, reopened->folder);
        QVERIFY(dock->overview()->criticalPath());
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    // Checks the overview's path is `rank`'s, placed and drawn on every row its steps name; returns those ranks.
    std::set<std::int64_t> checkDrawnPath(std::int64_t rank)
    {
        JobDock *dock = m_window->jobDock();
        JobOverview *overview = dock->overview();
        const JobPredictionPtr p = dock->predictor()->prediction();
        const std::shared_ptr<const PlacedPath> path = overview->criticalPath();
        [&] {
            QVERIFY(path);
            QCOMPARE(path->rank, rank);
        }();
        if (!path || path->rank != rank)
            return {};
        const predict::RankPrediction &r = p->prediction.ranks.at(std::size_t(p->indexOf(rank)));
        // The ranks its steps name (SimJob rank index → global rank), and its collectives.
        std::set<std::int64_t> named;
        std::size_t collectives = 0;
        for (const predict::PathStep &s : r.path.steps) {
            const predict::SimRank &simRank = p->graph.job.ranks.at(std::size_t(s.rank));
            named.insert(simRank.rank);
            collectives += s.node < simRank.nodes.size() && simRank.nodes[s.node].kind == predict::NodeKind::Collective;
        }
        [&] {
            QCOMPARE(path->stepNs, r.stepNs);
            QCOMPARE(path->steps.size(), r.path.steps.size());
            QVERIFY(!path->steps.empty());
            QCOMPARE(path->ranks(), named);
            QCOMPARE(path->collectives, collectives);
            QVERIFY(collectives > 0);
            QVERIFY2(path->anchored > 0, "some collectives of the path are at their measured kernels");
            // Placed in time order, and an anchored collective sits on its measured kernel.
            for (std::size_t i = 1; i < path->steps.size(); ++i)
                QVERIFY(path->steps[i].startNs >= path->steps[i - 1].startNs);
            const core::job::JobReport &report = dock->job()->report;
            std::size_t onKernels = 0;
            for (const PlacedStep &s : path->steps) {
                if (!s.anchored)
                    continue;
                for (const core::job::CollectiveCall &c : report.rank(s.rank)->calls)
                    if (c.startNs - report.timing.offsetOf(s.rank) == s.startNs
                        && c.endNs - report.timing.offsetOf(s.rank) == s.endNs) {
                        ++onKernels;
                        break;
                    }
            }
            QCOMPARE(onKernels, path->anchored);
            // Drawn: every rank its steps name got a segment on its row.
            overview->frameAll();
            overview->repaint();
            for (const std::int64_t n : named)
                QVERIFY2(overview->pathRanksDrawn().count(n), qPrintable(QStringLiteral("rank %1 has no segment").arg(n)));
            QVERIFY2(overview->grab().isNull() == false, "drawn");
        }();
        qInfo("rank %lld: %zu steps on ranks %s, %zu of %zu collectives at their kernels", qlonglong(rank), path->steps.size(),
              qPrintable([&] {
                  QStringList l;
                  for (auto n : named)
                      l << QString::number(n);
                  return l.join(QLatin1Char(','));
              }()),
              path->anchored, path->collectives);
        return named;
    }

    QTemporaryDir m_dir;
    std::string m_job;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestJobPath)
#include "test_jobpath.moc"
