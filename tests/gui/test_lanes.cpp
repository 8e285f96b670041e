// Lanes of the timeline, offscreen: lanes and groups moved from the lane-header menu (Move up / down /
// to top / to bottom, hidden ones stepped over) and by dragging a header, the order saved per trace by
// stable keys (pid, pid/tid, device/stream) and restored tolerant of keys that are gone; sticky labels
// in a lane taller than the view; edges into a collapsed or hidden group drawn to its header (or to
// where it would be), dimmed, with a tooltip that says so; flags and notes as markers on the timeline
// (note as tooltip), in Details, and a flagged GPU op's parent edge in the "Flagged by you" style,
// distinct from "Has finding".
// Screenshots go to build/screens/ (reordered_lanes.png, sticky_label.png, edge_collapsed_group.png,
// edge_hidden_group.png, flagged_event.png, pinned_gpu_follow_parent.png, fit_rows.png).
// Pinned GPU groups staying in view while the CPU lanes scroll (and while a deep parent is
// followed), Python frames folded into a summary row, "fit rows".

#include "docks/detailsdock.h"
#include "ground/eventstyle.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"
#include "withstacktrace.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QHelpEvent>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>

#include <algorithm>
#include <optional>

using namespace linkscope;

namespace {

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

// The submenu "Move lane “…”" / "Move group “…”" of a header menu.
QMenu *moveMenu(QMenu *menu, const QString &prefix)
{
    QAction *action = findAction(menu->actions(), prefix);
    return action ? action->menu() : nullptr;
}

int groupLabelled(const ui::TimelineLayout &layout, const QString &prefix)
{
    for (int g = 0; g < static_cast<int>(layout.groups().size()); ++g)
        if (layout.groups()[g].label.startsWith(prefix))
            return g;
    return -1;
}

QString screenPath(const char *name) { return linkscope::test::buildPath("/screens/") + QString::fromLatin1(name); }

} // namespace

class TestLanes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_lanes"));
        QSettings().clear();
        QDir().mkpath(linkscope::test::buildPath("/screens"));
    }
    void init()
    {
        // Each test from the defaults, on fresh copies (the corrections sidecar is written beside them).
        QSettings().remove(QStringLiteral("traceViews"));
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_host = m_dir->filePath(QStringLiteral("sample_host_et.json"));
        m_device = m_dir->filePath(QStringLiteral("sample_kineto.json"));
        QVERIFY(QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_host_et.json")), m_host));
        QVERIFY(QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_kineto.json")), m_device));
    }
    void cleanup()
    {
        m_window.reset();
        m_dir.reset();
    }

    void lanesAndGroupsMoveFromTheHeaderMenu()
    {
        openSample();
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        // GPU 0 (streams 7, 20, 40), GPU 1 (7, 40), the CPU process (three threads): GPU streams first.
        QCOMPARE(layout.groups().size(), std::size_t(3));
        QVERIFY(layout.groups()[0].gpu && layout.groups()[1].gpu && !layout.groups()[2].gpu);
        // Pinned groups stay above the others whatever their order: here the order alone, unpinned.
        QVERIFY(layout.isGroupPinned(0) && layout.isGroupPinned(1) && !layout.isGroupPinned(2));
        view->arrangement().setGroupPinned(0, false);
        view->arrangement().setGroupPinned(1, false);
        QVERIFY(!layout.hasCustomOrder());
        QVERIFY(!view->menus().resetOrderAction()->isEnabled());
        const QString cpuLabel = layout.groups()[2].label;
        const core::EventIndex kernel = firstEvent(core::EventCategory::Kernel);
        const core::EventIndex cpuOp = firstEvent(core::EventCategory::CpuOp);
        QVERIFY(view->eventRect(kernel).top() < view->eventRect(cpuOp).top());

        // A group header's menu moves the group (no lane moves there); it is at the bottom already.
        QMenu *menu = view->menus().createHeaderMenu(headerPointOf(view, layout.headerRowOfGroup(2)));
        QVERIFY(!findAction(menu->actions(), QStringLiteral("Move lane")));
        QMenu *moves = moveMenu(menu, QStringLiteral("Move group “%1”").arg(cpuLabel));
        QVERIFY(moves);
        QVERIFY(findAction(moves->actions(), QStringLiteral("Move up"))->isEnabled());
        QVERIFY(!findAction(moves->actions(), QStringLiteral("Move down"))->isEnabled());
        QVERIFY(!findAction(moves->actions(), QStringLiteral("Move to bottom"))->isEnabled());
        findAction(moves->actions(), QStringLiteral("Move to top"))->trigger();
        delete menu;
        QCOMPARE(layout.groups()[0].label, cpuLabel);
        QVERIFY(layout.groups()[1].gpu && layout.groups()[2].gpu);
        // The events moved with it; the order is custom now, and resettable.
        QVERIFY(view->eventRect(cpuOp).top() < view->eventRect(kernel).top());
        QVERIFY(layout.hasCustomOrder());
        QVERIFY(view->menus().resetOrderAction()->isEnabled());

        // Move up: GPU 1 above GPU 0.
        const int gpu1 = groupLabelled(layout, QStringLiteral("GPU 1"));
        QCOMPARE(gpu1, 2);
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.headerRowOfGroup(gpu1)));
        findAction(moveMenu(menu, QStringLiteral("Move group “GPU 1"))->actions(), QStringLiteral("Move up"))->trigger();
        delete menu;
        QCOMPARE(groupLabelled(layout, QStringLiteral("GPU 1")), 1);
        QCOMPARE(groupLabelled(layout, QStringLiteral("GPU 0")), 2);

        // Lanes within a group: GPU 0's first stream down one, then to the bottom.
        const int gpu0 = groupLabelled(layout, QStringLiteral("GPU 0"));
        const std::vector<core::LaneIndex> lanes = layout.groups()[gpu0].lanes;
        QCOMPARE(lanes.size(), std::size_t(3));
        const core::LaneIndex moved = lanes[0];
        const QString movedLabel = QString::fromStdString(m_window->document()->index().lane(moved).label);
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(moved)));
        moves = moveMenu(menu, QStringLiteral("Move lane “%1”").arg(movedLabel));
        QVERIFY(moves);
        QVERIFY(!findAction(moves->actions(), QStringLiteral("Move up"))->isEnabled());
        QVERIFY(!findAction(moves->actions(), QStringLiteral("Move to top"))->isEnabled());
        // The lane's row also offers its group's moves.
        QVERIFY(moveMenu(menu, QStringLiteral("Move group “GPU 0")));
        findAction(moves->actions(), QStringLiteral("Move down"))->trigger();
        delete menu;
        QCOMPARE(layout.lanePosition(moved), 1);
        QCOMPARE(layout.groups()[gpu0].lanes[0], lanes[1]);
        QVERIFY(layout.firstRowOfLane(lanes[1]) < layout.firstRowOfLane(moved));
        view->arrangement().moveLaneBy(moved, 1);
        QCOMPARE(layout.lanePosition(moved), 2);
        QVERIFY(!layout.canMoveLaneBy(moved, 1));

        // A hidden lane is stepped over: with the middle one hidden, Move up goes to the top.
        const core::LaneIndex middle = layout.groups()[gpu0].lanes[1];
        view->arrangement().setLaneHidden(middle, true);
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(moved)));
        findAction(moveMenu(menu, QStringLiteral("Move lane “%1”").arg(movedLabel))->actions(), QStringLiteral("Move up"))
            ->trigger();
        delete menu;
        QCOMPARE(layout.lanePosition(moved), 0);
        view->arrangement().setLaneHidden(middle, false);
        view->repaint();
        m_window->grab().toImage().save(screenPath("reordered_lanes.png"));

        // The default order again from the menu: GPU streams first, lanes in index order.
        menu = view->menus().createHeaderMenu(QPoint(5, view->contentRect().top() + 5));
        QAction *reset = findAction(menu->actions(), QStringLiteral("Default order of lanes and groups"));
        QVERIFY(reset);
        reset->trigger();
        delete menu;
        QVERIFY(!layout.hasCustomOrder());
        QVERIFY(layout.groups()[0].label.startsWith(QStringLiteral("GPU 0")));
        QCOMPARE(layout.groups()[0].lanes, lanes);
        QVERIFY(!view->menus().resetOrderAction()->isEnabled());

        // "GPU streams first" arranges the groups again: a moved group goes back; lanes keep their order.
        view->arrangement().moveGroup(2, 0);
        view->arrangement().moveLane(moved, 2);
        view->setGpuFirst(false);
        QCOMPARE(layout.groups()[0].label, cpuLabel); // the index has the CPU threads first
        view->setGpuFirst(true);
        QVERIFY(layout.groups()[0].gpu && !layout.groups()[2].gpu);
        QCOMPARE(layout.lanePosition(moved), 2);
    }

    void headersDragToANewPlace()
    {
        openSample();
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        const std::vector<core::LaneIndex> lanes = layout.groups()[0].lanes; // GPU 0's streams
        const QRect content = view->contentRect();
        auto rowMiddle = [&](int row) {
            const ui::LayoutRow &r = layout.rows()[row];
            return content.top() + r.y - view->verticalOffset() + r.height / 2;
        };

        // The first stream's header dragged below the middle of the third: it goes last.
        const QPoint from = headerPointOf(view, layout.firstRowOfLane(lanes[0]));
        const QPoint to(from.x(), content.top() + layout.laneBottom(lanes[2]) - 3 - view->verticalOffset());
        const bool collapsedBefore = layout.isLaneCollapsed(lanes[0]);
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(view, from + QPoint(0, 3)); // under the threshold: still a click
        QVERIFY(!view->headerDrag().active);
        QTest::mouseMove(view, to);
        QVERIFY(view->headerDrag().active);
        QVERIFY(!view->headerDrag().isGroup);
        QCOMPARE(view->headerDrag().lane, lanes[0]);
        QCOMPARE(view->headerDrag().position, 2);
        QCOMPARE(view->headerDrag().lineY, layout.laneBottom(lanes[2]) + ui::TimelineLayout::kLaneGap / 2);
        view->repaint(); // the drop line is drawn
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, to);
        QVERIFY(!view->headerDrag().active);
        QCOMPARE(layout.lanePosition(lanes[0]), 2);
        QCOMPARE(layout.groups()[0].lanes[0], lanes[1]);
        QCOMPARE(layout.isLaneCollapsed(lanes[0]), collapsedBefore); // a drag does not toggle

        // A group header dragged above the first group's middle: the CPU process goes to the top.
        const int cpu = 2;
        const QString cpuLabel = layout.groups()[cpu].label;
        const QPoint groupFrom = headerPointOf(view, layout.headerRowOfGroup(cpu));
        const QPoint groupTo(groupFrom.x(), rowMiddle(layout.headerRowOfGroup(0)));
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, groupFrom);
        QTest::mouseMove(view, groupTo);
        QVERIFY(view->headerDrag().isGroup);
        QCOMPARE(view->headerDrag().position, 0);
        QCOMPARE(view->headerDrag().lineY, 0);
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, groupTo);
        QCOMPARE(layout.groups()[0].label, cpuLabel);

        // A click (no drag) still collapses: the CPU group's main thread, which nests.
        core::LaneIndex nested{};
        for (core::LaneIndex lane : layout.groups()[0].lanes)
            if (m_window->document()->laneRows(lane).rowCount() > 1)
                nested = lane;
        QVERIFY(nested.valid());
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, headerPointOf(view, layout.firstRowOfLane(nested)));
        QVERIFY(layout.isLaneCollapsed(nested));
        QCOMPARE(layout.groups()[0].label, cpuLabel);
    }

    void orderIsSavedByStableKeys()
    {
        openSample();
        ui::TimelineView *view = m_window->timeline();
        const core::LaneIndex stream7 = view->layout().groups()[0].lanes[0];
        QCOMPARE(view->layout().laneKey(stream7), QStringLiteral("gpu:0/7"));
        QCOMPARE(view->layout().groupKey(0), QStringLiteral("gpu:0"));
        QCOMPARE(view->layout().groupKey(2), QStringLiteral("pid:2910249"));
        view->arrangement().moveGroup(2, 0);
        view->arrangement().moveLane(stream7, 2);
        QSettings settings;
        const QString group = ui::TimelineViewSettings::group(m_device);
        QCOMPARE(settings.value(group + QStringLiteral("/groupOrder")).toStringList(),
                 QStringList({QStringLiteral("pid:2910249"), QStringLiteral("gpu:0"), QStringLiteral("gpu:1")}));
        const QStringList laneOrder = settings.value(group + QStringLiteral("/laneOrder")).toStringList();
        QCOMPARE(laneOrder.size(), 8);
        QVERIFY(laneOrder.indexOf(QStringLiteral("gpu:0/7")) > laneOrder.indexOf(QStringLiteral("gpu:0/40")));

        // Reopened: the same order.
        openSample();
        view = m_window->timeline();
        QCOMPARE(view->layout().groupKey(0), QStringLiteral("pid:2910249"));
        QCOMPARE(view->layout().lanePosition(stream7), 2);

        // A saved order naming lanes and groups that are not in the trace: those are ignored, the
        // unnamed ones keep their default places, the named ones fill the rest in the saved order.
        settings.setValue(group + QStringLiteral("/groupOrder"),
                          QStringList({QStringLiteral("pid:999"), QStringLiteral("pid:2910249"), QStringLiteral("gpu:0")}));
        settings.setValue(group + QStringLiteral("/laneOrder"),
                          QStringList({QStringLiteral("gpu:0/40"), QStringLiteral("gpu:9/9"), QStringLiteral("gpu:0/7")}));
        openSample();
        view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        QCOMPARE(layout.groupOrder(),
                 QStringList({QStringLiteral("pid:2910249"), QStringLiteral("gpu:1"), QStringLiteral("gpu:0")}));
        const std::vector<core::LaneIndex> &gpu0 = layout.groups()[2].lanes;
        QCOMPARE(layout.laneKey(gpu0[0]), QStringLiteral("gpu:0/40"));
        QCOMPARE(layout.laneKey(gpu0[1]), QStringLiteral("gpu:0/20"));
        QCOMPARE(layout.laneKey(gpu0[2]), QStringLiteral("gpu:0/7"));
        // Every lane is still shown once.
        std::vector<core::LaneIndex> all;
        for (const ui::TimelineGroup &g : layout.groups())
            all.insert(all.end(), g.lanes.begin(), g.lanes.end());
        std::sort(all.begin(), all.end());
        QCOMPARE(all.size(), m_window->document()->index().lanes.size());
        QVERIFY(std::adjacent_find(all.begin(), all.end()) == all.end());

        // Back to the default: nothing custom is saved, so new lanes would follow GPU streams first.
        view->arrangement().resetOrder();
        QVERIFY(settings.value(group + QStringLiteral("/groupOrder")).toStringList().isEmpty());
        settings.remove(group);
    }

    void stickyLabelsInATallLane()
    {
        const QString trace = test::writeWithStackTrace(m_dir->filePath(QStringLiteral("withstack_kineto.json")));
        QVERIFY(!trace.isEmpty());
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1200, 620);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(trace);
        QVERIFY(loaded.wait(60000));
        ui::TimelineView *view = m_window->timeline();
        view->arrangement().setFoldPythonRows(false); // every frame a row: a lane taller than the view
        const ui::TimelineLayout &layout = view->layout();
        core::LaneIndex cpuLane{};
        for (core::LaneIndex l{0}; l.get() < m_window->document()->index().lanes.size(); ++l)
            if (m_window->document()->laneRows(l).rowCount() > 1)
                cpuLane = l;
        QVERIFY(cpuLane.valid());
        const int cpuGroup = layout.groupOfLane(cpuLane);
        const int labelRowY = layout.rows()[layout.firstRowOfLane(cpuLane)].y;
        const QRect content = view->contentRect();
        QVERIFY2(layout.laneBottom(cpuLane) - labelRowY > content.height(), "the thread's lane is taller than the view");
        // The GPU streams are pinned above: the scrolling rows, and their sticky labels, start below them.
        const int top = content.top() + view->pinnedHeight();
        QVERIFY(view->pinnedHeight() > 0);

        auto stickyOf = [&](core::LaneIndex lane, int group) -> std::optional<ui::TimelineView::HeaderLabel> {
            for (const auto &label : view->painted().headerLabels)
                if (label.sticky && label.lane == lane && label.group == group)
                    return label;
            return std::nullopt;
        };
        // At the top: the labels are on their own rows, nothing sticky.
        view->setVerticalOffset(0);
        view->repaint();
        QVERIFY(!stickyOf(cpuLane, cpuGroup));

        // Scrolled 100 px into the lane: its label and its group's stay at the top of the view.
        view->setVerticalOffset(labelRowY + 100);
        view->repaint();
        const auto group = stickyOf(core::kNone, cpuGroup);
        const auto lane = stickyOf(cpuLane, cpuGroup);
        QVERIFY(group && lane);
        QCOMPARE(group->rect.top(), top);
        QCOMPARE(lane->rect.top(), top + ui::TimelineLayout::kGroupHeaderHeight);
        QVERIFY(lane->rect.right() < view->headerWidth());
        // The label is drawn there: text pixels over the header column's background.
        const QImage shot = view->grab().toImage();
        int ink = 0;
        for (int x = lane->rect.left() + 20; x < lane->rect.right() - 4; ++x)
            for (int y = lane->rect.top() + 3; y < lane->rect.bottom() - 2; ++y)
                ink += shot.pixelColor(x, y).lightness() < 120;
        QVERIFY2(ink > 20, "the sticky lane label has text");
        m_window->grab().toImage().save(screenPath("sticky_label.png"));

        // It stands for its lane: a click on it collapses the thread, as on its own row.
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, lane->rect.center());
        QVERIFY(layout.isLaneCollapsed(cpuLane));
        view->arrangement().setLaneCollapsed(cpuLane, false);

        // Near the lane's end its label is pushed up by it, under the group's (the group goes on:
        // a second thread below). 30 px of the first thread left in view.
        const QString two = test::writeWithStackTrace(m_dir->filePath(QStringLiteral("two_threads_kineto.json")), 1);
        QSignalSpy reloaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(two);
        QVERIFY(reloaded.wait(60000));
        view = m_window->timeline();
        view->arrangement().setFoldPythonRows(false);
        const ui::TimelineLayout &twoLayout = view->layout();
        const ui::TimelineGroup &process = twoLayout.groups()[twoLayout.groupOfLane(twoLayout.rows().back().lane)];
        QCOMPARE(process.lanes.size(), std::size_t(2));
        const core::LaneIndex firstThread = process.lanes[0];
        const int processGroup = twoLayout.groupOfLane(firstThread);
        view->setVerticalOffset(twoLayout.laneBottom(firstThread) - 30 - view->pinnedHeight());
        QCOMPARE(view->verticalOffset(), twoLayout.laneBottom(firstThread) - 30 - view->pinnedHeight());
        view->repaint();
        const auto pushed = stickyOf(firstThread, processGroup);
        const auto groupStays = stickyOf(core::kNone, processGroup);
        QVERIFY(pushed && groupStays);
        QCOMPARE(groupStays->rect.top(), top);
        QCOMPARE(pushed->rect.top(), top + 30 - ui::TimelineLayout::kRowHeight);
        // Past its end the next thread's label takes the place.
        view->setVerticalOffset(twoLayout.laneBottom(firstThread) + 100);
        view->repaint();
        const auto next = stickyOf(process.lanes[1], processGroup);
        QVERIFY(next && !stickyOf(firstThread, processGroup));
        QCOMPARE(next->rect.top(), top + ui::TimelineLayout::kGroupHeaderHeight);
    }

    void edgesIntoFoldedGroupsAttachToTheirHeader()
    {
        openSample();
        const ui::TraceDocument &doc = *m_window->document();
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        // The gemm of correlation 2290 and its parent edge from aten::addmm (CPU group).
        core::EventIndex gemm{};
        for (core::EventIndex e{0}; e.get() < doc.eventCount() && gemm.isNone(); ++e)
            if (doc.event(e).category == core::EventCategory::Kernel && doc.event(e).correlation == 2290)
                gemm = e;
        QVERIFY(gemm.valid());
        m_window->selection()->select(gemm);
        view->navigation().fitSelection();
        view->navigation().fitSelection();
        const int cpuGroup = layout.groupOfLane(doc.index().laneOf[doc.gpuLink(gemm)->parent.get()]);
        const int gpuGroup = layout.groupOfLane(doc.index().laneOf[gemm.get()]);
        auto parentEdge = [&]() -> std::optional<ui::TimelineView::PaintedEdge> {
            view->repaint();
            for (const auto &p : view->edgeOverlay().painted())
                if (doc.edges()[p.edge].kind == core::EdgeKind::Parent && doc.edges()[p.edge].to == gemm)
                    return p;
            return std::nullopt;
        };
        auto headerMiddle = [&](int group) {
            const ui::LayoutRow &row = layout.rows()[layout.headerRowOfGroup(group)];
            const int offset = row.y < view->pinnedHeight() ? 0 : view->verticalOffset(); // pinned rows do not scroll
            return double(view->contentRect().top() + row.y - offset + row.height / 2);
        };
        const auto open = parentEdge();
        QVERIFY(open && open->fromExact && open->toExact);

        // The parent's group collapsed: the edge starts on its header, dimmed, and still hovers.
        view->arrangement().setGroupCollapsed(cpuGroup, true);
        const auto collapsed = parentEdge();
        QVERIFY2(collapsed, "an edge into a collapsed group is drawn");
        QVERIFY(!collapsed->fromExact && collapsed->toExact && collapsed->folded());
        QCOMPARE(collapsed->from.y(), headerMiddle(cpuGroup));
        QPoint onCurve;
        for (int k = 4; k < 36 && onCurve.isNull(); ++k) {
            const QPoint p = ui::TimelineEdgeOverlay::curvePoint(*collapsed, k / 40.0).toPoint();
            if (view->contentRect().contains(p) && view->eventAt(p).isNone() && view->edgeAt(p) == collapsed->edge)
                onCurve = p;
        }
        QVERIFY2(!onCurve.isNull(), "the folded edge can be hovered");
        QHelpEvent help(QEvent::ToolTip, onCurve, view->mapToGlobal(onCurve));
        QApplication::sendEvent(view, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("in collapsed group")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        // For the picture, the other GPU collapsed too, so the CPU group's header is in view.
        const int otherGpu = groupLabelled(layout, QStringLiteral("GPU 1"));
        view->arrangement().setGroupCollapsed(otherGpu, true);
        const auto shown = parentEdge();
        QVERIFY(shown && !shown->fromExact && shown->from.y() == headerMiddle(cpuGroup));
        QVERIFY(view->contentRect().contains(shown->from.toPoint()));
        m_window->grab().toImage().save(screenPath("edge_collapsed_group.png"));

        // Hidden: the edge goes to the line where the group would be, below the last shown group.
        view->arrangement().setGroupHidden(cpuGroup, true);
        const auto hidden = parentEdge();
        QVERIFY2(hidden, "an edge into a hidden group is drawn");
        QVERIFY(hidden->fromHiddenGroup && !hidden->fromExact);
        QVERIFY(std::abs(hidden->from.y() - (view->contentRect().top() + layout.totalHeight() - 1 - view->verticalOffset()))
                < 1.0);
        QVERIFY(edgeTooltipOf(view, hidden->edge).contains(QStringLiteral("in hidden group")));
        m_window->grab().toImage().save(screenPath("edge_hidden_group.png"));
        view->arrangement().setGroupHidden(cpuGroup, false);
        view->arrangement().setGroupCollapsed(cpuGroup, false);
        view->arrangement().setGroupCollapsed(otherGpu, false);

        // The other way: aten::addmm selected, the kernels' group collapsed: its edges end on that header.
        const core::EventIndex addmm = doc.gpuLink(gemm)->parent;
        m_window->selection()->select(addmm);
        view->arrangement().setGroupCollapsed(gpuGroup, true);
        view->repaint();
        bool intoHeader = false;
        for (const auto &p : view->edgeOverlay().painted())
            if (doc.edges()[p.edge].to == gemm && doc.edges()[p.edge].kind == core::EdgeKind::Parent)
                intoHeader = !p.toExact && p.fromExact && p.to.y() == headerMiddle(gpuGroup);
        QVERIFY2(intoHeader, "the parent edge ends on the collapsed GPU group's header");
    }

    void flagsAndNotesAreShown()
    {
        openSample();
        ui::CorrectionController *controller = m_window->review()->controller();
        const ui::TraceDocument &doc = *m_window->document();
        ui::TimelineView *view = m_window->timeline();
        core::EventIndex gemm{};
        for (core::EventIndex e{0}; e.get() < doc.eventCount() && gemm.isNone(); ++e)
            if (doc.event(e).category == core::EventCategory::Kernel && doc.event(e).correlation == 2290)
                gemm = e;
        QVERIFY(gemm.valid());
        const core::EventIndex addmm = doc.gpuLink(gemm)->parent;
        QVERIFY(view->painted().markers.empty());

        const QString flagNote = QStringLiteral("parent should be the <mm> inside");
        QVERIFY(controller->flag(gemm, flagNote));
        QVERIFY(controller->note(addmm, QStringLiteral("checked by hand")));
        QVERIFY(controller->waitUntilSettled());
        QVERIFY(view->eventNotes() && view->eventNotes()->isFlagged(gemm) && view->eventNotes()->hasNote(addmm));

        // Details of the flagged kernel: the flag and its note, its parent edge "Flagged by you".
        m_window->selection()->select(gemm);
        view->navigation().fitSelection();
        view->navigation().fitSelection();
        view->repaint();
        const QString details = m_window->detailsDock()->html();
        QVERIFY2(details.contains(QStringLiteral("Your review")), qPrintable(details));
        QVERIFY2(details.contains(flagNote.toHtmlEscaped()), qPrintable(details));
        QVERIFY2(details.contains(ui::edgeProvenanceLabel(ui::EdgeProvenance::Flagged)), qPrintable(details));

        // Markers: a flag on the kernel at its left end (the note's event is below the view).
        auto markerOf = [&](core::EventIndex event, ui::EventMarker kind) -> std::optional<ui::TimelineView::PaintedMarker> {
            for (const auto &m : view->painted().markers)
                if (m.event == event && m.marker == kind)
                    return m;
            return std::nullopt;
        };
        const auto flag = markerOf(gemm, ui::EventMarker::Flag);
        QVERIFY2(flag, "the flag marker is placed");
        QVERIFY(!markerOf(gemm, ui::EventMarker::Note));
        const QRectF gemmRect = view->eventRect(gemm);
        QVERIFY(flag->rect.top() >= gemmRect.top() - 1 && flag->rect.bottom() <= gemmRect.bottom() + 2);
        QVERIFY(std::abs(flag->rect.left() - (std::max(gemmRect.left(), double(view->contentRect().left())) + 1)) < 1.0);
        // Its pennant is red in the picture.
        const QImage shot = view->grab().toImage();
        bool red = false;
        for (int x = int(flag->rect.left()); x <= int(flag->rect.right()) && !red; ++x)
            for (int y = int(flag->rect.top()); y <= int(flag->rect.bottom()) && !red; ++y) {
                const QColor c = shot.pixelColor(x, y);
                red = c.red() > 180 && c.green() < 80 && c.blue() < 80;
            }
        QVERIFY2(red, "the flag marker is drawn");
        // The note is the marker's tooltip (and the event's).
        const QPoint markerPoint = flag->rect.center().toPoint();
        QCOMPARE(view->markerAt(markerPoint), gemm);
        QHelpEvent help(QEvent::ToolTip, markerPoint, view->mapToGlobal(markerPoint));
        QApplication::sendEvent(view, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(flagNote.toHtmlEscaped()), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        m_window->grab().toImage().save(screenPath("flagged_event.png"));

        // The flagged link's parent edge is drawn "Flagged by you", which is not "Has finding".
        for (const auto &p : view->edgeOverlay().painted())
            if (doc.edges()[p.edge].kind == core::EdgeKind::Parent && doc.edges()[p.edge].to == gemm)
                QCOMPARE(ui::TimelineEdgeOverlay::drawnProvenance(doc.edges()[p.edge], view->eventNotes().get()),
                         ui::EdgeProvenance::Flagged);
        QVERIFY(!doc.hasFinding(gemm)); // flagged by the user, not by a finding
        const QPen flagged = ui::edgePen(core::EdgeKind::Parent, ui::EdgeProvenance::Flagged, false);
        const QPen finding = ui::edgePen(core::EdgeKind::Parent, ui::EdgeProvenance::HasFinding, false);
        QVERIFY(flagged.color() != finding.color() && flagged.style() != finding.style());
        QVERIFY(ui::edgeProvenanceLabel(ui::EdgeProvenance::Flagged) != ui::edgeProvenanceLabel(ui::EdgeProvenance::HasFinding));

        // The note on aten::addmm: in its Details, and its marker (the selection scrolled to it).
        m_window->selection()->select(addmm);
        QVERIFY(m_window->detailsDock()->html().contains(QStringLiteral("checked by hand")));
        view->repaint();
        const auto note = markerOf(addmm, ui::EventMarker::Note);
        QVERIFY2(note, "the note marker is placed");
        QVERIFY(view->contentRect().contains(note->rect.center().toPoint()));
        QHelpEvent noteHelp(QEvent::ToolTip, note->rect.center().toPoint(), view->mapToGlobal(note->rect.center().toPoint()));
        QApplication::sendEvent(view, &noteHelp);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("checked by hand")), qPrintable(QToolTip::text()));
        QToolTip::hideText();

        // Undone: no markers, nothing in Details.
        controller->undoStack()->undo();
        controller->undoStack()->undo();
        QVERIFY(controller->waitUntilSettled());
        view->repaint();
        QVERIFY(view->painted().markers.empty());
        QVERIFY(!m_window->detailsDock()->html().contains(QStringLiteral("Your review")));

        // A new trace drops the old trace's notes.
        QVERIFY(controller->flag(gemm, QStringLiteral("again")));
        QVERIFY(controller->waitUntilSettled());
        QVERIFY(view->eventNotes()->isFlagged(gemm));
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        const QString other = test::writeWithStackTrace(m_dir->filePath(QStringLiteral("other_kineto.json")));
        m_window->openDevice(other);
        QVERIFY(loaded.wait(60000));
        QVERIFY(controller->waitUntilSettled());
        view->repaint();
        QVERIFY(view->painted().markers.empty());
    }

    // Issue 28 item 9: the GPU streams are pinned at the top by default and stay in view while the
    // CPU lanes scroll, also when following a kernel's parent under 40 Python frames; a group's
    // header menu unpins and pins it, and that is saved per trace.
    void gpuLanesStayPinnedWhileCpuLanesScroll()
    {
        openDevice(test::writeWithStackTrace(m_dir->filePath(QStringLiteral("withstack_kineto.json")), 3));
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        const int gpu = groupLabelled(layout, QStringLiteral("GPU"));
        QVERIFY(gpu >= 0);
        QVERIFY(layout.isGroupPinned(gpu));
        QCOMPARE(view->pinnedHeight(), layout.pinnedHeight());
        QCOMPARE(layout.pinnedHeight(), layout.groupBottom(gpu));
        view->arrangement().setFoldPythonRows(false); // every Python frame a row: the threads are far taller than the view
        const QRect content = view->contentRect();
        QVERIFY(layout.totalHeight() > 3 * content.height());

        const core::EventIndex kernel = firstEvent(core::EventCategory::Kernel);
        const core::EventIndex mm = firstEvent(core::EventCategory::CpuOp);
        QCOMPARE(m_window->document()->index().depth[mm.get()], test::kStackDepth);
        view->setVerticalOffset(0);
        view->repaint();
        const QRectF pinnedRect = view->eventRect(kernel);
        QVERIFY(pinnedRect.top() >= content.top() && pinnedRect.bottom() <= content.top() + view->pinnedHeight());

        // Scrolled to the bottom: the kernel is where it was, drawn and hit there.
        view->setVerticalOffset(layout.totalHeight());
        QVERIFY(view->verticalOffset() > 2 * content.height());
        view->repaint();
        QCOMPARE(view->eventRect(kernel), pinnedRect);
        QCOMPARE(view->eventAt(pinnedRect.center().toPoint()), kernel);
        const QImage shot = view->grab().toImage();
        QCOMPARE(shot.pixelColor(pinnedRect.topLeft().toPoint() + QPoint(1, 1)), ui::eventColor(ui::EventStyle::Kernel));

        // Following the kernel's parent (aten::mm, 40 frames deep) scrolls the CPU lanes only.
        view->setVerticalOffset(0);
        view->state().selectionModel()->select(kernel);
        view->navigation().followEdge(false);
        QCOMPARE(view->state().selectionModel()->current(), mm);
        QVERIFY(view->verticalOffset() > 0);
        const QRectF parent = view->eventRect(mm);
        QVERIFY(parent.top() >= content.top() + view->pinnedHeight() && parent.bottom() <= content.bottom());
        QCOMPARE(view->eventRect(kernel), pinnedRect);
        view->repaint();
        m_window->grab().toImage().save(screenPath("pinned_gpu_follow_parent.png"));

        // Unpinned from the group's header menu: the kernel scrolls away with the rest; saved.
        view->setVerticalOffset(0);
        QMenu *menu = view->menus().createHeaderMenu(headerPointOf(view, layout.headerRowOfGroup(gpu)));
        QAction *unpin = findAction(menu->actions(), QStringLiteral("Unpin group"));
        QVERIFY(unpin);
        unpin->trigger();
        delete menu;
        QVERIFY(!layout.isGroupPinned(gpu));
        QCOMPARE(view->pinnedHeight(), 0);
        view->setVerticalOffset(layout.totalHeight());
        QVERIFY(view->eventRect(kernel).bottom() < content.top());
        QVERIFY(QSettings()
                    .value(ui::TimelineViewSettings::group(m_window->document()->devicePath()) + QStringLiteral("/pinnedGroups"))
                    .toStringList()
                    .isEmpty());
        // And pinned again.
        view->setVerticalOffset(0);
        menu = view->menus().createHeaderMenu(headerPointOf(view, layout.headerRowOfGroup(gpu)));
        QAction *pin = findAction(menu->actions(), QStringLiteral("Pin group"));
        QVERIFY(pin);
        pin->trigger();
        delete menu;
        QVERIFY(layout.isGroupPinned(gpu));
        view->setVerticalOffset(layout.totalHeight());
        QCOMPARE(view->eventRect(kernel), pinnedRect);
    }

    // Issue 28 item 9: a thread's Python frames fold into one summary row by default; a click on it
    // (or the lane's menu) expands them, and selecting a folded frame expands them too.
    void pythonFramesFoldIntoOneSummaryRow()
    {
        openDevice(test::writeWithStackTrace(m_dir->filePath(QStringLiteral("withstack_kineto.json"))));
        ui::TimelineView *view = m_window->timeline();
        const ui::TimelineLayout &layout = view->layout();
        QVERIFY(layout.foldPythonRows());
        QVERIFY(view->menus().foldPythonRowsAction()->isChecked());
        const core::EventIndex mm = firstEvent(core::EventCategory::CpuOp);
        const core::LaneIndex thread = m_window->document()->index().laneOf[mm.get()];
        QCOMPARE(m_window->document()->laneRows(thread).rowCount(), test::kStackDepth + 2);
        // One summary row for the 40 frames, then aten::mm and cudaLaunchKernel.
        QCOMPARE(layout.shownRowCount(thread), 3);
        const int summaryRow = layout.firstRowOfLane(thread);
        QCOMPARE(layout.rows()[summaryRow].folded, test::kStackDepth - 1);
        QCOMPARE(layout.rowOfDepth(thread, test::kStackDepth - 1), summaryRow); // the innermost frame is in it
        QCOMPARE(layout.rowOfDepth(thread, test::kStackDepth), summaryRow + 1);
        QVERIFY(!layout.anchorOf(thread, 7).exact);

        // A click on the summary row's header expands the frames, one row each.
        view->repaint();
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, headerPointOf(view, summaryRow));
        QVERIFY(layout.isPythonExpanded(thread));
        QCOMPARE(layout.shownRowCount(thread), test::kStackDepth + 2);
        // The lane's menu folds them again.
        QMenu *menu = view->menus().createHeaderMenu(headerPointOf(view, layout.firstRowOfLane(thread)));
        QAction *fold = findAction(menu->actions(), QStringLiteral("Fold Python frames of this lane"));
        QVERIFY(fold);
        fold->trigger();
        delete menu;
        QCOMPARE(layout.shownRowCount(thread), 3);

        // Selecting a folded frame shows its own row.
        core::EventIndex deepFrame{};
        const ui::TraceDocument &doc = *m_window->document();
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
            if (doc.event(e).category == core::EventCategory::PythonFunction && doc.index().depth[e.get()] == 20)
                deepFrame = e;
        QVERIFY(deepFrame.valid());
        view->state().selectionModel()->select(deepFrame);
        QVERIFY(layout.isPythonExpanded(thread));
        QCOMPARE(layout.rows()[layout.rowOfDepth(thread, 20)].depth, 20);

        // Off for the whole view: every frame its own row.
        view->arrangement().setPythonExpanded(thread, false);
        view->menus().foldPythonRowsAction()->trigger();
        QVERIFY(!layout.foldPythonRows());
        QCOMPARE(layout.shownRowCount(thread), test::kStackDepth + 2);
    }

    // Issue 28 item 9: "Fit rows" shrinks the rows so that all fit the view, down to a readable
    // minimum, and back.
    void fitRowsShrinksRowsToTheView()
    {
        openDevice(test::writeWithStackTrace(m_dir->filePath(QStringLiteral("withstack_kineto.json"))));
        // A view of known height on the trace: 43 lane rows (42 of the thread, the stream's), 2 group
        // headers, 2 lane gaps.
        ui::TimelineView view;
        view.setDocument(m_window->document());
        view.arrangement().setFoldPythonRows(false);
        const ui::TimelineLayout &layout = view.layout();
        const int laneRows = test::kStackDepth + 3;
        const int fixed = 2 * ui::TimelineLayout::kGroupHeaderHeight + 2 * ui::TimelineLayout::kLaneGap;
        QCOMPARE(layout.totalHeight(), fixed + laneRows * ui::TimelineLayout::kRowHeight);
        const int top = ui::TimelineView::kOverviewHeight + ui::TimelineView::kRulerHeight;
        view.resize(1000, top + fixed + laneRows * 14 + 8); // 14 px rows fit, with the 8 px below the lanes
        view.show();
        QVERIFY(layout.totalHeight() > view.contentRect().height());
        QAction *fit = view.keyAction(ui::TimelineKey::FitRows);
        QVERIFY(fit->isCheckable());
        fit->trigger();
        QVERIFY(view.fitRows() && fit->isChecked());
        QCOMPARE(layout.rowHeight(), 14);
        QVERIFY2(layout.totalHeight() <= view.contentRect().height(), "every row fits");
        const core::EventIndex mm = firstEvent(core::EventCategory::CpuOp);
        QCOMPARE(view.eventRect(mm).height(), 14.0 - 2);
        QVERIFY(view.contentRect().contains(view.eventRect(mm).center().toPoint()));
        QCOMPARE(view.maxVerticalOffset(), 0);

        // Smaller: the rows keep fitting as the view changes, down to the readable minimum; then the rest scrolls.
        view.resize(1000, 400);
        QTRY_COMPARE(layout.rowHeight(), int(ui::TimelineLayout::kMinRowHeight));
        QVERIFY(view.maxVerticalOffset() > 0);
        // Again: the normal height.
        fit->trigger();
        QVERIFY(!view.fitRows());
        QCOMPARE(layout.rowHeight(), int(ui::TimelineLayout::kRowHeight));
    }

private:
    void openSample()
    {
        m_window.reset();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(m_host, m_device);
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
    }

    void openDevice(const QString &trace)
    {
        QVERIFY(!trace.isEmpty());
        if (!m_window) {
            m_window = std::make_unique<ui::MainWindow>();
            m_window->resize(1200, 620);
            m_window->show();
        }
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openDevice(trace);
        QVERIFY(loaded.wait(60000));
    }

    core::EventIndex firstEvent(core::EventCategory category) const
    {
        const ui::TraceDocument &doc = *m_window->document();
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e)
            if (doc.event(e).category == category && doc.index().laneOf[e.get()].valid())
                return e;
        return core::kNone;
    }

    static QString edgeTooltipOf(ui::TimelineView *view, ui::DrawEdgeIndex edge) { return view->edgeTooltip(edge); }

    static QPoint headerPointOf(ui::TimelineView *view, int row)
    {
        const ui::LayoutRow &r = view->layout().rows()[row];
        const int offset = r.y < view->pinnedHeight() ? 0 : view->verticalOffset();
        return QPoint(30, view->contentRect().top() + r.y - offset + r.height / 2);
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_host, m_device;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestLanes)
#include "test_lanes.moc"
