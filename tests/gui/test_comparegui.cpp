// File ▸ Compare with… and the Diff dock (ui/compare/, docs/diff.md "In the GUI"): two generated runs,
// B = A with its vectorized_layer_norm kernel family ×2. With A's rank-0 trace open, comparing with
// B's shows the step and the family ranked first as the core's diff (job/runread.h,
// report/rundiff.h) computed directly; two job folders compare rank by rank; a job against a trace
// is refused in the status line, the last tables kept. B's lanes are shown beside A's (the run pane,
// of a job B's rank that A shows) with the runs' first steps at one x, scrolling with A's, and close.
// With a what-if active in the Prediction dock, the "Prediction vs B" tab shows the figures of
// `linkscope predict A [what-ifs] --against B` run in process. Saves build/screens/comparegui_*.png.

#include "analysis/profilersteps.h"
#include "clitestsupport.h"
#include "compare/againstcheck.h"
#include "compare/againstview.h"
#include "compare/compareui.h"
#include "compare/diffdock.h"
#include "docks/statstable.h"
#include "gen/tracegenerator.h"
#include "job/runread.h"
#include "jobview/jobdock.h"
#include "jobview/rankpanes.h"
#include "prediction/jobpredictor.h"
#include "prediction/predictdock.h"
#include "prediction/whatifpanel.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace linkscope;

namespace {

constexpr const char *kFamily = "at::native::vectorized_layer_norm_kernel";

void generate(const std::string &dir, double factor)
{
    gen::GeneratorOptions o;
    o.seed = 7;
    o.steps = 2;
    o.worldSize = 2;
    if (factor != 1.0)
        o.kernelScales.push_back({"vectorized_layer_norm", factor});
    gen::generateJob(o, dir);
}

double sortKey(QTableWidget *t, int row, int column) { return t->item(row, column)->data(ui::kStatsSortRole).toDouble(); }

// The start of a document's first ProfilerStep#N, on its own clock.
core::Nanos firstStep(const ui::TraceDocument &doc) { return core::profilerSteps(doc.device()).front().start; }

// B's lanes line up with A's: the same offset from each one's first step at the views' left edges.
void checkAligned(ui::MainWindow &window, ui::RankPane *pane)
{
    ui::TimelineView *a = window.timeline(), *b = pane->view();
    QCOMPARE(b->state().viewStart() - firstStep(*b->document()), a->state().viewStart() - firstStep(*a->document()));
    QCOMPARE(b->state().viewEnd() - b->state().viewStart(), a->state().viewEnd() - a->state().viewStart());
    // And they keep doing so as A is zoomed and moved (a window around A's first step).
    const core::Nanos at = firstStep(*a->document());
    a->state().setVisibleRange(at + 1000, at + 250000);
    QCOMPARE(b->state().viewStart(), firstStep(*b->document()) + 1000);
    QCOMPARE(b->state().viewEnd(), firstStep(*b->document()) + 250000);
}

void saveShot(QWidget *w, const char *name)
{
    QDir().mkpath(linkscope::test::buildPath("/screens"));
    w->grab().toImage().save(linkscope::test::buildPath("/screens/") + QLatin1String(name));
}

} // namespace

class TestCompareGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_comparegui"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_a = m_dir.filePath(QStringLiteral("a")).toStdString();
        m_b = m_dir.filePath(QStringLiteral("b")).toStdString();
        generate(m_a, 1.0);
        generate(m_b, 2.0);
    }

    void traceAgainstTrace()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        ui::CompareUi *compare = window.findChild<ui::CompareUi *>();
        QVERIFY(compare);
        // Nothing open: nothing to compare, and no dock yet (it is made on first use).
        QVERIFY(compare->currentRun().isEmpty());
        QVERIFY(!compare->compareWith({QString::fromStdString(m_b + "/kineto_0.json")}));
        QVERIFY(!window.findChild<ui::DiffDock *>());

        QSignalSpy loaded(&window, &ui::MainWindow::documentChanged);
        const QString hostA = QString::fromStdString(m_a + "/host_0.json"),
                      kinetoA = QString::fromStdString(m_a + "/kineto_0.json");
        window.openPair(hostA, kinetoA);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(compare->currentRun(), (QStringList{hostA, kinetoA}));

        QSignalSpy compared(compare, &ui::CompareUi::compared);
        const QString kinetoB = QString::fromStdString(m_b + "/kineto_0.json");
        QVERIFY(compare->compareWith({kinetoB}));
        QVERIFY(compared.wait(60000));
        ui::DiffDock *dock = compare->dock();
        QCOMPARE(window.findChildren<ui::DiffDock *>().size(), 1);
        QVERIFY(dock->isVisible());
        // Tabbed with the Summary dock.
        QVERIFY(window.tabifiedDockWidgets(dock).contains(window.findChild<QDockWidget *>(QStringLiteral("SummaryDock"))));

        // The core's diff of the same runs, computed directly.
        const core::job::RunPair runs = core::job::readRunPair({hostA.toStdString(), kinetoA.toStdString()},
                                                               {m_b + "/kineto_0.json"});
        QVERIFY(core::job::unreadableRun(runs).empty());
        const core::RunDiff expected = core::diffRuns(runs.a, runs.b);
        QVERIFY(!expected.moved.empty());
        QCOMPARE(expected.movedOp(0).name, std::string(kFamily));

        QTableWidget *ranks = dock->table(ui::DiffDock::Ranks);
        QCOMPARE(ranks->rowCount(), 1);
        QCOMPARE(ranks->item(0, 0)->text(), QStringLiteral("trace"));
        QCOMPARE(sortKey(ranks, 0, 1), double(expected.ranks[0].step.a));
        QCOMPARE(sortKey(ranks, 0, 2), double(expected.ranks[0].step.b));
        QCOMPARE(sortKey(ranks, 0, 3), double(expected.ranks[0].step.change()));
        QVERIFY(expected.ranks[0].step.change() > 0);

        QTableWidget *moved = dock->table(ui::DiffDock::Moved);
        QCOMPARE(moved->rowCount(), static_cast<int>(expected.moved.size()));
        QCOMPARE(moved->item(0, 0)->text(), QStringLiteral("1"));
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(moved->item(0, 1)->toolTip().split(QLatin1Char('\n')).front(), QString::fromLatin1(kFamily));
        const core::DiffFigure &top = expected.movedOp(0).moved();
        QCOMPARE(sortKey(moved, 0, 4), double(top.a));
        QCOMPARE(sortKey(moved, 0, 5), double(top.b));
        QCOMPARE(sortKey(moved, 0, 6), double(top.change()));
        // ×2: the change is A's total again.
        QCOMPARE(top.change(), top.a);
        QVERIFY(moved->item(0, 7)->text().startsWith(QStringLiteral("+100.0")));
        QVERIFY(moved->item(0, 6)->textAlignment() & Qt::AlignRight);

        // The GPU ops: the family first, its counts the same on both sides.
        QTableWidget *gpu = dock->table(ui::DiffDock::GpuOps);
        QCOMPARE(gpu->rowCount(), static_cast<int>(expected.gpuOps.size()));
        QCOMPARE(gpu->item(0, 0)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(gpu->item(0, 2)->text(), gpu->item(0, 3)->text());
        QCOMPARE(dock->table(ui::DiffDock::CpuOps)->rowCount(), static_cast<int>(expected.cpuOps.size()));
        QCOMPARE(dock->table(ui::DiffDock::Streams)->rowCount(), static_cast<int>(expected.streams.size()));

        // Sortable: by the change, ascending, the family (the largest change) goes last.
        moved->sortItems(6, Qt::AscendingOrder);
        QCOMPARE(moved->item(moved->rowCount() - 1, 1)->text(), QString::fromLatin1(kFamily));
        moved->sortItems(0, Qt::AscendingOrder);
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));

        // The status line names both runs and how long it took.
        const QString status = dock->statusText();
        QVERIFY2(status.contains(QStringLiteral("host_0.json + kineto_0.json"))
                     && status.contains(QStringLiteral("B: kineto_0.json")) && status.contains(QStringLiteral(" s")),
                 qPrintable(status));

        // B's lanes beside A's, titled as run B, the first steps (both ProfilerStep#3) at one x.
        ui::RankPanes *panes = window.rankPanes();
        ui::RankPane *pane = panes->runPane();
        QVERIFY(pane);
        QTRY_VERIFY_WITH_TIMEOUT(pane->isLoaded(), 60000);
        QVERIFY(panes->panes().empty()); // not a rank of a job: "Show beside" panes are others
        QVERIFY(panes->runAlignment() && panes->runAlignment()->bySteps);
        QCOMPARE(panes->runAlignment()->stepA, std::int64_t(3));
        QCOMPARE(panes->runAlignment()->stepB, std::int64_t(3));
        QVERIFY2(pane->titleText().contains(QStringLiteral("<b>Run B</b> · kineto_0.json"))
                     && pane->titleText().contains(QStringLiteral("steps aligned")),
                 qPrintable(pane->titleText()));
        QVERIFY2(panes->mainTitle()->isVisible() && panes->mainTitle()->text().contains(QStringLiteral("Run A")),
                 qPrintable(panes->mainTitle()->text()));
        checkAligned(window, pane);
        saveShot(&window, "comparegui_trace.png");

        // A what-if made active in the pair's Prediction dock while the comparison is shown: checked
        // against B, which here is a Kineto trace alone — no measured step, as the command says.
        ui::AgainstCheck *check = compare->againstCheck();
        QCOMPARE(check->state(), ui::AgainstCheck::State::NoWhatIf);
        ui::WhatIfPanel *pairWhatIf = window.predictDock()->whatIf();
        QCOMPARE(compare->whatIfPanel(), pairWhatIf);
        pairWhatIf->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        pairWhatIf->setParameter(QStringLiteral("vectorized_layer_norm"));
        QVERIFY(check->waitUntilIdle());
        QCOMPARE(check->state(), ui::AgainstCheck::State::Failed);
        QVERIFY2(check->error().contains(QStringLiteral("Kineto trace alone")), qPrintable(check->error()));
        QVERIFY2(dock->againstView()->statusText().contains(QStringLiteral("Kineto trace alone")),
                 qPrintable(dock->againstView()->statusText()));

        // B's lanes close with their pane's ✕; A's stay.
        QList<QToolButton *> buttons = pane->findChildren<QToolButton *>();
        QToolButton *close = nullptr;
        for (QToolButton *b : buttons)
            if (b->text() == QStringLiteral("\u2715"))
                close = b;
        QVERIFY(close);
        close->click();
        QVERIFY(!panes->runPane());
        QVERIFY(!panes->runAlignment());
        QVERIFY(window.document());

        // A job folder against the trace: refused, said in the status line; the tables stay.
        QSignalSpy failed(compare, &ui::CompareUi::failed);
        QVERIFY(compare->compareWith({QString::fromStdString(m_b)}));
        QVERIFY(failed.wait(60000));
        QVERIFY2(dock->statusText().startsWith(QStringLiteral("The runs could not be compared")), qPrintable(dock->statusText()));
        QCOMPARE(moved->rowCount(), static_cast<int>(expected.moved.size()));
    }

    void jobAgainstJob()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy opened(window.jobDock(), &ui::JobDock::jobOpened);
        window.openJob(QString::fromStdString(m_a));
        QVERIFY(opened.wait(60000));
        ui::CompareUi *compare = window.findChild<ui::CompareUi *>();
        QCOMPARE(compare->currentRun(), QStringList{QString::fromStdString(m_a)});
        // File ▸ Compare with… is enabled while something is open.
        QMenu *file = qobject_cast<QMenu *>(compare->compareAction()->associatedObjects().value(0));
        QVERIFY(file);
        emit file->aboutToShow();
        QVERIFY(compare->compareAction()->isEnabled());

        QSignalSpy compared(compare, &ui::CompareUi::compared);
        QVERIFY(compare->compareWith({QString::fromStdString(m_b)}));
        QVERIFY(compared.wait(60000));
        const core::job::RunPair runs = core::job::readRunPair({m_a}, {m_b});
        const core::RunDiff expected = core::diffRuns(runs.a, runs.b);
        QTableWidget *ranks = compare->dock()->table(ui::DiffDock::Ranks);
        QCOMPARE(ranks->rowCount(), 2);
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(ranks->item(r, 0)->text(), QStringLiteral("rank %1").arg(r));
            QCOMPARE(sortKey(ranks, r, 1), double(expected.ranks[static_cast<std::size_t>(r)].step.a));
            QCOMPARE(sortKey(ranks, r, 2), double(expected.ranks[static_cast<std::size_t>(r)].step.b));
        }
        QTableWidget *moved = compare->dock()->table(ui::DiffDock::Moved);
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(sortKey(moved, 0, 6), double(expected.movedOp(0).moved().change()));
        QVERIFY(compare->dock()->statusText().contains(QStringLiteral("2 ranks")));
        saveShot(&window, "comparegui_job.png");

        // No rank of A open: no lanes of B. Rank 1 opened: B's rank 1 beside it, steps aligned.
        ui::RankPanes *panes = window.rankPanes();
        QVERIFY(!panes->runPane());
        QSignalSpy shown(&window, &ui::MainWindow::documentChanged);
        window.jobDock()->selectRank(1);
        window.jobDock()->openRankButton()->click();
        QVERIFY(shown.wait(60000));
        QCOMPARE(panes->mainRank(), qint64(1));
        QTRY_VERIFY_WITH_TIMEOUT(panes->runPane() && panes->runPane()->isLoaded(), 60000);
        QCOMPARE(panes->runPane()->rank(), qint64(1));
        QVERIFY(panes->runPane()->devicePath().endsWith(QStringLiteral("/b/kineto_1.json")));
        QVERIFY2(panes->runPane()->titleText().contains(QStringLiteral("<b>Run B · rank 1</b>")),
                 qPrintable(panes->runPane()->titleText()));
        QVERIFY(panes->runAlignment() && panes->runAlignment()->bySteps);
        checkAligned(window, panes->runPane());

        // A what-if on the job, active when the runs are compared: the dock's figures are the
        // command's (`predict A --scale-gpu vectorized_layer_norm=2 --against B`).
        ui::JobPredictor *predictor = window.jobDock()->predictor();
        QVERIFY(predictor->waitUntilPredicted());
        QVERIFY(predictor->prediction());
        ui::WhatIfPanel *whatIf = compare->whatIfPanel();
        QVERIFY(whatIf && whatIf != window.predictDock()->whatIf());
        whatIf->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        whatIf->setParameter(QStringLiteral("vectorized_layer_norm"));
        whatIf->setValue(2);
        QVERIFY(compare->compareWith({QString::fromStdString(m_b)}));
        QVERIFY(compared.wait(60000));
        ui::AgainstCheck *check = compare->againstCheck();
        QVERIFY(check->waitUntilIdle());
        QVERIFY2(check->state() == ui::AgainstCheck::State::Done, qPrintable(check->error()));
        const test::CliRun cli = test::runCli(
            cli::runPredict, {m_a, "--json", "--path-limit", "1", "--scale-gpu", "vectorized_layer_norm=2", "--against", m_b});
        QVERIFY2(cli.code == 0, cli.all().c_str());
        const nlohmann::json j = nlohmann::json::parse(cli.out)["against"];
        const core::predict::Against &got = check->result()->against;
        QCOMPARE(got.meanErrorPct, j["error_pct"].get<double>());
        QCOMPARE(got.worstRank, j["worst_rank"].get<std::int64_t>());
        QTableWidget *table = compare->dock()->againstView()->table();
        // The rows: each rank's step, the kernel families (by |gap|), the streams, the CPU per rank.
        const std::size_t rows = j["ranks"].size() + got.families.size() + j["streams"].size() + j["cpu"].size();
        QCOMPARE(table->rowCount(), int(rows));
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        for (int r = 0; r < 2; ++r) {
            const nlohmann::json &rank = j["ranks"][std::size_t(r)];
            QCOMPARE(table->item(r, ui::AgainstView::Rank)->text(), QString::number(rank["rank"].get<std::int64_t>()));
            QCOMPARE(sortKey(table, r, ui::AgainstView::Predicted), double(rank["predicted_ns"].get<std::int64_t>()));
            QCOMPARE(sortKey(table, r, ui::AgainstView::Measured), double(rank["measured_ns"].get<std::int64_t>()));
            QCOMPARE(sortKey(table, r, ui::AgainstView::Gap), double(rank["gap_ns"].get<std::int64_t>()));
            QCOMPARE(sortKey(table, r, ui::AgainstView::Error), rank["error_pct"].get<double>());
        }
        // Where they part: the family the what-if scaled, and every family the command lists.
        const nlohmann::json &families = j["kernel_families"];
        QVERIFY(!families.empty());
        for (std::size_t f = 0; f < families.size(); ++f) {
            const int row = 2 + int(f);
            QCOMPARE(table->item(row, ui::AgainstView::Where)->text(), QStringLiteral("kernel family"));
            QCOMPARE(table->item(row, ui::AgainstView::Name)->text(), QString::fromStdString(families[f]["name"]));
            QCOMPARE(sortKey(table, row, ui::AgainstView::Predicted), double(families[f]["predicted_ns"].get<std::int64_t>()));
            QCOMPARE(sortKey(table, row, ui::AgainstView::Measured), double(families[f]["measured_ns"].get<std::int64_t>()));
        }
        const QString status = compare->dock()->againstView()->statusText();
        QVERIFY2(status.contains(QStringLiteral("vectorized_layer_norm")) && status.contains(QStringLiteral("error")),
                 qPrintable(status));
        compare->dock()->tabs()->setCurrentWidget(compare->dock()->againstView());
        saveShot(&window, "comparegui_against.png");

        // Another what-if while the comparison is shown: checked again (the graphs are not read again).
        const std::int64_t predictedBy2 = got.meanPredictedNs;
        whatIf->setValue(3);
        QVERIFY(check->waitUntilIdle());
        QCOMPARE(check->state(), ui::AgainstCheck::State::Done);
        QVERIFY(check->result()->whatIf.contains(QStringLiteral("3")));
        QVERIFY(check->result()->against.meanPredictedNs > predictedBy2);
        // Each tab of the dock on its own.
        ui::DiffDock *dock = compare->dock();
        for (int t = 0; t < ui::DiffDock::TableCount; ++t) {
            dock->tabs()->setCurrentIndex(t);
            saveShot(dock, qPrintable(QStringLiteral("comparegui_tab%1.png").arg(t)));
        }
    }

private:
    QTemporaryDir m_dir;
    std::string m_a, m_b;
};

QTEST_MAIN(TestCompareGui)
#include "test_comparegui.moc"
