#include "timeline/timelinepath.h"

#include "ground/eventstyle.h"
#include "timeline/timelinepalette.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace linkscope::ui {

void TimelinePathOverlay::setChain(std::vector<core::EventIndex> chain)
{
    chain.erase(std::unique(chain.begin(), chain.end()), chain.end());
    m_chain = std::move(chain);
    m_sorted = m_chain;
    std::sort(m_sorted.begin(), m_sorted.end());
    m_sorted.erase(std::unique(m_sorted.begin(), m_sorted.end()), m_sorted.end());
    m_painted = 0;
}

bool TimelinePathOverlay::contains(core::EventIndex event) const
{
    return std::binary_search(m_sorted.begin(), m_sorted.end(), event);
}

void TimelinePathOverlay::paint(QPainter &painter, const TraceDocument &doc, const QRect &content,
                                const std::function<QRectF(core::EventIndex)> &rectOf) const
{
    m_painted = 0;
    m_backwards = 0;
    m_labels.clear();
    if (m_chain.empty())
        return;
    const palette::Colors &colors = palette::current();
    painter.save();
    painter.setClipRect(content);
    painter.fillRect(content, colors.pathDim);
    const QRectF visible = QRectF(content).adjusted(-4, -4, 4, 4);
    // The path's ops, in their own colour again, with a bold outline; the line from each to the next.
    std::vector<QRectF> rects(m_chain.size());
    for (std::size_t i = 0; i < m_chain.size(); ++i)
        if (m_chain[i].in(doc.eventCount()))
            rects[i] = rectOf(m_chain[i]);
    painter.setRenderHint(QPainter::Antialiasing, true);
    QPen line(colors.pathOutline, 1.6);
    line.setCosmetic(true);
    painter.setPen(line);
    painter.setBrush(Qt::NoBrush);
    QPen backLine = line;
    backLine.setStyle(Qt::DashLine);
    std::size_t drawn = 0;
    const QFontMetricsF metrics(painter.font());
    // Each label's room is reserved at the width of the widest text it can take (a count of four
    // digits: more arrows than are drawn), so that a label grown by a merge never reaches its neighbour.
    const QRectF room = metrics.boundingRect(backLabelText(8888)).adjusted(-3, -1, 3, 1);
    for (std::size_t i = 0; i + 1 < m_chain.size() && drawn < kDrawCap; ++i) {
        const QRectF &a = rects[i], &b = rects[i + 1];
        if (a.isEmpty() || b.isEmpty())
            continue;
        const QPointF from(a.right(), a.center().y()), to(b.left(), b.center().y());
        // The path is ordered on the replay's clock: the next op may have started, as measured, before
        // this one ended (the replay serialised what overlapped, or moved it). Dashed and labelled.
        const bool backwards = to.x() < from.x() - 2;
        if (!visible.intersects(QRectF(from, to).normalized().adjusted(-8, -8, 8, 8)))
            continue;
        QPainterPath curve(from);
        const double bend = std::max(12.0, std::abs(to.x() - from.x()) / 3);
        curve.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
        painter.setPen(backwards ? backLine : line);
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(curve);
        // The direction: an arrowhead where the curve arrives (it arrives moving right).
        QPolygonF head;
        head << to << to - QPointF(7, 3.5) << to - QPointF(7, -3.5);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colors.pathOutline);
        painter.drawPolygon(head);
        if (backwards) {
            ++m_backwards;
            // Above the op the arrow reaches, kept inside the lanes (the curve may bulge out of view).
            QRectF label = room;
            label.moveBottomLeft(QPointF(to.x() + 2, b.top() - 2));
            if (label.right() > content.right() - 2)
                label.moveRight(content.right() - 2);
            if (label.left() < content.left() + 2)
                label.moveLeft(content.left() + 2);
            if (label.top() < content.top() + 2)
                label.moveTop(b.bottom() + 2);
            // Jumps that cluster (several back on one thread, close together) share one label and
            // say how many they are: labels never overlap.
            const auto near = std::find_if(m_labels.begin(), m_labels.end(), [&](const BackLabel &placed) {
                return placed.rect.adjusted(-2, -2, 2, 2).intersects(label);
            });
            if (near != m_labels.end())
                ++near->count;
            else if (m_labels.size() < kMaxBackLabels && content.contains(label.toAlignedRect()))
                m_labels.push_back({label, 1});
        }
        ++drawn;
    }
    painter.setBrush(Qt::NoBrush);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QPen outline(colors.pathOutline, 2.5);
    outline.setJoinStyle(Qt::MiterJoin);
    for (std::size_t i = 0; i < m_chain.size() && m_painted < kDrawCap; ++i) {
        QRectF r = rects[i];
        if (r.isEmpty() || !visible.intersects(r))
            continue;
        const QColor fill = eventColor(doc.style(m_chain[i]));
        painter.fillRect(r, fill);
        if (r.width() > 24) { // its name again: the wash covered the label
            painter.setPen(fill.lightness() < 150 ? QColor(Qt::white) : palette::colors(palette::Theme::Light).text);
            const QRectF text = r.adjusted(2, 0, -2, 0);
            painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                             painter.fontMetrics().elidedText(doc.eventName(m_chain[i]), Qt::ElideRight, int(text.width())));
        }
        QRectF box = r.adjusted(-1.5, -1.5, 1.5, 1.5);
        box.setWidth(std::max(box.width(), 5.0));
        painter.setPen(outline);
        painter.drawRect(box);
        ++m_painted;
    }
    // The labels last, over the ops they are beside; each in the room reserved for it.
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (BackLabel &placed : m_labels) {
        const QString text = backLabelText(placed.count);
        placed.rect.setWidth(std::min(room.width(), metrics.boundingRect(text).adjusted(-3, -1, 3, 1).width()));
        painter.setPen(Qt::NoPen);
        painter.setBrush(colors.overlayBackground);
        painter.drawRect(placed.rect);
        painter.setPen(colors.pathOutline);
        painter.drawText(placed.rect, Qt::AlignCenter, text);
    }
    painter.restore();
}

QString TimelinePathOverlay::backLabelText(std::size_t count)
{
    return count > 1 ? QObject::tr("↶ %L1 jumps earlier in measured time (the replay's order)").arg(count)
                     : QObject::tr("↶ earlier in measured time (the replay's order)");
}

} // namespace linkscope::ui
