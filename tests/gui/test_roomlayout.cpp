// Room for the timeline (issue 40, item 5), in the default layout (no saved one) at 1400x900 and
// 1920x1080: the lanes get at least 60 % of the window's height with the sample open; the right
// column runs the window's height and the Prediction dock shows the step, its breakdown and the
// what-if without scrolling; the Time range dock, with nothing to show before a selection, is only
// its tab's title (the Findings in front) and comes back to that when the range is cleared.

#include "docks/findingsdock.h"
#include "docks/rangedock.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "prediction/whatifpanel.h"
#include "review/correctioncontroller.h"
#include "review/reviewui.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QDockWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <memory>

using namespace linkscope;

class TestRoomLayout : public QObject {
    Q_OBJECT

    std::unique_ptr<ui::MainWindow> open(const QSize &size)
    {
        auto window = std::make_unique<ui::MainWindow>();
        window->resize(size);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()))
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

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_roomlayout"));
        QSettings().clear(); // the default layout, not a saved one
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
        auto *scroll = qobject_cast<QScrollArea *>(predict->widget());
        QVERIFY(scroll);
        QVERIFY2(!scroll->verticalScrollBar()->isVisible(), qPrintable(QStringLiteral("the dock's contents need %1 px, it has %2")
                                                                           .arg(scroll->widget()->minimumSizeHint().height())
                                                                           .arg(scroll->viewport()->height())));
        QVERIFY(predict->pairTabs()->isVisible());
        QCOMPARE(predict->pairTabs()->currentIndex(), 0); // the what-if first
        QVERIFY(predict->whatIf()->isVisible());
        qInfo("%dx%d: the Prediction dock %dx%d px", size.width(), size.height(), predict->width(), predict->height());
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
        timeline->timeRange().set(0, 1'000'000);
        QTRY_VERIFY(!range->visibleRegion().isEmpty());
        QVERIFY(findings->visibleRegion().isEmpty());
        // Cleared: nothing to show, the Findings in front again.
        timeline->timeRange().clear();
        QTRY_VERIFY(range->visibleRegion().isEmpty());
        QVERIFY(!findings->visibleRegion().isEmpty());
    }
};

QTEST_MAIN(TestRoomLayout)
#include "test_roomlayout.moc"
