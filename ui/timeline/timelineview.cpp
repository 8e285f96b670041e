#include "timeline/timelineview.h"

#include "timeline/timelinepalette.h"
#include "timeline/timelinetooltips.h"

#include <QAction>
#include <QElapsedTimer>
#include <QPainter>
#include <QScopeGuard>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

TimelineView::TimelineView(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    m_input = new TimelineInput(*this);
    m_menus = new TimelineMenus(*this);
    connect(m_arrangement, &TimelineArrangement::changed, this, &TimelineView::layoutChanged);
    connect(m_scroll, &TimelineScroll::barMoved, this, &TimelineView::setVerticalOffset);
    connect(&m_state->timeRange(), &TimeRangeSelection::changed, this, qOverload<>(&QWidget::update));
    connect(&m_state->timeRange(), &TimeRangeSelection::redraw, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineViewState::windowChanged, this, [this] { viewportChanged(true); });
    connect(m_state, &TimelineViewState::hoverChanged, this, [this] {
        m_edges.setHoveredEdge(m_state->hover().edge);
        update();
    });
    connect(m_state, &TimelineViewState::selectionModelChanged, this, &TimelineView::watchSelection);
    updateScrollBar();
}

TimelineView::~TimelineView() = default;

void TimelineView::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    m_doc = std::move(doc);
    if (m_doc)
        m_state->setTraceBounds(std::make_pair(m_doc->startTime(), m_doc->endTime()));
    else
        m_state->setTraceBounds(std::nullopt);
    m_edges.setFocusedEdge(core::kNone);
    m_state->setHover({});
    m_edges.clearPainted();
    m_painted = TimelinePainted();
    m_headerDrag = HeaderDrag();
    if (!sameTrace) {
        m_highlighted.clear();
        m_path.clear();
        m_linkDrag = LinkDrag();
        m_input->cancelRangeDrag();
        m_state->timeRange().clear();
    }
    if (sameTrace) {
        // A relink keeps the lanes (same device trace): keep what the user arranged and where they were.
        m_layout.setDocument(m_doc.get(), true);
    } else {
        m_layout.setDocument(m_doc.get());
        m_headerWidth = TimelineViewSettings::restore(m_doc.get(), m_layout, kHeaderWidth, kMinHeaderWidth);
        m_state->fitAll();
    }
    layoutChanged(false);
    invalidateCache();
    m_renderer.invalidateOverview();
    updateScrollBar();
    update();
}

// Another selection object: the view follows its changes (and no longer the previous one's).
void TimelineView::watchSelection()
{
    if (m_watched)
        disconnect(m_watched, nullptr, this, nullptr);
    m_watched = m_state->selectionModel();
    if (m_watched)
        connect(m_watched, &EventSelection::changed, this, &TimelineView::onSelectionChanged);
    update();
}

const QList<QAction *> &TimelineView::keyActions() const { return m_input->keyActions(); }

QAction *TimelineView::keyAction(TimelineKey key) const { return m_input->action(key); }

bool TimelineView::timeRangeDragging() const { return m_input->rangeDragging(); }

// ---------------------------------------------------------------- viewport

QRect TimelineView::contentRectFor(const QSize &size) const
{
    const int top = overviewHeight() + kRulerHeight;
    return QRect(m_headerWidth, top, std::max(1, size.width() - m_headerWidth - m_scroll->barWidth()),
                 std::max(1, size.height() - top));
}

double TimelineView::nanosPerPixel() const { return m_state->viewport().nanosPerPixel(contentRect().width()); }

double TimelineView::timeToX(core::Nanos t) const
{
    const QRect content = contentRect();
    return content.left() + m_state->viewport().timeToX(t, content.width());
}

core::Nanos TimelineView::xToTime(double x) const
{
    const QRect content = contentRect();
    return m_state->viewport().xToTime(x - content.left(), content.width());
}

// The visible time span or the vertical offset moved (or not: `changed` false).
void TimelineView::viewportChanged(bool changed)
{
    if (!changed)
        return;
    update();
    emit viewChanged();
}

void TimelineView::zoomAt(double factor, double x)
{
    const QRect content = contentRect();
    m_state->zoomAt(factor, x - content.left(), content.width());
}

void TimelineView::panByPixels(double dx) { m_state->panByPixels(dx, contentRect().width()); }

void TimelineView::setVerticalOffset(int offset) { viewportChanged(m_scroll->setOffset(offset, contentRect().height())); }

int TimelineView::contentYAt(int y) const
{
    const QRect content = contentRect();
    return m_scroll->contentY(y, content.top(), content.height());
}

void TimelineView::scrollToRow(int row) { viewportChanged(m_scroll->scrollToRow(row, contentRect().height())); }

void TimelineView::updateScrollBar()
{
    if (m_scroll->placeBar(size(), overviewHeight() + kRulerHeight))
        update();
}

void TimelineView::setFitRows(bool fit)
{
    m_scroll->setFitRows(fit);
    m_input->action(TimelineKey::FitRows)->setChecked(fit);
    layoutChanged(false);
}

void TimelineView::setGpuFirst(bool gpuFirst)
{
    // First and pinned go together: GPU streams not first are not pinned above the threads either.
    setVerticalOffset(0);
    for (int g = 0; g < static_cast<int>(m_layout.groups().size()); ++g)
        if (m_layout.groups()[g].gpu)
            m_layout.setGroupPinned(g, gpuFirst);
    m_arrangement->setGpuFirst(gpuFirst);
}

void TimelineView::setOverviewVisible(bool visible)
{
    if (visible == m_overviewVisible)
        return;
    m_overviewVisible = visible;
    invalidateCache();
    update();
    emit viewChanged(); // the content rect moved
}

void TimelineView::setHeaderWidth(int width)
{
    width = std::clamp(width, int(kMinHeaderWidth), std::max(int(kMinHeaderWidth), this->width() / 2));
    if (width == m_headerWidth)
        return;
    m_headerWidth = width;
    m_renderer.invalidateOverview();
    update();
    emit viewChanged(); // the content rect moved: the time under each pixel changed
}

void TimelineView::layoutChanged(bool save)
{
    m_scroll->refitRows(contentRect().height());
    m_menus->syncActions();
    updateScrollBar();
    update();
    if (save)
        saveViewSettings();
}

void TimelineView::saveViewSettings() const
{
    if (m_doc)
        TimelineViewSettings::save(*m_doc, m_layout, m_headerWidth);
}

void TimelineView::invalidateCache() { m_renderer.invalidate(); }

// ---------------------------------------------------------------- painting

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paint(painter, rect());
}

QImage TimelineView::renderToImage(const QSize &size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(palette::current().background);
    QPainter painter(&image);
    paint(painter, QRect(QPoint(0, 0), size));
    return image;
}

void TimelineView::paint(QPainter &painter, const QRect &target)
{
    QElapsedTimer frameTimer;
    frameTimer.start();
    const auto reportFrame = qScopeGuard([&] {
        m_lastFrameNanos = frameTimer.nsecsElapsed();
        emit framePainted(m_lastFrameNanos);
    });

    painter.save();
    painter.translate(target.topLeft());
    const QRect area(QPoint(0, 0), target.size());
    painter.setClipRect(area);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.fillRect(area, palette::current().background);
    // The scroll bar belongs to the widget; an offscreen target of another size has none.
    QRect content = contentRectFor(target.size());
    if (target.size() != size())
        content.setWidth(std::max(1, target.width() - m_headerWidth));

    if (!m_doc) {
        painter.setPen(palette::current().text);
        painter.drawText(area, Qt::AlignCenter,
                         !m_placeholder.isEmpty()
                             ? m_placeholder
                             : tr("Open a trace pair with File ▸ Open pair…, or drop one or two trace files here."));
        painter.restore();
        return;
    }

    const TimelineFrame frame{*m_doc,
                              m_layout,
                              area,
                              content,
                              m_state->viewStart(),
                              m_state->viewEnd(),
                              static_cast<double>(m_state->viewEnd() - m_state->viewStart()) / content.width(),
                              std::clamp(m_scroll->offset(), 0, m_scroll->maxOffset(content.height())),
                              m_headerWidth,
                              font(),
                              m_scroll->pinnedHeight(content.height())};
    const EventSelection *selection = m_state->selectionModel();
    const core::EventIndex selected = selection && selection->hasSelection() && selection->current().in(m_doc->eventCount())
                                          ? selection->current()
                                          : core::EventIndex(core::kNone);
    const TimelineScene scene{m_highlighted,
                              m_state->hover().event.in(m_doc->eventCount()) ? m_state->hover().event
                                                                             : core::EventIndex(core::kNone),
                              selected,
                              m_state->timeRange().start(),
                              m_state->timeRange().end(),
                              linkDragActive() ? &m_linkDrag : nullptr,
                              m_headerDrag,
                              currentNotes(),
                              m_path,
                              m_edges,
                              m_bookmarks,
                              m_overviewVisible,
                              kOverviewHeight,
                              kRulerHeight,
                              rulerOrigin(),
                              m_showFrameTime,
                              m_lastFrameNanos};
    m_painted = m_renderer.render(painter, frame, scene);
    if (const QString filtered = filteredOutText(); !filtered.isEmpty()) {
        painter.setPen(palette::current().text);
        painter.drawText(content, Qt::AlignCenter | Qt::TextWordWrap, filtered);
    }
    painter.restore();
}

QString TimelineView::filteredOutText() const
{
    if (!m_doc || m_layout.laneFilter().isEmpty() || !m_layout.rows().empty())
        return {};
    return tr("No lane's name contains “%1” (Esc in the lane filter shows them all again)").arg(m_layout.laneFilter());
}

// ---------------------------------------------------------------- headers

int TimelineView::headerRowAt(const QPoint &pos) const
{
    const QRect content = contentRect();
    if (pos.y() < content.top())
        return -1;
    if (pos.x() < m_headerWidth)
        if (const HeaderLabel *sticky = TimelineHeaderPass::stickyLabelAt(m_painted.headerLabels, pos))
            return sticky->lane.isNone() ? m_layout.headerRowOfGroup(sticky->group) : m_layout.firstRowOfLane(sticky->lane);
    return m_layout.rowAt(contentYAt(pos.y()));
}

void TimelineView::setHeaderDrag(const HeaderDrag &drag)
{
    m_headerDrag = drag;
    update();
}

// ---------------------------------------------------------------- notes and flags

void TimelineView::setEventNotes(EventNotesPtr notes)
{
    m_notes = std::move(notes);
    update();
}

const EventNotes *TimelineView::currentNotes() const
{
    return m_doc && m_notes && m_notes->isOf(m_doc->device()) ? m_notes.get() : nullptr;
}

core::EventIndex TimelineView::markerAt(const QPoint &pos) const
{
    for (const PaintedMarker &marker : m_painted.markers)
        if (marker.rect.adjusted(-1, -1, 1, 1).contains(QPointF(pos)))
            return marker.event;
    return core::kNone;
}

void TimelineView::setFrameTimeShown(bool shown)
{
    m_showFrameTime = shown;
    update();
}

// ---------------------------------------------------------------- re-parent drag

void TimelineView::setLinkDrag(const LinkDrag &drag)
{
    m_linkDrag = drag;
    update();
}

void TimelineView::clearLinkDrag()
{
    if (!linkDragActive())
        return;
    m_linkDrag = LinkDrag();
    m_painted.linkDragFrom = m_painted.linkDragTo = QPointF();
    update();
}

// ---------------------------------------------------------------- hit testing

core::EventIndex TimelineView::eventAt(const QPoint &pos) const
{
    if (!m_doc)
        return core::kNone;
    const QRect content = contentRect();
    if (!content.contains(pos))
        return core::kNone;
    const int r = m_layout.rowAt(contentYAt(pos.y()));
    if (r < 0 || m_layout.rows()[r].kind != LayoutRow::Kind::LaneRow)
        return core::kNone;
    const double nanosPerPixel = this->nanosPerPixel();
    const core::Nanos t = xToTime(pos.x());
    const core::Nanos tolerance = static_cast<core::Nanos>(std::ceil(2.0 * nanosPerPixel));
    return timelineEventInRow(*m_doc, m_layout, m_layout.rows()[r], t, tolerance);
}

QRectF TimelineView::eventRect(core::EventIndex event) const
{
    if (!m_doc || !event.in(m_doc->eventCount()))
        return {};
    const QRect content = contentRect();
    return timelineEventRect(*m_doc, m_layout, event, content, m_state->viewStart(), nanosPerPixel(), m_scroll->offset(),
                             m_scroll->pinnedHeight(content.height()));
}

// ---------------------------------------------------------------- selection

void TimelineView::onSelectionChanged(core::EventIndex event)
{
    m_edges.setFocusedEdge(core::kNone);
    m_navigation.resetFitWidth();
    if (m_doc && event.in(m_doc->eventCount()) && !m_watched->inPlace())
        m_navigation.reveal(event);
    update();
}

void TimelineView::setFocusedEdge(DrawEdgeIndex edge)
{
    m_edges.setFocusedEdge(edge);
    update();
}

// ---------------------------------------------------------------- hover, marks, edges

void TimelineView::resizeEvent(QResizeEvent *)
{
    if (m_scroll->fitRows()) {
        m_scroll->refitRows(contentRect().height());
        update();
    }
    updateScrollBar();
}

void TimelineView::toggleHeaderAt(const QPoint &pos)
{
    if (m_doc)
        m_arrangement->toggleRow(*m_doc, headerRowAt(pos));
}

void TimelineView::setHighlightedEvents(std::vector<core::EventIndex> events)
{
    m_highlighted = std::move(events);
    update();
}

void TimelineView::setPathEvents(std::vector<core::EventIndex> chain)
{
    m_path.setChain(std::move(chain));
    update();
}

void TimelineView::setShowAllEdgesInView(bool show)
{
    if (!m_edges.setShowAllInView(show))
        return;
    m_input->action(TimelineKey::AllEdges)->setChecked(show);
    update();
    emit edgeFilterChanged();
}

void TimelineView::setEdgeKindVisible(core::EdgeKind kind, bool visible)
{
    if (!m_edges.setKindVisible(kind, visible))
        return;
    update();
    emit edgeFilterChanged();
}

DrawEdgeIndex TimelineView::edgeAt(const QPoint &pos) const
{
    if (!m_doc || !contentRect().contains(pos))
        return core::kNone;
    const DrawEdgeIndex edge = m_edges.edgeAt(QPointF(pos), 4.0);
    return edge.in(m_doc->edges().size()) ? edge : DrawEdgeIndex(core::kNone);
}

void TimelineView::selectEdge(DrawEdgeIndex edge)
{
    EventSelection *selection = m_state->selectionModel();
    if (!m_doc || !edge.in(m_doc->edges().size()) || !selection)
        return;
    selection->select(m_doc->edges()[edge].to);
    m_edges.setFocusedEdge(edge); // after the selection, which clears the focus
    update();
    emit edgeSelected(edge);
}

QString TimelineView::edgeTooltip(DrawEdgeIndex id) const
{
    return m_doc ? TimelineTooltips::edge(*m_doc, m_layout, id) : QString();
}

} // namespace linkscope::ui
