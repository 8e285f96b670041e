#include "timelineview.h"

#include "timeformat.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScopeGuard>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

namespace {

constexpr core::Nanos kMinSpan = 50; // ns; below this a pixel is a fraction of a nanosecond
constexpr int kLabelMinWidth = 36;
constexpr double kBezierOffset = 30.0;
constexpr double kArrowSize = 6.0;
constexpr int kMaxDescendantEdges = 500;
constexpr double kTickSpacing = 110; // minimum pixels between labelled ruler ticks

const QColor kBackground(0xfb, 0xfb, 0xfc);
const QColor kLaneShade(0xf0, 0xf2, 0xf5);
const QColor kGroupBackground(0xdd, 0xe2, 0xea);
const QColor kHeaderBackground(0xf4, 0xf5, 0xf7);
const QColor kRulerBackground(0xea, 0xec, 0xf0);
const QColor kGridLine(0, 0, 0, 22);
const QColor kText(0x20, 0x24, 0x2a);

QString htmlEscaped(const QString &s) { return s.toHtmlEscaped(); }

// First position in [from, end) whose start is >= t, searching outward from `from` (galloping):
// the next pixel column's first event is usually close, and a full binary search over millions of
// starts would touch a cache line per step.
std::uint32_t gallopLowerBound(const core::Nanos *starts, std::uint32_t from, std::uint32_t end, core::Nanos t)
{
    std::uint32_t lo = from;
    std::uint32_t step = 1;
    while (lo + step < end && starts[lo + step] < t) {
        lo += step;
        step *= 2;
    }
    const std::uint32_t hi = std::min(end, lo + step + 1);
    return static_cast<std::uint32_t>(std::lower_bound(starts + lo, starts + hi, t) - starts);
}

} // namespace

TimelineView::TimelineView(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    m_edgeKinds.set();
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_scrollBar->setCursor(Qt::ArrowCursor);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int value) { setVerticalOffset(value); });
    updateScrollBar();
}

TimelineView::~TimelineView() = default;

void TimelineView::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    m_doc = std::move(doc);
    m_focusedEdge = core::kNoIndex;
    m_hoverEvent = core::kNoIndex;
    m_paintedEdges.clear();
    if (!sameTrace) {
        m_highlighted.clear();
        m_linkDrag = LinkDrag();
        m_rangeDragging = false;
        if (hasTimeRange()) {
            m_rangeStart = m_rangeEnd = 0;
            emit timeRangeChanged();
        }
    }
    if (sameTrace) {
        // A relink keeps the lanes (same device trace); keep what the user collapsed and where they were.
        std::vector<bool> groups;
        for (int g = 0; g < static_cast<int>(m_layout.groups().size()); ++g)
            groups.push_back(m_layout.isGroupCollapsed(g));
        std::vector<std::uint32_t> collapsedLanes;
        for (const TimelineGroup &group : m_layout.groups())
            for (std::uint32_t lane : group.lanes)
                if (m_layout.isLaneCollapsed(lane))
                    collapsedLanes.push_back(lane);
        m_layout.setDocument(m_doc.get());
        for (int g = 0; g < static_cast<int>(groups.size()) && g < static_cast<int>(m_layout.groups().size()); ++g)
            m_layout.setGroupCollapsed(g, groups[g]);
        for (std::uint32_t lane : collapsedLanes)
            if (lane < m_doc->index().lanes.size())
                m_layout.setLaneCollapsed(lane, true);
    } else {
        m_layout.setDocument(m_doc.get());
        fitAll();
    }
    invalidateCache();
    m_overviewDoc = nullptr;
    updateScrollBar();
    update();
}

void TimelineView::setSelectionModel(EventSelection *selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (m_selection)
        connect(m_selection, &EventSelection::changed, this, &TimelineView::onSelectionChanged);
    update();
}

// ---------------------------------------------------------------- viewport

QRect TimelineView::contentRectFor(const QSize &size) const
{
    const int scrollBarWidth = m_scrollBar && m_scrollBar->isVisible() ? m_scrollBar->width() : 0;
    const int top = kOverviewHeight + kRulerHeight;
    return QRect(kHeaderWidth, top, std::max(1, size.width() - kHeaderWidth - scrollBarWidth),
                 std::max(1, size.height() - top));
}

double TimelineView::nanosPerPixel() const
{
    return static_cast<double>(m_viewEnd - m_viewStart) / contentRect().width();
}

double TimelineView::timeToX(core::Nanos t) const
{
    return contentRect().left() + timeToPixel(t, m_viewStart, nanosPerPixel());
}

core::Nanos TimelineView::xToTime(double x) const
{
    return pixelToTime(x - contentRect().left(), m_viewStart, nanosPerPixel());
}

void TimelineView::setVisibleRange(core::Nanos start, core::Nanos end)
{
    if (end - start < kMinSpan) {
        const core::Nanos mid = start + (end - start) / 2;
        start = mid - kMinSpan / 2;
        end = start + kMinSpan;
    }
    if (start == m_viewStart && end == m_viewEnd)
        return;
    m_viewStart = start;
    m_viewEnd = end;
    clampView();
    update();
    emit viewChanged();
}

void TimelineView::clampView()
{
    if (!m_doc)
        return;
    // Allow a margin of half a view beyond either end of the trace, never more.
    const core::Nanos span = m_viewEnd - m_viewStart;
    const core::Nanos traceSpan = m_doc->endTime() - m_doc->startTime();
    if (span > traceSpan * 2 + kMinSpan) {
        const core::Nanos margin = traceSpan / 20;
        m_viewStart = m_doc->startTime() - margin;
        m_viewEnd = m_doc->endTime() + margin;
        return;
    }
    const core::Nanos lo = m_doc->startTime() - span / 2;
    const core::Nanos hi = m_doc->endTime() + span / 2;
    if (m_viewStart < lo) {
        m_viewStart = lo;
        m_viewEnd = lo + span;
    } else if (m_viewEnd > hi) {
        m_viewEnd = hi;
        m_viewStart = hi - span;
    }
}

void TimelineView::zoomAt(double factor, double x)
{
    const QRect content = contentRect();
    const double px = std::clamp(x - content.left(), 0.0, double(content.width()));
    const double span = static_cast<double>(m_viewEnd - m_viewStart);
    const double newSpan = std::max<double>(kMinSpan, span * factor);
    // The time under the cursor stays under the cursor: t = start + px*span/width before and after.
    const core::Nanos anchor = m_viewStart + static_cast<core::Nanos>(std::llround(px * span / content.width()));
    const core::Nanos start = anchor - static_cast<core::Nanos>(std::llround(px * newSpan / content.width()));
    setVisibleRange(start, start + static_cast<core::Nanos>(std::llround(newSpan)));
}

void TimelineView::panByPixels(double dx)
{
    const core::Nanos delta = static_cast<core::Nanos>(std::llround(dx * nanosPerPixel()));
    setVisibleRange(m_viewStart + delta, m_viewEnd + delta);
}

void TimelineView::fitAll()
{
    if (!m_doc) {
        setVisibleRange(0, 1'000'000);
        return;
    }
    const core::Nanos span = m_doc->endTime() - m_doc->startTime();
    const core::Nanos margin = std::max<core::Nanos>(span / 50, 1);
    setVisibleRange(m_doc->startTime() - margin, m_doc->endTime() + margin);
}

void TimelineView::fitSelection()
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const std::uint32_t selected = m_selection->current();
    const core::DeviceEvent &event = m_doc->event(selected);
    core::Nanos lo = event.ts;
    core::Nanos hi = event.end();
    // A second F in a row also takes in the far ends of the selection's edges.
    if (m_fitSelectionWide) {
        auto [begin, end] = m_doc->edgesOf(selected);
        for (const std::uint32_t *it = begin; it != end; ++it) {
            const DrawEdge &edge = m_doc->edges()[*it];
            if (!isEdgeKindVisible(edge.kind))
                continue;
            for (std::uint32_t e : {edge.from, edge.to}) {
                lo = std::min(lo, m_doc->event(e).ts);
                hi = std::max(hi, m_doc->event(e).end());
            }
        }
    }
    m_fitSelectionWide = !m_fitSelectionWide;
    const core::Nanos span = std::max<core::Nanos>(hi - lo, kMinSpan);
    setVisibleRange(lo - span / 8, hi + span / 8);
    revealEvent(selected);
}

void TimelineView::setVerticalOffset(int offset)
{
    offset = std::clamp(offset, 0, maxVerticalOffset(contentRect().height()));
    if (offset == m_verticalOffset)
        return;
    m_verticalOffset = offset;
    if (m_scrollBar->value() != offset)
        m_scrollBar->setValue(offset);
    update();
    emit viewChanged();
}

int TimelineView::maxVerticalOffset(int contentHeight) const
{
    return std::max(0, m_layout.totalHeight() - contentHeight + 8);
}

void TimelineView::updateScrollBar()
{
    const int top = kOverviewHeight + kRulerHeight;
    const int width = m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(this->width() - width, top, width, std::max(0, height() - top));
    const int maximum = maxVerticalOffset(height() - top);
    m_scrollBar->setRange(0, maximum);
    m_scrollBar->setPageStep(std::max(1, height() - top));
    m_scrollBar->setSingleStep(TimelineLayout::kRowHeight * 3);
    m_scrollBar->setVisible(maximum > 0);
    if (m_verticalOffset > maximum) {
        m_verticalOffset = maximum;
        update();
    }
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    m_layout.setGroupCollapsed(group, collapsed);
    updateScrollBar();
    update();
}

void TimelineView::setLaneCollapsed(std::uint32_t lane, bool collapsed)
{
    m_layout.setLaneCollapsed(lane, collapsed);
    updateScrollBar();
    update();
}

void TimelineView::invalidateCache()
{
    m_geometry.doc = nullptr;
}

// ---------------------------------------------------------------- geometry (LOD)

void TimelineView::buildRow(Geometry &geometry, const LaneRows &rows, int row, int y, int width,
                            double nanosPerPixel) const
{
    const core::DeviceTrace &trace = m_doc->device();
    const std::uint32_t begin = rows.rowBegin[row];
    const std::uint32_t end = rows.rowBegin[row + 1];
    const core::Nanos *starts = rows.starts.data();
    const core::Nanos t0 = geometry.start;
    const core::Nanos t1 = geometry.end;

    // First event starting after t0, then step back over the few that start before t0 and may
    // still cover it (a row does not nest, so normally only one; partial overlaps allow a few).
    std::uint32_t i = static_cast<std::uint32_t>(std::upper_bound(starts + begin, starts + end, t0) - starts);
    for (int back = 0; back < 8 && i > begin; ++back) {
        if (trace.events[rows.events[i - 1]].end() > t0)
            --i;
        else
            break;
    }

    const int top = y + 1;
    const int height = TimelineLayout::kRowHeight - 2;
    const RowSummary &summary = rows.summaries[row];
    if (summary.baseShift >= 0 && nanosPerPixel >= std::ldexp(1.0, summary.baseShift)) {
        buildRowFromSummary(geometry, rows, summary, top, width, nanosPerPixel);
        return;
    }
    int lastStyle = -1;
    QRect *last = nullptr;
    while (i < end && starts[i] < t1) {
        const std::uint32_t e = rows.events[i];
        const core::DeviceEvent &event = trace.events[e];
        const double x0 = timeToPixel(event.ts, t0, nanosPerPixel);
        const double x1 = timeToPixel(event.end(), t0, nanosPerPixel);
        const int style = static_cast<int>(m_doc->style(e));
        if (x1 - x0 >= 1.0) {
            const int left = static_cast<int>(std::floor(std::max(x0, -2.0)));
            const int right = static_cast<int>(std::ceil(std::min(x1, width + 2.0)));
            // A one-pixel gap separates wide neighbours so that back-to-back kernels stay countable.
            const int w = std::max(1, right - left - (right - left >= 4 ? 1 : 0));
            geometry.rects[style].emplace_back(left, top, w, height);
            last = &geometry.rects[style].back();
            lastStyle = style;
            if (right - left >= kLabelMinWidth)
                geometry.labels.push_back({QRect(std::max(left, 0), top, std::min(right, width) - std::max(left, 0) - 1,
                                                 height),
                                           e, QString(), false});
            ++i;
            continue;
        }
        // Sub-pixel: this event and every later one starting in the same pixel column become one
        // 1-px rect in the first event's colour; jump straight to the next column's first event.
        const int column = static_cast<int>(std::floor(x0));
        const core::Nanos nextColumnTime =
            t0 + static_cast<core::Nanos>(std::ceil((column + 1) * nanosPerPixel));
        std::uint32_t next = gallopLowerBound(starts, i + 1, end, nextColumnTime);
        // Events do not overlap within a row, so only the last skipped one can reach past this
        // column; draw it properly instead of folding it.
        if (next > i + 1 && trace.events[rows.events[next - 1]].end() > nextColumnTime)
            --next;
        if (last && lastStyle == style && last->top() == top && last->right() + 1 >= column)
            last->setRight(std::max(last->right(), column));
        else {
            geometry.rects[style].emplace_back(column, top, 1, height);
            last = &geometry.rects[style].back();
            lastStyle = style;
        }
        if (next > i + 1)
            ++geometry.mergedColumns;
        i = std::max(next, i + 1);
    }
}

void TimelineView::buildRowFromSummary(Geometry &geometry, const LaneRows &rows, const RowSummary &summary, int top,
                                       int width, double nanosPerPixel) const
{
    const core::DeviceTrace &trace = m_doc->device();
    const core::Nanos t0 = geometry.start;
    const core::Nanos t1 = geometry.end;
    const int height = TimelineLayout::kRowHeight - 2;
    // The coarsest level whose buckets are still no wider than a pixel: one or two per column.
    const int level = std::clamp(static_cast<int>(std::floor(std::log2(nanosPerPixel))) - summary.baseShift, 0,
                                 summary.levelCount() - 1);
    const int shift = summary.baseShift + level;
    const std::uint32_t levelBegin = summary.levelBegin[level];
    const std::int64_t bucketCount = summary.levelBegin[level + 1] - levelBegin;

    // Each bucket lands in the column holding its start; a column shows the colour of its most
    // covered bucket, so sub-pixel events stay visible as merged coverage.
    std::vector<std::uint8_t> columnStyle(width, 0); // 0: empty, else style + 1
    std::vector<std::uint8_t> columnCoverage(width, 0);
    const core::Nanos fromTime = std::max(t0, summary.origin) - summary.origin;
    std::int64_t bucket = fromTime >> shift;
    const std::int64_t lastBucket = std::min<std::int64_t>(bucketCount - 1, (t1 - summary.origin) >> shift);
    const std::uint8_t *coverage = summary.coverage.data() + levelBegin;
    const std::uint8_t *styles = summary.style.data() + levelBegin;
    for (; bucket <= lastBucket; ++bucket) {
        const std::uint8_t c = coverage[bucket];
        if (c == 0)
            continue;
        const core::Nanos bucketStart = summary.origin + (core::Nanos(bucket) << shift);
        const int column = static_cast<int>(std::floor(timeToPixel(std::max(bucketStart, t0), t0, nanosPerPixel)));
        if (column < 0 || column >= width)
            continue;
        if (c > columnCoverage[column]) {
            columnCoverage[column] = c;
            columnStyle[column] = static_cast<std::uint8_t>(styles[bucket] + 1);
        }
    }

    // Events at least a pixel wide are drawn on their own (with the gap and label of the
    // event-by-event path) and take their columns from the coverage. They are all in this
    // level's list, since a pixel is at least a bucket here.
    const std::uint32_t *longBegin = summary.longEvents.data() + summary.longBegin[level];
    const std::uint32_t *longEnd = summary.longEvents.data() + summary.longBegin[level + 1];
    const core::Nanos *starts = rows.starts.data();
    const std::uint32_t *it =
        std::upper_bound(longBegin, longEnd, t0, [&](core::Nanos t, std::uint32_t p) { return t < starts[p]; });
    for (int back = 0; back < 8 && it > longBegin; ++back) {
        if (trace.events[rows.events[*(it - 1)]].end() > t0)
            --it;
        else
            break;
    }
    for (; it < longEnd && starts[*it] < t1; ++it) {
        const std::uint32_t e = rows.events[*it];
        const core::DeviceEvent &event = trace.events[e];
        const double x0 = timeToPixel(event.ts, t0, nanosPerPixel);
        const double x1 = timeToPixel(event.end(), t0, nanosPerPixel);
        if (x1 - x0 < 1.0)
            continue;
        const int left = static_cast<int>(std::floor(std::max(x0, -2.0)));
        const int right = static_cast<int>(std::ceil(std::min(x1, width + 2.0)));
        const int w = std::max(1, right - left - (right - left >= 4 ? 1 : 0));
        geometry.rects[static_cast<int>(m_doc->style(e))].emplace_back(left, top, w, height);
        if (right - left >= kLabelMinWidth)
            geometry.labels.push_back(
                {QRect(std::max(left, 0), top, std::min(right, width) - std::max(left, 0) - 1, height), e, QString(),
                 false});
        std::fill(columnStyle.begin() + std::clamp(left, 0, width), columnStyle.begin() + std::clamp(right, 0, width),
                  std::uint8_t(0));
    }

    // What is left: one rect per run of columns of the same colour.
    for (int x = 0; x < width;) {
        const std::uint8_t style = columnStyle[x];
        int runEnd = x + 1;
        while (runEnd < width && columnStyle[runEnd] == style)
            ++runEnd;
        if (style != 0) {
            geometry.rects[style - 1].emplace_back(x, top, runEnd - x, height);
            geometry.mergedColumns += runEnd - x;
        }
        x = runEnd;
    }
}

void TimelineView::buildGeometry(Geometry &geometry, const QRect &content, int verticalOffset) const
{
    for (auto &list : geometry.rects)
        list.clear();
    geometry.labels.clear();
    geometry.mergedColumns = 0;
    if (!m_doc)
        return;
    const double nanosPerPixel = static_cast<double>(geometry.start < geometry.end ? geometry.end - geometry.start : 1)
        / content.width();
    const auto &rows = m_layout.rows();
    // Lane culling: only rows intersecting the viewport.
    int first = m_layout.rowAt(verticalOffset);
    if (first < 0) {
        first = static_cast<int>(std::upper_bound(rows.begin(), rows.end(), verticalOffset,
                                                  [](int v, const LayoutRow &r) { return v < r.y; })
                                 - rows.begin());
        first = std::max(0, first - 1);
    }
    const int bottom = verticalOffset + content.height();
    for (int r = first; r < static_cast<int>(rows.size()) && rows[r].y < bottom; ++r) {
        const LayoutRow &row = rows[r];
        if (row.kind != LayoutRow::Kind::LaneRow)
            continue;
        const LaneRows &laneRows = m_doc->laneRows()[row.lane];
        if (row.depth >= laneRows.rowCount())
            continue;
        buildRow(geometry, laneRows, row.depth, row.y - verticalOffset, content.width(), nanosPerPixel);
    }
}

// ---------------------------------------------------------------- painting

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paint(painter, rect());
}

QImage TimelineView::renderToImage(const QSize &size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
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
    painter.fillRect(area, kBackground);
    // The scroll bar belongs to the widget; an offscreen target of another size has none.
    const bool widgetSized = target.size() == size();
    QRect content = contentRectFor(target.size());
    if (!widgetSized)
        content.setWidth(std::max(1, target.width() - kHeaderWidth));
    const int verticalOffset = std::clamp(m_verticalOffset, 0, maxVerticalOffset(content.height()));

    if (!m_doc) {
        painter.setPen(kText);
        painter.drawText(area, Qt::AlignCenter,
                         !m_placeholder.isEmpty()
                             ? m_placeholder
                             : tr("Open a trace pair with File ▸ Open pair…, or drop one or two trace files here."));
        painter.restore();
        return;
    }

    // Lane backgrounds (alternating per lane) and group header bands.
    const auto &rows = m_layout.rows();
    for (const LayoutRow &row : rows) {
        const int y = content.top() + row.y - verticalOffset;
        if (y + row.height < content.top())
            continue;
        if (y > content.bottom())
            break;
        if (row.kind == LayoutRow::Kind::GroupHeader)
            painter.fillRect(QRect(0, y, area.width(), row.height), kGroupBackground);
        else if (row.lane % 2 == 1)
            painter.fillRect(QRect(content.left(), y, content.width(), row.height), kLaneShade);
    }

    // Grid lines under the events, at the ruler's major ticks.
    {
        const double nanosPerPixel = static_cast<double>(m_viewEnd - m_viewStart) / content.width();
        const core::Nanos step = niceTickStep(nanosPerPixel, kTickSpacing);
        const core::Nanos origin = m_doc->startTime();
        core::Nanos t = origin + ((m_viewStart - origin) / step) * step;
        painter.setPen(kGridLine);
        for (; t <= m_viewEnd; t += step) {
            const double x = content.left() + timeToPixel(t, m_viewStart, nanosPerPixel);
            if (x >= content.left() && x <= content.right())
                painter.drawLine(QPointF(x, content.top()), QPointF(x, content.bottom()));
        }
    }

    // Events, from the cached geometry.
    const bool cacheValid = m_geometry.doc == m_doc.get() && m_geometry.start == m_viewStart
        && m_geometry.end == m_viewEnd && m_geometry.contentSize == content.size()
        && m_geometry.verticalOffset == verticalOffset && m_geometry.layoutVersion == m_layout.version();
    if (!cacheValid) {
        m_geometry.doc = m_doc.get();
        m_geometry.start = m_viewStart;
        m_geometry.end = m_viewEnd;
        m_geometry.contentSize = content.size();
        m_geometry.verticalOffset = verticalOffset;
        m_geometry.layoutVersion = m_layout.version();
        buildGeometry(m_geometry, content, verticalOffset);
    }
    painter.save();
    painter.setClipRect(content);
    painter.translate(content.topLeft());
    for (int style = 0; style < kEventStyleCount; ++style) {
        const QColor color = eventColor(static_cast<EventStyle>(style));
        for (const QRect &r : m_geometry.rects[style])
            painter.fillRect(r, color);
    }
    // Labels: white on the dark kinds, dark on the light ones.
    QFont labelFont = font();
    labelFont.setPointSizeF(std::max(6.0, labelFont.pointSizeF() * 0.85));
    painter.setFont(labelFont);
    const QFontMetrics metrics(labelFont);
    for (Label &label : m_geometry.labels) {
        if (!label.elided) {
            label.text = metrics.elidedText(m_doc->eventName(label.event), Qt::ElideRight, label.rect.width() - 4);
            if (label.text == QStringLiteral("…"))
                label.text.clear();
            label.elided = true;
        }
        const QString &text = label.text;
        if (text.isEmpty())
            continue;
        const QColor background = eventColor(m_doc->style(label.event));
        painter.setPen(background.lightness() < 150 ? Qt::white : kText);
        painter.drawText(label.rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();

    // Selection and hover outlines.
    const double nanosPerPixel = static_cast<double>(m_viewEnd - m_viewStart) / content.width();
    auto outline = [&](std::uint32_t event, const QColor &color, int width) {
        const QRectF r = eventRectIn(event, content, m_viewStart, nanosPerPixel, verticalOffset);
        if (r.isEmpty())
            return;
        painter.save();
        painter.setClipRect(content);
        QRectF box = r.adjusted(-1, -1, 1, 1);
        box.setWidth(std::max(box.width(), 4.0));
        painter.setPen(QPen(color, width));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(box);
        painter.restore();
    };
    if (!m_highlighted.empty()) {
        // Hits are sorted by start. With few hits all are scanned (one that starts before the view
        // may cover it); with many, the scan starts at the view's start and a long hit that began
        // earlier is not marked.
        auto first = m_highlighted.begin();
        if (m_highlighted.size() > 1000)
            first = std::lower_bound(m_highlighted.begin(), m_highlighted.end(), m_viewStart,
                                     [&](std::uint32_t e, core::Nanos t) { return m_doc->event(e).ts < t; });
        int drawn = 0;
        for (auto it = first; it != m_highlighted.end() && drawn < 5000; ++it) {
            if (*it >= m_doc->eventCount())
                continue;
            const core::DeviceEvent &event = m_doc->event(*it);
            if (event.ts > m_viewEnd)
                break;
            if (event.end() < m_viewStart)
                continue;
            outline(*it, searchHitColor(), 2);
            ++drawn;
        }
    }
    if (m_hoverEvent != core::kNoIndex && m_hoverEvent < m_doc->eventCount())
        outline(m_hoverEvent, QColor(0, 0, 0, 120), 1);
    if (m_selection && m_selection->hasSelection() && m_selection->current() < m_doc->eventCount())
        outline(m_selection->current(), QColor(0x10, 0x10, 0x10), 2);

    paintTimeRange(painter, content, nanosPerPixel);
    paintEdges(painter, content, m_viewStart, nanosPerPixel, verticalOffset);
    paintLinkDrag(painter, content, nanosPerPixel, verticalOffset);
    m_headerClipWidth = content.right();
    paintHeaders(painter, QRect(0, content.top(), kHeaderWidth, content.height()), verticalOffset);
    paintOverview(painter, QRect(0, 0, area.width(), kOverviewHeight), m_viewStart, m_viewEnd);
    paintRuler(painter, QRect(0, kOverviewHeight, area.width(), kRulerHeight), m_viewStart, m_viewEnd, content);
    paintTimeRangeLabel(painter, QRect(0, kOverviewHeight, area.width(), kRulerHeight), content, nanosPerPixel);

    if (m_showAllEdges) {
        painter.setPen(kText);
        const QString count = (m_edgesInViewEstimated ? QStringLiteral("~") : QString()) + QLocale().toString(qulonglong(m_edgesInView));
        const QString text = m_edgesInView > m_paintedEdges.size() || m_edgesInViewEstimated
            ? tr("%L1 of %2 edges in view").arg(m_paintedEdges.size()).arg(count)
            : tr("%1 edges in view").arg(count);
        const QRect box(content.right() - 260, content.top() + 4, 252, 18);
        painter.fillRect(box, QColor(255, 255, 255, 220));
        painter.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, text);
    }
    if (m_showFrameTime) {
        const QRect box(content.left() + 4, content.bottom() - 22, 330, 18);
        painter.fillRect(box, QColor(0, 0, 0, 170));
        painter.setPen(Qt::white);
        painter.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignVCenter,
                         tr("last frame %1 · %L2 merged columns")
                             .arg(formatDuration(m_lastFrameNanos, 2))
                             .arg(m_geometry.mergedColumns));
    }
    painter.restore();
}

void TimelineView::paintHeaders(QPainter &painter, const QRect &area, int verticalOffset)
{
    painter.save();
    painter.setClipRect(area);
    painter.fillRect(area, kHeaderBackground);
    const auto &rows = m_layout.rows();
    const QFontMetrics metrics(font());
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    for (const LayoutRow &row : rows) {
        const int y = area.top() + row.y - verticalOffset;
        if (y + row.height < area.top())
            continue;
        if (y > area.bottom())
            break;
        const QRect rowRect(area.left(), y, area.width(), row.height);
        if (row.kind == LayoutRow::Kind::GroupHeader) {
            painter.fillRect(rowRect, kGroupBackground);
            const TimelineGroup &group = m_layout.groups()[row.group];
            const bool collapsed = m_layout.isGroupCollapsed(row.group);
            painter.setPen(kText);
            painter.setFont(bold);
            const QString arrow = collapsed ? QStringLiteral("▸") : QStringLiteral("▾");
            painter.drawText(rowRect.adjusted(6, 0, 0, 0), Qt::AlignVCenter, arrow);
            // The band spans the whole width, so the group's name may run past the header column.
            painter.setClipping(false);
            const QString text = boldMetrics.elidedText(group.label, Qt::ElideRight, m_headerClipWidth - 26);
            painter.drawText(QRect(area.left() + 20, y, m_headerClipWidth - 24, row.height), Qt::AlignVCenter, text);
            painter.setClipRect(area);
            continue;
        }
        if (row.depth != 0)
            continue;
        const core::Lane &lane = m_doc->index().lanes[row.lane];
        QString label = QString::fromStdString(lane.label);
        if (label.isEmpty())
            label = tr("lane %1").arg(row.lane);
        const int laneRows = m_doc->laneRows()[row.lane].rowCount();
        painter.setFont(font());
        painter.setPen(kText);
        int indent = 20;
        if (laneRows > 1) {
            const bool collapsed = m_layout.isLaneCollapsed(row.lane);
            painter.drawText(QRect(area.left() + 8, y, 12, row.height), Qt::AlignVCenter,
                             collapsed ? QStringLiteral("▸") : QStringLiteral("▾"));
        }
        QString suffix;
        if (laneRows > 1 && m_layout.isLaneCollapsed(row.lane))
            suffix = tr(" (+%1 rows)").arg(laneRows - 1);
        const QString text = metrics.elidedText(label, Qt::ElideMiddle,
                                                area.width() - indent - 6 - metrics.horizontalAdvance(suffix));
        painter.drawText(QRect(area.left() + indent, y, area.width() - indent - 4, row.height), Qt::AlignVCenter,
                         text + suffix);
    }
    painter.setPen(QColor(0, 0, 0, 60));
    painter.drawLine(area.topRight(), area.bottomRight());
    painter.restore();
}

void TimelineView::paintRuler(QPainter &painter, const QRect &area, core::Nanos start, core::Nanos end,
                              const QRect &content)
{
    painter.save();
    painter.fillRect(area, kRulerBackground);
    const double nanosPerPixel = static_cast<double>(end - start) / content.width();
    const core::Nanos step = niceTickStep(nanosPerPixel, kTickSpacing);
    const core::Nanos origin = m_doc->startTime();
    // Ticks are placed on multiples of the step counted from the trace start, so labels read as
    // offsets ("+12.5 ms") that stay put while panning.
    core::Nanos first = origin + ((start - origin) / step) * step;
    if (first > start)
        first -= step;
    painter.setPen(kText);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    painter.setFont(small);
    painter.setClipRect(QRect(content.left(), area.top(), content.width(), area.height()));
    for (core::Nanos t = first; t <= end + step; t += step) {
        const double x = content.left() + timeToPixel(t, start, nanosPerPixel);
        if (x < content.left() - 1 || x > content.right() + 1)
            continue;
        painter.setPen(kText);
        painter.drawLine(QPointF(x, area.bottom() - 8), QPointF(x, area.bottom()));
        for (int minor = 1; minor < 5; ++minor) {
            const double mx = x + minor * step / 5.0 / nanosPerPixel;
            painter.drawLine(QPointF(mx, area.bottom() - 3), QPointF(mx, area.bottom()));
        }
        const QString label = formatTickLabel(t - origin, step);
        if (x + 3 + painter.fontMetrics().horizontalAdvance(label) <= content.right())
            painter.drawText(QRectF(x + 3, area.top(), 120, area.height() - 6), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    painter.setClipping(false);
    // Corner: the visible span.
    painter.fillRect(QRect(area.left(), area.top(), kHeaderWidth, area.height()), kRulerBackground);
    painter.setPen(kText);
    painter.drawText(QRect(area.left() + 6, area.top(), kHeaderWidth - 12, area.height()), Qt::AlignVCenter,
                     tr("span %1 · grid %2").arg(formatDuration(end - start, 2), formatDuration(step, 0)));
    painter.setPen(QColor(0, 0, 0, 60));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
    painter.restore();
}

void TimelineView::paintOverview(QPainter &painter, const QRect &area, core::Nanos start, core::Nanos end)
{
    painter.save();
    const QRect strip(kHeaderWidth, area.top() + 3, std::max(1, area.width() - kHeaderWidth - 4), area.height() - 6);
    if (m_overviewDoc != m_doc.get() || m_overviewImage.size() != strip.size()) {
        // The whole trace, each lane's top row as a band; built with the same LOD as the lanes.
        m_overviewDoc = m_doc.get();
        m_overviewImage = QImage(strip.size(), QImage::Format_ARGB32_Premultiplied);
        m_overviewImage.fill(QColor(0xff, 0xff, 0xff));
        const auto &lanes = m_doc->laneRows();
        if (!lanes.empty()) {
            Geometry whole;
            whole.start = m_doc->startTime();
            whole.end = m_doc->endTime();
            const double nanosPerPixel = static_cast<double>(whole.end - whole.start) / strip.width();
            QPainter imagePainter(&m_overviewImage);
            const double band = static_cast<double>(strip.height()) / lanes.size();
            for (std::size_t l = 0; l < lanes.size(); ++l) {
                if (lanes[l].rowCount() == 0)
                    continue;
                for (auto &list : whole.rects)
                    list.clear();
                buildRow(whole, lanes[l], 0, 0, strip.width(), nanosPerPixel);
                const int top = static_cast<int>(l * band);
                const int height = std::max(1, static_cast<int>((l + 1) * band) - top);
                for (int style = 0; style < kEventStyleCount; ++style)
                    for (const QRect &r : whole.rects[style])
                        imagePainter.fillRect(QRect(r.left(), top, r.width(), height),
                                              eventColor(static_cast<EventStyle>(style)));
            }
        }
    }
    painter.fillRect(area, kRulerBackground);
    painter.drawImage(strip.topLeft(), m_overviewImage);
    // The visible window.
    const double scale = static_cast<double>(m_doc->endTime() - m_doc->startTime()) / strip.width();
    const double x0 = strip.left() + (start - m_doc->startTime()) / scale;
    const double x1 = strip.left() + (end - m_doc->startTime()) / scale;
    QRectF window(QPointF(std::max<double>(x0, strip.left()), strip.top()),
                  QPointF(std::min<double>(x1, strip.right()), strip.bottom()));
    if (window.width() < 2)
        window.setWidth(2);
    painter.fillRect(QRectF(strip.left(), strip.top(), window.left() - strip.left(), strip.height()),
                     QColor(0, 0, 0, 70));
    painter.fillRect(QRectF(window.right(), strip.top(), strip.right() - window.right(), strip.height()),
                     QColor(0, 0, 0, 70));
    painter.setPen(QPen(QColor(0x10, 0x40, 0x90), 1.5));
    painter.drawRect(window);
    painter.setPen(kText);
    painter.drawText(QRect(6, area.top(), kHeaderWidth - 12, area.height()), Qt::AlignVCenter,
                     tr("Overview · %1 total").arg(formatDuration(m_doc->endTime() - m_doc->startTime(), 2)));
    painter.restore();
}

// ---------------------------------------------------------------- edges

std::vector<std::uint32_t> TimelineView::selectedEdges(bool incoming) const
{
    std::vector<std::uint32_t> out;
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return out;
    const std::uint32_t selected = m_selection->current();
    auto [begin, end] = m_doc->edgesOf(selected);
    for (const std::uint32_t *it = begin; it != end; ++it) {
        const DrawEdge &edge = m_doc->edges()[*it];
        if (!isEdgeKindVisible(edge.kind))
            continue;
        if ((incoming && edge.to == selected) || (!incoming && edge.from == selected))
            out.push_back(*it);
    }
    // Parent first, then launch, stream order, sync, inter-thread: `[` on a kernel goes to its parent.
    std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
        return m_doc->edges()[a].kind < m_doc->edges()[b].kind;
    });
    return out;
}

void TimelineView::collectEdges(std::vector<std::uint32_t> &out, core::Nanos start, core::Nanos end)
{
    out.clear();
    m_edgesInView = 0;
    if (!m_doc)
        return;
    const auto &edges = m_doc->edges();
    // 1) The selection's chain: its own edges, and for a CPU op the parent edges of the ops nested
    //    in it, so selecting aten::linear shows the kernels its aten::mm launched.
    if (m_selection && m_selection->hasSelection() && m_selection->current() < m_doc->eventCount()) {
        const std::uint32_t selected = m_selection->current();
        auto [begin, endIt] = m_doc->edgesOf(selected);
        for (const std::uint32_t *it = begin; it != endIt; ++it)
            if (isEdgeKindVisible(edges[*it].kind))
                out.push_back(*it);
        const core::TraceIndex &index = m_doc->index();
        const core::DeviceEvent &event = m_doc->event(selected);
        if (isCpuOpCategory(event.category) && selected < index.laneOf.size()
            && index.laneOf[selected] != core::kNoIndex && isEdgeKindVisible(core::EdgeKind::Parent)) {
            const LaneRows &rows = m_doc->laneRows()[index.laneOf[selected]];
            int added = 0;
            for (int r = index.depth[selected] + 1; r < rows.rowCount() && added < kMaxDescendantEdges; ++r) {
                const core::Nanos *s = rows.starts.data();
                std::uint32_t i = static_cast<std::uint32_t>(
                    std::lower_bound(s + rows.rowBegin[r], s + rows.rowBegin[r + 1], event.ts) - s);
                for (; i < rows.rowBegin[r + 1] && s[i] < event.end() && added < kMaxDescendantEdges; ++i) {
                    auto [db, de] = m_doc->edgesOf(rows.events[i]);
                    for (const std::uint32_t *it = db; it != de; ++it)
                        if (edges[*it].kind == core::EdgeKind::Parent && edges[*it].from == rows.events[i]) {
                            out.push_back(*it);
                            ++added;
                        }
                }
            }
        }
    }
    // 2) All edges with an end in view, capped. Up to kExamineLimit candidates are counted
    //    exactly; beyond that the from-side range is sampled with a stride, the count is an
    //    estimate (shown with "~") and the drawn edges are spread over the whole view.
    m_edgesInViewEstimated = false;
    if (m_showAllEdges) {
        const core::DeviceTrace &trace = m_doc->device();
        auto range = [&](const std::vector<std::uint32_t> &sorted, bool byFrom) {
            auto key = [&](std::uint32_t id) { return trace.events[byFrom ? edges[id].from : edges[id].to].ts; };
            auto lo = std::lower_bound(sorted.begin(), sorted.end(), start,
                                       [&](std::uint32_t id, core::Nanos t) { return key(id) < t; });
            auto hi = std::upper_bound(lo, sorted.end(), end, [&](core::Nanos t, std::uint32_t id) { return t < key(id); });
            return std::make_pair(lo, hi);
        };
        constexpr std::size_t kExamineLimit = 100'000;
        auto [fromLo, fromHi] = range(m_doc->edgesByFromTime(), true);
        auto [toLo, toHi] = range(m_doc->edgesByToTime(), false);
        const std::size_t fromCount = static_cast<std::size_t>(fromHi - fromLo);
        const std::size_t toCount = static_cast<std::size_t>(toHi - toLo);
        std::vector<std::uint32_t> inView;
        if (fromCount + toCount <= kExamineLimit) {
            for (auto it = fromLo; it != fromHi; ++it)
                if (isEdgeKindVisible(edges[*it].kind))
                    inView.push_back(*it);
            for (auto it = toLo; it != toHi; ++it) {
                const core::Nanos fromTs = trace.events[edges[*it].from].ts;
                if (isEdgeKindVisible(edges[*it].kind) && (fromTs < start || fromTs > end))
                    inView.push_back(*it); // not counted in the first pass
            }
            m_edgesInView = inView.size();
        } else {
            const std::size_t stride = std::max<std::size_t>(1, fromCount / (4 * kEdgeCap));
            std::size_t examined = 0;
            for (std::size_t base = 0; base < fromCount; base += stride) {
                // A scrambled offset inside each stride: a fixed one would lock onto periodic
                // structure (e.g. always the launch edge of each parent/launch/stream triple).
                const std::size_t offset = (base / stride * 2654435761u) % stride;
                const std::uint32_t id = fromLo[static_cast<std::ptrdiff_t>(std::min(base + offset, fromCount - 1))];
                ++examined;
                if (isEdgeKindVisible(edges[id].kind))
                    inView.push_back(id);
            }
            m_edgesInView = examined ? static_cast<std::size_t>(double(inView.size()) / examined * fromCount) : 0;
            m_edgesInViewEstimated = true;
        }
        if (inView.size() > static_cast<std::size_t>(kEdgeCap)) {
            // Spread what is drawn over the whole view rather than its left part.
            const double step = double(inView.size()) / kEdgeCap;
            for (int k = 0; k < kEdgeCap; ++k)
                out.push_back(inView[static_cast<std::size_t>(k * step)]);
        } else {
            out.insert(out.end(), inView.begin(), inView.end());
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

void TimelineView::paintEdges(QPainter &painter, const QRect &content, core::Nanos start, double nanosPerPixel,
                              int verticalOffset)
{
    m_paintedEdges.clear();
    std::vector<std::uint32_t> ids;
    const core::Nanos end = start + static_cast<core::Nanos>(nanosPerPixel * content.width());
    collectEdges(ids, start, end);
    if (ids.empty())
        return;
    const auto &edges = m_doc->edges();
    const core::TraceIndex &index = m_doc->index();
    const core::DeviceTrace &trace = m_doc->device();
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    auto anchorY = [&](std::uint32_t e) -> TimelineLayout::Anchor {
        if (e >= index.laneOf.size() || index.laneOf[e] == core::kNoIndex)
            return {};
        TimelineLayout::Anchor a = m_layout.anchorOf(index.laneOf[e], index.depth[e]);
        a.y += content.top() - verticalOffset;
        return a;
    };
    auto xOf = [&](core::Nanos t) { return content.left() + timeToPixel(t, start, nanosPerPixel); };
    const bool drawHalo = ids.size() <= 200;
    // Hundreds of antialiased curves cost more than a frame; when that many are shown, each one
    // matters less than the overall picture.
    painter.setRenderHint(QPainter::Antialiasing, ids.size() <= 500);
    for (std::uint32_t id : ids) {
        const DrawEdge &edge = edges[id];
        const TimelineLayout::Anchor fromAnchor = anchorY(edge.from);
        const TimelineLayout::Anchor toAnchor = anchorY(edge.to);
        if (!fromAnchor.valid || !toAnchor.valid)
            continue;
        const core::DeviceEvent &src = trace.events[edge.from];
        const core::DeviceEvent &dst = trace.events[edge.to];
        // Where the arrow leaves the source: a parent at the moment its launch call ran (that is
        // the causal point inside a long CPU op); otherwise the source's end, unless the target
        // starts before it (nested or overlapping), then its start.
        core::Nanos fromTime = src.end() <= dst.ts ? src.end() : src.ts;
        core::Nanos toTime = dst.ts;
        if (edge.kind == core::EdgeKind::Sync) {
            // A sync returns when the GPU op finishes: end of the op → end of the waiting call.
            fromTime = src.end();
            toTime = dst.end();
        } else if (edge.kind == core::EdgeKind::Parent) {
            fromTime = src.ts;
            if (const core::GpuLink *link = m_doc->gpuLink(edge.to); link && link->launch < trace.events.size()) {
                const core::Nanos launchTs = trace.events[link->launch].ts;
                if (launchTs >= src.ts && launchTs <= src.end())
                    fromTime = launchTs;
            }
        }
        const QPointF p0(xOf(fromTime), fromAnchor.y);
        const QPointF p1(xOf(toTime), toAnchor.y);
        // Skip edges entirely off-screen (both ends on the same side).
        if ((p0.x() < content.left() && p1.x() < content.left())
            || (p0.x() > content.right() && p1.x() > content.right())
            || (p0.y() < content.top() && p1.y() < content.top())
            || (p0.y() > content.bottom() && p1.y() > content.bottom()))
            continue;
        const bool focused = id == m_focusedEdge;
        QPainterPath path(p0);
        const QPointF c0(p0.x() + kBezierOffset, p0.y());
        const QPointF c1(p1.x() - kBezierOffset, p1.y());
        path.cubicTo(c0, c1, p1);
        QPen pen = edgePen(edge.kind, edge.provenance, focused);
        if (!drawHalo && !focused) {
            pen.setWidth(1); // cosmetic 1-px lines take the rasterizer's fast path
            pen.setCosmetic(true);
        }
        // A pale halo keeps the curve readable over dense kernels of any colour (skipped when
        // hundreds of edges are drawn: it doubles the cost and they overlap anyway).
        painter.setBrush(Qt::NoBrush);
        if (drawHalo) {
            painter.setPen(QPen(QColor(255, 255, 255, 200), pen.widthF() + 2.5, Qt::SolidLine, Qt::RoundCap));
            painter.drawPath(path);
        }
        painter.setPen(pen);
        painter.drawPath(path);
        painter.setPen(Qt::NoPen);
        painter.setBrush(pen.color());
        if (!drawHalo && !focused) {
            // Many edges: no heads (they would merge into blots); the curve's direction is the
            // same left-to-right convention throughout.
        } else if (toAnchor.exact) {
            // The head follows the curve's final tangent (c1 → p1), which is horizontal.
            const QPointF dir = p1 - c1;
            const double len = std::hypot(dir.x(), dir.y());
            const QPointF u = len > 0 ? dir / len : QPointF(1, 0);
            const QPointF n(-u.y(), u.x());
            const double size = kArrowSize + (focused ? 2 : 0);
            QPolygonF head;
            head << p1 << p1 - u * size * 1.6 + n * size * 0.7 << p1 - u * size * 1.6 - n * size * 0.7;
            painter.drawPolygon(head);
        } else {
            painter.drawEllipse(p1, 3.0, 3.0); // the target's row is collapsed
        }
        m_paintedEdges.push_back({id, p0, p1, toAnchor.exact});
    }
    painter.restore();
}

// ---------------------------------------------------------------- time range

namespace {
const QColor kRangeFill(0x2f, 0x6f, 0xd6, 46);
const QColor kRangeEdge(0x2f, 0x6f, 0xd6);
} // namespace

void TimelineView::setTimeRange(core::Nanos start, core::Nanos end)
{
    if (end < start)
        std::swap(start, end);
    if (start == end)
        start = end = 0;
    if (start == m_rangeStart && end == m_rangeEnd)
        return;
    m_rangeStart = start;
    m_rangeEnd = end;
    update();
    emit timeRangeChanged();
}

void TimelineView::fitTimeRange()
{
    if (!hasTimeRange())
        return;
    // A small margin keeps the band's edges (and the ruler label) in view.
    const core::Nanos margin = (m_rangeEnd - m_rangeStart) / 40;
    setVisibleRange(m_rangeStart - margin, m_rangeEnd + margin);
}

core::Nanos TimelineView::clampedTimeAt(double x) const
{
    const QRect content = contentRect();
    return xToTime(std::clamp(x, double(content.left()), double(content.left() + content.width())));
}

std::optional<std::pair<double, double>> TimelineView::timeRangePixels(const QRect &content, double nanosPerPixel) const
{
    if (!hasTimeRange())
        return std::nullopt;
    const double x0 = content.left() + timeToPixel(m_rangeStart, m_viewStart, nanosPerPixel);
    const double x1 = content.left() + timeToPixel(m_rangeEnd, m_viewStart, nanosPerPixel);
    if (x1 < content.left() || x0 > content.right())
        return std::nullopt;
    return std::make_pair(x0, x1);
}

void TimelineView::paintTimeRange(QPainter &painter, const QRect &content, double nanosPerPixel)
{
    const auto pixels = timeRangePixels(content, nanosPerPixel);
    if (!pixels)
        return;
    const auto [x0, x1] = *pixels;
    painter.save();
    painter.setClipRect(content);
    const double left = std::max(x0, content.left() - 1.0);
    const double right = std::min(x1, content.right() + 1.0);
    painter.fillRect(QRectF(left, content.top(), std::max(1.0, right - left), content.height()), kRangeFill);
    painter.setPen(QPen(kRangeEdge, 1));
    for (double x : {x0, x1})
        if (x >= content.left() && x <= content.right())
            painter.drawLine(QPointF(x, content.top()), QPointF(x, content.bottom()));
    painter.restore();
}

void TimelineView::paintTimeRangeLabel(QPainter &painter, const QRect &ruler, const QRect &content,
                                       double nanosPerPixel)
{
    const auto pixels = timeRangePixels(content, nanosPerPixel);
    if (!pixels)
        return;
    const auto [x0, x1] = *pixels;
    painter.save();
    const QRect strip(content.left(), ruler.top(), content.width(), ruler.height());
    painter.setClipRect(strip);
    const double left = std::max(x0, double(strip.left()));
    const double right = std::min(x1, double(strip.right()));
    painter.fillRect(QRectF(left, strip.top(), std::max(1.0, right - left), strip.height()), QColor(0x2f, 0x6f, 0xd6, 70));
    painter.setPen(QPen(kRangeEdge, 1));
    for (double x : {x0, x1})
        if (x >= strip.left() && x <= strip.right())
            painter.drawLine(QPointF(x, strip.top()), QPointF(x, strip.bottom()));
    // The duration, centred on the visible part of the band, in a box that stays inside the ruler.
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    const QFontMetrics metrics(bold);
    const QString text = formatDuration(m_rangeEnd - m_rangeStart);
    const int width = metrics.horizontalAdvance(text) + 12;
    const int height = std::min(strip.height() - 4, metrics.height() + 4);
    int boxLeft = static_cast<int>(std::lround((left + right) / 2 - width / 2.0));
    boxLeft = std::clamp(boxLeft, strip.left() + 1, std::max(strip.left() + 1, strip.right() - width - 1));
    const QRect box(boxLeft, strip.top() + (strip.height() - height) / 2, width, height);
    painter.fillRect(box, kRangeEdge);
    painter.setPen(Qt::white);
    painter.drawText(box, Qt::AlignCenter, text);
    painter.restore();
}

// ---------------------------------------------------------------- re-parent drag

QColor TimelineView::linkDragColor(bool valid) { return valid ? QColor(0x1a, 0x9e, 0x3a) : QColor(0xd3, 0x2f, 0x2f); }

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
    m_paintedDragFrom = m_paintedDragTo = QPointF();
    update();
}

void TimelineView::paintLinkDrag(QPainter &painter, const QRect &content, double nanosPerPixel, int verticalOffset)
{
    m_paintedDragFrom = m_paintedDragTo = QPointF();
    if (!linkDragActive() || m_linkDrag.from >= m_doc->eventCount())
        return;
    const QRectF source = eventRectIn(m_linkDrag.from, content, m_viewStart, nanosPerPixel, verticalOffset);
    if (source.isEmpty())
        return; // its row is collapsed: nothing to anchor the curve on
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const bool hasTarget = m_linkDrag.target != core::kNoIndex && m_linkDrag.target < m_doc->eventCount();
    const QColor color = hasTarget ? linkDragColor(m_linkDrag.valid) : QColor(0x5a, 0x6a, 0x80);

    if (hasTarget) {
        const QRectF r = eventRectIn(m_linkDrag.target, content, m_viewStart, nanosPerPixel, verticalOffset);
        if (!r.isEmpty()) {
            QRectF box = r.adjusted(-2, -2, 2, 2);
            box.setWidth(std::max(box.width(), 6.0));
            QColor fill = color;
            fill.setAlpha(m_linkDrag.valid ? 70 : 150);
            painter.setPen(QPen(color, 2));
            // Valid: a tinted box; invalid: hatched, so the two differ without relying on colour.
            painter.setBrush(m_linkDrag.valid ? QBrush(fill) : QBrush(fill, Qt::BDiagPattern));
            painter.drawRect(box);
        }
    }

    // From the visible part of the GPU op to the cursor; the symmetric control points put the
    // curve's midpoint exactly halfway between its ends (the tests sample it there).
    const double left = std::max(source.left(), double(content.left()));
    const double right = std::min(source.right(), double(content.right()));
    const QPointF p0(left <= right ? (left + right) / 2 : std::clamp(source.center().x(), double(content.left()),
                                                                     double(content.right())),
                     source.center().y());
    const QPointF p1(m_linkDrag.cursor);
    const double direction = p1.x() >= p0.x() ? 1.0 : -1.0;
    const double offset = std::min(kBezierOffset, std::abs(p1.x() - p0.x()) / 2 + 10);
    QPainterPath path(p0);
    path.cubicTo(QPointF(p0.x() + direction * offset, p0.y()), QPointF(p1.x() - direction * offset, p1.y()), p1);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(QColor(255, 255, 255, 220), 5, Qt::SolidLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(QPen(color, 2.5, hasTarget && m_linkDrag.valid ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawEllipse(p0, 4.0, 4.0);
    m_paintedDragFrom = p0;
    m_paintedDragTo = p1;

    // Beside the cursor: what a release would do.
    QString text;
    if (hasTarget)
        text = m_linkDrag.valid ? tr("Re-parent to %1").arg(m_doc->eventName(m_linkDrag.target)) : m_linkDrag.reason;
    if (!text.isEmpty()) {
        const QFontMetrics metrics(font());
        text = metrics.elidedText(text, Qt::ElideRight, 420);
        QRect box(p1.toPoint() + QPoint(14, 14), QSize(metrics.horizontalAdvance(text) + 12, metrics.height() + 6));
        if (box.right() > content.right())
            box.moveRight(std::max(content.left(), p1.toPoint().x() - 10));
        if (box.bottom() > content.bottom())
            box.moveBottom(p1.toPoint().y() - 10);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setBrush(QColor(255, 255, 255, 235));
        painter.setPen(QPen(color, 1));
        painter.drawRect(box);
        painter.setPen(color.darker(130));
        painter.drawText(box.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
}

// ---------------------------------------------------------------- hit testing

std::uint32_t TimelineView::findEventInRow(const LayoutRow &row, core::Nanos t, core::Nanos tolerance) const
{
    const LaneRows &rows = m_doc->laneRows()[row.lane];
    if (row.depth >= rows.rowCount())
        return core::kNoIndex;
    const core::DeviceTrace &trace = m_doc->device();
    const core::Nanos *s = rows.starts.data();
    const std::uint32_t begin = rows.rowBegin[row.depth];
    const std::uint32_t end = rows.rowBegin[row.depth + 1];
    std::uint32_t i = static_cast<std::uint32_t>(std::upper_bound(s + begin, s + end, t + tolerance) - s);
    std::uint32_t best = core::kNoIndex;
    core::Nanos bestDistance = tolerance + 1;
    for (int steps = 0; i > begin && steps < 32; ++steps) {
        --i;
        const core::DeviceEvent &event = trace.events[rows.events[i]];
        const core::Nanos distance = t < event.ts ? event.ts - t : (t > event.end() ? t - event.end() : 0);
        // Prefer the event that contains t; among near misses the closest; shorter wins ties.
        if (distance < bestDistance
            || (distance == bestDistance && best != core::kNoIndex && event.dur < trace.events[best].dur)) {
            best = rows.events[i];
            bestDistance = distance;
        }
        if (event.end() + tolerance < t && distance > bestDistance)
            break;
    }
    return best;
}

std::uint32_t TimelineView::eventAt(const QPoint &pos) const
{
    if (!m_doc)
        return core::kNoIndex;
    const QRect content = contentRect();
    if (!content.contains(pos))
        return core::kNoIndex;
    const int r = m_layout.rowAt(pos.y() - content.top() + m_verticalOffset);
    if (r < 0 || m_layout.rows()[r].kind != LayoutRow::Kind::LaneRow)
        return core::kNoIndex;
    const double nanosPerPixel = this->nanosPerPixel();
    const core::Nanos t = xToTime(pos.x());
    const core::Nanos tolerance = static_cast<core::Nanos>(std::ceil(2.0 * nanosPerPixel));
    return findEventInRow(m_layout.rows()[r], t, tolerance);
}

QRectF TimelineView::eventRectIn(std::uint32_t event, const QRect &content, core::Nanos start, double nanosPerPixel,
                                 int verticalOffset) const
{
    const core::TraceIndex &index = m_doc->index();
    if (event >= index.laneOf.size() || index.laneOf[event] == core::kNoIndex)
        return {};
    const std::uint32_t lane = index.laneOf[event];
    const int first = m_layout.firstRowOfLane(lane);
    if (first < 0 || index.depth[event] >= m_layout.shownRowCount(lane))
        return {};
    const LayoutRow &row = m_layout.rows()[first + index.depth[event]];
    const core::DeviceEvent &e = m_doc->event(event);
    const double x0 = content.left() + timeToPixel(e.ts, start, nanosPerPixel);
    const double x1 = content.left() + timeToPixel(e.end(), start, nanosPerPixel);
    return QRectF(QPointF(x0, content.top() + row.y - verticalOffset + 1),
                  QPointF(std::max(x1, x0 + 1), content.top() + row.y - verticalOffset + row.height - 1));
}

QRectF TimelineView::eventRect(std::uint32_t event) const
{
    if (!m_doc || event >= m_doc->eventCount())
        return {};
    return eventRectIn(event, contentRect(), m_viewStart, nanosPerPixel(), m_verticalOffset);
}

// ---------------------------------------------------------------- selection and navigation

void TimelineView::onSelectionChanged(std::uint32_t event)
{
    m_focusedEdge = core::kNoIndex;
    m_fitSelectionWide = false;
    if (m_doc && event < m_doc->eventCount())
        revealEvent(event);
    update();
}

void TimelineView::revealEvent(std::uint32_t event)
{
    if (!m_doc || event >= m_doc->eventCount())
        return;
    const core::TraceIndex &index = m_doc->index();
    if (event >= index.laneOf.size() || index.laneOf[event] == core::kNoIndex)
        return;
    const std::uint32_t lane = index.laneOf[event];
    // Open what hides it.
    const int group = m_layout.groupOfLane(lane);
    if (m_layout.isGroupCollapsed(group))
        m_layout.setGroupCollapsed(group, false);
    if (index.depth[event] >= m_layout.shownRowCount(lane))
        m_layout.setLaneCollapsed(lane, false);
    updateScrollBar();
    // Horizontally: keep the zoom when the event fits, else zoom out to show it with a margin.
    const core::DeviceEvent &e = m_doc->event(event);
    const core::Nanos span = m_viewEnd - m_viewStart;
    if (e.ts < m_viewStart || e.end() > m_viewEnd) {
        if (e.dur < span * 8 / 10) {
            const core::Nanos mid = e.ts + e.dur / 2;
            setVisibleRange(mid - span / 2, mid - span / 2 + span);
        } else {
            const core::Nanos margin = std::max<core::Nanos>(e.dur / 8, kMinSpan);
            setVisibleRange(e.ts - margin, e.end() + margin);
        }
    }
    // Vertically.
    const int first = m_layout.firstRowOfLane(lane);
    if (first >= 0) {
        const LayoutRow &row = m_layout.rows()[first + std::min<int>(index.depth[event], m_layout.shownRowCount(lane) - 1)];
        const int visibleHeight = contentRect().height();
        if (row.y < m_verticalOffset || row.y + row.height > m_verticalOffset + visibleHeight)
            setVerticalOffset(row.y - visibleHeight / 3);
    }
    update();
}

void TimelineView::followEdge(bool outgoing)
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const std::vector<std::uint32_t> candidates = selectedEdges(!outgoing);
    if (candidates.empty())
        return;
    std::uint32_t edgeId = candidates.front();
    if (std::find(candidates.begin(), candidates.end(), m_focusedEdge) != candidates.end())
        edgeId = m_focusedEdge;
    const DrawEdge &edge = m_doc->edges()[edgeId];
    const std::uint32_t target = outgoing ? edge.to : edge.from;
    m_selection->select(target);
    // Keep the edge we came along focused so that the way back is the same edge.
    m_focusedEdge = edgeId;
    update();
}

void TimelineView::cycleFocusedEdge(int delta)
{
    std::vector<std::uint32_t> all = selectedEdges(true);
    const std::vector<std::uint32_t> out = selectedEdges(false);
    all.insert(all.end(), out.begin(), out.end());
    if (all.empty())
        return;
    auto it = std::find(all.begin(), all.end(), m_focusedEdge);
    int position = it == all.end() ? (delta > 0 ? -1 : 0) : static_cast<int>(it - all.begin());
    position = (position + delta + static_cast<int>(all.size())) % static_cast<int>(all.size());
    m_focusedEdge = all[position];
    update();
}

void TimelineView::stepOnRow(int delta)
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const std::uint32_t selected = m_selection->current();
    const core::TraceIndex &index = m_doc->index();
    if (selected >= index.laneOf.size() || index.laneOf[selected] == core::kNoIndex)
        return;
    const LaneRows &rows = m_doc->laneRows()[index.laneOf[selected]];
    const int depth = index.depth[selected];
    const auto begin = rows.events.begin() + rows.rowBegin[depth];
    const auto end = rows.events.begin() + rows.rowBegin[depth + 1];
    const auto it = std::find(begin + (std::lower_bound(rows.starts.begin() + rows.rowBegin[depth],
                                                        rows.starts.begin() + rows.rowBegin[depth + 1],
                                                        m_doc->event(selected).ts)
                                       - (rows.starts.begin() + rows.rowBegin[depth])),
                              end, selected);
    if (it == end)
        return;
    const auto target = it + delta;
    if (target < begin || target >= end)
        return;
    m_selection->select(*target);
}

// ---------------------------------------------------------------- input

void TimelineView::resizeEvent(QResizeEvent *)
{
    updateScrollBar();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint angle = event->angleDelta();
    const double x = event->position().x();
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = angle.y() / 120.0;
        zoomAt(std::pow(0.8, steps), x);
    } else if (angle.x() != 0 || (event->modifiers() & Qt::ShiftModifier)) {
        const int delta = angle.x() != 0 ? angle.x() : angle.y();
        panByPixels(-delta / 120.0 * contentRect().width() / 10.0);
    } else {
        setVerticalOffset(m_verticalOffset - angle.y() / 120 * TimelineLayout::kRowHeight * 3);
    }
    event->accept();
}

void TimelineView::toggleHeaderAt(const QPoint &pos)
{
    const QRect content = contentRect();
    const int r = m_layout.rowAt(pos.y() - content.top() + m_verticalOffset);
    if (r < 0)
        return;
    const LayoutRow row = m_layout.rows()[r];
    if (row.kind == LayoutRow::Kind::GroupHeader)
        setGroupCollapsed(row.group, !m_layout.isGroupCollapsed(row.group));
    else if (m_doc->laneRows()[row.lane].rowCount() > 1)
        setLaneCollapsed(row.lane, !m_layout.isLaneCollapsed(row.lane));
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (!m_doc || event->button() != Qt::LeftButton)
        return;
    const QPoint pos = event->position().toPoint();
    if (pos.y() < kOverviewHeight && pos.x() >= kHeaderWidth) {
        m_overviewDrag = true;
        mouseMoveEvent(event);
        return;
    }
    const QRect content = contentRect();
    if (pos.x() < kHeaderWidth && pos.y() >= content.top()) {
        toggleHeaderAt(pos);
        return;
    }
    if ((event->modifiers() & Qt::ShiftModifier) && pos.x() >= content.left() && pos.y() >= kOverviewHeight) {
        // Shift+drag on the lanes or the ruler: a time range, from the pressed time.
        m_rangeDragging = true;
        m_pressPos = pos;
        m_rangeAnchor = clampedTimeAt(pos.x());
        return;
    }
    m_pressed = true;
    m_panning = false;
    m_pressPos = pos;
    m_pressViewStart = m_viewStart;
    m_pressVerticalOffset = m_verticalOffset;
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_doc)
        return;
    const QPoint pos = event->position().toPoint();
    if (m_overviewDrag) {
        const int stripWidth = std::max(1, width() - kHeaderWidth - 4);
        const double fraction = std::clamp((pos.x() - kHeaderWidth) / double(stripWidth), 0.0, 1.0);
        const core::Nanos centre =
            m_doc->startTime() + static_cast<core::Nanos>(fraction * (m_doc->endTime() - m_doc->startTime()));
        const core::Nanos span = m_viewEnd - m_viewStart;
        setVisibleRange(centre - span / 2, centre - span / 2 + span);
        return;
    }
    if (m_rangeDragging) {
        // Drawn as it grows; timeRangeChanged (and what listens: counts per group) waits for the release.
        const core::Nanos t = clampedTimeAt(pos.x());
        m_rangeStart = std::min(m_rangeAnchor, t);
        m_rangeEnd = std::max(m_rangeAnchor, t);
        setCursor(Qt::SizeHorCursor);
        update();
        return;
    }
    if (m_pressed) {
        const QPoint delta = pos - m_pressPos;
        if (!m_panning && delta.manhattanLength() > 4)
            m_panning = true;
        if (m_panning) {
            setCursor(Qt::ClosedHandCursor);
            const core::Nanos shift = static_cast<core::Nanos>(std::llround(delta.x() * nanosPerPixel()));
            const core::Nanos span = m_viewEnd - m_viewStart;
            setVisibleRange(m_pressViewStart - shift, m_pressViewStart - shift + span);
            setVerticalOffset(m_pressVerticalOffset - delta.y());
        }
        return;
    }
    const std::uint32_t hover = eventAt(pos);
    if (hover != m_hoverEvent) {
        m_hoverEvent = hover;
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_overviewDrag) {
        m_overviewDrag = false;
        return;
    }
    if (m_rangeDragging) {
        m_rangeDragging = false;
        unsetCursor();
        const QPoint pos = event->position().toPoint();
        // Reset first so that setTimeRange always announces the result (the drag only painted).
        m_rangeStart = m_rangeEnd = 0;
        if (std::abs(pos.x() - m_pressPos.x()) < 3)
            emit timeRangeChanged(); // a Shift+click, no real drag: cleared, like a click
        else
            setTimeRange(m_rangeAnchor, clampedTimeAt(pos.x()));
        update();
        return;
    }
    if (!m_pressed)
        return;
    m_pressed = false;
    unsetCursor();
    if (m_panning) {
        m_panning = false;
        return;
    }
    clearTimeRange(); // a click clears the range, as in Perfetto
    if (m_selection) {
        const std::uint32_t hit = eventAt(event->position().toPoint());
        m_selection->select(hit);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    // Double-click an event: zoom to it.
    if (event->button() == Qt::LeftButton && m_selection && m_selection->hasSelection()
        && eventAt(event->position().toPoint()) == m_selection->current()) {
        m_fitSelectionWide = false;
        fitSelection();
    }
}

void TimelineView::leaveEvent(QEvent *)
{
    if (m_hoverEvent != core::kNoIndex) {
        m_hoverEvent = core::kNoIndex;
        update();
    }
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const bool fast = event->modifiers() & Qt::ShiftModifier;
    const bool control = event->modifiers() & Qt::ControlModifier;
    const QPoint cursor = mapFromGlobal(QCursor::pos());
    const double anchorX = contentRect().contains(cursor) ? cursor.x() : contentRect().center().x();
    switch (event->key()) {
    case Qt::Key_W: zoomAt(fast ? 0.5 : 0.8, anchorX); break;
    case Qt::Key_S: zoomAt(fast ? 2.0 : 1.25, anchorX); break;
    case Qt::Key_A: panByPixels(-contentRect().width() * (fast ? 0.4 : 0.1)); break;
    case Qt::Key_D: panByPixels(contentRect().width() * (fast ? 0.4 : 0.1)); break;
    case Qt::Key_F:
        if (hasTimeRange())
            fitTimeRange();
        else
            fitSelection();
        break;
    case Qt::Key_0:
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Escape:
        if (m_rangeDragging) {
            m_rangeDragging = false;
            unsetCursor();
            m_rangeStart = m_rangeEnd = 0;
            emit timeRangeChanged();
            update();
        } else if (hasTimeRange()) {
            clearTimeRange();
        } else if (m_selection) {
            m_selection->clear();
        }
        break;
    case Qt::Key_BracketLeft:
        if (control)
            cycleFocusedEdge(-1);
        else
            followEdge(false);
        break;
    case Qt::Key_BracketRight:
        if (control)
            cycleFocusedEdge(1);
        else
            followEdge(true);
        break;
    case Qt::Key_Comma: stepOnRow(-1); break;
    case Qt::Key_Period: stepOnRow(1); break;
    case Qt::Key_E: setShowAllEdgesInView(!m_showAllEdges); break;
    case Qt::Key_F12:
        m_showFrameTime = !m_showFrameTime;
        update();
        break;
    case Qt::Key_Up: setVerticalOffset(m_verticalOffset - TimelineLayout::kRowHeight * 2); break;
    case Qt::Key_Down: setVerticalOffset(m_verticalOffset + TimelineLayout::kRowHeight * 2); break;
    case Qt::Key_PageUp: setVerticalOffset(m_verticalOffset - contentRect().height() * 9 / 10); break;
    case Qt::Key_PageDown: setVerticalOffset(m_verticalOffset + contentRect().height() * 9 / 10); break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineView::setHighlightedEvents(std::vector<std::uint32_t> events)
{
    m_highlighted = std::move(events);
    update();
}

void TimelineView::setShowAllEdgesInView(bool show)
{
    if (m_showAllEdges == show)
        return;
    m_showAllEdges = show;
    update();
    emit edgeFilterChanged();
}

void TimelineView::setEdgeKindVisible(core::EdgeKind kind, bool visible)
{
    if (isEdgeKindVisible(kind) == visible)
        return;
    m_edgeKinds.set(static_cast<std::size_t>(kind), visible);
    update();
    emit edgeFilterChanged();
}

QString TimelineView::tooltipFor(std::uint32_t e) const
{
    const core::DeviceEvent &event = m_doc->event(e);
    QString html = QStringLiteral("<b>%1</b><br>%2 · %3<br>start +%4 · duration %5")
                       .arg(htmlEscaped(m_doc->eventName(e)), eventStyleName(m_doc->style(e)),
                            htmlEscaped(QString::fromUtf8(categoryName(event.category).data(),
                                                          static_cast<qsizetype>(categoryName(event.category).size()))),
                            formatDuration(event.ts - m_doc->startTime()), formatDuration(event.dur));
    if (const core::GpuLink *link = m_doc->gpuLink(e)) {
        if (link->parent < m_doc->eventCount())
            html += QStringLiteral("<br>parent: %1 <i>(%2)</i>")
                        .arg(htmlEscaped(m_doc->eventName(link->parent)),
                             QString::fromUtf8(parentRuleName(link->rule).data(),
                                               static_cast<qsizetype>(parentRuleName(link->rule).size())));
        else
            html += QStringLiteral("<br><font color='#c00'>orphan: %1</font>")
                        .arg(QString::fromUtf8(orphanReasonName(link->orphan).data(),
                                               static_cast<qsizetype>(orphanReasonName(link->orphan).size())));
    }
    if (m_doc->isFlagged(e))
        html += QStringLiteral("<br><font color='#c00'>⚑ flagged</font>");
    return html;
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_doc) {
        auto *help = static_cast<QHelpEvent *>(event);
        const std::uint32_t e = eventAt(help->pos());
        if (e != core::kNoIndex)
            QToolTip::showText(help->globalPos(), tooltipFor(e), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace linkscope::ui
