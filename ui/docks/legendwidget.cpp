#include "docks/legendwidget.h"

#include "ground/eventstyle.h"

#include <QPainter>

#include <algorithm>

namespace linkscope::ui {

namespace {
constexpr int kSwatch = 11;
constexpr int kSpacing = 12;
constexpr int kLineLength = 26;
constexpr int kGroupGap = 8;

int eventsRowWidth(const QFontMetrics &metrics)
{
    int width = 4;
    for (int s = 0; s < kEventStyleCount; ++s)
        width += kSwatch + 4 + metrics.horizontalAdvance(eventStyleName(static_cast<EventStyle>(s))) + kSpacing;
    return width;
}

int edgesRowWidth(const QFontMetrics &metrics)
{
    int width = 4;
    for (int p = 0; p < kEdgeProvenanceCount; ++p)
        width += kLineLength + 4 + metrics.horizontalAdvance(edgeProvenanceLabel(static_cast<EdgeProvenance>(p))) + kSpacing;
    width += kGroupGap;
    for (int m = 0; m < kEventMarkerCount; ++m)
        width += kMarkerWidth + 4 + metrics.horizontalAdvance(eventMarkerLabel(static_cast<EventMarker>(m))) + kSpacing;
    return width;
}

} // namespace

LegendWidget::LegendWidget(QWidget *parent) : QWidget(parent)
{
    setToolTip(tr("Event colours; edge line styles (how each parent link was chosen) and the markers of your flags "
                  "and notes"));
}

QSize LegendWidget::sizeHint() const
{
    // Two rows (event kinds; edge styles and markers), so that all of it fits a 1,200 px window.
    const QFontMetrics metrics(font());
    return QSize(std::max(eventsRowWidth(metrics), edgesRowWidth(metrics)) + 4, 2 * (metrics.height() + 2) + 2);
}

void LegendWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QFontMetrics metrics(font());
    const int rowHeight = metrics.height() + 2;
    auto label = [&](int &x, int top, const QString &name) {
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, top, metrics.horizontalAdvance(name) + 2, rowHeight), Qt::AlignVCenter, name);
        x += metrics.horizontalAdvance(name) + kSpacing;
    };
    // Row 1: the event kinds.
    int top = 1;
    int mid = top + rowHeight / 2;
    int x = 4;
    for (int s = 0; s < kEventStyleCount; ++s) {
        const auto style = static_cast<EventStyle>(s);
        painter.fillRect(QRect(x, mid - kSwatch / 2, kSwatch, kSwatch), eventColor(style));
        x += kSwatch + 4;
        label(x, top, eventStyleName(style));
    }
    // Row 2: how edges are drawn, then the flag and note markers.
    top += rowHeight;
    mid = top + rowHeight / 2;
    x = 4;
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (int p = 0; p < kEdgeProvenanceCount; ++p) {
        const auto provenance = static_cast<EdgeProvenance>(p);
        painter.setPen(edgePen(core::EdgeKind::Parent, provenance, false));
        painter.drawLine(QPointF(x, mid), QPointF(x + kLineLength, mid));
        x += kLineLength + 4;
        label(x, top, edgeProvenanceLabel(provenance));
    }
    x += kGroupGap;
    for (int m = 0; m < kEventMarkerCount; ++m) {
        const auto marker = static_cast<EventMarker>(m);
        drawEventMarker(painter, QRectF(x, mid - kMarkerHeight / 2.0, kMarkerWidth, kMarkerHeight), marker);
        x += kMarkerWidth + 4;
        label(x, top, eventMarkerLabel(marker));
    }
}

} // namespace linkscope::ui
