#include "ground/eventstyle.h"

#include "link/rules.h"

#include <QCoreApplication>

namespace linkscope::ui {

EventStyle eventStyleOf(const core::DeviceTrace &trace, const core::DeviceEvent &event)
{
    using core::EventCategory;
    switch (event.category) {
    case EventCategory::Kernel:
        return core::isCollectiveKernel(trace, event) ? EventStyle::NcclKernel : EventStyle::Kernel;
    case EventCategory::GpuMemcpy:
        return EventStyle::Memcpy;
    case EventCategory::GpuMemset:
        return EventStyle::Memset;
    case EventCategory::CudaRuntime:
    case EventCategory::CudaDriver:
    case EventCategory::CudaSync:
        return EventStyle::Runtime;
    case EventCategory::CpuOp:
        return EventStyle::CpuOp;
    case EventCategory::UserAnnotation:
        return EventStyle::UserAnnotation;
    case EventCategory::GpuUserAnnotation:
        return EventStyle::GpuAnnotation;
    case EventCategory::PythonFunction:
        return EventStyle::Python;
    default:
        return EventStyle::Other;
    }
}

QColor eventColor(EventStyle style)
{
    // Hues far apart for the kinds users compare (kernel vs NCCL vs copies vs CPU); muted for context.
    static const std::array<QColor, kEventStyleCount> colors = {
        QColor(0x3b, 0x82, 0xd6), // Kernel: blue
        QColor(0xd6, 0x4f, 0x3b), // NcclKernel: red-orange
        QColor(0x2f, 0xa8, 0x5a), // Memcpy: green
        QColor(0x9a, 0xc9, 0x3b), // Memset: yellow-green
        QColor(0xe0, 0xa1, 0x2f), // Runtime: amber
        QColor(0x7e, 0x8f, 0xa8), // CpuOp: slate
        QColor(0x9b, 0x6b, 0xc9), // UserAnnotation: violet
        QColor(0xc4, 0x9b, 0xe0), // GpuAnnotation: light violet
        QColor(0x6b, 0xb0, 0xa8), // Python: teal
        QColor(0xa8, 0xa8, 0xa8), // Other: grey
    };
    return colors[static_cast<std::size_t>(style)];
}

QString eventStyleName(EventStyle style)
{
    switch (style) {
    case EventStyle::Kernel:
        return QCoreApplication::translate("EventStyle", "Kernel");
    case EventStyle::NcclKernel:
        return QCoreApplication::translate("EventStyle", "NCCL kernel");
    case EventStyle::Memcpy:
        return QCoreApplication::translate("EventStyle", "Memcpy");
    case EventStyle::Memset:
        return QCoreApplication::translate("EventStyle", "Memset");
    case EventStyle::Runtime:
        return QCoreApplication::translate("EventStyle", "Runtime call");
    case EventStyle::CpuOp:
        return QCoreApplication::translate("EventStyle", "CPU op");
    case EventStyle::UserAnnotation:
        return QCoreApplication::translate("EventStyle", "User annotation");
    case EventStyle::GpuAnnotation:
        return QCoreApplication::translate("EventStyle", "GPU annotation");
    case EventStyle::Python:
        return QCoreApplication::translate("EventStyle", "Python");
    case EventStyle::Other:
        return QCoreApplication::translate("EventStyle", "Other");
    }
    return {};
}

QColor edgeColor(core::EdgeKind kind)
{
    switch (kind) {
    case core::EdgeKind::Parent:
        return QColor(0xe8, 0x6a, 0x10); // orange: the link users inspect
    case core::EdgeKind::Launch:
        return QColor(0x12, 0x8c, 0x7e); // teal
    case core::EdgeKind::StreamOrder:
        return QColor(0x70, 0x70, 0x70); // grey
    case core::EdgeKind::Sync:
        return QColor(0x8e, 0x3c, 0xb8); // purple
    case core::EdgeKind::InterThread:
        return QColor(0x25, 0x5f, 0xc0); // blue
    }
    return Qt::black;
}

QString edgeKindLabel(core::EdgeKind kind)
{
    switch (kind) {
    case core::EdgeKind::Parent:
        return QCoreApplication::translate("EdgeKind", "Parent (CPU op → GPU op)");
    case core::EdgeKind::Launch:
        return QCoreApplication::translate("EdgeKind", "Launch (runtime → GPU op)");
    case core::EdgeKind::StreamOrder:
        return QCoreApplication::translate("EdgeKind", "Stream order");
    case core::EdgeKind::Sync:
        return QCoreApplication::translate("EdgeKind", "Synchronization");
    case core::EdgeKind::InterThread:
        return QCoreApplication::translate("EdgeKind", "Inter-thread");
    }
    return {};
}

QString edgeKindShortLabel(core::EdgeKind kind)
{
    switch (kind) {
    case core::EdgeKind::Parent:
        return QCoreApplication::translate("EdgeKind", "Parent");
    case core::EdgeKind::Launch:
        return QCoreApplication::translate("EdgeKind", "Launch");
    case core::EdgeKind::StreamOrder:
        return QCoreApplication::translate("EdgeKind", "Stream");
    case core::EdgeKind::Sync:
        return QCoreApplication::translate("EdgeKind", "Sync");
    case core::EdgeKind::InterThread:
        return QCoreApplication::translate("EdgeKind", "Thread");
    }
    return {};
}

QString edgeProvenanceLabel(EdgeProvenance provenance)
{
    switch (provenance) {
    case EdgeProvenance::Rule:
        return QCoreApplication::translate("EdgeProvenance", "Policy rule");
    case EdgeProvenance::Fallback:
        return QCoreApplication::translate("EdgeProvenance", "Fallback rule");
    case EdgeProvenance::Manual:
        return QCoreApplication::translate("EdgeProvenance", "Corrected by user");
    case EdgeProvenance::HasFinding:
        return QCoreApplication::translate("EdgeProvenance", "Has finding");
    case EdgeProvenance::Flagged:
        return QCoreApplication::translate("EdgeProvenance", "Flagged by you");
    }
    return {};
}

QPen edgePen(core::EdgeKind kind, EdgeProvenance provenance, bool focused)
{
    QColor color = edgeColor(kind);
    qreal width = 1.6;
    Qt::PenStyle style = Qt::SolidLine;
    switch (provenance) {
    case EdgeProvenance::Rule:
        break;
    case EdgeProvenance::Fallback:
        style = Qt::DashLine;
        break;
    case EdgeProvenance::Manual:
        color = QColor(0xd0, 0x1c, 0x8b); // magenta accent: a human decided this
        width = 2.4;
        break;
    case EdgeProvenance::HasFinding:
        color = QColor(0xc8, 0x8a, 0x00); // amber: the linker or a check raised something
        width = 2.2;
        style = Qt::DotLine;
        break;
    case EdgeProvenance::Flagged:
        color = QColor(0xe0, 0x10, 0x10); // red: a human said it is wrong
        width = 2.4;
        style = Qt::DashDotLine;
        break;
    }
    if (focused)
        width += 1.4;
    QPen pen(color, width, style, Qt::RoundCap, Qt::RoundJoin);
    return pen;
}

QString eventMarkerLabel(EventMarker marker)
{
    switch (marker) {
    case EventMarker::Flag:
        return QCoreApplication::translate("EventMarker", "Flag");
    case EventMarker::Note:
        return QCoreApplication::translate("EventMarker", "Note");
    }
    return {};
}

void drawEventMarker(QPainter &painter, const QRectF &box, EventMarker marker)
{
    painter.save();
    const QPointF o = box.topLeft();
    if (marker == EventMarker::Flag) {
        // A pole and a red pennant.
        painter.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.2));
        painter.drawLine(o + QPointF(1.5, 0.5), o + QPointF(1.5, kMarkerHeight - 0.5));
        QPolygonF pennant;
        pennant << o + QPointF(2, 0.5) << o + QPointF(kMarkerWidth - 0.5, 3.5) << o + QPointF(2, 7);
        painter.setPen(QPen(QColor(0x80, 0x00, 0x00), 0.8));
        painter.setBrush(QColor(0xe0, 0x10, 0x10));
        painter.drawPolygon(pennant);
    } else {
        // A yellow note with two lines of "text".
        const QRectF paper(o + QPointF(0.5, 1.5), QSizeF(kMarkerWidth - 1, kMarkerHeight - 3));
        painter.setPen(QPen(QColor(0x7a, 0x5c, 0x00), 0.8));
        painter.setBrush(QColor(0xff, 0xd8, 0x40));
        painter.drawRect(paper);
        painter.setPen(QPen(QColor(0x7a, 0x5c, 0x00), 0.8));
        for (double y : {4.5, 7.0})
            painter.drawLine(o + QPointF(2.5, y), o + QPointF(kMarkerWidth - 2.5, y));
    }
    painter.restore();
}

QColor selectionColor() { return QColor(0xff, 0xd4, 0x00); }
QColor hoverColor() { return QColor(255, 255, 255, 90); }
QColor searchHitColor() { return QColor(0x00, 0xc8, 0xff); }

} // namespace linkscope::ui
