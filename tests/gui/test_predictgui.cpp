// The Prediction dock on the bundled sample pair (docs/prediction.md): the predicted step is the
// replay of the pair's graph built afresh from the shown links; critical-path mode highlights
// exactly the ops of the path's nodes; a what-if (GPU kernels ×2, then ×3) replays the same graph
// and moves the step; a correction (and its undo) rebuilds the prediction from the corrected links,
// and Details shows a path op's predicted start and slack. The dock also shows the step under
// Chakra 1.0's links: the replay of the pair linked again by Chakra's rule, not changed by a correction.

#include "docks/detailsdock.h"
#include "ground/eventselection.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "prediction/whatifdiffview.h"
#include "prediction/whatifpanel.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelinemenus.h"
#include "timeline/timelineview.h"

#include "link/chakracompare.h"
#include "predict/opportunities.h"
#include "predict/pairgraph.h"
#include "predict/replay.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QUndoStack>

#include <algorithm>

using namespace linkscope;
namespace predict = linkscope::core::predict;

namespace {

QString msText(std::int64_t ns) { return QLocale().toString(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

// The step a fresh build of the document's links replays to (the dock's number must be this).
std::int64_t freshStep(const ui::TraceDocument &doc)
{
    const predict::PairGraph graph = predict::buildPairGraph(*doc.host(), doc.device(), doc.links());
    const predict::ReplayResult result = predict::replay(graph.job);
    return result.ranks.at(0).finished ? result.ranks[0].endNs : -1;
}

} // namespace

class TestPredictGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_predictgui"));
        QSettings().clear();
    }

    void init()
    {
        // A private copy per test: a correction's sidecar must not reach the next test's open.
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        for (const char *name : {"sample_host_et.json", "sample_kineto.json"})
            QVERIFY(QFile::copy(QString::fromStdString(test::sourcePath("resources/samples")) + QLatin1Char('/')
                                    + QLatin1String(name),
                                m_dir->filePath(QLatin1String(name))));
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(m_dir->filePath(QStringLiteral("sample_host_et.json")),
                           m_dir->filePath(QStringLiteral("sample_kineto.json")));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        QVERIFY(m_window->predictionController()->waitUntilBuilt());
    }
    void cleanup()
    {
        m_window.reset();
        m_dir.reset();
    }

    void dockShowsTheReplayOfTheShownLinks()
    {
        ui::PredictionController *controller = m_window->predictionController();
        const ui::PredictionPtr p = controller->prediction();
        QVERIFY2(p, qPrintable(controller->unavailableReason()));
        QVERIFY(p->finished());
        QVERIFY(p->stepNs() > 0);
        QCOMPARE(p->links, m_window->document()->linksShared());
        QCOMPARE(p->stepNs(), freshStep(*m_window->document()));
        ui::PredictDock *dock = m_window->predictDock();
        QVERIFY2(dock->summaryText().contains(msText(p->stepNs())), qPrintable(dock->summaryText()));
        // The breakdown sums to the step and is shown as shares.
        QCOMPARE(p->path.breakdown.total(), p->stepNs());
        const auto share = [&](std::int64_t ns) {
            return QLocale().toString(100.0 * double(ns) / double(p->stepNs()), 'f', 1) + QStringLiteral(" %");
        };
        QVERIFY2(dock->breakdownText().contains(QStringLiteral("gpu ") + share(p->path.breakdown.gpuNs)),
                 qPrintable(dock->breakdownText()));
        QVERIFY(dock->breakdownText().contains(QStringLiteral("comm ") + share(p->path.breakdown.commNs)));
        QVERIFY(dock->breakdownText().contains(QStringLiteral("cpu ") + share(p->path.breakdown.cpuNs)));
        // The top ops on the path, longest first.
        QVERIFY(!p->top.empty());
        QCOMPARE(dock->topTable()->rowCount(), int(p->top.size()));
        // Names shown as their kernel's own name (before template arguments and parameters), whole in
        // the tooltip: two collectives' kernels read apart.
        for (int r = 0; r < dock->topTable()->rowCount(); ++r) {
            const QString full = QString::fromStdString(p->top[std::size_t(r)].name);
            const QString shown = dock->topTable()->item(r, 0)->text();
            QCOMPARE(shown, QString::fromStdString(core::predict::kernelFamily(p->top[std::size_t(r)].name)));
            QVERIFY2(full.contains(shown), qPrintable(shown + " / " + full));
            QVERIFY(dock->topTable()->item(r, 0)->toolTip().startsWith(full));
        }
        for (std::size_t i = 1; i < p->top.size(); ++i)
            QVERIFY(p->top[i - 1].ns >= p->top[i].ns);
        qInfo("graph built in %.2f ms, replay + path + slack %.2f ms, step %s", p->buildMs, p->replayMs,
              qPrintable(msText(p->stepNs())));
    }

    void chakraStepIsTheReplayOfChakrasLinks()
    {
        ui::PredictDock *dock = m_window->predictDock();
        QVERIFY(dock->chakraPredictor()->waitUntilBuilt());
        const std::shared_ptr<const ui::ChakraStep> shown = dock->chakraPredictor()->step();
        QVERIFY2(shown, qPrintable(dock->chakraPredictor()->error()));
        const ui::TraceDocument &doc = *m_window->document();
        // Directly: the pair linked by Chakra 1.0's rule over the same index, built and replayed.
        const core::ChakraLinks chakra = core::linkUnderChakra(doc.device(), doc.host(), doc.linksShared()->index);
        QCOMPARE(chakra.chakra10->policy, core::Policy::ExternalId);
        const predict::PairGraph graph = predict::buildPairGraph(*doc.host(), doc.device(), *chakra.chakra10);
        const predict::ReplayResult result = predict::replay(graph.job);
        QVERIFY(result.ranks.at(0).finished);
        const std::int64_t chakraNs = result.ranks[0].endNs;
        QVERIFY(chakraNs > 0);
        QVERIFY(shown->finished);
        QCOMPARE(shown->stepNs, chakraNs);
        const std::int64_t oursNs = freshStep(doc);
        const double pct = 100.0 * double(chakraNs - oursNs) / double(oursNs);
        const QString sign = pct > 0 ? QStringLiteral("+") : pct < 0 ? QStringLiteral("−") : QStringLiteral("±");
        const QString expected =
            chakraNs == oursNs
                ? QStringLiteral("under Chakra 1.0's links: %1 (the same as the links shown)").arg(msText(chakraNs))
                : QStringLiteral("under Chakra 1.0's links: %1 (%2%3 % vs the links shown)")
                      .arg(msText(chakraNs), sign, QLocale().toString(std::abs(pct), 'f', 1));
        QCOMPARE(dock->chakraText(), expected);
        qInfo("%s; ours %s; Chakra's graph built and replayed in %.1f ms", qPrintable(expected), qPrintable(msText(oursNs)),
              shown->elapsedMs);
    }

    void criticalPathModeHighlightsThePathsOps()
    {
        const ui::PredictionPtr p = m_window->predictionController()->prediction();
        QVERIFY(p);
        std::vector<core::EventIndex> expected;
        for (const predict::PathStep &step : p->path.steps)
            if (step.node != predict::kNoNode && p->graph.eventOf.at(step.node).valid())
                expected.push_back(p->graph.eventOf[step.node]);
        std::sort(expected.begin(), expected.end());
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        QVERIFY(!expected.empty());

        ui::TimelineView *view = m_window->timeline();
        QVERIFY(view->pathOverlay().events().empty());
        QVERIFY(m_window->viewMenu()->actions().contains(m_window->predictDock()->criticalPathAction()));
        m_window->predictDock()->criticalPathAction()->setChecked(true);
        QCOMPARE(view->pathOverlay().events(), expected);
        view->state().fitAll();
        const QImage image = view->renderToImage(QSize(1400, 800));
        QVERIFY(!image.isNull());
        QVERIFY(view->pathOverlay().paintedCount() > 0);
        m_window->predictDock()->criticalPathAction()->setChecked(false);
        QVERIFY(view->pathOverlay().events().empty());
    }

    // Path: baseline / what-if. The timeline draws the path the toggle chooses: the what-if's is
    // the what-if's replay's path (its ops, in its order), and follows the form as it changes; the
    // baseline's is the prediction's. Choosing one turns critical-path mode on.
    void thePathDrawnIsTheBaselinesOrTheWhatIfs()
    {
        const ui::PredictionPtr p = m_window->predictionController()->prediction();
        QVERIFY(p);
        ui::PredictDock *dock = m_window->predictDock();
        ui::TimelineView *view = m_window->timeline();
        ui::WhatIfPanel *panel = dock->whatIf();
        // The what-if's ops, from its own path (not through the dock's mapping).
        const auto chainOf = [&](const predict::RankPath &path) {
            std::vector<core::EventIndex> chain;
            for (const predict::PathStep &step : path.steps)
                if (step.rank == 0 && step.node != predict::kNoNode && p->graph.eventOf.at(step.node).valid()
                    && (chain.empty() || chain.back() != p->graph.eventOf[step.node]))
                    chain.push_back(p->graph.eventOf[step.node]);
            return chain;
        };
        // Every GPU kernel ×20: the path moves onto the kernels.
        panel->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        panel->setValue(20);
        panel->setParameter(QStringLiteral("."));
        QVERIFY2(panel->current().pathKnown, qPrintable(panel->current().error));
        const std::vector<core::EventIndex> longKernels = chainOf(panel->current().path.path);
        QVERIFY(!longKernels.empty());
        QVERIFY(longKernels != p->pathChain);

        QVERIFY(!dock->criticalPathAction()->isChecked());
        QCOMPARE(dock->pathShown(), ui::PredictDock::PathShown::Baseline);
        dock->pathAction(ui::PredictDock::PathShown::WhatIf)->trigger();
        QVERIFY(dock->criticalPathAction()->isChecked());
        QCOMPARE(dock->pathShown(), ui::PredictDock::PathShown::WhatIf);
        QCOMPARE(view->pathOverlay().chain(), longKernels);
        QVERIFY(dock->pathShownText().contains(panel->current().description));
        view->state().fitAll();
        QVERIFY(!view->renderToImage(QSize(1400, 800)).isNull());
        QVERIFY(view->pathOverlay().paintedCount() > 0);
        // The form changes: the path drawn follows the new replay.
        panel->setValue(0.05);
        QVERIFY(panel->current().pathKnown);
        const std::vector<core::EventIndex> shortKernels = chainOf(panel->current().path.path);
        QCOMPARE(view->pathOverlay().chain(), shortKernels);
        QVERIFY(shortKernels != longKernels);
        // A form that does not replay: the baseline's path stands in, and the dock says so.
        panel->setParameter(QString());
        QVERIFY(!panel->current().pathKnown);
        QCOMPARE(view->pathOverlay().chain(), p->pathChain);
        QVERIFY(dock->pathShownText().contains(QStringLiteral("no what-if replayed")));
        // Back to the baseline.
        panel->setParameter(QStringLiteral("."));
        QCOMPARE(view->pathOverlay().chain(), shortKernels);
        dock->pathAction(ui::PredictDock::PathShown::Baseline)->trigger();
        QCOMPARE(dock->pathShown(), ui::PredictDock::PathShown::Baseline);
        QCOMPARE(view->pathOverlay().chain(), p->pathChain);
        // Switched where it is drawn: an op's right-click menu, and the menu a right-click between
        // ops opens, end with the path's switch.
        const std::unique_ptr<QMenu> opMenu(view->menus().createEventMenu(p->pathChain.front()));
        QAction *toWhatIf = opMenu->findChild<QAction *>(QStringLiteral("pathWhatIf"));
        QVERIFY(toWhatIf && !toWhatIf->isChecked());
        QVERIFY(opMenu->findChild<QAction *>(QStringLiteral("pathBaseline"))->isChecked());
        QVERIFY(opMenu->actions().contains(dock->criticalPathAction()));
        toWhatIf->trigger();
        QCOMPARE(dock->pathShown(), ui::PredictDock::PathShown::WhatIf);
        QCOMPARE(view->pathOverlay().chain(), shortKernels);
        const int laneTop = view->overviewHeight() + ui::TimelineView::kRulerHeight;
        QPoint empty(-1, -1);
        for (int y = view->height() - 20; y > laneTop && empty.x() < 0; y -= 7)
            for (int x = view->headerWidth() + 10; x < view->width() - 20 && empty.x() < 0; x += 11)
                if (!view->eventAt({x, y}).valid() && !view->markerAt({x, y}).valid() && !view->edgeAt({x, y}).valid())
                    empty = QPoint(x, y);
        QVERIFY(empty.x() >= 0);
        const std::unique_ptr<QMenu> emptyMenu(view->menus().createContextMenu(empty));
        QVERIFY(emptyMenu);
        QVERIFY(emptyMenu->findChild<QAction *>(QStringLiteral("pathWhatIf"))->isChecked());
        emptyMenu->findChild<QAction *>(QStringLiteral("pathBaseline"))->trigger();
        QCOMPARE(view->pathOverlay().chain(), p->pathChain);
        dock->setPathShown(ui::PredictDock::PathShown::WhatIf);
        dock->criticalPathAction()->setChecked(false);
        QVERIFY(view->pathOverlay().chain().empty());
        dock->setPathShown(ui::PredictDock::PathShown::Baseline);
    }

    // Jumps back in measured time that cluster on a lane share one label with their count: labels
    // never overlap. The path's ops in reverse order make every arrow a jump back, all of them
    // close together once the whole trace is in view.
    void jumpsBackThatClusterShareALabel()
    {
        const ui::PredictionPtr p = m_window->predictionController()->prediction();
        QVERIFY(p);
        std::vector<core::EventIndex> reversed(p->pathChain.rbegin(), p->pathChain.rend());
        QVERIFY(reversed.size() > 20);
        ui::TimelineView *view = m_window->timeline();
        view->setPathEvents(reversed);
        view->state().fitAll();
        QVERIFY(!view->renderToImage(QSize(1400, 800)).isNull());
        const ui::TimelinePathOverlay &overlay = view->pathOverlay();
        const auto &labels = overlay.backLabels();
        QVERIFY(overlay.backwardsCount() > 10);
        QVERIFY(!labels.empty());
        QVERIFY(labels.size() <= ui::TimelinePathOverlay::kMaxBackLabels);
        std::size_t counted = 0, merged = 0;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            counted += labels[i].count;
            merged += labels[i].count > 1;
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                         qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(i).arg(j)));
        }
        QVERIFY(counted <= overlay.backwardsCount());
        QVERIFY(merged > 0); // clustered: some label stands for several jumps
        // Zoomed in on one stretch: fewer jumps in view, still apart.
        const core::Nanos middle = m_window->document()->event(reversed[reversed.size() / 2]).ts;
        view->state().setVisibleRange(middle, middle + 200'000);
        QVERIFY(!view->renderToImage(QSize(1400, 800)).isNull());
        for (std::size_t i = 0; i < overlay.backLabels().size(); ++i)
            for (std::size_t j = i + 1; j < overlay.backLabels().size(); ++j)
                QVERIFY(!overlay.backLabels()[i].rect.intersects(overlay.backLabels()[j].rect));
        qInfo("%zu jumps back in view, %zu labels (%zu of them for several)", overlay.backwardsCount(), labels.size(), merged);
        view->setPathEvents({});
    }

    void whatIfReplaysTheGraph()
    {
        ui::PredictionController *controller = m_window->predictionController();
        const ui::PredictionPtr p = controller->prediction();
        QVERIFY(p);
        ui::WhatIfPanel *panel = m_window->predictDock()->whatIf();

        // Selecting a GPU op prefills the regex with its name, escaped; selecting a collective's kernel
        // (its time is the network's) turns the what-if to all communication instead.
        core::EventIndex gpuOp{}, ncclOp{};
        for (const core::EventIndex e : p->pathChain)
            if (core::isGpuOpCategory(m_window->document()->event(e).category))
                (m_window->document()->eventName(e).startsWith(QStringLiteral("nccl")) ? ncclOp : gpuOp) = e;
        QVERIFY(gpuOp.valid());
        panel->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        m_window->selection()->select(gpuOp);
        QCOMPARE(panel->parameter(), ui::WhatIfPanel::escapeRegex(m_window->document()->eventName(gpuOp)));
        if (ncclOp.valid()) {
            m_window->selection()->select(ncclOp);
            QCOMPARE(panel->target(), ui::WhatIfPanel::Target::Communication);
            QVERIFY2(panel->current().error.isEmpty(), qPrintable(panel->current().error));
            QVERIFY(panel->current().stepNs != p->stepNs()); // ×2 slower communication moves the step
            panel->setTarget(ui::WhatIfPanel::Target::GpuKernels);
            QCOMPARE(panel->parameter(), ui::WhatIfPanel::escapeRegex(m_window->document()->eventName(gpuOp)));
        }

        // Every GPU kernel twice as long: the step grows, and is what a replay of the graph gives.
        panel->setParameter(QStringLiteral("."));
        panel->setValue(2);
        const ui::WhatIfOutcome twice = panel->current();
        QVERIFY2(twice.error.isEmpty(), qPrintable(twice.error));
        QCOMPARE(twice.baselineNs, p->stepNs());
        QVERIFY(twice.stepNs > p->stepNs());
        QVERIFY(twice.changePct() > 0);
        core::WhatIf w;
        w.gpu.push_back(core::parseGpuScale(".=2"));
        QCOMPARE(twice.stepNs, predict::replay(p->graph.job, w).ranks[0].endNs);
        QVERIFY(panel->resultText().contains(msText(twice.stepNs)));
        QCOMPARE(controller->prediction(), p); // replayed, not rebuilt
        // Beside the step, the what-if's path against the baseline's: the breakdowns sum to each step,
        // and twice as long kernels put more GPU time on the path.
        QVERIFY(twice.pathKnown);
        QCOMPARE(twice.path.baselineBreakdown.total(), p->stepNs());
        QCOMPARE(twice.path.breakdown.total(), twice.stepNs);
        QVERIFY2(twice.path.breakdown.gpuNs > twice.path.baselineBreakdown.gpuNs,
                 qPrintable(
                     QStringLiteral("gpu %1 -> %2 ns").arg(twice.path.baselineBreakdown.gpuNs).arg(twice.path.breakdown.gpuNs)));
        QCOMPARE(twice.path.baselineTop.size(), p->top.size());
        QCOMPARE(twice.path.top.front().ns, predict::predict(p->graph.job, w).ranks[0].top.front().ns);
        QCOMPARE(panel->diffView()->breakdownTable()->item(1, ui::WhatIfDiffView::WhatIf)->text(),
                 msText(twice.path.breakdown.gpuNs));
        QVERIFY(panel->diffView()->breakdownTable()->item(1, ui::WhatIfDiffView::Delta)->text().startsWith(QLatin1Char('+')));
        qInfo("what-if replay: %.3f ms (%s → %s)", twice.elapsedMs, qPrintable(msText(p->stepNs())),
              qPrintable(msText(twice.stepNs)));

        QVERIFY(panel->addRow());
        panel->setValue(3);
        const ui::WhatIfOutcome thrice = panel->current();
        QVERIFY(thrice.stepNs > twice.stepNs);
        QVERIFY(panel->addRow());
        // Communication 4× slower, a third row.
        panel->setTarget(ui::WhatIfPanel::Target::Communication);
        panel->setValue(4);
        QVERIFY2(panel->current().error.isEmpty(), qPrintable(panel->current().error));
        QVERIFY(panel->current().stepNs >= p->stepNs());
        QVERIFY(panel->addRow());
        QTableWidget *table = panel->table();
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->item(0, ui::WhatIfPanel::Step)->text(), msText(twice.stepNs));
        QCOMPARE(table->item(1, ui::WhatIfPanel::Step)->text(), msText(thrice.stepNs));
        QVERIFY(table->item(1, ui::WhatIfPanel::Description)->text().contains(QStringLiteral("×3")));
        panel->removeRow(0);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(panel->rowOutcomes().front().stepNs, thrice.stepNs);

        // CPU ops: every CPU op ×0.5 shortens the step and says what it matched; a regex that
        // matches nothing warns beside the result.
        panel->setTarget(ui::WhatIfPanel::Target::CpuOps);
        panel->setParameter(QStringLiteral(".*"));
        panel->setValue(0.5);
        const ui::WhatIfOutcome cpuHalf = panel->current();
        QVERIFY2(cpuHalf.error.isEmpty(), qPrintable(cpuHalf.error));
        QVERIFY(cpuHalf.stepNs < p->stepNs());
        QVERIFY(cpuHalf.matchCounted && cpuHalf.matchedNodes > 0 && cpuHalf.matchedOnPath > 0);
        QVERIFY(cpuHalf.matchedOnPath <= cpuHalf.matchedNodes);
        QVERIFY(cpuHalf.warnings.isEmpty());
        QVERIFY(panel->resultText().contains(QStringLiteral("on the critical path")));
        if (const QByteArray shot = qgetenv("LINKSCOPE_SCREENSHOT_DIR"); !shot.isEmpty()) {
            m_window->predictDock()->raise();
            panel->grab().save(QString::fromLocal8Bit(shot) + QStringLiteral("/whatif-cpu.png"));
        }
        panel->setParameter(QStringLiteral("no_such_op"));
        QCOMPARE(panel->current().matchedNodes, std::size_t(0));
        QCOMPARE(panel->current().warnings.size(), 1);
        QVERIFY(panel->resultText().contains(QStringLiteral("matches no node")));

        // A rank not in the job is an error in the panel, not a crash.
        panel->setTarget(ui::WhatIfPanel::Target::RankDelay);
        panel->setParameter(QStringLiteral("9999"));
        QVERIFY(!panel->current().error.isEmpty());
        panel->setParameter(QString::number(p->graph.job.ranks[0].rank));
        panel->setValue(1);
        QVERIFY2(panel->current().error.isEmpty(), qPrintable(panel->current().error));
        QVERIFY(panel->current().stepNs > p->stepNs());
    }

    // A what-if on a real rank (megatron's rank 0, when ../shared has it), timed from the change of
    // the form to the new number shown: the open pair's graph is replayed, not rebuilt
    // (docs/prediction.md, "Speed": under 50 ms).
    void whatIfOnMegatronRank()
    {
        LINKSCOPE_REQUIRE_TRACES("astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz",
                                 "astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz");
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(QString::fromStdString(test::tracePath("astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz")),
                           QString::fromStdString(test::tracePath("astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz")));
        QVERIFY(loaded.wait(120000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
        ui::PredictionController *controller = m_window->predictionController();
        QVERIFY(controller->waitUntilBuilt(120000));
        const ui::PredictionPtr p = controller->prediction();
        QVERIFY2(p, qPrintable(controller->unavailableReason()));
        QVERIFY(p->finished());
        ui::WhatIfPanel *panel = m_window->predictDock()->whatIf();
        // Every kernel faster or slower (the rank's step is its CPU work: the number may not move).
        panel->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        panel->setParameter(QStringLiteral("."));
        for (const double factor : {0.5, 2.0, 0.25}) {
            QElapsedTimer timer;
            timer.start();
            panel->setValue(factor);
            const double shownMs = double(timer.nsecsElapsed()) / 1e6;
            const ui::WhatIfOutcome outcome = panel->current();
            QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
            QVERIFY(panel->resultText().contains(msText(outcome.stepNs)));
            core::WhatIf w;
            w.gpu.push_back(core::parseGpuScale(".=" + std::to_string(factor)));
            QCOMPARE(outcome.stepNs, predict::replay(p->graph.job, w).ranks[0].endNs);
            qInfo("megatron rank 0 (%zu nodes), kernels ×%g: shown in %.2f ms (replay %.2f ms), step %s → %s",
                  p->graph.job.nodeCount(), factor, shownMs, outcome.elapsedMs, qPrintable(msText(p->stepNs())),
                  qPrintable(msText(outcome.stepNs)));
        }
        QCOMPARE(controller->prediction(), p); // replayed, not rebuilt
    }

    void correctionRebuildsThePrediction()
    {
        ui::PredictionController *controller = m_window->predictionController();
        ui::CorrectionController *corrections = m_window->review()->controller();
        const ui::PredictionPtr before = controller->prediction();
        QVERIFY(before);
        const quint64 builds = controller->completedBuilds();
        QVERIFY(m_window->predictDock()->correctionText().isEmpty());
        ui::ChakraStepPredictor *chakra = m_window->predictDock()->chakraPredictor();
        QVERIFY(chakra->waitUntilBuilt());
        const std::shared_ptr<const ui::ChakraStep> chakraStep = chakra->step();
        QVERIFY(chakraStep && chakraStep->finished);

        // Detach the path's longest GPU op from its parent.
        core::EventIndex gpuOp{};
        for (const core::EventIndex e : before->pathChain) {
            const core::DeviceEvent &event = m_window->document()->event(e);
            if (core::isGpuOpCategory(event.category) && m_window->document()->gpuLink(e)
                && m_window->document()->gpuLink(e)->parent.valid()
                && (!gpuOp.valid() || event.dur > m_window->document()->event(gpuOp).dur))
                gpuOp = e;
        }
        QVERIFY(gpuOp.valid());
        QVERIFY(corrections->detach(gpuOp));
        QVERIFY(corrections->waitUntilSettled());
        QVERIFY(controller->waitUntilBuilt());
        QVERIFY(controller->completedBuilds() > builds); // recomputed
        const ui::PredictionPtr after = controller->prediction();
        QVERIFY(after && after != before);
        QCOMPARE(after->links, m_window->document()->linksShared());
        QVERIFY(after->links != before->links);
        QCOMPARE(after->stepNs(), freshStep(*m_window->document()));
        QCOMPARE(controller->previousStepNs(), before->stepNs());
        const QString change = m_window->predictDock()->correctionText();
        QVERIFY2(change.startsWith(QStringLiteral("correction: ") + msText(before->stepNs()) + QStringLiteral(" → ")
                                   + msText(after->stepNs())),
                 qPrintable(change));
        qInfo("%s", qPrintable(change));
        // Chakra's links do not depend on corrections: not replayed again, compared with the new step.
        QVERIFY(chakra->waitUntilBuilt());
        QCOMPARE(chakra->step(), chakraStep);
        const double pct = 100.0 * double(chakraStep->stepNs - after->stepNs()) / double(after->stepNs());
        QVERIFY2(m_window->predictDock()->chakraText().contains(QLocale().toString(std::abs(pct), 'f', 1)
                                                                + QStringLiteral(" % vs the links shown")),
                 qPrintable(m_window->predictDock()->chakraText()));

        // Undo: rebuilt again, back to the first step.
        corrections->undoStack()->undo();
        QVERIFY(corrections->waitUntilSettled());
        QVERIFY(controller->waitUntilBuilt());
        QCOMPARE(controller->prediction()->stepNs(), before->stepNs());
        QCOMPARE(controller->prediction()->stepNs(), freshStep(*m_window->document()));
        QCOMPARE(controller->previousStepNs(), after->stepNs());
        QVERIFY(!controller->previousPolicy());

        // A switch of policy is named as such, not as a correction; and back.
        const std::int64_t nestingNs = controller->prediction()->stepNs();
        m_window->setPolicy(core::Policy::ExternalId);
        QVERIFY(corrections->waitUntilSettled());
        QVERIFY(controller->waitUntilBuilt());
        QTRY_VERIFY(controller->prediction() && controller->prediction()->links->policy == core::Policy::ExternalId);
        QCOMPARE(controller->previousPolicy(), std::optional<core::Policy>(core::Policy::Nesting));
        const QString switched = m_window->predictDock()->correctionText();
        QVERIFY2(switched.startsWith(QStringLiteral("policy nesting → external-id: ") + msText(nestingNs)), qPrintable(switched));
        m_window->setPolicy(core::Policy::Nesting);
        QVERIFY(corrections->waitUntilSettled());
        QVERIFY(controller->waitUntilBuilt());
        QTRY_VERIFY(controller->prediction() && controller->prediction()->links->policy == core::Policy::Nesting);
        QCOMPARE(controller->prediction()->stepNs(), nestingNs);
    }

    void detailsShowPredictedStartAndSlack()
    {
        ui::PredictionController *controller = m_window->predictionController();
        const ui::PredictionPtr p = controller->prediction();
        QVERIFY(p && !p->pathChain.empty());
        const core::EventIndex onPath = p->pathChain.back();
        m_window->selection()->select(onPath);
        const ui::PredictedTiming t = controller->timingOf(onPath);
        QVERIFY(t.known && t.onPath);
        const std::uint32_t node = p->graph.nodeOfEvent(onPath);
        QCOMPARE(t.startNs, p->baseline.ranks[0].start[node]);
        QCOMPARE(t.slackNs, std::max<std::int64_t>(0, p->slack[node]));
        const QString text = m_window->detailsDock()->browser()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Predicted: starts at ") + msText(t.startNs)), qPrintable(text.left(300)));
        QVERIFY(text.contains(QStringLiteral("(on the critical path)")));
        // An op off the path with slack: no "(on the critical path)".
        for (std::uint32_t n = 0; n < p->slack.size(); ++n)
            if (p->slack[n] > 0 && p->graph.eventOf[n].valid()) {
                m_window->selection()->select(p->graph.eventOf[n]);
                const QString other = m_window->detailsDock()->browser()->toPlainText();
                QVERIFY(other.contains(QStringLiteral("slack ") + msText(p->slack[n])));
                QVERIFY(!other.contains(QStringLiteral("(on the critical path)")));
                return;
            }
        QFAIL("no op off the path has slack");
    }

    // A Kineto trace opened alone is predicted from the host ET its CPU ops imply
    // (pipeline/derivedhost.h): the same step as the pair, the dock says how it was built, the path is
    // drawn and a what-if answers.
    void kinetoAlonePredicts()
    {
        ui::PredictionController *controller = m_window->predictionController();
        QVERIFY(controller->waitUntilBuilt());
        QVERIFY(controller->prediction() && controller->prediction()->finished());
        const std::int64_t pairStep = controller->prediction()->stepNs();
        QVERIFY(!controller->prediction()->derived());

        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(m_dir->filePath(QStringLiteral("sample_kineto.json")));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document() && !m_window->document()->host());
        QVERIFY(controller->waitUntilBuilt());
        const ui::PredictionPtr p = controller->prediction();
        QVERIFY(p && p->finished() && p->derived());
        QCOMPARE(p->stepNs(), pairStep); // the sample's Kineto trace has an op for every ET op the export times
        QVERIFY(m_window->predictDock()->summaryText().contains(QStringLiteral("No host execution trace")));
        m_window->predictDock()->criticalPathAction()->setChecked(true);
        QVERIFY(!m_window->timeline()->pathOverlay().events().empty());
        core::WhatIf slower;
        slower.transferFactor = 2;
        const ui::WhatIfOutcome outcome = controller->evaluate(slower);
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.finished && outcome.stepNs > outcome.baselineNs);
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestPredictGui)
#include "test_predictgui.moc"
