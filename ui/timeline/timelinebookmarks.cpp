#include "timeline/timelinebookmarks.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

namespace {
// Perfetto's markers are a saturated blue; one colour reads on the light and the dark palettes.
const QColor kBookmarkColor(40, 110, 230);
constexpr int kFlagHeight = 12;
constexpr int kLabelChars = 24;
constexpr std::size_t kLabelBytes = 4 * kLabelChars + 4; // enough UTF-8 for kLabelChars and the ellipsis
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
    // Only the head of a long name reaches the text layout: eliding lays out the whole string.
    const QString name = metrics.elidedText(QString::fromStdString(core::cutText(text.substr(0, kLabelBytes), kLabelBytes)),
                                            Qt::ElideRight, metrics.averageCharWidth() * kLabelChars);
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
    // The list is in time order: only the bookmarks in view are visited, and of several on one
    // pixel column only the last is drawn (it would cover the others), so a frame costs what is
    // visible, not what the sidecar holds.
    const auto first = std::lower_bound(m_list.begin(), m_list.end(), viewStart,
                                        [](const core::Bookmark &b, core::Nanos ts) { return b.ts < ts; });
    auto pxOf = [&](core::Nanos ts) { return std::floor(xOf(ts)) + 0.5; };
    for (auto it = first; it != m_list.end(); ++it) {
        const double x = xOf(it->ts);
        if (x < content.left())
            continue;
        if (x > content.right())
            break;
        const double px = std::floor(x) + 0.5;
        if (const auto next = std::next(it); next != m_list.end() && pxOf(next->ts) == px)
            continue; // the next one is drawn over it
        m_painted.push_back({static_cast<std::size_t>(it - m_list.begin()), px,
                             paintMarker(painter, metrics, ruler, content, px, it->name, kBookmarkColor)});
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
