// Issue 41 item 9, offscreen: the lane filter (Perfetto's track filter) in the tool bar shows only
// the lanes whose name contains the text, leaves out the groups without one (a group's own name
// shows all its lanes), is reached with Ctrl+L, and Esc clears it and restores every lane; with no
// lane left the view says so. Saves build/screens/lane_filter.png and lane_filter_none.png.

#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace linkscope;

class TestLaneFilter : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_lanefilter"));
        QSettings().clear();
        QDir().mkpath(linkscope::test::buildPath("/screens"));
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(test::sampleCopy("sample_host_et.json"), test::sampleCopy("sample_kineto.json"));
        QVERIFY(loaded.wait(60000));
    }

    void laneFilterShowsTheLanesNamedSo()
    {
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        auto *box = m_window->findChild<QLineEdit *>(QStringLiteral("LaneFilter"));
        QVERIFY(box && box->isVisible());
        const ui::TraceDocument &doc = *m_window->document();
        auto shownLanes = [&] {
            QStringList names;
            for (int r = 0; r < static_cast<int>(layout.rows().size()); ++r) {
                const ui::LayoutRow &row = layout.rows()[r];
                if (row.kind == ui::LayoutRow::Kind::LaneRow && layout.firstRowOfLane(row.lane) == r)
                    names << QString::fromStdString(doc.index().lane(row.lane).label);
            }
            return names;
        };
        auto shownGroups = [&] {
            int n = 0;
            for (int g = 0; g < static_cast<int>(layout.groups().size()); ++g)
                n += layout.headerRowOfGroup(g) >= 0 ? 1 : 0;
            return n;
        };
        const QStringList all = shownLanes();
        QCOMPARE(shownGroups(), 3); // GPU 0, GPU 1, the CPU process
        QVERIFY2(all.filter(QStringLiteral("stream 40"), Qt::CaseInsensitive).size() == 2,
                 qPrintable(all.join(QLatin1Char(','))));

        // Ctrl+L puts the cursor in the box (a window shortcut no other action has).
        m_window->activateWindow();
        view->setFocus();
        QTest::keyClick(view, Qt::Key_L, Qt::ControlModifier);
        QVERIFY(box->hasFocus());
        QTest::keyClicks(box, QStringLiteral("STREAM 40"));
        const QStringList streams = shownLanes();
        QCOMPARE(streams.size(), 2);
        for (const QString &name : streams)
            QVERIFY2(name.contains(QStringLiteral("stream 40"), Qt::CaseInsensitive), qPrintable(name));
        QCOMPARE(shownGroups(), 2); // the CPU process has no such lane: left out
        QCOMPARE(layout.firstRowOfLane(doc.index().laneOf[firstEvent(core::EventCategory::CpuOp).get()]), -1);
        m_window->grab().save(linkscope::test::buildPath("/screens/lane_filter.png"));

        // A group's name shows all of its lanes.
        const int cpu = 2;
        QVERIFY(!layout.groups()[cpu].gpu);
        const QString cpuLabel = layout.groups()[cpu].label;
        box->setText(cpuLabel);
        QCOMPARE(shownGroups(), 1);
        QCOMPARE(shownLanes().size(), static_cast<int>(layout.groups()[cpu].lanes.size()));
        // Nothing matches: no lanes at all.
        box->setText(QStringLiteral("no lane is called this"));
        QVERIFY(shownLanes().isEmpty());
        QCOMPARE(shownGroups(), 0);
        // … and the empty view says why, in words, with the way back (it was a blank pane).
        QVERIFY(layout.rows().empty());
        QCOMPARE(
            view->filteredOutText(),
            QStringLiteral("No lane's name contains “no lane is called this” (Esc in the lane filter shows them all again)"));
        const QImage empty = view->grab().toImage();
        const QRect middle = view->contentRect().adjusted(view->contentRect().width() / 4, 0, -view->contentRect().width() / 4,
                                                          0);
        const QColor background = empty.pixelColor(view->contentRect().topLeft() + QPoint(2, 2));
        int ink = 0;
        for (int y = middle.center().y() - 8; y <= middle.center().y() + 8; ++y)
            for (int x = middle.left(); x < middle.right(); ++x)
                ink += empty.pixelColor(x, y) != background ? 1 : 0;
        QVERIFY2(ink > 50, qPrintable(QString::number(ink)));
        m_window->grab().save(linkscope::test::buildPath("/screens/lane_filter_none.png"));
        // Esc clears it and hands the keyboard back: every lane is shown again.
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Escape);
        QVERIFY(box->text().isEmpty());
        QVERIFY(view->hasFocus());
        QCOMPARE(shownLanes(), all);
        QCOMPARE(shownGroups(), 3);
        // Not a view setting: nothing was hidden.
        QCOMPARE(layout.hiddenCount(), 0);
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    core::EventIndex firstEvent(core::EventCategory category) const
    {
        const ui::TraceDocument &doc = *m_window->document();
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
            if (doc.event(e).category == category && doc.index().laneOf[e.get()].valid())
                return e;
        return core::kNone;
    }

    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestLaneFilter)
#include "test_lanefilter.moc"
