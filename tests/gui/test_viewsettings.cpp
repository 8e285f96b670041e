// Lanes and looks of the main window, offscreen: GPU streams first on open (checked on a with_stack-
// style Kineto trace written here: a 40-frame python_function stack above the aten ops, as
// profile(with_stack=True) records it), hiding lanes, groups and Python rows from the lane-header
// context menu, resizing the header column by its edge, per-trace view settings restored on reopen;
// View ▸ Theme reaching the timeline's pixels and persisting; edges hovered (tooltip) and clicked
// (target selected, edge focused) on the sample pair; the first show fitting the screen.
// Screenshots go to build/screens/ (withstack_open.png, withstack_python_hidden.png,
// dark_theme.png).

#include "docks/rangedock.h"
#include "shell/mainwindow.h"
#include "shell/theme.h"
#include "testsupport.h"
#include "timeline/timelinepalette.h"
#include "timeline/timelineview.h"
#include "withstacktrace.h"

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QHelpEvent>
#include <QLineF>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace linkscope;

namespace {

using test::kStackDepth;
using test::writeWithStackTrace;

QAction *findAction(const QList<QAction *> &actions, const QString &prefix)
{
    for (QAction *action : actions) {
        if (action->text().startsWith(prefix))
            return action;
        if (action->menu())
            if (QAction *inner = findAction(action->menu()->actions(), prefix))
                return inner;
    }
    return nullptr;
}

} // namespace

class TestViewSettings : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_viewsettings"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_trace = writeWithStackTrace(m_dir.filePath(QStringLiteral("withstack_kineto.json")));
        QVERIFY(!m_trace.isEmpty());
        QDir().mkpath(linkscope::test::buildPath("/screens"));
    }
    void init() { QSettings().remove(QStringLiteral("traceViews")); } // each test from the defaults
    void cleanup()
    {
        m_window.reset();
        ui::applyTheme(ui::ThemeChoice::System);
    }

    void gpuStreamsAreFirstOnOpen()
    {
        open();
        const ui::TimelineLayout &layout = m_window->timeline()->layout();
        QCOMPARE(layout.groups().size(), std::size_t(2));
        QVERIFY(layout.groups()[0].gpu);
        QVERIFY(!layout.groups()[1].gpu);
        // The stream's row is at the top of the lanes, in view; the 40-frame thread below it.
        ui::TimelineView *view = m_window->timeline();
        const core::EventIndex kernel = firstOfName(QStringLiteral("gemm_kernel"));
        QVERIFY(kernel.valid());
        const QRectF kernelRect = view->eventRect(kernel);
        QVERIFY(!kernelRect.isEmpty());
        QVERIFY(kernelRect.bottom() < view->contentRect().top() + 80);
        const core::EventIndex mm = firstOfName(QStringLiteral("aten::mm"));
        QVERIFY(view->eventRect(mm).top() > kernelRect.bottom());
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/withstack_open.png"));

        // Turned off: the CPU group first again, the kernel below the stack (off screen).
        view->setGpuFirst(false);
        QVERIFY(!layout.groups()[0].gpu);
        QVERIFY(view->eventRect(firstOfName(QStringLiteral("gemm_kernel"))).top() > view->eventRect(mm).bottom());
    }

    void headerMenuHidesLanesGroupsAndPythonRows()
    {
        open();
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        const core::EventIndex mm = firstOfName(QStringLiteral("aten::mm"));
        const core::EventIndex kernel = firstOfName(QStringLiteral("gemm_kernel"));
        const core::LaneIndex cpuLane = m_window->document()->index().laneOf[mm.get()];
        const core::LaneIndex gpuLane = m_window->document()->index().laneOf[kernel.get()];
        view->arrangement().setFoldPythonRows(false); // each frame its own row (folded into one by default)
        const int rowsBefore = static_cast<int>(layout.rows().size());

        // Python rows: the 40 frame rows go; aten::mm and the launch move up to the lane's first rows.
        QCOMPARE(layout.pythonOnlyRowCount(), kStackDepth);
        QMenu *menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(cpuLane)));
        QAction *python = findAction(menu->actions(), QStringLiteral("Hide Python rows"));
        QVERIFY(python);
        QCOMPARE(python->text(), QStringLiteral("Hide Python rows (%1)").arg(kStackDepth));
        python->trigger();
        delete menu;
        QVERIFY(layout.hidePythonRows());
        QCOMPARE(static_cast<int>(layout.rows().size()), rowsBefore - kStackDepth);
        QCOMPARE(layout.shownRowCount(cpuLane), 2);
        // The lane's rows without the frames: aten::mm on the first, its launch under it.
        QCOMPARE(layout.rowOfEvent(mm), layout.firstRowOfLane(cpuLane));
        QCOMPARE(layout.depthOf(mm), 0);
        for (const ui::LayoutRow &row : layout.rows())
            if (row.kind == ui::LayoutRow::Kind::LaneRow && row.lane == cpuLane)
                QVERIFY(row.depth <= 1);
        QVERIFY(!view->eventRect(mm).isEmpty());
        QVERIFY(view->eventRect(mm).bottom() < view->contentRect().bottom());
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/withstack_python_hidden.png"));

        // Hide the GPU lane from its header's menu: no row, no rectangle; then the whole CPU group.
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(gpuLane)));
        QAction *hideLane = findAction(menu->actions(), QStringLiteral("Hide lane “GPU 0 stream 7”"));
        QVERIFY(hideLane);
        hideLane->trigger();
        delete menu;
        QVERIFY(layout.isLaneHidden(gpuLane));
        QCOMPARE(layout.firstRowOfLane(gpuLane), -1);
        QVERIFY(view->eventRect(kernel).isEmpty());
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(cpuLane)));
        QAction *hideGroup = findAction(menu->actions(), QStringLiteral("Hide group “python3 (pid 100)”"));
        QVERIFY(hideGroup);
        hideGroup->trigger();
        delete menu;
        QCOMPARE(layout.headerRowOfGroup(layout.groupOfLane(cpuLane)), -1);
        QVERIFY(view->eventRect(mm).isEmpty());
        QCOMPARE(layout.hiddenCount(), 2);
        QVERIFY(view->menus().showHiddenAction()->isEnabled());
        QCOMPARE(view->menus().showHiddenAction()->text(), QStringLiteral("Show hidden lanes and groups (2)"));

        // The "Show" submenu lists both; one of them brought back alone, then everything.
        menu = view->menus().createHeaderMenu(QPoint(5, view->contentRect().top() + 5));
        QAction *showLane = findAction(menu->actions(), QStringLiteral("Lane “GPU 0 stream 7”"));
        QVERIFY(showLane);
        showLane->trigger();
        delete menu;
        QVERIFY(!layout.isLaneHidden(gpuLane));
        QVERIFY(!view->eventRect(kernel).isEmpty());
        view->menus().showHiddenAction()->trigger();
        QCOMPARE(layout.hiddenCount(), 0);
        QVERIFY(!view->eventRect(mm).isEmpty());

        // Selecting an event in a hidden lane shows it again (selection reveals what hides it).
        view->arrangement().setLaneHidden(gpuLane, true);
        m_window->selection()->select(kernel);
        QVERIFY(!layout.isLaneHidden(gpuLane));
        QVERIFY(!view->eventRect(kernel).isEmpty());

        // A right-click on the header column pops the menu up (non-blocking).
        QContextMenuEvent event(QContextMenuEvent::Mouse, headerPointOf(view, layout.firstRowOfLane(cpuLane)),
                                view->mapToGlobal(headerPointOf(view, layout.firstRowOfLane(cpuLane))));
        QApplication::sendEvent(view, &event);
        QTRY_VERIFY(qobject_cast<QMenu *>(QApplication::activePopupWidget()));
        QApplication::activePopupWidget()->close();
    }

    void headerColumnResizesByItsEdge()
    {
        open();
        ui::TimelineView *view = m_window->timeline();
        QCOMPARE(view->headerWidth(), int(ui::TimelineView::kHeaderWidth));
        const int y = view->contentRect().top() + 40;
        const QPoint edge(view->headerWidth(), y);
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, edge);
        QTest::mouseMove(view, edge + QPoint(120, 0));
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, edge + QPoint(120, 0));
        QCOMPARE(view->headerWidth(), int(ui::TimelineView::kHeaderWidth) + 120);
        QCOMPARE(view->contentRect().left(), view->headerWidth());
        // The lanes start right of it: an event's rectangle never reaches into the header column.
        QVERIFY(view->eventRect(firstOfName(QStringLiteral("gemm_kernel"))).left() >= view->headerWidth());
        // Bounded: not narrower than the minimum.
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, QPoint(view->headerWidth(), y));
        QTest::mouseMove(view, QPoint(10, y));
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, QPoint(10, y));
        QCOMPARE(view->headerWidth(), int(ui::TimelineView::kMinHeaderWidth));
    }

    // Issue 41 item 8: Python frames of varying depth, with ops at several depths under them (as
    // with_stack writes them: an op under 3 frames here, under 12 there). No row holds frames only,
    // yet with Python rows hidden every op stands right under the op that encloses it: both ops on
    // the lane's first row, their launches on the second, no frame row above them.
    void hiddenPythonRowsLeaveNoFrameAboveTheOps()
    {
        QString events = QStringLiteral(R"({"name":"process_name","ph":"M","pid":7,"tid":0,"args":{"name":"python3"}})");
        auto add = [&events](const QString &name, const char *cat, double ts, double dur) {
            events += QStringLiteral(R"(,
{"ph":"X","cat":"%1","name":"%2","pid":7,"tid":7,"ts":%3,"dur":%4})")
                          .arg(QLatin1String(cat), name)
                          .arg(ts, 0, 'f', 3)
                          .arg(dur, 0, 'f', 3);
        };
        // Step 1: aten::empty under 3 frames; step 2: aten::mm under 12 frames (and the frames
        // deeper than 3 hold ops elsewhere: rows 3.. mix frames and ops).
        for (int d = 0; d < 3; ++d)
            add(QStringLiteral("a.py(%1): f%1").arg(d), "python_function", 100 + d, 100 - 2 * d);
        add(QStringLiteral("aten::empty"), "cpu_op", 110, 20);
        add(QStringLiteral("cudaLaunchKernel"), "cuda_runtime", 112, 5);
        for (int d = 0; d < 12; ++d)
            add(QStringLiteral("b.py(%1): g%1").arg(d), "python_function", 300 + d, 100 - 2 * d);
        add(QStringLiteral("aten::mm"), "cpu_op", 320, 20);
        add(QStringLiteral("cudaLaunchKernel"), "cuda_runtime", 322, 5);
        const QString path = m_dir.filePath(QStringLiteral("mixed_depths.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral(R"({"schemaVersion":1,"traceEvents":[%1]})").arg(events).toUtf8());
        file.close();
        m_window.reset();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(path);
        QVERIFY(loaded.wait(60000));
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        const core::EventIndex empty = firstOfName(QStringLiteral("aten::empty"));
        const core::EventIndex mm = firstOfName(QStringLiteral("aten::mm"));
        QVERIFY(empty.valid() && mm.valid());
        const core::LaneIndex lane = m_window->document()->index().laneOf[mm.get()];
        view->arrangement().setFoldPythonRows(false);
        // Rows 0-2 and 5-11 hold frames only; rows 3 and 4 mix frames and aten::empty's, which kept
        // them (and every row down to aten::mm's, the 13th) when only frame-only rows were left out.
        QCOMPARE(layout.pythonOnlyRowCount(), 10);
        view->arrangement().setHidePythonRows(true);
        QCOMPARE(layout.shownRowCount(lane), 2);
        QCOMPARE(layout.rowOfEvent(empty), layout.firstRowOfLane(lane));
        QCOMPARE(layout.rowOfEvent(mm), layout.firstRowOfLane(lane));
        QCOMPARE(view->eventRect(mm).top(), view->eventRect(empty).top());
        // Hit testing finds the op where it is drawn; a frame asked for brings the frames back.
        QCOMPARE(view->eventAt(view->eventRect(mm).center().toPoint()), mm);
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/python_hidden_mixed_depths.png"));
        core::EventIndex frame = firstOfName(QStringLiteral("b.py(7): g7"));
        QVERIFY(frame.valid());
        QCOMPARE(layout.rowOfEvent(frame), -1);
        view->state().selectionModel()->select(frame);
        QVERIFY(!layout.hidePythonRows());
        QVERIFY(layout.rowOfEvent(frame) >= 0);
    }

    void viewSettingsAreRestoredPerTrace()
    {
        open();
        ui::TimelineView *view = m_window->timeline();
        const core::EventIndex kernel = firstOfName(QStringLiteral("gemm_kernel"));
        const core::LaneIndex gpuLane = m_window->document()->index().laneOf[kernel.get()];
        view->arrangement().setHidePythonRows(true);
        view->arrangement().setLaneHidden(gpuLane, true);
        view->setHeaderWidth(300);
        view->saveViewSettings(); // the width is saved on the drag's release; set directly here
        QSettings settings;
        const QString group = ui::TimelineViewSettings::group(m_trace);
        QCOMPARE(settings.value(group + QStringLiteral("/path")).toString(), QFileInfo(m_trace).absoluteFilePath());
        QCOMPARE(settings.value(group + QStringLiteral("/hiddenLanes")).toStringList().size(), 1);

        // Reopened in a new window: the same view.
        open();
        view = m_window->timeline();
        QVERIFY(view->layout().hidePythonRows());
        QVERIFY(view->layout().isLaneHidden(gpuLane));
        QCOMPARE(view->headerWidth(), 300);
        QVERIFY(view->menus().hidePythonRowsAction()->isChecked());

        // Another trace keeps the defaults.
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_kineto.json")),
                    m_dir.filePath(QStringLiteral("sample_kineto.json")));
        m_window->openDevice(m_dir.filePath(QStringLiteral("sample_kineto.json")));
        QVERIFY(loaded.wait(60000));
        view = m_window->timeline();
        QVERIFY(!view->layout().hidePythonRows());
        QCOMPARE(view->layout().hiddenCount(), 0);
        QCOMPARE(view->headerWidth(), int(ui::TimelineView::kHeaderWidth));
        QVERIFY(view->layout().gpuFirst());
        settings.remove(group);
    }

    void darkThemeReachesTheTimeline()
    {
        open();
        ui::TimelineView *view = m_window->timeline();
        QAction *dark = findAction(m_window->viewMenu()->actions(), QStringLiteral("Dark"));
        QAction *light = findAction(m_window->viewMenu()->actions(), QStringLiteral("Light"));
        QVERIFY(dark && light);
        dark->trigger();
        QCOMPARE(ui::palette::theme(), ui::palette::Theme::Dark);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
        // The docks and menus too.
        QVERIFY(m_window->palette().color(QPalette::Window).lightness() < 100);
        QVERIFY(m_window->rangeDock()->palette().color(QPalette::Base).lightness() < 100);
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toInt(), int(ui::ThemeChoice::Dark));
        const ui::palette::Colors &colors = ui::palette::colors(ui::palette::Theme::Dark);
        auto check = [&](const ui::palette::Colors &expected) {
            const QImage shot = view->grab().toImage();
            const QRect content = view->contentRect();
            const ui::TimelineLayout &layout = view->layout();
            // Below the last lane: the background (grid lines cross it, so most of a few columns);
            // the header column; the ruler's corner; a group band in the header column.
            int background = 0;
            for (int i = 1; i <= 7; ++i)
                background += shot.pixelColor(content.left() + content.width() * i / 8, content.bottom() - 2)
                              == expected.background;
            if (background < 5)
                return QImage();
            if (shot.pixelColor(2, content.bottom() - 2) != expected.headerBackground
                || shot.pixelColor(2, ui::TimelineView::kOverviewHeight + 2) != expected.rulerBackground)
                return QImage();
            const ui::LayoutRow &header = layout.rows()[layout.headerRowOfGroup(0)];
            if (shot.pixelColor(2, content.top() + header.y - view->verticalOffset() + 2) != expected.groupBackground)
                return QImage();
            return shot;
        };
        view->arrangement().setHidePythonRows(true); // room below the lanes
        QVERIFY(view->layout().totalHeight() < view->contentRect().height() - 10);
        // Until the window has settled (a notice bar or the corrected document may still arrive and
        // change the timeline's height once the load is in).
        QTRY_VERIFY2(!check(colors).isNull(), "the timeline's background, header column, ruler and group band are dark");
        // Not the light colours: the two sets differ where the checks look.
        QVERIFY(check(ui::palette::colors(ui::palette::Theme::Light)).isNull());
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/dark_theme.png"));

        // Persisted: a new window starts dark, with its menu entry checked.
        open();
        QCOMPARE(ui::palette::theme(), ui::palette::Theme::Dark);
        QVERIFY(findAction(m_window->viewMenu()->actions(), QStringLiteral("Dark"))->isChecked());
        view = m_window->timeline();
        findAction(m_window->viewMenu()->actions(), QStringLiteral("Light"))->trigger();
        QCOMPARE(ui::palette::theme(), ui::palette::Theme::Light);
        QTRY_VERIFY2(!check(ui::palette::colors(ui::palette::Theme::Light)).isNull(), "light again");
        findAction(m_window->viewMenu()->actions(), QStringLiteral("System"))->trigger();
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toInt(), int(ui::ThemeChoice::System));
    }

    void edgesAreHoveredAndClicked()
    {
        // The sample pair: the gemm of correlation 2290 and its parent edge from aten::addmm.
        m_window.reset();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_kineto.json")),
                    m_dir.filePath(QStringLiteral("edge_kineto.json")));
        QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_host_et.json")),
                    m_dir.filePath(QStringLiteral("edge_host_et.json")));
        m_window->openPair(m_dir.filePath(QStringLiteral("edge_host_et.json")),
                           m_dir.filePath(QStringLiteral("edge_kineto.json")));
        QVERIFY(loaded.wait(60000));
        const ui::TraceDocument &doc = *m_window->document();
        ui::TimelineView *view = m_window->timeline();
        core::EventIndex gemm{};
        for (core::EventIndex e{0}; e.get() < doc.eventCount() && gemm.isNone(); ++e)
            if (doc.event(e).category == core::EventCategory::Kernel && doc.event(e).correlation == 2290)
                gemm = e;
        QVERIFY(gemm.valid());
        m_window->selection()->select(gemm);
        view->navigation().fitSelection();
        view->navigation().fitSelection(); // the second F takes in the edges' far ends
        view->repaint();
        ui::DrawEdgeIndex parentEdge{};
        ui::TimelineView::PaintedEdge painted;
        for (const auto &p : view->edgeOverlay().painted())
            if (doc.edges()[p.edge].kind == core::EdgeKind::Parent && doc.edges()[p.edge].to == gemm) {
                parentEdge = p.edge;
                painted = p;
            }
        QVERIFY2(parentEdge.valid(), "the gemm's parent edge is drawn");
        const core::EventIndex parent = doc.edges()[parentEdge].from;
        QCOMPARE(doc.eventName(parent), QStringLiteral("aten::addmm"));
        // A point on the curve that is over no event.
        QPoint onCurve;
        for (int k = 1; k < 40 && onCurve.isNull(); ++k) {
            const QPoint p = ui::TimelineEdgeOverlay::curvePoint(painted, k / 40.0).toPoint();
            if (view->contentRect().contains(p) && view->eventAt(p).isNone() && view->edgeAt(p) == parentEdge)
                onCurve = p;
        }
        QVERIFY2(!onCurve.isNull(), "part of the parent edge runs over empty background");
        // Away from the curve: not that edge. The point is 30 px off, in a direction where the
        // curve is nowhere within 20 px (a steep part of the curve can run straight below it).
        QPoint away;
        for (const QPoint d : {QPoint(0, 30), QPoint(0, -30), QPoint(30, 0), QPoint(-30, 0), QPoint(21, 21), QPoint(-21, -21)}) {
            const QPoint p = onCurve + d;
            bool clear = view->contentRect().contains(p);
            for (int k = 0; k <= 200 && clear; ++k)
                clear = QLineF(ui::TimelineEdgeOverlay::curvePoint(painted, k / 200.0), p).length() > 20;
            if (clear) {
                away = p;
                break;
            }
        }
        QVERIFY2(!away.isNull(), "a point 30 px off the curve and 20 px from all of it");
        QCOMPARE(view->edgeAt(away) == parentEdge, false);

        // Hover: the edge is marked, and its tooltip names the kind, the rule and both ends.
        QTest::mouseMove(view, onCurve);
        QCOMPARE(view->edgeOverlay().hoveredEdge(), parentEdge);
        QHelpEvent help(QEvent::ToolTip, onCurve, view->mapToGlobal(onCurve));
        QApplication::sendEvent(view, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString tip = QToolTip::text();
        QVERIFY2(tip.contains(ui::edgeKindLabel(core::EdgeKind::Parent).toHtmlEscaped()), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("aten::addmm")), qPrintable(tip));
        QVERIFY2(tip.contains(doc.eventName(gemm).left(30).toHtmlEscaped()), qPrintable(tip));
        const std::string_view rule = core::parentRuleName(doc.gpuLink(gemm)->rule);
        QVERIFY2(tip.contains(QString::fromUtf8(rule.data(), qsizetype(rule.size()))), qPrintable(tip));
        QToolTip::hideText();

        // Click: the edge's target selected and the edge focused; the view does not move.
        m_window->selection()->clear();
        const core::Nanos start = view->state().viewStart(), end = view->state().viewEnd();
        QSignalSpy selected(view, &ui::TimelineView::edgeSelected);
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, onCurve);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.front().front().value<ui::DrawEdgeIndex>(), parentEdge);
        QCOMPARE(m_window->selection()->current(), gemm);
        QCOMPARE(view->edgeOverlay().focusedEdge(), parentEdge);
        QCOMPARE(view->state().viewStart(), start);
        QCOMPARE(view->state().viewEnd(), end);
        // `[` from there follows that edge to the parent.
        view->setFocus();
        QTest::keyClick(view, Qt::Key_BracketLeft);
        QCOMPARE(m_window->selection()->current(), parent);
    }

    void firstShowFitsTheScreen()
    {
        // No size set before the first show: 1400×900 or less, inside the available geometry.
        auto window = std::make_unique<ui::MainWindow>();
        window->move(20000, 20000); // as a saved position from a larger monitor could be
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        const QRect available = window->screen()->availableGeometry();
        QVERIFY2(available.contains(window->frameGeometry()), qPrintable(QStringLiteral("%1,%2 %3x%4 not inside %5x%6")
                                                                             .arg(window->frameGeometry().x())
                                                                             .arg(window->frameGeometry().y())
                                                                             .arg(window->frameGeometry().width())
                                                                             .arg(window->frameGeometry().height())
                                                                             .arg(available.width())
                                                                             .arg(available.height())));
        QVERIFY(window->width() <= 1400 && window->height() <= 900);
        // A size set before showing is kept (tests and saved geometries set one).
        auto sized = std::make_unique<ui::MainWindow>();
        sized->resize(640, 480);
        sized->show();
        // At least the docks' minimum: with the right column the window's height (issue 40, item 5),
        // the Findings' minimum width and the column's add up beside each other, which
        // minimumSizeHint() does not count; never more than that.
        const QSize least = QSize(640, 480).expandedTo(sized->minimumSizeHint());
        QCOMPARE(sized->height(), least.height());
        QVERIFY2(sized->width() >= least.width() && sized->width() <= least.width() + 120,
                 qPrintable(QStringLiteral("%1 wide, the hint %2").arg(sized->width()).arg(least.width())));
    }

private:
    void open()
    {
        m_window.reset();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(m_trace);
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document());
    }

    core::EventIndex firstOfName(const QString &name) const
    {
        const ui::TraceDocument &doc = *m_window->document();
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
            if (doc.eventName(e) == name && doc.index().laneOf[e.get()].valid())
                return e;
        return core::kNone;
    }

    static QPoint headerPointOf(ui::TimelineView *view, int row)
    {
        const ui::LayoutRow &r = view->layout().rows()[row];
        return QPoint(30, view->contentRect().top() + r.y - view->verticalOffset() + r.height / 2);
    }

    QTemporaryDir m_dir;
    QString m_trace;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestViewSettings)
#include "test_viewsettings.moc"
