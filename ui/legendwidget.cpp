#include "legendwidget.h"

#include "eventstyle.h"

#include <QPainter>

namespace linkscope::ui {

namespace {
constexpr int kSwatch = 11;
constexpr int kSpacing = 12;
constexpr int kLineLength = 26;
} // namespace

LegendWidget::LegendWidget(QWidget *parent) : QWidget(parent)
{
    setToolTip(tr("Event colours and edge line styles"));
}

QSize LegendWidget::sizeHint() const
{
    const QFontMetrics metrics(font());
    int width = 0;
    for (int s = 0; s < kEventStyleCount; ++s)
        width += kSwatch + 4 + metrics.horizontalAdvance(eventStyleName(static_cast<EventStyle>(s))) + kSpacing;
    for (int p = 0; p < kEdgeProvenanceCount; ++p)
        width += kLineLength + 4 + metrics.horizontalAdvance(edgeProvenanceLabel(static_cast<EdgeProvenance>(p))) + kSpacing;
    return QSize(width + 20, metrics.height() + 6);
}

void LegendWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QFontMetrics metrics(font());
    const int mid = height() / 2;
    int x = 4;
    for (int s = 0; s < kEventStyleCount; ++s) {
        const auto style = static_cast<EventStyle>(s);
        painter.fillRect(QRect(x, mid - kSwatch / 2, kSwatch, kSwatch), eventColor(style));
        x += kSwatch + 4;
        const QString name = eventStyleName(style);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, metrics.horizontalAdvance(name) + 2, height()), Qt::AlignVCenter, name);
        x += metrics.horizontalAdvance(name) + kSpacing;
    }
    x += 8;
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (int p = 0; p < kEdgeProvenanceCount; ++p) {
        const auto provenance = static_cast<EdgeProvenance>(p);
        painter.setPen(edgePen(core::EdgeKind::Parent, provenance, false));
        painter.drawLine(QPointF(x, mid), QPointF(x + kLineLength, mid));
        x += kLineLength + 4;
        const QString name = edgeProvenanceLabel(provenance);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, metrics.horizontalAdvance(name) + 2, height()), Qt::AlignVCenter, name);
        x += metrics.horizontalAdvance(name) + kSpacing;
    }
}

} // namespace linkscope::ui
