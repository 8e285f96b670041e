#include "timeline/timelineruler.h"

#include "ground/timeformat.h"
#include "timeline/timelinegeometry.h"
#include "timeline/timelinepalette.h"

#include <QFont>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

void TimelineRuler::paintGrid(QPainter &painter, const QRect &content, core::Nanos start, core::Nanos end, core::Nanos origin)
{
    const double nanosPerPixel = static_cast<double>(end - start) / content.width();
    const core::Nanos step = niceTickStep(nanosPerPixel, kTickSpacing);
    core::Nanos t = origin + ((start - origin) / step) * step;
    painter.setPen(palette::current().gridLine);
    for (; t <= end; t += step) {
        const double x = content.left() + timeToPixel(t, start, nanosPerPixel);
        if (x >= content.left() && x <= content.right())
            painter.drawLine(QPointF(x, content.top()), QPointF(x, content.bottom()));
    }
}

void TimelineRuler::paint(QPainter &painter, const QFont &font, const QRect &area, const QRect &content, core::Nanos start,
                          core::Nanos end, core::Nanos origin)
{
    painter.save();
    painter.fillRect(area, palette::current().rulerBackground);
    const double nanosPerPixel = static_cast<double>(end - start) / content.width();
    const core::Nanos step = niceTickStep(nanosPerPixel, kTickSpacing);
    // Ticks are placed on multiples of the step counted from the trace start, so labels read as
    // offsets ("+12.5 ms") that stay put while panning.
    core::Nanos first = origin + ((start - origin) / step) * step;
    if (first > start)
        first -= step;
    painter.setPen(palette::current().text);
    QFont small = font;
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    painter.setFont(small);
    painter.setClipRect(QRect(content.left(), area.top(), content.width(), area.height()));
    for (core::Nanos t = first; t <= end + step; t += step) {
        const double x = content.left() + timeToPixel(t, start, nanosPerPixel);
        if (x < content.left() - 1 || x > content.right() + 1)
            continue;
        painter.setPen(palette::current().text);
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
    const int headerWidth = content.left() - area.left();
    painter.fillRect(QRect(area.left(), area.top(), headerWidth, area.height()), palette::current().rulerBackground);
    painter.setPen(palette::current().text);
    painter.drawText(QRect(area.left() + 6, area.top(), headerWidth - 12, area.height()), Qt::AlignVCenter,
                     tr("span %1 · grid %2").arg(formatDuration(end - start, 2), formatDuration(step, 0)));
    painter.setPen(palette::current().separator);
    painter.drawLine(area.bottomLeft(), area.bottomRight());
    painter.restore();
}

void TimelineRuler::paintRangeLabel(QPainter &painter, const QFont &font, const QRect &area, const QRect &content, double x0,
                                    double x1, core::Nanos duration)
{
    painter.save();
    const QRect strip(content.left(), area.top(), content.width(), area.height());
    painter.setClipRect(strip);
    const double left = std::max(x0, double(strip.left()));
    const double right = std::min(x1, double(strip.right()));
    painter.fillRect(QRectF(left, strip.top(), std::max(1.0, right - left), strip.height()), palette::current().rangeFill);
    painter.setPen(QPen(palette::current().rangeEdge, 1));
    for (double x : {x0, x1})
        if (x >= strip.left() && x <= strip.right())
            painter.drawLine(QPointF(x, strip.top()), QPointF(x, strip.bottom()));
    // The duration, centred on the visible part of the band, in a box that stays inside the ruler.
    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    const QFontMetrics metrics(bold);
    const QString text = formatDuration(duration);
    const int width = metrics.horizontalAdvance(text) + 12;
    const int height = std::min(strip.height() - 4, metrics.height() + 4);
    int boxLeft = static_cast<int>(std::lround((left + right) / 2 - width / 2.0));
    boxLeft = std::clamp(boxLeft, strip.left() + 1, std::max(strip.left() + 1, strip.right() - width - 1));
    const QRect box(boxLeft, strip.top() + (strip.height() - height) / 2, width, height);
    painter.fillRect(box, palette::current().rangeEdge);
    painter.setPen(Qt::white);
    painter.drawText(box, Qt::AlignCenter, text);
    painter.restore();
}

QRect TimelineOverview::stripOf(const QRect &area, int headerWidth)
{
    return QRect(headerWidth, area.top() + 3, std::max(1, area.width() - headerWidth - 4), area.height() - 6);
}

core::Nanos TimelineOverview::timeAt(const TraceDocument &doc, int x, int widgetWidth, int headerWidth)
{
    const int stripWidth = std::max(1, widgetWidth - headerWidth - 4);
    const double fraction = std::clamp((x - headerWidth) / double(stripWidth), 0.0, 1.0);
    return doc.startTime() + static_cast<core::Nanos>(fraction * (doc.endTime() - doc.startTime()));
}

void TimelineOverview::paint(QPainter &painter, const TraceDocument &doc, const QRect &area, int headerWidth, core::Nanos start,
                             core::Nanos end)
{
    painter.save();
    const QRect strip = stripOf(area, headerWidth);
    if (m_doc != &doc || m_image.size() != strip.size() || m_theme != int(palette::theme())) {
        // The whole trace, each lane's top row as a band; built with the same LOD as the lanes.
        m_doc = &doc;
        m_theme = int(palette::theme());
        m_image = QImage(strip.size(), QImage::Format_ARGB32_Premultiplied);
        m_image.fill(palette::current().overviewBackground);
        const auto &lanes = doc.laneRows();
        if (!lanes.empty()) {
            TimelineGeometry whole;
            whole.start = doc.startTime();
            whole.end = doc.endTime();
            const double nanosPerPixel = static_cast<double>(whole.end - whole.start) / strip.width();
            QPainter imagePainter(&m_image);
            const double band = static_cast<double>(strip.height()) / lanes.size();
            for (std::size_t l = 0; l < lanes.size(); ++l) {
                if (lanes[l].rowCount() == 0)
                    continue;
                for (auto &list : whole.rects)
                    list.clear();
                buildTimelineRow(doc, whole, lanes[l], 0, 0, strip.width(), nanosPerPixel);
                const int top = static_cast<int>(l * band);
                const int height = std::max(1, static_cast<int>((l + 1) * band) - top);
                for (int style = 0; style < kEventStyleCount; ++style)
                    for (const QRect &r : whole.rects[style])
                        imagePainter.fillRect(QRect(r.left(), top, r.width(), height),
                                              eventColor(static_cast<EventStyle>(style)));
            }
        }
    }
    painter.fillRect(area, palette::current().rulerBackground);
    painter.drawImage(strip.topLeft(), m_image);
    // The visible window.
    const double scale = static_cast<double>(doc.endTime() - doc.startTime()) / strip.width();
    const double x0 = strip.left() + (start - doc.startTime()) / scale;
    const double x1 = strip.left() + (end - doc.startTime()) / scale;
    QRectF window(QPointF(std::max<double>(x0, strip.left()), strip.top()),
                  QPointF(std::min<double>(x1, strip.right()), strip.bottom()));
    if (window.width() < 2)
        window.setWidth(2);
    painter.fillRect(QRectF(strip.left(), strip.top(), window.left() - strip.left(), strip.height()),
                     palette::current().outsideView);
    painter.fillRect(QRectF(window.right(), strip.top(), strip.right() - window.right(), strip.height()),
                     palette::current().outsideView);
    painter.setPen(QPen(palette::current().viewWindow, 1.5));
    painter.drawRect(window);
    painter.setPen(palette::current().text);
    painter.drawText(QRect(6, area.top(), headerWidth - 12, area.height()), Qt::AlignVCenter,
                     tr("Overview · %1 total").arg(formatDuration(doc.endTime() - doc.startTime(), 2)));
    painter.restore();
}

} // namespace linkscope::ui
