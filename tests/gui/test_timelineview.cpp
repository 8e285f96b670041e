// The timeline widget on a small hand-built trace: lanes, zoom anchoring, hit testing, selection,
// edges of a selected kernel, LOD merging and the colours it paints, the Shift+drag time range
// (its ends, band, ruler label, F, Esc) and the per-group counts of a range.

#include "docks/detailsdock.h"
#include "edit/correction.h"
#include "gen/tracegenerator.h"
#include "ground/eventselection.h"
#include "ground/timeformat.h"
#include "ground/tracedocument.h"
#include "index/traceindex.h"
#include "io/tracereader.h"
#include "link/linker.h"
#include "link/rules.h"
#include "timeline/timelineview.h"
#include "timeline/timerange.h"
#include "tracebuilder.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include <cmath>
#include <map>
#include <sstream>

using namespace linkscope;
using core::EventCategory;
using linkscope::test::TraceBuilder;

namespace {

// One CPU thread (pid 100, tid 1) and two GPU streams on device 0.
//   aten::linear [0, 10000) ⊃ aten::mm [1000, 6000) ⊃ cudaLaunchKernel [2000, 2500) corr 7
//                            ⊃ aten::add [6500, 9000) ⊃ cudaLaunchKernel [7000, 7400) corr 8
//   gemm       on stream 7  [3000, 8000)  corr 7   → parent aten::mm  (innermost op enclosing its launch)
//   add_kernel on stream 7  [8200, 9500)  corr 8   → parent aten::add
//   memcpy     on stream 20 [9600, 9800)  no correlation → orphan
struct SmallTrace {
    TraceBuilder b;
    core::EventIndex linear, mm, launch1, add, launch2, gemm, addKernel, copy;
    SmallTrace()
    {
        linear = b.cpu(EventCategory::CpuOp, "aten::linear", 100, 1, 0, 10000, 1);
        mm = b.cpu(EventCategory::CpuOp, "aten::mm", 100, 1, 1000, 5000, 2);
        launch1 = b.runtime("cudaLaunchKernel", 100, 1, 2000, 500, 7, 2);
        add = b.cpu(EventCategory::CpuOp, "aten::add", 100, 1, 6500, 2500, 3);
        launch2 = b.runtime("cudaLaunchKernel", 100, 1, 7000, 400, 8, 3);
        gemm = b.gpu("gemm", 0, 7, 3000, 5000, 7, 2);
        addKernel = b.gpu("add_kernel", 0, 7, 8200, 1300, 8, 3);
        copy = b.gpu("Memcpy HtoD", 0, 20, 9600, 200, core::kNoId, core::kNoId, EventCategory::GpuMemcpy);
        b.trace.processNames[core::TraceId{100, false}] = "python3";
    }
    ui::DocumentPtr document()
    {
        auto device = std::make_shared<const core::DeviceTrace>(std::move(b.trace));
        auto links = std::make_shared<const core::LinkSet>(core::linkTraces(*device, nullptr));
        return ui::TraceDocument::create({}, QStringLiteral("small.json"), nullptr, device, links);
    }
};

// What a correction publishes (createWithLinks) must be what create() gives on the same links.
void expectSameDocument(const ui::TraceDocument &a, const ui::TraceDocument &b)
{
    QCOMPARE(a.edges().size(), b.edges().size());
    for (std::size_t i = 0; i < a.edges().size(); ++i) {
        QCOMPARE(a.edges()[i].from, b.edges()[i].from);
        QCOMPARE(a.edges()[i].to, b.edges()[i].to);
        QCOMPARE(a.edges()[i].kind, b.edges()[i].kind);
        QCOMPARE(a.edges()[i].provenance, b.edges()[i].provenance);
    }
    QCOMPARE(a.edgesByFromTime().size(), b.edgesByFromTime().size());
    QCOMPARE(a.edgesByFromTime().toVector(), b.edgesByFromTime().toVector());
    QCOMPARE(a.edgesByToTime().toVector(), b.edgesByToTime().toVector());
    for (core::EventIndex e{0}; e.get() < a.eventCount(); ++e) {
        auto [ab, ae] = a.edgesOf(e);
        auto [bb, be] = b.edgesOf(e);
        QCOMPARE(std::vector<ui::DrawEdgeIndex>(ab, ae), std::vector<ui::DrawEdgeIndex>(bb, be));
        QCOMPARE(a.hasFinding(e), b.hasFinding(e));
        QCOMPARE(a.style(e), b.style(e));
    }
    QCOMPARE(a.counts().linked, b.counts().linked);
    QCOMPARE(a.counts().orphans, b.counts().orphans);
    QCOMPARE(a.counts().findings, b.counts().findings);
    QCOMPARE(a.startTime(), b.startTime());
    QCOMPARE(a.endTime(), b.endTime());
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        SmallTrace t;
        m_ids = t;
        m_doc = t.document();
        m_view = std::make_unique<ui::TimelineView>();
        m_view->resize(1200, 500);
        m_view->state().setSelectionModel(&m_selection);
        m_view->setDocument(m_doc);
        m_view->show();
        m_selection.clear();
    }
    void cleanup()
    {
        m_view.reset();
        m_doc.reset();
    }

    void lanesAndGroups()
    {
        const ui::TimelineLayout &layout = m_view->layout();
        // One CPU thread lane, two GPU stream lanes; grouped as the process and GPU 0.
        QCOMPARE(m_doc->index().lanes.size(), std::size_t(3));
        QCOMPARE(layout.groups().size(), std::size_t(2));
        // GPU streams first (the default).
        QVERIFY(layout.groups()[0].gpu);
        QCOMPARE(layout.groups()[0].lanes.size(), std::size_t(2));
        QCOMPARE(layout.groups()[1].label, QStringLiteral("python3 (pid 100)"));
        QVERIFY(!layout.groups()[1].gpu);
        // The CPU lane has three nesting levels: linear ⊃ mm ⊃ launch.
        const core::LaneIndex cpuLane{0};
        QCOMPARE(m_doc->laneRows(cpuLane).rowCount(), 3);
        QCOMPARE(layout.shownRowCount(cpuLane), 3);
        m_view->arrangement().setGroupCollapsed(1, true);
        QCOMPARE(layout.shownRowCount(cpuLane), 0);
        QVERIFY(m_view->eventRect(m_ids.mm).isEmpty());
        m_view->arrangement().setGroupCollapsed(1, false);
        QVERIFY(!m_view->eventRect(m_ids.mm).isEmpty());
    }

    void zoomKeepsTimeUnderCursor_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("left edge in") << double(ui::TimelineView::kHeaderWidth) << 0.5;
        QTest::newRow("middle in") << 700.0 << 0.8;
        QTest::newRow("middle out") << 700.0 << 1.25;
        QTest::newRow("right in deep") << 1100.0 << 0.01;
        QTest::newRow("near left out") << 300.0 << 2.0;
    }
    void zoomKeepsTimeUnderCursor()
    {
        QFETCH(double, x);
        QFETCH(double, factor);
        m_view->state().setVisibleRange(2000, 9000);
        const core::Nanos before = m_view->xToTime(x);
        const core::Nanos spanBefore = m_view->state().viewEnd() - m_view->state().viewStart();
        m_view->zoomAt(factor, x);
        const core::Nanos after = m_view->xToTime(x);
        // Rounding to whole nanoseconds moves the anchor by at most 2 ns.
        QVERIFY2(std::llabs(after - before) <= 2, qPrintable(QStringLiteral("%1 vs %2").arg(before).arg(after)));
        const core::Nanos spanAfter = m_view->state().viewEnd() - m_view->state().viewStart();
        QVERIFY(std::llabs(spanAfter - static_cast<core::Nanos>(spanBefore * factor)) <= 2 || spanAfter == 50 /* minimum span */);
    }

    void heldZoomKeyAccelerates()
    {
        // Six taps of W zoom by 0.8 each; the same six presses as one held key (a press, then its
        // auto-repeats) zoom further, each repeat more than the last; a tap after the hold is one step again.
        m_view->setFocus();
        auto press = [this](Qt::Key key, bool repeat) {
            QKeyEvent down(QEvent::KeyPress, key, Qt::NoModifier, QString(), repeat);
            QCoreApplication::sendEvent(m_view.get(), &down);
        };
        m_view->state().setVisibleRange(2000, 10000);
        for (int i = 0; i < 6; ++i)
            QTest::keyClick(m_view.get(), Qt::Key_W);
        const double tapped = double(m_view->state().viewEnd() - m_view->state().viewStart());
        QVERIFY2(std::abs(tapped - 8000 * std::pow(0.8, 6)) < 4, qPrintable(QString::number(tapped)));
        m_view->state().setVisibleRange(2000, 10000);
        for (int i = 0; i < 6; ++i)
            press(Qt::Key_W, i > 0);
        const double held = double(m_view->state().viewEnd() - m_view->state().viewStart());
        QVERIFY2(held < tapped * 0.8, qPrintable(QStringLiteral("held %1, tapped %2").arg(held).arg(tapped)));
        // Held long, each repeat is at most two steps (0.64), never a jump past the trace.
        for (int i = 0; i < 20; ++i)
            press(Qt::Key_S, i > 0);
        const double before = double(m_view->state().viewEnd() - m_view->state().viewStart());
        press(Qt::Key_W, false);
        QVERIFY2(std::abs(double(m_view->state().viewEnd() - m_view->state().viewStart()) - before * 0.8) < 4,
                 "a tap after a hold is one step");
    }

    void keysAreTheViewsActions()
    {
        // Every binding is a QAction with a key and a description; a key press on the focused view
        // triggers exactly that action once (the shortcut map does not fire it a second time).
        const QList<QAction *> &actions = m_view->keyActions();
        QCOMPARE(actions.size(), int(ui::TimelineKey::AddBookmark) + 1);
        for (const QAction *action : actions) {
            QVERIFY2(!action->shortcuts().isEmpty(), qPrintable(action->text()));
            QVERIFY(!action->toolTip().isEmpty());
        }
        QCOMPARE(m_view->keyAction(ui::TimelineKey::FitAll)->shortcuts(),
                 (QList<QKeySequence>{QKeySequence(Qt::Key_0), QKeySequence(Qt::Key_Home)}));
        m_view->setFocus();
        m_view->state().setVisibleRange(2000, 10000);
        QTest::keyClick(m_view.get(), Qt::Key_W); // 0.8 × 8,000
        QCOMPARE(m_view->state().viewEnd() - m_view->state().viewStart(), core::Nanos(6400));
        QTest::keyClick(m_view.get(), Qt::Key_W, Qt::ShiftModifier); // 0.5 × 6,400
        QCOMPARE(m_view->state().viewEnd() - m_view->state().viewStart(), core::Nanos(3200));
        QTest::keyClick(m_view.get(), Qt::Key_S, Qt::ControlModifier); // no Ctrl+S binding: as S, 1.25 ×
        QCOMPARE(m_view->state().viewEnd() - m_view->state().viewStart(), core::Nanos(4000));
        m_view->state().setVisibleRange(2000, 10000);
        QTest::keyClick(m_view.get(), Qt::Key_D); // a tenth of the event area to the right
        QCOMPARE(m_view->state().viewStart(),
                 core::Nanos(2000 + std::llround(m_view->contentRect().width() * 0.1 * 8000.0 / m_view->contentRect().width())));
        // M asks for a bookmark at the time range's start (the view only asks: BookmarkUi adds it).
        {
            QSignalSpy bookmark(m_view.get(), &ui::TimelineView::bookmarkRequested);
            m_view->state().timeRange().set(3000, 4000);
            QTest::keyClick(m_view.get(), Qt::Key_M);
            QCOMPARE(bookmark.size(), 1);
            QCOMPARE(bookmark.at(0).at(0).value<core::Nanos>(), core::Nanos(3000));
            m_view->state().timeRange().clear();
        }
        // E toggles all edges in view, and the (checkable) action shows the state either way.
        QAction *allEdges = m_view->keyAction(ui::TimelineKey::AllEdges);
        QVERIFY(allEdges->isCheckable() && !allEdges->isChecked());
        QTest::keyClick(m_view.get(), Qt::Key_E);
        QVERIFY(m_view->edgeOverlay().showAllInView());
        QVERIFY(allEdges->isChecked());
        m_view->setShowAllEdgesInView(false);
        QVERIFY(!allEdges->isChecked());
        allEdges->trigger(); // as a menu or tool bar would
        QVERIFY(m_view->edgeOverlay().showAllInView());
        // The actions act on the timeline only when it has the focus: another widget's key press does not.
        QLineEdit other;
        other.show();
        other.setFocus();
        const core::Nanos span = m_view->state().viewEnd() - m_view->state().viewStart();
        QTest::keyClick(&other, Qt::Key_W);
        QCOMPARE(m_view->state().viewEnd() - m_view->state().viewStart(), span);
        QCOMPARE(other.text(), QStringLiteral("w"));
    }

    void wheelZoomAnchorsAtCursor()
    {
        m_view->state().setVisibleRange(0, 10000);
        const QPoint cursor(800, 200);
        const core::Nanos before = m_view->xToTime(cursor.x());
        QWheelEvent wheel(QPointF(cursor), QPointF(m_view->mapToGlobal(cursor)), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(m_view.get(), &wheel);
        QVERIFY(m_view->state().viewEnd() - m_view->state().viewStart() < 10000);
        QVERIFY(std::llabs(m_view->xToTime(cursor.x()) - before) <= 2);
    }

    void clickSelectsAndFillsDetails()
    {
        ui::DetailsDock details(&m_selection);
        details.setDocument(m_doc);
        m_view->state().fitAll();
        const QRectF rect = m_view->eventRect(m_ids.gemm);
        QVERIFY(!rect.isEmpty());
        QCOMPARE(m_view->eventAt(rect.center().toPoint()), m_ids.gemm);
        QTest::mouseClick(m_view.get(), Qt::LeftButton, {}, rect.center().toPoint());
        QCOMPARE(m_selection.current(), m_ids.gemm);
        const QString text = details.browser()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("gemm")), qPrintable(text));
        // Its parent and the rule that chose it (nesting: innermost op enclosing the launch).
        QVERIFY(text.contains(QStringLiteral("aten::mm")));
        QVERIFY(text.contains(QStringLiteral("Rule")));
        QVERIFY(details.html().contains(QStringLiteral("event:%1").arg(m_ids.mm.value)));
        // Clicking empty space clears the selection.
        QTest::mouseClick(m_view.get(), Qt::LeftButton, {}, QPoint(m_view->width() - 30, m_view->height() - 5));
        QCOMPARE(m_selection.current(), core::kNone);
    }

    void edgesOfSelectedKernelGoToLinkerParent()
    {
        const core::GpuLink *link = m_doc->gpuLink(m_ids.gemm);
        QVERIFY(link);
        QCOMPARE(link->parent, m_ids.mm); // the linker's choice, checked by hand above
        m_view->state().fitAll();
        m_selection.select(m_ids.gemm);
        (void)m_view->renderToImage(m_view->size());
        bool parentEdge = false, launchEdge = false;
        const QRectF kernelRect = m_view->eventRect(m_ids.gemm);
        for (const auto &painted : m_view->edgeOverlay().painted()) {
            const ui::DrawEdge &edge = m_doc->edges()[painted.edge];
            QCOMPARE(edge.to == m_ids.gemm || edge.from == m_ids.gemm, true);
            if (edge.kind == core::EdgeKind::Parent) {
                parentEdge = true;
                QCOMPARE(edge.from, link->parent);
                // Ends at the kernel's start, middle of its row; starts on the parent's row.
                QVERIFY(std::abs(painted.to.x() - kernelRect.left()) < 1.0);
                QVERIFY(std::abs(painted.to.y() - kernelRect.center().y()) < 1.5);
                const QRectF parentRect = m_view->eventRect(link->parent);
                QVERIFY(std::abs(painted.from.y() - parentRect.center().y()) < 1.5);
                QVERIFY(painted.from.x() >= parentRect.left() - 1 && painted.from.x() <= parentRect.right() + 1);
            }
            if (edge.kind == core::EdgeKind::Launch) {
                launchEdge = true;
                QCOMPARE(edge.from, m_ids.launch1);
            }
        }
        QVERIFY(parentEdge);
        QVERIFY(launchEdge);
        // Hiding the Parent kind removes that edge.
        m_view->setEdgeKindVisible(core::EdgeKind::Parent, false);
        (void)m_view->renderToImage(m_view->size());
        for (const auto &painted : m_view->edgeOverlay().painted())
            QVERIFY(m_doc->edges()[painted.edge].kind != core::EdgeKind::Parent);
    }

    void bracketsFollowEdges()
    {
        m_view->state().fitAll();
        m_selection.select(m_ids.addKernel);
        QTest::keyClick(m_view.get(), Qt::Key_BracketLeft);
        QCOMPARE(m_selection.current(), m_ids.add); // Parent edge first
        QTest::keyClick(m_view.get(), Qt::Key_BracketRight);
        QCOMPARE(m_selection.current(), m_ids.addKernel);
        QTest::keyClick(m_view.get(), Qt::Key_Escape);
        QCOMPARE(m_selection.current(), core::kNone);
    }

    void allEdgesInViewAreCountedAndCapped()
    {
        m_view->state().fitAll();
        m_view->setShowAllEdgesInView(true);
        (void)m_view->renderToImage(m_view->size());
        // At least 2 parent + 2 launch edges; fit-all shows every event, so every edge is in view.
        QVERIFY(m_doc->edgesByFromTime().size() >= 4);
        QCOMPARE(m_view->edgeOverlay().inView(), m_doc->edgesByFromTime().size());
        QCOMPARE(m_view->edgeOverlay().painted().size(), m_doc->edgesByFromTime().size());
    }

    void paintsKindColoursAtEventPositions()
    {
        m_view->state().fitAll();
        const QImage image = m_view->renderToImage(m_view->size());
        auto colourAt = [&](core::EventIndex e) {
            const QRectF r = m_view->eventRect(e);
            // A point inside the rect, away from labels (text is drawn from the left, vertically centred).
            return image.pixelColor(QPointF(r.right() - 3, r.top() + 2).toPoint());
        };
        QCOMPARE(colourAt(m_ids.gemm), ui::eventColor(ui::EventStyle::Kernel));
        QCOMPARE(colourAt(m_ids.linear), ui::eventColor(ui::EventStyle::CpuOp));
        QCOMPARE(colourAt(m_ids.launch1), ui::eventColor(ui::EventStyle::Runtime));
        QCOMPARE(colourAt(m_ids.copy), ui::eventColor(ui::EventStyle::Memcpy));
    }

    void subPixelEventsMergeIntoColumns()
    {
        // 200,000 events of 10 ns every 50 ns on one stream: at fit-all each pixel holds many.
        TraceBuilder b;
        for (int i = 0; i < 200000; ++i)
            b.gpu("k", 0, 7, i * 50, 10, i);
        auto device = std::make_shared<const core::DeviceTrace>(std::move(b.trace));
        auto links = std::make_shared<const core::LinkSet>(core::linkTraces(*device, nullptr));
        auto doc = ui::TraceDocument::create({}, QStringLiteral("dense.json"), nullptr, device, links);
        ui::TimelineView view;
        view.resize(1000, 300);
        view.setDocument(doc);
        const QImage image = view.renderToImage(view.size());
        const QRect content = view.contentRect();
        // Every pixel column under the trace's span is painted in the kernel colour.
        const int y = content.top() + ui::TimelineLayout::kGroupHeaderHeight + ui::TimelineLayout::kRowHeight / 2;
        const int x0 = static_cast<int>(std::ceil(view.timeToX(0))) + 1;
        const int x1 = static_cast<int>(std::floor(view.timeToX(200000 * 50))) - 1;
        for (int x = x0; x < x1; ++x)
            QCOMPARE(image.pixelColor(x, y), ui::eventColor(ui::EventStyle::Kernel));
        // "All edges in view" counts every stream-order edge but draws at most kEdgeCap.
        view.setShowAllEdgesInView(true);
        (void)view.renderToImage(view.size());
        QVERIFY(view.edgeOverlay().painted().size() <= std::size_t(ui::TimelineView::kEdgeCap));
        QVERIFY(view.edgeOverlay().painted().size() > std::size_t(ui::TimelineView::kEdgeCap) * 9 / 10);
        // 199,999 stream-order edges: too many to count one by one, so the count is sampled.
        QVERIFY(view.edgeOverlay().inViewEstimated());
        QVERIFY(std::llabs(static_cast<long long>(view.edgeOverlay().inView())
                           - static_cast<long long>(doc->edgesByFromTime().size()))
                < static_cast<long long>(doc->edgesByFromTime().size()) / 20);
        // The drawn edges are spread over the view, not bunched at its left.
        double maxX = 0;
        for (const auto &painted : view.edgeOverlay().painted())
            maxX = std::max(maxX, painted.to.x());
        QVERIFY(maxX > view.contentRect().center().x());
        // Zoomed in so that each event is wider than a pixel, the gaps between them show.
        view.state().setVisibleRange(0, 2000);
        const QImage zoomed = view.renderToImage(view.size());
        const double gapX = view.timeToX(30); // between an event's end (10) and the next start (50)
        QVERIFY(zoomed.pixelColor(static_cast<int>(gapX), y) != ui::eventColor(ui::EventStyle::Kernel));
    }

    // Issue 28 item 13: events that only partly overlap are drawn on one row, as siblings; their
    // labels keep to each one's free width instead of printing over each other.
    void overlappingSiblingsLabelsDoNotOverlap()
    {
        TraceBuilder b;
        const core::EventIndex first = b.cpu(EventCategory::CpuOp, "aten::first_operator_with_a_long_name", 100, 1, 0, 6000, 1);
        const core::EventIndex second = b.cpu(EventCategory::CpuOp, "aten::second_operator_with_a_long_name", 100, 1, 3000, 6000,
                                              2);
        const core::EventIndex third = b.cpu(EventCategory::CpuOp, "aten::third", 100, 1, 12000, 2000, 3);
        auto device = std::make_shared<const core::DeviceTrace>(std::move(b.trace));
        auto links = std::make_shared<const core::LinkSet>(core::linkTraces(*device, nullptr));
        auto doc = ui::TraceDocument::create({}, QStringLiteral("siblings.json"), nullptr, device, links);
        QCOMPARE(doc->index().depth[second.get()], doc->index().depth[first.get()]); // drawn as its sibling
        ui::TimelineLayout layout;
        layout.setDocument(doc.get());
        ui::TimelineGeometry geometry;
        geometry.start = 0;
        geometry.end = 16000;
        geometry.contentSize = QSize(1600, 300); // 10 ns a pixel
        ui::buildTimelineGeometry(doc.get(), layout, geometry);
        std::map<core::EventIndex, QRect> labels;
        for (const ui::TimelineLabel &label : geometry.labels)
            labels[label.event] = label.rect;
        QCOMPARE(labels.size(), std::size_t(3));
        QVERIFY(!labels[first].intersects(labels[second]));
        // The first keeps its start and ends where the second begins; the second starts after the first's end.
        QCOMPARE(labels[first].left(), 0);
        QVERIFY(labels[first].right() < 300);
        QVERIFY(labels[second].left() >= 599 && labels[second].right() <= 900);
        // A label that does not meet another keeps its event's width (minus the gap pixel).
        QCOMPARE(labels[third].left(), 1200);
        QCOMPARE(labels[third].width(), 199);

        // A sibling starting a few pixels after the first leaves it too little room: no label, not a squeezed one.
        TraceBuilder c;
        const core::EventIndex wide = c.cpu(EventCategory::CpuOp, "aten::wide", 100, 1, 0, 6000, 1);
        const core::EventIndex close = c.cpu(EventCategory::CpuOp, "aten::close", 100, 1, 100, 9000, 2);
        auto device2 = std::make_shared<const core::DeviceTrace>(std::move(c.trace));
        auto links2 = std::make_shared<const core::LinkSet>(core::linkTraces(*device2, nullptr));
        auto doc2 = ui::TraceDocument::create({}, QStringLiteral("close.json"), nullptr, device2, links2);
        layout.setDocument(doc2.get());
        geometry.doc = nullptr;
        ui::buildTimelineGeometry(doc2.get(), layout, geometry);
        QCOMPARE(geometry.labels.size(), std::size_t(1));
        QCOMPARE(geometry.labels.front().event, close);
        QVERIFY(geometry.labels.front().rect.left() >= 599);
        (void)wide;
    }

    void shiftDragSelectsTimeRange()
    {
        m_view->state().fitAll();
        QSignalSpy changed(&m_view->state().timeRange(), &ui::TimeRangeSelection::changed);
        const QRect content = m_view->contentRect();
        const int y = content.bottom() - 20; // below the lanes: empty background
        const QPoint from(content.left() + 200, y);
        const QPoint to(content.left() + 520, y);
        QTest::mousePress(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, from);
        QTest::mouseMove(m_view.get(), QPoint(content.left() + 400, y));
        QVERIFY(m_view->timeRangeDragging());
        QCOMPARE(changed.count(), 0); // nothing announced (no counting) while the mouse moves
        QTest::mouseMove(m_view.get(), to);
        QTest::mouseRelease(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, to);
        QCOMPARE(changed.count(), 1);
        QVERIFY(m_view->state().timeRange().has());
        QVERIFY(!m_view->timeRangeDragging());
        // The range's ends map back to the pixels the drag started and ended on, within one pixel.
        QVERIFY(std::abs(m_view->timeToX(m_view->state().timeRange().start()) - from.x()) <= 1.0);
        QVERIFY(std::abs(m_view->timeToX(m_view->state().timeRange().end()) - to.x()) <= 1.0);
        // Nothing was selected and the view did not pan.
        QCOMPARE(m_selection.current(), core::kNone);

        // The band is painted over the lanes: tinted inside, plain background outside.
        const QImage image = m_view->renderToImage(m_view->size());
        const QColor inside = image.pixelColor((from.x() + to.x()) / 2, y);
        QVERIFY2(inside.red() < 235 && inside.blue() > inside.red(), qPrintable(inside.name()));
        int outsideRed = 0; // a faint grid line may cross one column: take the lightest of a few
        for (int dx = 30; dx < 40; ++dx)
            outsideRed = std::max(outsideRed, image.pixelColor(to.x() + dx, y).red());
        QVERIFY2(outsideRed > 245, qPrintable(QString::number(outsideRed)));
        // ...and its duration is labelled in the ruler (a filled box at the band's centre).
        const int rulerMid = ui::TimelineView::kOverviewHeight + ui::TimelineView::kRulerHeight / 2;
        bool labelled = false;
        for (int x = from.x(); x < to.x() && !labelled; ++x)
            labelled = image.pixelColor(x, rulerMid) == QColor(0x2f, 0x6f, 0xd6);
        QVERIFY(labelled);

        // Dragging from right to left gives the same kind of range; on the ruler too.
        const int rulerY = ui::TimelineView::kOverviewHeight + 4;
        QTest::mousePress(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, QPoint(content.left() + 700, rulerY));
        QTest::mouseMove(m_view.get(), QPoint(content.left() + 300, rulerY));
        QTest::mouseRelease(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, QPoint(content.left() + 300, rulerY));
        QVERIFY(std::abs(m_view->timeToX(m_view->state().timeRange().start()) - (content.left() + 300)) <= 1.0);
        QVERIFY(std::abs(m_view->timeToX(m_view->state().timeRange().end()) - (content.left() + 700)) <= 1.0);

        // Esc clears the range and leaves the selection alone; a click clears it too.
        m_selection.select(m_ids.gemm);
        QTest::keyClick(m_view.get(), Qt::Key_Escape);
        QVERIFY(!m_view->state().timeRange().has());
        QCOMPARE(m_selection.current(), m_ids.gemm);
        m_view->state().timeRange().set(1000, 2000);
        QTest::mouseClick(m_view.get(), Qt::LeftButton, {}, QPoint(content.left() + 10, y));
        QVERIFY(!m_view->state().timeRange().has());
    }

    void fZoomsToTimeRange()
    {
        m_view->state().fitAll();
        const QRect content = m_view->contentRect();
        const int y = content.bottom() - 20;
        QTest::mousePress(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, QPoint(content.left() + 300, y));
        QTest::mouseMove(m_view.get(), QPoint(content.left() + 360, y));
        QTest::mouseRelease(m_view.get(), Qt::LeftButton, Qt::ShiftModifier, QPoint(content.left() + 360, y));
        QVERIFY(m_view->state().timeRange().has());
        const core::Nanos start = m_view->state().timeRange().start();
        const core::Nanos end = m_view->state().timeRange().end();
        m_selection.select(m_ids.linear); // F prefers the range over the selection
        QTest::keyClick(m_view.get(), Qt::Key_F);
        // The range fills the view but for a 1/40 margin on each side (fitTimeRange).
        const core::Nanos margin = (end - start) / 40;
        QCOMPARE(m_view->state().viewStart(), start - margin);
        QCOMPARE(m_view->state().viewEnd(), end + margin);
        QVERIFY(std::abs(m_view->timeToX(start) - (content.left() + content.width() / 42.0)) <= 1.0);
        QVERIFY(m_view->state().timeRange().has()); // zooming keeps it
    }

    void timeRangeCountsPerGroup()
    {
        // [2500, 8100): on the CPU thread aten::linear [0,10000), aten::mm [1000,6000), aten::add
        // [6500,9000) and the second launch [7000,7400) overlap it; the first launch [2000,2500)
        // ends at its start, so not. On GPU 0 only gemm [3000,8000): add_kernel starts at 8200,
        // the memcpy at 9600 (intervals from the SmallTrace comment).
        const ui::TimeRangeSummary summary = ui::summarizeTimeRange(*m_doc, m_view->layout(), 2500, 8100);
        // In layout order: GPU 0 first (the default), then the process.
        QCOMPARE(summary.groups.size(), std::size_t(2));
        QCOMPARE(summary.groups[1].gpu, false);
        QCOMPARE(summary.groups[1].events, std::uint64_t(4));
        QCOMPARE(summary.groups[1].gpuOps, std::uint64_t(0));
        QCOMPARE(summary.groups[0].gpu, true);
        QCOMPARE(summary.groups[0].events, std::uint64_t(1));
        QCOMPARE(summary.groups[0].gpuOps, std::uint64_t(1));
        QVERIFY(!summary.estimated());
        // The whole trace: 5 CPU-thread events, 3 GPU ops.
        const ui::TimeRangeSummary all = ui::summarizeTimeRange(*m_doc, m_view->layout(), 0, 10000);
        QCOMPARE(all.events(), std::uint64_t(8));
        QCOMPARE(all.gpuOps(), std::uint64_t(3));
        QVERIFY(ui::timeRangeHtml(summary).contains(ui::formatDuration(5600)));
    }

    void correctedDocumentEqualsFullRebuild()
    {
        // What a correction publishes (createWithLinks from the shown document) must be what a
        // full create() gives on the same links, for a re-parent (edges patched), a detach (edges
        // rebuilt) and both in a row; the lane rows are shared, never rebuilt.
        auto equal = [](const ui::TraceDocument &a, const ui::TraceDocument &b) { expectSameDocument(a, b); };
        auto full = [&](std::shared_ptr<const core::LinkSet> links) {
            return ui::TraceDocument::create({}, QStringLiteral("small.json"), nullptr, m_doc->deviceShared(), links);
        };
        // Re-parent gemm from aten::mm to aten::linear (as the LinkEditor does: rule Manual).
        auto reparented = std::make_shared<core::LinkSet>(m_doc->links());
        core::GpuLink &gemm = reparented->gpuLinks.mutate(reparented->gpuLinkOf[m_ids.gemm]);
        QCOMPARE(gemm.parent, m_ids.mm);
        gemm.parent = m_ids.linear;
        gemm.rule = core::ParentRule::Manual;
        const ui::DocumentPtr patched = ui::TraceDocument::createWithLinks(m_doc, reparented);
        QVERIFY(patched->sharesLaneRowsWith(*m_doc));
        QCOMPARE(patched->gpuLink(m_ids.gemm)->parent, m_ids.linear);
        equal(*patched, *full(reparented));
        if (QTest::currentTestFailed())
            return;
        // Then detach add_kernel: a parent edge disappears, ids shift, everything is rebuilt.
        auto detached = std::make_shared<core::LinkSet>(*reparented);
        core::GpuLink &add = detached->gpuLinks.mutate(detached->gpuLinkOf[m_ids.addKernel]);
        add.parent = core::kNone;
        add.orphan = core::OrphanReason::Detached;
        add.rule = core::ParentRule::Manual;
        const ui::DocumentPtr rebuilt = ui::TraceDocument::createWithLinks(patched, detached);
        QVERIFY(rebuilt->sharesLaneRowsWith(*m_doc));
        equal(*rebuilt, *full(detached));
        if (QTest::currentTestFailed())
            return;
        // And back to the linker's links from the detached document.
        equal(*ui::TraceDocument::createWithLinks(rebuilt, m_doc->linksShared()), *m_doc);
    }

    void correctionCopiesOnlyTheChunksItChanges()
    {
        // A generated trace of many chunks, corrected the way the session does (LinkEditor, which
        // also re-diagnoses): each document made from the one before equals a full rebuild, and
        // shares all but a few chunks of its finding marks, edges, adjacency and time orders.
        gen::GeneratorOptions options;
        options.seed = 1;
        options.devices = 2;
        options.targetKinetoEvents = 150000;
        std::ostringstream host, kineto, truth;
        host.setstate(std::ios::badbit);
        truth.setstate(std::ios::badbit);
        gen::generatePair(options, host, kineto, truth);
        auto device = std::make_shared<const core::DeviceTrace>(core::parseKinetoTrace(std::move(kineto).str(), "gen.json"));
        auto linked = std::make_shared<const core::LinkSet>(core::linkTraces(*device, nullptr));
        const ui::DocumentPtr first = ui::TraceDocument::create({}, QStringLiteral("gen.json"), nullptr, device, linked);
        QVERIFY(first->eventCount() >= 150000);

        core::LinkSet working = *linked;
        core::LinkEditor editor(working, *device, nullptr);
        // A GPU op from the middle with a second candidate parent, and a CPU op pair for an edge.
        core::EventIndex gpu = core::kNone, other = core::kNone;
        for (std::size_t k = working.gpuLinks.size() / 2; k < working.gpuLinks.size() && gpu.isNone(); ++k) {
            const core::GpuLink &link = working.gpuLinks[k];
            for (core::EventIndex c : core::reparentCandidates(*device, working, link.gpuEvent, link.parent))
                if (c != link.parent && core::checkReparent(*device, working, link.gpuEvent, c).allowed()) {
                    gpu = link.gpuEvent;
                    other = c;
                    break;
                }
        }
        QVERIFY(gpu.valid());
        const core::EventIndex waiter = working.gpuLinks[working.gpuLinks.size() / 3].parent;
        QVERIFY(waiter.valid());
        std::vector<core::LogEntry> steps = {
            {"re-parent", {editor.reparent(gpu, other)}},
            {"detach", {editor.detach(working.gpuLinks[10].gpuEvent)}},
            {"add a sync edge", {editor.addEdge(gpu, waiter, core::EdgeKind::Sync)}},
            {"remove it", {editor.removeEdge(gpu, waiter, core::EdgeKind::Sync)}},
        };
        ui::DocumentPtr shown = first;
        for (const core::LogEntry &step : steps) {
            const std::vector<core::EditOutcome> outcomes = editor.apply(step);
            QCOMPARE(outcomes.front().status, core::EditStatus::Applied);
            auto links = std::make_shared<const core::LinkSet>(working);
            const ui::DocumentPtr patched = ui::TraceDocument::createWithLinks(shown, links);
            expectSameDocument(*patched, *ui::TraceDocument::create({}, QStringLiteral("gen.json"), nullptr, device, links));
            if (QTest::currentTestFailed())
                return;
            const ui::TraceDocument::Sharing sharing = patched->sharingWith(*shown);
            QVERIFY2(sharing.total > 100, qPrintable(QString::number(sharing.total)));
            QVERIFY2(sharing.total - sharing.shared <= 10, qPrintable(QStringLiteral("%1: %2 of %3 chunks shared")
                                                                          .arg(QString::fromStdString(step.label))
                                                                          .arg(sharing.shared)
                                                                          .arg(sharing.total)));
            shown = patched;
        }
        QCOMPARE(shown->gpuLink(gpu)->parent, other);
        // Undone to the linker's links: the first document again.
        while (editor.undoLast()) { }
        expectSameDocument(*ui::TraceDocument::createWithLinks(shown, std::make_shared<const core::LinkSet>(working)), *first);
    }

    void syncToGpuOpEndsAtItsStart()
    {
        // gemm [3000, 8000) on stream 7; a stream wait makes the memcpy on stream 20 [9600, 9800)
        // wait for it, and aten::linear [0, 10000) waits for it on the host.
        auto links = std::make_shared<core::LinkSet>(m_doc->links());
        links->edges.push_back({m_ids.gemm, m_ids.copy, core::EdgeKind::Sync});
        links->edges.push_back({m_ids.gemm, m_ids.linear, core::EdgeKind::Sync});
        m_doc = ui::TraceDocument::create({}, QStringLiteral("small.json"), nullptr, m_doc->deviceShared(), links);
        m_view->setDocument(m_doc);
        m_view->state().fitAll();
        m_selection.select(m_ids.gemm);
        (void)m_view->renderToImage(m_view->size());
        const QRectF gemm = m_view->eventRect(m_ids.gemm), copy = m_view->eventRect(m_ids.copy),
                     linear = m_view->eventRect(m_ids.linear);
        QVERIFY(copy.width() > 10); // the ends are far enough apart to tell them
        int seen = 0;
        for (const auto &painted : m_view->edgeOverlay().painted()) {
            const ui::DrawEdge &edge = m_doc->edges()[painted.edge];
            if (edge.kind != core::EdgeKind::Sync)
                continue;
            ++seen;
            QVERIFY(std::abs(painted.from.x() - gemm.right()) < 1.5); // from the end of the op waited for
            if (edge.to == m_ids.copy)
                QVERIFY2(std::abs(painted.to.x() - copy.left()) < 1.5, "a GPU op that waits starts after it");
            else if (edge.to == m_ids.linear)
                QVERIFY2(std::abs(painted.to.x() - linear.right()) < 1.5, "a host call that waits returns after it");
            else
                QFAIL("an unexpected sync edge");
        }
        QCOMPARE(seen, 2);
    }

    void contextMenusOnEventsAndEdges()
    {
        // Without a provider (a read-only timeline, as the job's rank panes): Select, Frame, Select
        // parent / launch and Copy name on an event; Select source / target, Copy description on an edge.
        m_view->state().fitAll();
        auto action = [](QMenu *menu, const char *name) { return menu->findChild<QAction *>(QString::fromLatin1(name)); };
        std::unique_ptr<QMenu> menu(m_view->menus().createEventMenu(m_ids.gemm));
        for (const char *name : {"selectEvent", "frameEvent", "selectParent", "selectLaunch", "copyName"})
            QVERIFY2(action(menu.get(), name) && action(menu.get(), name)->isEnabled(), name);
        action(menu.get(), "selectParent")->trigger();
        QCOMPARE(m_selection.current(), m_ids.mm);
        action(menu.get(), "selectLaunch")->trigger();
        QCOMPARE(m_selection.current(), m_ids.launch1);
        const core::Nanos start = m_view->state().viewStart(), end = m_view->state().viewEnd();
        action(menu.get(), "selectEvent")->trigger(); // in place: the view stays
        QCOMPARE(m_selection.current(), m_ids.gemm);
        QCOMPARE(m_view->state().viewStart(), start);
        QCOMPARE(m_view->state().viewEnd(), end);
        action(menu.get(), "copyName")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("gemm"));
        // Frame: gemm [3000, 8000) with its parent aten::mm [1000, 6000), an eighth as margin.
        m_selection.clear();
        action(menu.get(), "frameEvent")->trigger();
        QCOMPARE(m_selection.current(), m_ids.gemm);
        QCOMPARE(m_view->state().viewStart(), core::Nanos(1000 - 7000 / 8));
        QCOMPARE(m_view->state().viewEnd(), core::Nanos(8000 + 7000 / 8));
        // The orphan memcpy has no parent or launch to select.
        menu.reset(m_view->menus().createEventMenu(m_ids.copy));
        QVERIFY(!action(menu.get(), "selectParent")->isEnabled());
        QVERIFY(!action(menu.get(), "selectLaunch")->isEnabled());
        // A CPU op has no GPU link: no parent / launch entries.
        menu.reset(m_view->menus().createEventMenu(m_ids.mm));
        QVERIFY(!action(menu.get(), "selectParent"));

        // The parent edge aten::mm → gemm.
        ui::DrawEdgeIndex parentEdge{};
        for (ui::DrawEdgeIndex id{0}; id.get() < m_doc->edges().size(); ++id)
            if (m_doc->edges()[id].kind == core::EdgeKind::Parent && m_doc->edges()[id].to == m_ids.gemm)
                parentEdge = id;
        QVERIFY(parentEdge.valid());
        menu.reset(m_view->menus().createEdgeMenu(parentEdge));
        action(menu.get(), "selectEdgeSource")->trigger();
        QCOMPARE(m_selection.current(), m_ids.mm);
        action(menu.get(), "selectEdgeTarget")->trigger();
        QCOMPARE(m_selection.current(), m_ids.gemm);
        action(menu.get(), "copyEdge")->trigger();
        const QString copied = QGuiApplication::clipboard()->text();
        QVERIFY2(copied.contains(QStringLiteral("from: aten::mm")) && copied.contains(QStringLiteral("to: gemm")),
                 qPrintable(copied));
        QVERIFY(!copied.contains(QLatin1Char('<'))); // plain text, not the tooltip's HTML

        // A right-click picks the menu by what is under the cursor; the provider adds to it.
        std::vector<std::pair<core::EventIndex, ui::DrawEdgeIndex>> asked;
        m_view->menus().setProvider([&](QMenu *m, core::EventIndex e, ui::DrawEdgeIndex edge) {
            asked.emplace_back(e, edge);
            m->addAction(QStringLiteral("extra"))->setObjectName(QStringLiteral("extra"));
        });
        m_selection.select(m_ids.gemm);
        (void)m_view->renderToImage(m_view->size());
        const QPoint onGemm = m_view->eventRect(m_ids.gemm).center().toPoint();
        menu.reset(m_view->menus().createContextMenu(onGemm));
        QVERIFY(menu && action(menu.get(), "selectEvent") && action(menu.get(), "extra"));
        QCOMPARE(asked.back(), std::make_pair(m_ids.gemm, ui::DrawEdgeIndex(core::kNone)));
        // On the drawn parent edge, away from any event (the middle of its curve).
        const ui::TimelineView::PaintedEdge *painted = nullptr;
        for (const auto &p : m_view->edgeOverlay().painted())
            if (p.edge == parentEdge)
                painted = &p;
        QVERIFY(painted);
        QPoint onEdge;
        for (double t = 0.1; t < 0.95 && onEdge.isNull(); t += 0.05) {
            const QPoint p = ui::TimelineEdgeOverlay::curvePoint(*painted, t).toPoint();
            if (m_view->eventAt(p).isNone() && m_view->edgeAt(p) == parentEdge)
                onEdge = p;
        }
        QVERIFY(!onEdge.isNull());
        menu.reset(m_view->menus().createContextMenu(onEdge));
        QVERIFY(menu && action(menu.get(), "selectEdgeSource") && action(menu.get(), "extra"));
        QCOMPARE(asked.back(), std::make_pair(core::EventIndex(core::kNone), parentEdge));
        // On a lane header: the header menu (hide, collapse, move), not an event's.
        menu.reset(m_view->menus().createContextMenu(QPoint(20, onGemm.y())));
        QVERIFY(menu && !action(menu.get(), "selectEvent") && !menu->actions().isEmpty());
        // On the ruler: none.
        QVERIFY(!m_view->menus().createContextMenu(QPoint(onGemm.x(), ui::TimelineView::kOverviewHeight + 4)));
    }

    void timeFormatting()
    {
        QCOMPARE(ui::niceTickStep(1.0, 100), core::Nanos(100));
        QCOMPARE(ui::niceTickStep(3.0, 100), core::Nanos(500));
        QCOMPARE(ui::niceTickStep(1e6, 100), core::Nanos(100'000'000));
        QCOMPARE(ui::formatTickLabel(12'340'000, 10'000), QStringLiteral("12.34 ms"));
        QCOMPARE(ui::formatTickLabel(2'000'000'000, 1'000'000'000), QStringLiteral("2 s"));
        QCOMPARE(ui::formatDuration(830), QStringLiteral("830 ns"));
        QCOMPARE(ui::formatDuration(1'250'000, 2), QStringLiteral("1.25 ms"));
    }

private:
    ui::EventSelection m_selection;
    ui::DocumentPtr m_doc;
    std::unique_ptr<ui::TimelineView> m_view;
    struct Ids {
        core::EventIndex linear{0}, mm{0}, launch1{0}, add{0}, launch2{0}, gemm{0}, addKernel{0}, copy{0};
        Ids &operator=(const SmallTrace &t)
        {
            linear = t.linear, mm = t.mm, launch1 = t.launch1, add = t.add, launch2 = t.launch2, gemm = t.gemm,
            addKernel = t.addKernel, copy = t.copy;
            return *this;
        }
    } m_ids;
};

QTEST_MAIN(TestTimelineView)
#include "test_timelineview.moc"
