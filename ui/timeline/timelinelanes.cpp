#include "timeline/timelinelanes.h"

#include "timeline/timelinepalette.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace linkscope::ui {

void TimelineLanePass::paintBackgrounds(QPainter &painter, const TimelineFrame &frame)
{
    const QRect &content = frame.content;
    painter.save();
    painter.setClipRect(QRect(0, content.top(), frame.area.width(), content.height()));
    for (const LayoutRow &row : frame.layout.rows()) {
        const int y = content.top() + row.y - frame.verticalOffset;
        if (y + row.height < content.top())
            continue;
        if (y > content.bottom())
            break;
        if (row.kind == LayoutRow::Kind::GroupHeader)
            painter.fillRect(QRect(0, y, frame.area.width(), row.height), palette::current().groupBackground);
        else if (row.lane.value % 2 == 1)
            painter.fillRect(QRect(content.left(), y, content.width(), row.height), palette::current().laneShade);
    }
    painter.restore();
}

void TimelineLanePass::paintEvents(QPainter &painter, const TimelineFrame &frame)
{
    const QRect &content = frame.content;
    const bool cacheValid = m_geometry.doc == &frame.doc && m_geometry.start == frame.start && m_geometry.end == frame.end
                            && m_geometry.contentSize == content.size() && m_geometry.verticalOffset == frame.verticalOffset
                            && m_geometry.layoutVersion == frame.layout.version();
    if (!cacheValid) {
        m_geometry.doc = &frame.doc;
        m_geometry.start = frame.start;
        m_geometry.end = frame.end;
        m_geometry.contentSize = content.size();
        m_geometry.verticalOffset = frame.verticalOffset;
        m_geometry.layoutVersion = frame.layout.version();
        buildTimelineGeometry(&frame.doc, frame.layout, m_geometry);
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
    QFont labelFont = frame.font;
    labelFont.setPointSizeF(std::max(6.0, labelFont.pointSizeF() * 0.85));
    painter.setFont(labelFont);
    const QFontMetrics metrics(labelFont);
    for (TimelineLabel &label : m_geometry.labels) {
        if (!label.elided) {
            label.text = metrics.elidedText(frame.doc.eventName(label.event), Qt::ElideRight, label.rect.width() - 4);
            if (label.text == QStringLiteral("…"))
                label.text.clear();
            label.elided = true;
        }
        const QString &text = label.text;
        if (text.isEmpty())
            continue;
        const QColor background = eventColor(frame.doc.style(label.event));
        // On the event's own colour, the same in both themes.
        painter.setPen(background.lightness() < 150 ? QColor(Qt::white) : palette::colors(palette::Theme::Light).text);
        painter.drawText(label.rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
}

void TimelineLanePass::paintOutlines(QPainter &painter, const TimelineFrame &frame, const Outlines &outlines)
{
    const TraceDocument &doc = frame.doc;
    auto outline = [&](core::EventIndex event, const QColor &color, int width) {
        const QRectF r = frame.eventRect(event);
        if (r.isEmpty())
            return;
        painter.save();
        painter.setClipRect(frame.content);
        QRectF box = r.adjusted(-1, -1, 1, 1);
        box.setWidth(std::max(box.width(), 4.0));
        painter.setPen(QPen(color, width));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(box);
        painter.restore();
    };
    const std::vector<core::EventIndex> &hits = outlines.highlighted;
    if (!hits.empty()) {
        // Hits are sorted by start. With few hits all are scanned (one that starts before the view
        // may cover it); with many, the scan starts at the view's start and a long hit that began
        // earlier is not marked.
        auto first = hits.begin();
        if (hits.size() > 1000)
            first = std::lower_bound(hits.begin(), hits.end(), frame.start,
                                     [&](core::EventIndex e, core::Nanos t) { return doc.event(e).ts < t; });
        int drawn = 0;
        for (auto it = first; it != hits.end() && drawn < 5000; ++it) {
            if (!it->in(doc.eventCount()))
                continue;
            const core::DeviceEvent &event = doc.event(*it);
            if (event.ts > frame.end)
                break;
            if (event.end() < frame.start)
                continue;
            outline(*it, searchHitColor(), 2);
            ++drawn;
        }
    }
    if (outlines.hovered.valid())
        outline(outlines.hovered, palette::current().hoverOutline, 1);
    if (outlines.selected.valid())
        outline(outlines.selected, palette::current().selectionOutline, 2);
}

} // namespace linkscope::ui
