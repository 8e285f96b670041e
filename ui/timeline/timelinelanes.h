#pragma once
// The lanes' render pass: the lane shading and group bands under everything, the events (from the
// level-of-detail geometry, cached until the frame's range, size, offset or layout change) with
// their labels, and the outlines of search hits, the hovered and the selected event.

#include "timeline/timelineframe.h"
#include "timeline/timelinegeometry.h"

#include <cstddef>
#include <vector>

class QPainter;

namespace linkscope::ui {

class TimelineLanePass {
public:
    // Alternating shade per lane, and the group header bands across the whole width.
    static void paintBackgrounds(QPainter &painter, const TimelineFrame &frame);
    // The events in view, clipped to the content area; rebuilds the geometry when stale.
    void paintEvents(QPainter &painter, const TimelineFrame &frame);

    struct Outlines {
        const std::vector<core::EventIndex> &highlighted; // search hits, sorted by start
        core::EventIndex hovered{};                       // none, or a valid event
        core::EventIndex selected{};                      // none, or a valid event
    };
    static void paintOutlines(QPainter &painter, const TimelineFrame &frame, const Outlines &outlines);

    // Forgets the cached geometry: the next paint rebuilds it.
    void invalidate() { m_geometry.doc = nullptr; }
    // Pixel columns of the last build that stand for more than one event (the frame-time overlay).
    std::size_t mergedColumns() const { return m_geometry.mergedColumns; }

private:
    TimelineGeometry m_geometry;
};

} // namespace linkscope::ui
