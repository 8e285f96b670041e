#include "timeline/timelineinput.h"

#include "timeline/timelineedges.h"
#include "timeline/timelineruler.h"
#include "timeline/timelinetooltips.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QCursor>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

namespace {

// The time at widget x, clamped to the view's event area (a range dragged past its edges stops there).
core::Nanos clampedTimeAt(const TimelineView &view, double x)
{
    const QRect content = view.contentRect();
    return view.xToTime(std::clamp(x, double(content.left()), double(content.left() + content.width())));
}

} // namespace

TimelineInput::TimelineInput(TimelineView &view) : QObject(&view), m_view(view)
{
    view.installEventFilter(this);
    TimelineView &v = m_view;
    using K = TimelineKey;
    addKey(
        K::ZoomIn, tr("Zoom in"), {Qt::Key_W}, [this, &v] { v.zoomAt(std::pow(0.8, heldZoomSteps()), zoomAnchorX()); },
        tr("Zoom in at the cursor (faster while held)"));
    addKey(K::ZoomInFast, tr("Zoom in faster"), {Qt::SHIFT | Qt::Key_W}, [this, &v] { v.zoomAt(0.5, zoomAnchorX()); });
    addKey(
        K::ZoomOut, tr("Zoom out"), {Qt::Key_S}, [this, &v] { v.zoomAt(std::pow(1.25, heldZoomSteps()), zoomAnchorX()); },
        tr("Zoom out at the cursor (faster while held)"));
    addKey(K::ZoomOutFast, tr("Zoom out faster"), {Qt::SHIFT | Qt::Key_S}, [this, &v] { v.zoomAt(2.0, zoomAnchorX()); });
    addKey(K::PanLeft, tr("Pan left"), {Qt::Key_A}, [&v] { v.panByPixels(-v.contentRect().width() * 0.1); });
    addKey(K::PanLeftFast, tr("Pan left faster"), {Qt::SHIFT | Qt::Key_A},
           [&v] { v.panByPixels(-v.contentRect().width() * 0.4); });
    addKey(K::PanRight, tr("Pan right"), {Qt::Key_D}, [&v] { v.panByPixels(v.contentRect().width() * 0.1); });
    addKey(K::PanRightFast, tr("Pan right faster"), {Qt::SHIFT | Qt::Key_D},
           [&v] { v.panByPixels(v.contentRect().width() * 0.4); });
    addKey(
        K::Fit, tr("Fit time range or selection"), {Qt::Key_F},
        [&v] {
            if (v.state().timeRange().has())
                v.state().fitTimeRange();
            else
                v.navigation().fitSelection();
        },
        tr("Fit the time range, else the selection (again: with its edges' ends)"));
    addKey(K::FitAll, tr("Fit everything"), {Qt::Key_0, Qt::Key_Home}, [&v] { v.state().fitAll(); });
    addKey(
        K::FitRows, tr("Fit rows"), {Qt::Key_R}, [&v] { v.setFitRows(!v.fitRows()); },
        tr("Shrink the rows so that all of them fit the view's height (again: back to the normal height)"));
    action(K::FitRows)->setCheckable(true);
    addKey(
        K::Escape, tr("Clear time range or selection"), {Qt::Key_Escape}, [this] { escape(); },
        tr("Clear the time range, else deselect"));
    addKey(
        K::FollowIncoming, tr("Follow incoming edge"), {Qt::Key_BracketLeft}, [&v] { v.navigation().followEdge(false); },
        tr("Follow the selection's incoming edge (a kernel: to its parent)"));
    addKey(
        K::FollowOutgoing, tr("Follow outgoing edge"), {Qt::Key_BracketRight}, [&v] { v.navigation().followEdge(true); },
        tr("Follow the selection's outgoing edge"));
    addKey(
        K::FocusPreviousEdge, tr("Focus previous edge"), {Qt::CTRL | Qt::Key_BracketLeft},
        [&v] { v.navigation().cycleFocusedEdge(-1); }, tr("Focus the previous edge of the selection"));
    addKey(
        K::FocusNextEdge, tr("Focus next edge"), {Qt::CTRL | Qt::Key_BracketRight}, [&v] { v.navigation().cycleFocusedEdge(1); },
        tr("Focus the next edge of the selection"));
    addKey(K::PreviousOnRow, tr("Previous event on the row"), {Qt::Key_Comma}, [&v] { v.navigation().stepOnRow(-1); });
    addKey(K::NextOnRow, tr("Next event on the row"), {Qt::Key_Period}, [&v] { v.navigation().stepOnRow(1); });
    addKey(
        K::AllEdges, tr("Show all edges in view"), {Qt::Key_E},
        [&v] { v.setShowAllEdgesInView(!v.edgeOverlay().showAllInView()); },
        tr("Draw every edge with an end in view (at most %L1), not only the selection's").arg(TimelineEdgeOverlay::kEdgeCap));
    action(K::AllEdges)->setCheckable(true);
    addKey(K::FrameTime, tr("Frame-time overlay"), {Qt::Key_F12}, [&v] { v.setFrameTimeShown(!v.frameTimeShown()); });
    addKey(K::ScrollUp, tr("Scroll lanes up"), {Qt::Key_Up},
           [&v] { v.setVerticalOffset(v.verticalOffset() - TimelineLayout::kRowHeight * 2); });
    addKey(K::ScrollDown, tr("Scroll lanes down"), {Qt::Key_Down},
           [&v] { v.setVerticalOffset(v.verticalOffset() + TimelineLayout::kRowHeight * 2); });
    addKey(K::PageUp, tr("Scroll lanes up a page"), {Qt::Key_PageUp},
           [&v] { v.setVerticalOffset(v.verticalOffset() - v.contentRect().height() * 9 / 10); });
    addKey(K::PageDown, tr("Scroll lanes down a page"), {Qt::Key_PageDown},
           [&v] { v.setVerticalOffset(v.verticalOffset() + v.contentRect().height() * 9 / 10); });
    addKey(
        K::AddBookmark, tr("Add bookmark"), {Qt::Key_M}, [this, &v] { emit v.bookmarkRequested(bookmarkTime()); },
        tr("Bookmark the time range's or selection's start, else the time under the cursor (Bookmarks menu)"));
}

QList<std::pair<QString, QString>> TimelineInput::mouseGestures()
{
    return {
        {tr("Ctrl+wheel"), tr("zoom at the cursor")},
        {tr("Shift+wheel, drag"), tr("pan (a horizontal wheel pans too; the wheel scrolls the lanes)")},
        {tr("Click"), tr("select an event (a click also clears the time range)")},
        {tr("Click an edge"), tr("select its target and focus the edge (hover: its kind, rule and ends)")},
        {tr("Double-click"), tr("zoom to the selected event")},
        {tr("Shift+drag"), tr("on the lanes or the ruler: select a time range")},
        {tr("Drag in the overview"), tr("move the view")},
        {tr("Click a lane header"), tr("collapse or expand the lane or group")},
        {tr("Drag a lane header"), tr("move the lane among its group's lanes, or the group among the groups")},
        {tr("Right-click a lane header"), tr("hide or move lanes and groups, hide Python rows; GPU streams first")},
        {tr("Drag the header column's edge"), tr("resize the header column")},
    };
}

void TimelineInput::addKey(TimelineKey key, const QString &text, const QList<QKeySequence> &keys, std::function<void()> run,
                           const QString &description)
{
    Q_ASSERT(m_keyActions.size() == static_cast<int>(key));
    auto *action = new QAction(text, this);
    action->setShortcuts(keys);
    // The view triggers it from keyPressEvent, only while it has the focus. A menu or tool bar that
    // shows the action (and its key) must not make the key work elsewhere: with WidgetShortcut the
    // shortcut map matches only when a widget showing the action has the focus, which the view is not.
    action->setShortcutContext(Qt::WidgetShortcut);
    if (!description.isEmpty())
        action->setToolTip(description);
    connect(action, &QAction::triggered, this, std::move(run));
    m_keyActions.append(action);
}

double TimelineInput::heldZoomSteps() const
{
    // A tap is one step (×1.25); each auto-repeat of a held key adds a tenth of a step, up to two
    // steps a repeat: held for two seconds (about 50 repeats) it crosses eight orders of magnitude,
    // seconds to nanoseconds, while a tap stays fine-grained (as Perfetto's W/S do).
    return 1.0 + std::min(m_zoomRepeats, kZoomRepeatsToFull) * (1.0 / kZoomRepeatsToFull);
}

bool TimelineInput::keyPress(QKeyEvent *event)
{
    // Auto-repeats of the same key count; any other press (or the first of a new hold) starts over.
    if (event->isAutoRepeat() && event->key() == m_lastKey)
        ++m_zoomRepeats;
    else
        m_zoomRepeats = 0;
    m_lastKey = event->key();
    const Qt::KeyboardModifiers held = event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier);
    for (const Qt::KeyboardModifiers mods :
         {held, held & Qt::ShiftModifier, held & Qt::ControlModifier, Qt::KeyboardModifiers()}) {
        const QKeySequence pressed(QKeyCombination(mods, Qt::Key(event->key())));
        for (QAction *action : std::as_const(m_keyActions)) {
            if (action->shortcuts().contains(pressed)) {
                action->trigger();
                return true;
            }
        }
    }
    return false;
}

double TimelineInput::zoomAnchorX() const
{
    const QPoint cursor = m_view.mapFromGlobal(QCursor::pos());
    const QRect content = m_view.contentRect();
    return content.contains(cursor) ? cursor.x() : content.center().x();
}

core::Nanos TimelineInput::bookmarkTime() const
{
    if (m_view.state().timeRange().has())
        return m_view.state().timeRange().start();
    const EventSelection *selection = m_view.state().selectionModel();
    if (m_view.document() && selection && selection->hasSelection() && selection->current().in(m_view.document()->eventCount()))
        return m_view.document()->event(selection->current()).ts;
    return m_view.xToTime(zoomAnchorX()); // the cursor's time, else the view's centre
}

void TimelineInput::escape()
{
    if (m_rangeDragging) {
        cancelRangeDrag();
        m_view.state().timeRange().commit(0, 0);
    } else if (m_view.state().timeRange().has()) {
        m_view.state().timeRange().clear();
    } else if (EventSelection *selection = m_view.state().selectionModel()) {
        selection->clear();
    }
}

void TimelineInput::cancelRangeDrag()
{
    if (!m_rangeDragging)
        return;
    m_rangeDragging = false;
    m_view.unsetCursor();
}

void TimelineInput::wheel(QWheelEvent *event)
{
    const QPoint angle = event->angleDelta();
    const double x = event->position().x();
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = angle.y() / 120.0;
        m_view.zoomAt(std::pow(0.8, steps), x);
    } else if (angle.x() != 0 || (event->modifiers() & Qt::ShiftModifier)) {
        const int delta = angle.x() != 0 ? angle.x() : angle.y();
        m_view.panByPixels(-delta / 120.0 * m_view.contentRect().width() / 10.0);
    } else {
        m_view.setVerticalOffset(m_view.verticalOffset() - angle.y() / 120 * TimelineLayout::kRowHeight * 3);
    }
    event->accept();
}

void TimelineInput::mousePress(QMouseEvent *event)
{
    m_view.setFocus(Qt::MouseFocusReason);
    if (!m_view.document() || event->button() != Qt::LeftButton)
        return;
    const QPoint pos = event->position().toPoint();
    if (pos.y() >= m_view.overviewHeight() && std::abs(pos.x() - m_view.headerWidth()) <= kHeaderGrip) {
        m_headerResize = true; // the header column's right edge: drag to resize it
        return;
    }
    if (pos.y() < m_view.overviewHeight() && pos.x() >= m_view.headerWidth()) {
        m_overviewDrag = true;
        mouseMove(event);
        return;
    }
    const QRect content = m_view.contentRect();
    if (pos.x() < m_view.headerWidth() && pos.y() >= content.top()) {
        // Decided on the move or the release: a drag moves the lane or group, a click toggles it.
        m_headerPressed = true;
        m_headerRow = m_view.headerRowAt(pos);
        m_pressPos = pos;
        return;
    }
    if ((event->modifiers() & Qt::ShiftModifier) && pos.x() >= content.left() && pos.y() >= m_view.overviewHeight()) {
        // Shift+drag on the lanes or the ruler: a time range, from the pressed time.
        m_rangeDragging = true;
        m_pressPos = pos;
        m_rangeAnchor = clampedTimeAt(m_view, pos.x());
        return;
    }
    m_pressed = true;
    m_panning = false;
    m_pressPos = pos;
    m_pressViewStart = m_view.state().viewStart();
    m_pressVerticalOffset = m_view.verticalOffset();
}

void TimelineInput::mouseMove(QMouseEvent *event)
{
    const DocumentPtr &doc = m_view.document();
    if (!doc)
        return;
    const QPoint pos = event->position().toPoint();
    if (m_headerResize) {
        m_view.setHeaderWidth(pos.x());
        return;
    }
    if (m_overviewDrag) {
        m_view.state().centreOn(TimelineOverview::timeAt(*doc, pos.x(), m_view.width(), m_view.headerWidth()));
        return;
    }
    if (m_headerPressed) {
        if (!m_view.headerDrag().active && std::abs(pos.y() - m_pressPos.y()) <= kHeaderDragThreshold)
            return;
        const QRect content = m_view.contentRect();
        m_view.setHeaderDrag(TimelineHeaderPass::dropAt(m_view.layout(), m_headerRow, m_view.contentYAt(pos.y())));
        if (m_view.headerDrag().active)
            m_view.setCursor(Qt::DragMoveCursor);
        // Near the top or bottom edge the lanes scroll, so a lane can go anywhere.
        if (pos.y() < content.top() + 12)
            m_view.setVerticalOffset(m_view.verticalOffset() - TimelineLayout::kRowHeight);
        else if (pos.y() > content.bottom() - 12)
            m_view.setVerticalOffset(m_view.verticalOffset() + TimelineLayout::kRowHeight);
        m_view.update();
        return;
    }
    if (m_rangeDragging) {
        // Drawn as it grows; TimeRangeSelection::changed (and what listens: counts per group) waits for the release.
        m_view.state().timeRange().preview(m_rangeAnchor, clampedTimeAt(m_view, pos.x()));
        m_view.setCursor(Qt::SizeHorCursor);
        return;
    }
    if (m_pressed) {
        const QPoint delta = pos - m_pressPos;
        if (!m_panning && delta.manhattanLength() > 4)
            m_panning = true;
        if (m_panning) {
            m_view.setCursor(Qt::ClosedHandCursor);
            const core::Nanos shift = static_cast<core::Nanos>(std::llround(delta.x() * m_view.nanosPerPixel()));
            const core::Nanos span = m_view.state().viewEnd() - m_view.state().viewStart();
            m_view.state().setVisibleRange(m_pressViewStart - shift, m_pressViewStart - shift + span);
            m_view.setVerticalOffset(m_pressVerticalOffset - delta.y());
        }
        return;
    }
    if (pos.y() >= m_view.overviewHeight() && std::abs(pos.x() - m_view.headerWidth()) <= kHeaderGrip)
        m_view.setCursor(Qt::SplitHCursor);
    else if (m_view.cursor().shape() == Qt::SplitHCursor)
        m_view.unsetCursor();
    const core::EventIndex hovered = m_view.eventAt(pos);
    m_view.state().setHover({hovered, hovered.isNone() ? m_view.edgeAt(pos) : DrawEdgeIndex(core::kNone)});
}

void TimelineInput::mouseRelease(QMouseEvent *event)
{
    if (m_headerResize) {
        m_headerResize = false;
        m_view.unsetCursor();
        m_view.saveViewSettings();
        return;
    }
    if (m_overviewDrag) {
        m_overviewDrag = false;
        return;
    }
    if (m_headerPressed) {
        m_headerPressed = false;
        const TimelineView::HeaderDrag drag = m_view.headerDrag();
        m_view.setHeaderDrag(TimelineView::HeaderDrag());
        m_view.unsetCursor();
        if (!drag.active)
            m_view.toggleHeaderAt(m_pressPos);
        else if (drag.isGroup)
            m_view.arrangement().moveGroup(drag.group, drag.position);
        else
            m_view.arrangement().moveLane(drag.lane, drag.position);
        return;
    }
    if (m_rangeDragging) {
        m_rangeDragging = false;
        m_view.unsetCursor();
        const QPoint pos = event->position().toPoint();
        // Announced whatever it is (the drag only painted); a Shift+click, no real drag, clears it like a click.
        if (std::abs(pos.x() - m_pressPos.x()) < 3)
            m_view.state().timeRange().commit(0, 0);
        else
            m_view.state().timeRange().commit(m_rangeAnchor, clampedTimeAt(m_view, pos.x()));
        return;
    }
    if (!m_pressed)
        return;
    m_pressed = false;
    m_view.unsetCursor();
    if (m_panning) {
        m_panning = false;
        return;
    }
    m_view.state().timeRange().clear(); // a click clears the range, as in Perfetto
    const QPoint pos = event->position().toPoint();
    const core::EventIndex clicked = m_view.eventAt(pos);
    const DrawEdgeIndex edge = clicked.isNone() ? m_view.edgeAt(pos) : DrawEdgeIndex(core::kNone);
    if (edge.valid())
        m_view.selectEdge(edge); // an edge between events: its target, with the edge focused
    else if (EventSelection *selection = m_view.state().selectionModel())
        selection->selectInPlace(clicked); // the view stays put
}

void TimelineInput::mouseDoubleClick(QMouseEvent *event)
{
    // Double-click an event: zoom to it.
    const EventSelection *selection = m_view.state().selectionModel();
    if (event->button() == Qt::LeftButton && selection && selection->hasSelection()
        && m_view.eventAt(event->position().toPoint()) == selection->current())
        m_view.navigation().zoomToSelection();
}

bool TimelineInput::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != &m_view)
        return false;
    switch (event->type()) {
    case QEvent::Wheel:
        wheel(static_cast<QWheelEvent *>(event));
        return true;
    case QEvent::MouseButtonPress:
        mousePress(static_cast<QMouseEvent *>(event));
        return true;
    case QEvent::MouseMove:
        mouseMove(static_cast<QMouseEvent *>(event));
        return true;
    case QEvent::MouseButtonRelease:
        mouseRelease(static_cast<QMouseEvent *>(event));
        return true;
    case QEvent::MouseButtonDblClick:
        mouseDoubleClick(static_cast<QMouseEvent *>(event));
        return true;
    case QEvent::KeyPress:
        return keyPress(static_cast<QKeyEvent *>(event)); // unbound keys go on to the widget
    case QEvent::Leave:
        m_view.state().setHover({});
        return false;
    case QEvent::ContextMenu: {
        auto *context = static_cast<QContextMenuEvent *>(event);
        QMenu *menu = m_view.menus().createContextMenu(context->pos());
        if (!menu)
            return false;
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(context->globalPos());
        event->accept();
        return true;
    }
    case QEvent::ToolTip:
        if (!m_view.document())
            return false;
        showTooltip(static_cast<QHelpEvent *>(event));
        return true;
    default:
        return false;
    }
}

void TimelineInput::showTooltip(QHelpEvent *help)
{
    // A marker may stick out of its event: it is the event's.
    const core::EventIndex marked = m_view.markerAt(help->pos());
    const core::EventIndex e = marked.valid() ? marked : m_view.eventAt(help->pos());
    const DrawEdgeIndex edge = e.isNone() ? m_view.edgeAt(help->pos()) : DrawEdgeIndex(core::kNone);
    if (e.valid())
        QToolTip::showText(help->globalPos(), TimelineTooltips::event(*m_view.document(), e, m_view.currentNotes()), &m_view);
    else if (edge.valid())
        QToolTip::showText(help->globalPos(), m_view.edgeTooltip(edge), &m_view);
    else
        QToolTip::hideText();
}

} // namespace linkscope::ui
