#pragma once
// Composes one frame of the timeline from its render passes, bottom to top: lane shading, grid,
// events (the pinned rows and the scrolling ones, each with its cached geometry), the critical
// path, outlines, the time range, edges, markers, the re-parent drag, the header column, the
// overview strip, the ruler with bookmarks and the range label, the status boxes. It returns what
// the passes report for hit-testing (TimelinePainted); the view keeps it.

#include "ground/eventnotes.h"
#include "timeline/timelineframe.h"
#include "timeline/timelineheaders.h"
#include "timeline/timelinelanes.h"
#include "timeline/timelineoverlays.h"
#include "timeline/timelineruler.h"

#include <cstddef>
#include <vector>

class QPainter;

namespace linkscope::ui {

class TimelineBookmarks;
class TimelineEdgeOverlay;
class TimelinePathOverlay;

// The view's state a frame draws besides the rows.
struct TimelineScene {
    const std::vector<core::EventIndex> &highlighted; // search hits, sorted by start
    core::EventIndex hovered{};                       // none or valid, as selected
    core::EventIndex selected{};
    core::Nanos rangeStart = 0; // the time range; empty when end <= start
    core::Nanos rangeEnd = 0;
    const TimelineLinkDrag *linkDrag = nullptr; // null: no re-parent drag
    const TimelineHeaderDrag &headerDrag;
    const EventNotes *notes = nullptr;
    const TimelinePathOverlay &path;
    TimelineEdgeOverlay &edges;   // paints and remembers what it drew
    TimelineBookmarks &bookmarks; // paints and remembers what it drew
    bool overviewVisible = true;
    int overviewHeight = 0;
    int rulerHeight = 0;
    core::Nanos rulerOrigin = 0;
    bool showFrameTime = false;
    qint64 lastFrameNanos = 0;
};

class TimelineRenderer {
public:
    TimelinePainted render(QPainter &painter, const TimelineFrame &frame, const TimelineScene &scene);
    // Forgets the cached geometry and overview strip: the next frame rebuilds them.
    void invalidate();
    void invalidateOverview() { m_overview.invalidate(); }

private:
    TimelineLanePass m_lanes;       // the scrolling rows
    TimelineLanePass m_pinnedLanes; // the pinned rows
    TimelineOverview m_overview;
};

} // namespace linkscope::ui
