// Room for the timeline (issue 40, item 5), in the default layout (no saved one) at 1400x900 and
// 1920x1080: the lanes get at least 60 % of the window's height with the sample open; the right
// column runs the window's height and the Prediction dock shows the step, its breakdown and the
// what-if without scrolling; the Time range dock, with nothing to show before a selection, is only
// its tab's title (the Findings in front) and comes back to that when the range is cleared. With a
// generated 8-rank job open (CPU-bound, a straggler: many candidate changes name that rank's CPU
// ops), the dock shows the job's what-if, its answer and its diff against the baseline without
// scrolling, and What to fix first names each change by its kind and target in the room it has.

#include "docks/findingsdock.h"
#include "docks/rangedock.h"
#include "gen/tracegenerator.h"
#include "jobview/jobdock.h"
#include "prediction/jobpredictionpanel.h"
#include "prediction/opportunitiesview.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "prediction/whatifdiffview.h"
#include "prediction/whatifpanel.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <filesystem>
#include <memory>
#include <set>

using namespace linkscope;

class TestRoomLayout : public QObject {
    Q_OBJECT

    // A window of `size` on screen, nothing open; null when it is not exposed.
    static std::unique_ptr<ui::MainWindow> shown(const QSize &size)
    {
        auto window = std::make_unique<ui::MainWindow>();
        window->resize(size);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()))
            return nullptr;
        return window;
    }

    // Empty when the Prediction dock's own scroll area shows everything, else what it needs.
    static QString dockScrolls(const ui::PredictDock *predict)
    {
        const auto *scroll = qobject_cast<const QScrollArea *>(predict->widget());
        if (!scroll)
            return QStringLiteral("the dock holds no scroll area");
        if (!scroll->verticalScrollBar()->isVisible())
            return {};
        return QStringLiteral("the dock's contents need %1 px, it has %2")
            .arg(scroll->widget()->minimumSizeHint().height())
            .arg(scroll->viewport()->height());
    }

    // The last label under `parent` whose text contains `text`, or null.
    static QLabel *labelWith(const QWidget *parent, const QString &text)
    {
        QLabel *found = nullptr;
        for (QLabel *label : parent->findChildren<QLabel *>())
            if (label->text().contains(text))
                found = label;
        return found;
    }

    std::unique_ptr<ui::MainWindow> open(const QSize &size)
    {
        auto window = shown(size);
        if (!window)
            return nullptr;
        QSignalSpy loaded(window.get(), &ui::MainWindow::documentChanged);
        const QString samples = QString::fromStdString(test::sourcePath("resources/samples"));
        window->openPair(samples + QStringLiteral("/sample_host_et.json"), samples + QStringLiteral("/sample_kineto.json"));
        if (!loaded.wait(60000) || !window->review()->controller()->waitUntilSettled()
            || !window->predictionController()->waitUntilBuilt())
            return nullptr;
        QTest::qWait(50); // the layout's queued resizes
        return window;
    }

    std::unique_ptr<ui::MainWindow> openJob(const QSize &size)
    {
        auto window = shown(size);
        if (!window)
            return nullptr;
        window->openJob(QString::fromStdString(m_job));
        ui::JobDock *dock = window->jobDock();
        QSignalSpy opened(dock, &ui::JobDock::jobOpened);
        if (!opened.wait(60000))
            return nullptr;
        ui::JobPredictor *predictor = dock->predictor();
        if (!QTest::qWaitFor([&] { return predictor->prediction() || !predictor->error().isEmpty(); }, 180000)
            || !predictor->prediction())
            return nullptr;
        QTest::qWait(50); // the layout's queued resizes
        return window;
    }

    // Every line of `w`'s text in view: laid out at least as high as its text needs (a label), and
    // inside the dock's visible part. Empty when it is, else what is not.
    static QString notInView(const QWidget *w, const QWidget *dock)
    {
        const QRect inDock(w->mapTo(dock, QPoint(0, 0)), w->size());
        const auto *label = qobject_cast<const QLabel *>(w);
        if (label && label->wordWrap() && label->height() < label->heightForWidth(label->width()))
            return QStringLiteral("%1 px high, its text needs %2")
                .arg(label->height())
                .arg(label->heightForWidth(label->width()));
        if (!w->isVisible() || !dock->rect().contains(inDock))
            return QStringLiteral("at %1,%2 %3x%4 in a dock of %5x%6")
                .arg(inDock.x())
                .arg(inDock.y())
                .arg(inDock.width())
                .arg(inDock.height())
                .arg(dock->width())
                .arg(dock->height());
        if (w->visibleRegion().boundingRect() != w->rect())
            return QStringLiteral("partly hidden");
        return {};
    }

    QTemporaryDir m_dir;
    std::string m_job;

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_roomlayout"));
        QSettings().clear(); // the default layout, not a saved one
        QVERIFY(m_dir.isValid());
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.worldSize = 8;
        o.computeScale = 0.1; // CPU-bound
        o.straggler = 1;
        m_job = (std::filesystem::path(m_dir.path().toStdString()) / "job").string();
        gen::generateJob(o, m_job, false, 2);
    }

    void lanesKeepSixtyPercent_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1400x900") << QSize(1400, 900);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void lanesKeepSixtyPercent()
    {
        QFETCH(QSize, size);
        const std::unique_ptr<ui::MainWindow> window = open(size);
        QVERIFY(window);
        QCOMPARE(window->size(), size);
        const QWidget *lanes = window->centralWidget();
        const double share = double(lanes->height()) / double(window->height());
        qInfo("%dx%d: the lanes %dx%d px, %.1f %% of the window's height, %.1f %% of its area", size.width(), size.height(),
              lanes->width(), lanes->height(), 100 * share,
              100.0 * lanes->width() * lanes->height() / (double(window->width()) * window->height()));
        QVERIFY2(share >= 0.60, qPrintable(QString::number(100 * share, 'f', 1) + " %"));
        // The right column runs the window's height: the Prediction tabs end level with the Findings.
        ui::PredictDock *predict = window->predictDock();
        QDockWidget *findings = window->review()->findingsDock();
        predict->raise();
        QTest::qWait(20);
        QCOMPARE(window->dockWidgetArea(predict), Qt::RightDockWidgetArea);
        QVERIFY(predict->geometry().bottom() >= findings->geometry().bottom());
        QVERIFY(predict->geometry().left() > findings->geometry().right());
    }

    // The Prediction dock raised: the step, the breakdown and the what-if with its answer in view,
    // no scroll bar.
    void predictionFitsWithoutScrolling_data() { lanesKeepSixtyPercent_data(); }
    void predictionFitsWithoutScrolling()
    {
        QFETCH(QSize, size);
        const std::unique_ptr<ui::MainWindow> window = open(size);
        QVERIFY(window);
        ui::PredictDock *predict = window->predictDock();
        predict->raise();
        predict->whatIf()->setTarget(ui::WhatIfPanel::Target::GpuKernels);
        predict->whatIf()->setValue(0.5);
        predict->whatIf()->setParameter(QStringLiteral("."));
        QVERIFY(predict->whatIf()->current().pathKnown);
        QTest::qWait(50);
        QVERIFY2(dockScrolls(predict).isEmpty(), qPrintable(dockScrolls(predict)));
        QVERIFY(predict->pairTabs()->isVisible());
        QCOMPARE(predict->pairTabs()->currentIndex(), 0); // the what-if first
        QVERIFY(predict->whatIf()->isVisible());
        qInfo("%dx%d: the Prediction dock %dx%d px", size.width(), size.height(), predict->width(), predict->height());
    }

    // A job open: the job's what-if fills the dock (the open rank's pair a tab beside it); a what-if
    // replayed shows its answer, the breakdown beside the baseline's and the path diff, all in view.
    void jobWhatIfAndItsDiffFitWithoutScrolling_data() { lanesKeepSixtyPercent_data(); }
    void jobWhatIfAndItsDiffFitWithoutScrolling()
    {
        QFETCH(QSize, size);
        const std::unique_ptr<ui::MainWindow> window = openJob(size);
        QVERIFY(window);
        ui::PredictDock *predict = window->predictDock();
        ui::JobPredictionPanel *panel = window->jobDock()->predictionPanel();
        QVERIFY(predict->isAncestorOf(panel->jobTools()));
        QVERIFY(!predict->visibleRegion().isEmpty()); // raised when the job opened
        QCOMPARE(panel->jobTools()->currentIndex(), 0);
        ui::WhatIfPanel *whatIf = panel->whatIf();
        whatIf->setTarget(ui::WhatIfPanel::Target::CpuOps);
        whatIf->setValue(0.5);
        whatIf->setParameter(QStringLiteral(".*"));
        const ui::WhatIfOutcome &o = whatIf->current();
        QVERIFY2(o.pathKnown, qPrintable(o.error));
        QVERIFY(o.stepNs < o.baselineNs);
        QTest::qWait(50);
        // Neither the dock nor the job's what-if scrolls.
        QVERIFY2(dockScrolls(predict).isEmpty(), qPrintable(dockScrolls(predict)));
        for (const QScrollArea *inner : panel->jobTools()->findChildren<QScrollArea *>())
            if (inner->isVisible())
                QVERIFY2(!inner->verticalScrollBar()->isVisible(),
                         qPrintable(QStringLiteral("the what-if needs %1 px at %2 px wide, it has %3")
                                        .arg(inner->widget()->heightForWidth(inner->viewport()->width()))
                                        .arg(inner->viewport()->width())
                                        .arg(inner->viewport()->height())));
        // The answer (the job's step before and after), the breakdown with all its rows, the diff.
        QLabel *result = labelWith(whatIf, QStringLiteral("→"));
        QVERIFY(result);
        QVERIFY2(notInView(result, predict).isEmpty(), qPrintable(notInView(result, predict) + ": " + result->text()));
        const QTableWidget *breakdown = whatIf->diffView()->breakdownTable();
        QCOMPARE(breakdown->rowCount(), 6);
        QVERIFY2(notInView(breakdown, predict).isEmpty(), qPrintable(notInView(breakdown, predict)));
        QVERIFY(breakdown->verticalHeader()->length() <= breakdown->viewport()->height());
        QLabel *diff = labelWith(whatIf->diffView(), QStringLiteral("Left the path"));
        QVERIFY(diff);
        QVERIFY2(notInView(diff, predict).isEmpty(), qPrintable(notInView(diff, predict)));
        qInfo("%dx%d: the Prediction dock %dx%d px, the breakdown %d px, the diff %d px", size.width(), size.height(),
              predict->width(), predict->height(), breakdown->height(), diff->height());
    }

    // What to fix first at 1400x900: the Change column takes the room the step and the ops leave; a
    // title too long for it keeps the kind of change and its target (not "rank 1's CPU …" on every
    // row), each fits the column, CPU ops read apart, the whole title in the tooltip.
    void opportunitiesNameTheChangeInTheRoomThereIs()
    {
        const std::unique_ptr<ui::MainWindow> window = openJob({1400, 900});
        QVERIFY(window);
        ui::JobPredictionPanel *panel = window->jobDock()->predictionPanel();
        ui::OpportunitiesView *view = panel->opportunities();
        panel->jobTools()->setCurrentWidget(view);
        view->find();
        QVERIFY(view->waitUntilFound());
        QVERIFY2(view->result(), qPrintable(view->statusText()));
        QTest::qWait(50);
        const auto &ranked = view->result()->ranked;
        QTreeWidget *list = view->list();
        QCOMPARE(list->topLevelItemCount(), int(ranked.size()));
        const int column = list->header()->sectionSize(ui::OpportunitiesView::ChangeColumn);
        const int others = list->header()->sectionSize(ui::OpportunitiesView::OrderColumn)
                           + list->header()->sectionSize(ui::OpportunitiesView::GainColumn);
        // The step in view beside the change (the ops further right, and in the change's tooltip).
        QVERIFY(list->header()->visualIndex(ui::OpportunitiesView::OpsColumn)
                > list->header()->visualIndex(ui::OpportunitiesView::MovedColumn));
        QVERIFY2(column + others <= list->viewport()->width(),
                 qPrintable(QStringLiteral("%1 + %2 > %3").arg(column).arg(others).arg(list->viewport()->width())));
        std::set<QString> shown;
        int cpuOps = 0, shortened = 0;
        for (int r = 0; r < list->topLevelItemCount(); ++r) {
            const core::predict::Opportunity &c = ranked[std::size_t(r)];
            const QString title = QString::fromStdString(c.title);
            const QString text = view->changeText(r);
            QCOMPARE(list->topLevelItem(r)->text(ui::OpportunitiesView::ChangeColumn), text);
            QVERIFY2(list->fontMetrics().horizontalAdvance(text) <= column, qPrintable(text));
            QVERIFY(list->topLevelItem(r)->toolTip(ui::OpportunitiesView::ChangeColumn).startsWith(title));

            shortened += text != title;
            // Kernel families and one straggler's CPU ops read apart: a qualified name keeps its own
            // name (at::native's kernels differ there, not in their namespaces).
            if (c.kind == core::predict::OpportunityKind::KernelFamily || c.kind == core::predict::OpportunityKind::CpuOp)
                QVERIFY2(shown.insert(text).second, qPrintable(QStringLiteral("two rows read \"%1\"").arg(text)));
            if (c.kind == core::predict::OpportunityKind::CpuOp && text != title) {
                ++cpuOps;
                // Shortened: "CPU op NAME ×0.5", the name (or both its ends) in view, not "rank 1's CPU op …".
                QVERIFY2(text.startsWith(QStringLiteral("CPU op ")), qPrintable(text));
                const QString name = title.section(QStringLiteral("CPU op "), 1).section(QStringLiteral(" ×"), 0, 0);
                const QString target = text.mid(7).section(QStringLiteral(" ×"), 0, 0);
                QVERIFY2(target == name
                             || (target.contains(QChar(0x2026)) && name.startsWith(target.section(QChar(0x2026), 0, 0))
                                 && name.endsWith(target.section(QChar(0x2026), 1))),
                         qPrintable(text + QStringLiteral(" / ") + title));
            }
        }
        QVERIFY2(cpuOps >= 1, qPrintable(QString::number(cpuOps)));
        QVERIFY(shortened > 0); // the test means something at this size
        qInfo("1400x900: the Change column %d px, %d changes, %d shortened, e.g. \"%s\"", column, int(ranked.size()), shortened,
              qPrintable(
                  view->changeText(int(std::find_if(ranked.begin(), ranked.end(),
                                                    [](const auto &c) { return c.kind == core::predict::OpportunityKind::CpuOp; })
                                       - ranked.begin()))));
    }

    void timeRangeIsATitleUntilARangeIsSelected()
    {
        const std::unique_ptr<ui::MainWindow> window = open({1400, 900});
        QVERIFY(window);
        auto *range = window->findChild<ui::RangeDock *>();
        QDockWidget *findings = window->review()->findingsDock();
        QVERIFY(range && findings);
        QVERIFY(window->tabifiedDockWidgets(range).contains(findings));
        // Before a selection: a tab's title, behind the Findings.
        QVERIFY(range->visibleRegion().isEmpty());
        QVERIFY(!findings->visibleRegion().isEmpty());
        ui::TimelineView *timeline = window->timeline();
        timeline->state().timeRange().set(0, 1'000'000);
        QTRY_VERIFY(!range->visibleRegion().isEmpty());
        QVERIFY(findings->visibleRegion().isEmpty());
        // Cleared: nothing to show, the Findings in front again.
        timeline->state().timeRange().clear();
        QTRY_VERIFY(range->visibleRegion().isEmpty());
        QVERIFY(!findings->visibleRegion().isEmpty());
    }
};

QTEST_MAIN(TestRoomLayout)
#include "test_roomlayout.moc"
