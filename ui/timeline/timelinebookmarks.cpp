#include "timeline/timelinebookmarks.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPolygonF>

#include <cmath>

namespace linkscope::ui {

namespace {
// Perfetto's markers are a saturated blue; one colour reads on the light and the dark palettes.
const QColor kBookmarkColor(40, 110, 230);
constexpr int kFlagHeight = 12;
constexpr int kLabelChars = 24;
} // namespace

namespace {

// One bookmark: the line from the ruler's top through the lanes, and a pennant right of the line at
// the ruler's top with the name beside it (kept inside the content's right edge: a flag near it
// points left instead). Returns the flag's rectangle.
QRectF paintMarker(QPainter &painter, const QFontMetrics &metrics, const QRect &ruler, const QRect &content, double px,
                   const std::string &text, const QColor &colour)
{
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor line = colour;
    line.setAlpha(colour.alpha() * 200 / 255);
    painter.setPen(QPen(line, 1));
    painter.drawLine(QPointF(px, ruler.top()), QPointF(px, content.bottom()));
    const QString name = metrics.elidedText(QString::fromStdString(text), Qt::ElideRight,
                                            metrics.averageCharWidth() * kLabelChars);
    const double textWidth = name.isEmpty() ? 0 : metrics.horizontalAdvance(name) + 6;
    const double width = 10 + textWidth;
    const bool left = px + width > content.right();
    const double top = ruler.top() + 1;
    QRectF flag(left ? px - width : px, top, width, kFlagHeight);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawRect(flag);
    painter.setPen(Qt::white);
    if (!name.isEmpty())
        painter.drawText(flag.adjusted(left ? 3 : 9, 0, left ? -9 : -3, 0), Qt::AlignVCenter | Qt::AlignLeft, name);
    // The notch under the flag that points at the instant.
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawPolygon(
        QPolygonF({QPointF(px - 4, top + kFlagHeight), QPointF(px + 4, top + kFlagHeight), QPointF(px, top + kFlagHeight + 5)}));
    return flag;
}

} // namespace

void TimelineBookmarks::paint(QPainter &painter, const QFont &font, const QRect &ruler, const QRect &content,
                              core::Nanos viewStart, double nanosPerPixel)
{
    m_painted.clear();
    m_paintedEchoes = 0;
    if ((m_list.empty() && m_echoes.empty()) || nanosPerPixel <= 0)
        return;
    painter.save();
    QFont small = font;
    small.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.85));
    painter.setFont(small);
    const QFontMetrics metrics(small);
    auto xOf = [&](core::Nanos ts) { return content.left() + static_cast<double>(ts - viewStart) / nanosPerPixel; };
    // Other ranks' first, under this trace's own.
    QColor echo = kBookmarkColor;
    echo.setAlpha(150);
    for (const core::Bookmark &b : m_echoes) {
        const double x = xOf(b.ts);
        if (x < content.left() || x > content.right())
            continue;
        paintMarker(painter, metrics, ruler, content, std::floor(x) + 0.5, b.name, echo);
        ++m_paintedEchoes;
    }
    for (std::size_t i = 0; i < m_list.size(); ++i) {
        const double x = xOf(m_list[i].ts);
        if (x < content.left() || x > content.right())
            continue;
        const double px = std::floor(x) + 0.5;
        m_painted.push_back({i, px, paintMarker(painter, metrics, ruler, content, px, m_list[i].name, kBookmarkColor)});
    }
    painter.restore();
}

int TimelineBookmarks::flagAt(const QPointF &pos) const
{
    for (auto it = m_painted.rbegin(); it != m_painted.rend(); ++it)
        if (it->flag.contains(pos))
            return static_cast<int>(it->index);
    return -1;
}

} // namespace linkscope::ui
