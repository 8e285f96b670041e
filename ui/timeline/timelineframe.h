#pragma once
// One frame of the timeline, as the render passes see it, and what they hand back.
//
// The view builds a TimelineFrame for each paint (what the frame shows: the document, the lane
// layout, the visible time range and its pixel scale, the vertical offset, the content and header
// areas) and runs the passes over it (timelinelanes, timelineheaders, timelineoverlays, the edges,
// the ruler). A pass never writes the widget: what hit-testing needs from the frame (the header
// labels drawn, the markers placed, the re-parent curve's ends) it returns, and the view keeps the
// last frame's TimelinePainted, as Qt Creator's tracing render passes return their state.

#include "ground/eventstyle.h"
#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QFont>
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>

#include <vector>

namespace linkscope::ui {

struct TimelineFrame {
    const TraceDocument &doc;
    const TimelineLayout &layout;
    QRect area;            // the whole frame, (0, 0) at its top-left
    QRect content;         // where events are drawn (right of the headers, below the ruler)
    core::Nanos start = 0; // the visible time range
    core::Nanos end = 0;
    double nanosPerPixel = 1.0;
    int verticalOffset = 0; // content y at the top of `content` (of the scrolling part)
    int headerWidth = 0;
    QFont font;
    // The pinned rows (content y below this) stay at the top of `content`; the rest scrolls under
    // them. 0: nothing pinned, everything scrolls.
    int pinnedHeight = 0;

    // Widget y of content y `y`.
    int widgetY(int y) const { return content.top() + y - (y < pinnedHeight ? 0 : verticalOffset); }
    // Where `event` is drawn in this frame; empty when its row is not shown (or scrolled under the pinned rows).
    QRectF eventRect(core::EventIndex event) const;
    // The pinned part (its rows at offset 0) and the scrolling part below it, each a frame without
    // pinned rows of its own, for the passes that walk the rows.
    TimelineFrame pinnedPart() const;
    TimelineFrame scrollPart() const;
};

// Content y under widget y `y` in a content area whose top is `top`, scrolled by `verticalOffset`
// below `pinnedHeight` pinned pixels.
inline int timelineContentY(int y, int top, int verticalOffset, int pinnedHeight)
{
    return y - top < pinnedHeight ? y - top : y - top + verticalOffset;
}

// The same, for any content rectangle and scale (hit testing between paints uses it too).
QRectF timelineEventRect(const TraceDocument &doc, const TimelineLayout &layout, core::EventIndex event, const QRect &content,
                         core::Nanos start, double nanosPerPixel, int verticalOffset, int pinnedHeight = 0);

// The event of layout row `row` nearest to time `t` within `tolerance` (one that contains t first;
// among near misses the closest; the shorter wins ties), or none.
core::EventIndex timelineEventInRow(const TraceDocument &doc, const TimelineLayout &layout, const LayoutRow &row, core::Nanos t,
                                    core::Nanos tolerance);

// A header label as drawn (widget coordinates). In a lane or group taller than the view whose top
// is scrolled off, the label is `sticky`: drawn at the top of the lane's visible part (pushed up by
// the lane's end), so the user always sees whose rows these are.
struct TimelineHeaderLabel {
    int group = -1;
    core::LaneIndex lane{}; // none: a group's header
    QRect rect;
    bool sticky = false;
};

// A flag or note marker as placed on its event (widget coordinates).
struct TimelinePaintedMarker {
    core::EventIndex event{};
    EventMarker marker = EventMarker::Flag;
    QRectF rect;
};

// What the passes of one frame return for hit-testing and the tests.
struct TimelinePainted {
    std::vector<TimelineHeaderLabel> headerLabels;
    std::vector<TimelinePaintedMarker> markers;
    QPointF linkDragFrom; // null points when the re-parent curve was not drawn
    QPointF linkDragTo;
};

} // namespace linkscope::ui
