#pragma once
// How events and edges look: one colour per event kind, one pen per edge kind and provenance.
// The timeline, the legend and the tests all read these tables, so a colour is defined once.

#include "link/linkset.h"
#include "model/devicetrace.h"

#include <QColor>
#include <QPainter>
#include <QPen>
#include <QString>

#include <array>
#include <cstdint>

namespace linkscope::ui {

// What the user distinguishes on the timeline; coarser than core::EventCategory.
enum class EventStyle : std::uint8_t {
    Kernel,
    NcclKernel,
    Memcpy,
    Memset,
    Runtime,
    CpuOp,
    UserAnnotation,
    GpuAnnotation,
    Python,
    Other,
};
inline constexpr int kEventStyleCount = static_cast<int>(EventStyle::Other) + 1;

EventStyle eventStyleOf(const core::DeviceTrace &trace, const core::DeviceEvent &event);
QColor eventColor(EventStyle style);
QString eventStyleName(EventStyle style);

// Why an edge is drawn the way it is (A.3: provenance must be visible).
enum class EdgeProvenance : std::uint8_t {
    Rule,       // chosen by the run's policy rule or an exact id match
    Fallback,   // a weaker rule than the policy's own (latest-starting, flow/External id launch match)
    Manual,     // corrected by the user (ParentRule::Manual)
    HasFinding, // the target has a finding (warning or error) the user has not flagged
    Flagged,    // the user flagged the target's link as wrong (EventNotes; drawn over the others)
};
inline constexpr int kEdgeProvenanceCount = static_cast<int>(EdgeProvenance::Flagged) + 1;

QColor edgeColor(core::EdgeKind kind);
QString edgeKindLabel(core::EdgeKind kind);
QString edgeKindShortLabel(core::EdgeKind kind); // toolbar text: "Parent", "Launch", ...
QString edgeProvenanceLabel(EdgeProvenance provenance);
// The pen for an edge; `focused` edges (the one `[`/`]` follows) are drawn thicker.
QPen edgePen(core::EdgeKind kind, EdgeProvenance provenance, bool focused);

// The markers drawn on an event the user flagged or wrote a note on (timeline and legend).
enum class EventMarker : std::uint8_t { Flag, Note };
inline constexpr int kEventMarkerCount = 2;
inline constexpr int kMarkerWidth = 10;
inline constexpr int kMarkerHeight = 12;
QString eventMarkerLabel(EventMarker marker);
// Draws the marker in `box` (kMarkerWidth × kMarkerHeight; antialiased by the caller if wanted).
void drawEventMarker(QPainter &painter, const QRectF &box, EventMarker marker);

// Accent colours used for overlays.
QColor selectionColor();
QColor hoverColor();
QColor searchHitColor();

} // namespace linkscope::ui
