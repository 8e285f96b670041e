#pragma once
// The dependency edges drawn over the timeline's events: which edges are shown (the selection's own
// edges and, for a CPU op, the parent edges of the ops nested in it; optionally every edge with an
// end in view, capped and sampled), the edge-kind filter, the focused edge, and the curves themselves.
// An end in a collapsed or hidden lane or group is folded onto its stand-in (the lane's shown row,
// the group's header, or the line where a hidden group would be): the curve is drawn dimmed and
// ends in a ring there instead of vanishing.

#include "ground/eventnotes.h"
#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QPointF>
#include <QRect>

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <vector>

class QPainter;

namespace linkscope::ui {

class TimelineEdgeOverlay {
public:
    static constexpr int kEdgeCap = 2000; // "all edges in view" draws at most this many

    struct PaintedEdge {
        DrawEdgeIndex edge{}; // TraceDocument::edges() id
        QPointF from;         // widget coordinates
        QPointF to;
        bool toExact = true;        // false: the target's row is folded away (collapsed or hidden; drawn dimmed, a ring)
        bool fromExact = true;      // the same for the source
        bool toHiddenGroup = false; // the target's whole group is hidden (its end is on the line where it would be)
        bool fromHiddenGroup = false;
        bool folded() const { return !toExact || !fromExact; }
    };
    // Folded edges are drawn with this alpha (of 255).
    static constexpr int kFoldedAlpha = 130;

    TimelineEdgeOverlay() { m_kinds.set(); }

    // Each setter returns whether anything changed.
    bool setShowAllInView(bool show);
    bool showAllInView() const { return m_showAll; }
    bool setKindVisible(core::EdgeKind kind, bool visible);
    bool isKindVisible(core::EdgeKind kind) const { return m_kinds.test(static_cast<std::size_t>(kind)); }
    void setFocusedEdge(DrawEdgeIndex edge) { m_focused = edge; }
    DrawEdgeIndex focusedEdge() const { return m_focused; }

    // The visible edges into (incoming) or out of `selected`: parent first, then launch, stream order,
    // sync, inter-thread, so `[` on a kernel goes to its parent.
    std::vector<DrawEdgeIndex> edgesOf(const TraceDocument &doc, core::EventIndex selected, bool incoming) const;

    // Paints the edges for a view of [start, start + nanosPerPixel · content.width()) and remembers them.
    // `selected` is the selected event or none; `notes` (may be null) turns the parent edge of a
    // GPU op the user flagged into the "Flagged" style.
    void paint(QPainter &painter, const TraceDocument &doc, const TimelineLayout &layout, core::EventIndex selected,
               const QRect &content, core::Nanos start, double nanosPerPixel, int verticalOffset,
               const EventNotes *notes = nullptr, int pinnedHeight = 0);
    // The provenance an edge is drawn with: the document's, or Flagged for a parent edge into a GPU
    // op the user flagged.
    static EdgeProvenance drawnProvenance(const DrawEdge &edge, const EventNotes *notes);
    // The last paint's record of edge `edge`, or null when it was not drawn.
    const PaintedEdge *paintedEdge(DrawEdgeIndex edge) const;
    void clearPainted() { m_painted.clear(); }

    const std::vector<PaintedEdge> &painted() const { return m_painted; }
    // The painted edge whose curve passes within `tolerance` pixels of `pos` (widget coordinates),
    // the nearest one, or none. Checks the last paint's curves (at most kEdgeCap of them).
    DrawEdgeIndex edgeAt(const QPointF &pos, double tolerance) const;
    // A point of a painted edge's curve, t in [0, 1] (the same cubic the painter draws).
    static QPointF curvePoint(const PaintedEdge &edge, double t);
    // The edge under the mouse is drawn a little thicker.
    void setHoveredEdge(DrawEdgeIndex edge) { m_hovered = edge; }
    DrawEdgeIndex hoveredEdge() const { return m_hovered; }
    // Edges in view that pass the filter when "all edges" is on (may exceed what was drawn); estimated
    // from a sample when there are more than 100,000 candidates in view (then inViewEstimated()).
    std::size_t inView() const { return m_inView; }
    bool inViewEstimated() const { return m_inViewEstimated; }

private:
    void collect(std::vector<DrawEdgeIndex> &out, const TraceDocument &doc, core::EventIndex selected, core::Nanos start,
                 core::Nanos end);

    bool m_showAll = false;
    std::bitset<core::kEdgeKindCount> m_kinds;
    DrawEdgeIndex m_focused{};
    DrawEdgeIndex m_hovered{};
    std::vector<PaintedEdge> m_painted;
    std::size_t m_inView = 0;
    bool m_inViewEstimated = false;
};

} // namespace linkscope::ui
