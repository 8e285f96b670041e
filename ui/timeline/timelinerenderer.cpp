#include "timeline/timelinerenderer.h"

#include "timeline/timelinebookmarks.h"
#include "timeline/timelineedges.h"
#include "timeline/timelinepalette.h"
#include "timeline/timelinepath.h"

#include <QPainter>

#include <optional>
#include <tuple>

namespace linkscope::ui {

void TimelineRenderer::invalidate()
{
    m_lanes.invalidate();
    m_pinnedLanes.invalidate();
}

TimelinePainted TimelineRenderer::render(QPainter &painter, const TimelineFrame &frame, const TimelineScene &scene)
{
    const TraceDocument &doc = frame.doc;
    const QRect &content = frame.content;
    const QRect &area = frame.area;
    // The rows walked part by part: the pinned rows at the top, the scrolling ones below them.
    const TimelineFrame scrolling = frame.scrollPart();
    const std::optional<TimelineFrame> pinned = frame.pinnedHeight > 0 ? std::optional(frame.pinnedPart()) : std::nullopt;
    TimelinePainted painted;
    TimelineLanePass::paintBackgrounds(painter, scrolling);
    if (pinned)
        TimelineLanePass::paintBackgrounds(painter, *pinned);
    TimelineRuler::paintGrid(painter, content, frame.start, frame.end, scene.rulerOrigin); // under the events
    m_lanes.paintEvents(painter, scrolling);
    if (pinned)
        m_pinnedLanes.paintEvents(painter, *pinned);
    if (scene.path.active())
        scene.path.paint(painter, doc, content, [&](core::EventIndex e) { return frame.eventRect(e); });
    TimelineLanePass::paintOutlines(painter, frame, {scene.highlighted, scene.hovered, scene.selected});
    TimelineOverlayPass::paintTimeRange(painter, frame, scene.rangeStart, scene.rangeEnd);
    scene.edges.paint(painter, doc, frame.layout, scene.selected, content, frame.start, frame.nanosPerPixel, frame.verticalOffset,
                      scene.notes, frame.pinnedHeight);
    painted.markers = TimelineOverlayPass::paintMarkers(painter, frame, scene.notes); // over the edges' heads
    if (scene.linkDrag)
        std::tie(painted.linkDragFrom, painted.linkDragTo) = TimelineOverlayPass::paintLinkDrag(painter, frame, *scene.linkDrag);
    painted.headerLabels = TimelineHeaderPass::paint(painter, scrolling, scene.headerDrag);
    if (pinned) {
        for (const TimelineHeaderLabel &label : TimelineHeaderPass::paint(painter, *pinned, TimelineHeaderDrag()))
            painted.headerLabels.push_back(label);
        // Where the scrolling rows pass under the pinned ones (once they do).
        if (frame.verticalOffset > 0) {
            painter.setPen(palette::current().separator);
            const int y = content.top() + frame.pinnedHeight - 1;
            painter.drawLine(0, y, content.right(), y);
        }
    }
    if (scene.overviewVisible)
        m_overview.paint(painter, doc, QRect(0, 0, area.width(), scene.overviewHeight), frame.headerWidth, frame.start,
                         frame.end);
    const QRect ruler(0, scene.overviewVisible ? scene.overviewHeight : 0, area.width(), scene.rulerHeight);
    TimelineRuler::paint(painter, frame.font, ruler, content, frame.start, frame.end, scene.rulerOrigin);
    scene.bookmarks.paint(painter, frame.font, ruler, content, frame.start, frame.nanosPerPixel);
    if (const auto pixels = TimelineOverlayPass::rangePixels(frame, scene.rangeStart, scene.rangeEnd))
        TimelineRuler::paintRangeLabel(painter, frame.font, ruler, content, pixels->first, pixels->second,
                                       scene.rangeEnd - scene.rangeStart);
    TimelineOverlayPass::paintStatus(painter, frame,
                                     {scene.edges, scene.showFrameTime, scene.lastFrameNanos, m_lanes.mergedColumns()});
    return painted;
}

} // namespace linkscope::ui
