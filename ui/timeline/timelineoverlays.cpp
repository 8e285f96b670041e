#include "timeline/timelineoverlays.h"

#include "ground/timeformat.h"
#include "timeline/timelineedges.h"
#include "timeline/timelinepalette.h"

#include <QFontMetrics>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

namespace {

constexpr double kBezierOffset = 30.0; // the re-parent drag curve's control-point offset

} // namespace

std::optional<std::pair<double, double>> TimelineOverlayPass::rangePixels(const TimelineFrame &frame, core::Nanos start,
                                                                          core::Nanos end)
{
    if (end <= start)
        return std::nullopt;
    const QRect &content = frame.content;
    const double x0 = content.left() + timeToPixel(start, frame.start, frame.nanosPerPixel);
    const double x1 = content.left() + timeToPixel(end, frame.start, frame.nanosPerPixel);
    if (x1 < content.left() || x0 > content.right())
        return std::nullopt;
    return std::make_pair(x0, x1);
}

void TimelineOverlayPass::paintTimeRange(QPainter &painter, const TimelineFrame &frame, core::Nanos start, core::Nanos end)
{
    const auto pixels = rangePixels(frame, start, end);
    if (!pixels)
        return;
    const QRect &content = frame.content;
    const auto [x0, x1] = *pixels;
    painter.save();
    painter.setClipRect(content);
    const double left = std::max(x0, content.left() - 1.0);
    const double right = std::min(x1, content.right() + 1.0);
    painter.fillRect(QRectF(left, content.top(), std::max(1.0, right - left), content.height()), palette::current().rangeFill);
    painter.setPen(QPen(palette::current().rangeEdge, 1));
    for (double x : {x0, x1})
        if (x >= content.left() && x <= content.right())
            painter.drawLine(QPointF(x, content.top()), QPointF(x, content.bottom()));
    painter.restore();
}

std::vector<TimelinePaintedMarker> TimelineOverlayPass::paintMarkers(QPainter &painter, const TimelineFrame &frame,
                                                                     const EventNotes *notes)
{
    std::vector<TimelinePaintedMarker> placed;
    if (!notes || notes->marked.empty())
        return placed;
    const QRect &content = frame.content;
    // A few per trace (each is a user's edit): every one is placed, those out of view are skipped.
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (core::EventIndex e : notes->marked) {
        const QRectF r = frame.eventRect(e);
        if (r.isEmpty() || r.right() < content.left() - kMarkerWidth || r.left() > content.right() || r.bottom() < content.top()
            || r.top() > content.bottom())
            continue;
        double x = std::max(r.left(), double(content.left())) + 1;
        const double y = r.top();
        for (EventMarker marker : {EventMarker::Flag, EventMarker::Note}) {
            if ((marker == EventMarker::Flag && !notes->isFlagged(e)) || (marker == EventMarker::Note && !notes->hasNote(e)))
                continue;
            const QRectF box(x, y, kMarkerWidth, kMarkerHeight);
            // A pale backdrop: the marker reads over a kernel of any colour and over edges.
            painter.setPen(Qt::NoPen);
            painter.setBrush(palette::current().halo);
            painter.drawRoundedRect(box.adjusted(-1, -1, 1, 1), 2, 2);
            drawEventMarker(painter, box, marker);
            placed.push_back({e, marker, box});
            x += kMarkerWidth + 1;
        }
    }
    painter.restore();
    return placed;
}

QColor TimelineOverlayPass::linkDragColor(bool valid) { return valid ? QColor(0x1a, 0x9e, 0x3a) : QColor(0xd3, 0x2f, 0x2f); }

std::pair<QPointF, QPointF> TimelineOverlayPass::paintLinkDrag(QPainter &painter, const TimelineFrame &frame,
                                                               const TimelineLinkDrag &drag)
{
    const TraceDocument &doc = frame.doc;
    const QRect &content = frame.content;
    if (!drag.from.in(doc.eventCount()))
        return {};
    const QRectF source = frame.eventRect(drag.from);
    if (source.isEmpty())
        return {}; // its row is collapsed: nothing to anchor the curve on
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const bool hasTarget = drag.target.in(doc.eventCount());
    const QColor color = hasTarget ? linkDragColor(drag.valid) : QColor(0x5a, 0x6a, 0x80);

    if (hasTarget) {
        const QRectF r = frame.eventRect(drag.target);
        if (!r.isEmpty()) {
            QRectF box = r.adjusted(-2, -2, 2, 2);
            box.setWidth(std::max(box.width(), 6.0));
            QColor fill = color;
            fill.setAlpha(drag.valid ? 70 : 150);
            painter.setPen(QPen(color, 2));
            // Valid: a tinted box; invalid: hatched, so the two differ without relying on colour.
            painter.setBrush(drag.valid ? QBrush(fill) : QBrush(fill, Qt::BDiagPattern));
            painter.drawRect(box);
        }
    }

    // From the visible part of the GPU op to the cursor; the symmetric control points put the
    // curve's midpoint exactly halfway between its ends (the tests sample it there).
    const double left = std::max(source.left(), double(content.left()));
    const double right = std::min(source.right(), double(content.right()));
    const QPointF p0(left <= right ? (left + right) / 2
                                   : std::clamp(source.center().x(), double(content.left()), double(content.right())),
                     source.center().y());
    const QPointF p1(drag.cursor);
    const double direction = p1.x() >= p0.x() ? 1.0 : -1.0;
    const double offset = std::min(kBezierOffset, std::abs(p1.x() - p0.x()) / 2 + 10);
    QPainterPath path(p0);
    path.cubicTo(QPointF(p0.x() + direction * offset, p0.y()), QPointF(p1.x() - direction * offset, p1.y()), p1);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette::current().halo, 5, Qt::SolidLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(QPen(color, 2.5, hasTarget && drag.valid ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawEllipse(p0, 4.0, 4.0);

    // Beside the cursor: what a release would do.
    QString text;
    if (hasTarget)
        text = drag.valid ? tr("Re-parent to %1").arg(doc.eventName(drag.target)) : drag.reason;
    if (!text.isEmpty()) {
        const QFontMetrics metrics(frame.font);
        text = metrics.elidedText(text, Qt::ElideRight, 420);
        QRect box(p1.toPoint() + QPoint(14, 14), QSize(metrics.horizontalAdvance(text) + 12, metrics.height() + 6));
        if (box.right() > content.right())
            box.moveRight(std::max(content.left(), p1.toPoint().x() - 10));
        if (box.bottom() > content.bottom())
            box.moveBottom(p1.toPoint().y() - 10);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setBrush(palette::current().overlayBackground);
        painter.setPen(QPen(color, 1));
        painter.drawRect(box);
        painter.setPen(palette::theme() == palette::Theme::Dark ? color.lighter(140) : color.darker(130));
        painter.drawText(box.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
    return {p0, p1};
}

void TimelineOverlayPass::paintStatus(QPainter &painter, const TimelineFrame &frame, const Status &status)
{
    const QRect &content = frame.content;
    const TimelineEdgeOverlay &edges = status.edges;
    if (edges.showAllInView()) {
        painter.setPen(palette::current().text);
        const QString count = (edges.inViewEstimated() ? QStringLiteral("~") : QString())
                              + QLocale().toString(qulonglong(edges.inView()));
        const QString text = edges.inView() > edges.painted().size() || edges.inViewEstimated()
                                 ? tr("%L1 of %2 edges in view").arg(edges.painted().size()).arg(count)
                                 : tr("%1 edges in view").arg(count);
        const QRect box(content.right() - 260, content.top() + 4, 252, 18);
        painter.fillRect(box, palette::current().overlayBackground);
        painter.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, text);
    }
    if (status.showFrameTime) {
        const QRect box(content.left() + 4, content.bottom() - 22, 330, 18);
        painter.fillRect(box, QColor(0, 0, 0, 170));
        painter.setPen(Qt::white);
        painter.drawText(
            box.adjusted(4, 0, -4, 0), Qt::AlignVCenter,
            tr("last frame %1 · %L2 merged columns").arg(formatDuration(status.lastFrameNanos, 2)).arg(status.mergedColumns));
    }
}

} // namespace linkscope::ui
