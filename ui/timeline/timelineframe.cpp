#include "timeline/timelineframe.h"

#include "ground/timeformat.h"

#include <algorithm>

namespace linkscope::ui {

QRectF timelineEventRect(const TraceDocument &doc, const TimelineLayout &layout, core::EventIndex event, const QRect &content,
                         core::Nanos start, double nanosPerPixel, int verticalOffset, int pinnedHeight)
{
    const core::TraceIndex &index = doc.index();
    if (!event.in(index.laneOf.size()) || index.laneOf[event.get()].isNone())
        return {};
    const int r = layout.rowOfEvent(event);
    if (r < 0)
        return {};
    const LayoutRow &row = layout.rows()[r];
    const core::DeviceEvent &e = doc.event(event);
    const double x0 = content.left() + timeToPixel(e.ts, start, nanosPerPixel);
    const double x1 = content.left() + timeToPixel(e.end(), start, nanosPerPixel);
    const bool pinned = row.y < pinnedHeight;
    const int top = content.top() + row.y - (pinned ? 0 : verticalOffset);
    QRectF rect(QPointF(x0, top + 1), QPointF(std::max(x1, x0 + 1), top + row.height - 1));
    if (pinnedHeight > 0 && !pinned) {
        // Under the pinned rows: cut to what shows below them.
        const double scrollTop = content.top() + pinnedHeight;
        if (rect.bottom() <= scrollTop)
            return {};
        rect.setTop(std::max(rect.top(), scrollTop));
    }
    return rect;
}

QRectF TimelineFrame::eventRect(core::EventIndex event) const
{
    return timelineEventRect(doc, layout, event, content, start, nanosPerPixel, verticalOffset, pinnedHeight);
}

TimelineFrame TimelineFrame::pinnedPart() const
{
    TimelineFrame part = *this;
    part.content.setHeight(pinnedHeight);
    part.verticalOffset = 0;
    part.pinnedHeight = 0;
    return part;
}

TimelineFrame TimelineFrame::scrollPart() const
{
    TimelineFrame part = *this;
    part.content.setTop(content.top() + pinnedHeight);
    part.verticalOffset = verticalOffset + pinnedHeight;
    part.pinnedHeight = 0;
    return part;
}

core::EventIndex timelineEventInRow(const TraceDocument &doc, const TimelineLayout &layout, const LayoutRow &row, core::Nanos t,
                                    core::Nanos tolerance)
{
    const LaneRows &rows = layout.rowsOf(row.lane);
    if (row.depth >= rows.rowCount())
        return core::kNone;
    const core::DeviceTrace &trace = doc.device();
    const core::Nanos *s = rows.starts.data();
    const std::uint32_t begin = rows.rowBegin[row.depth];
    const std::uint32_t end = rows.rowBegin[row.depth + 1];
    std::uint32_t i = static_cast<std::uint32_t>(std::upper_bound(s + begin, s + end, t + tolerance) - s);
    core::EventIndex best{};
    core::Nanos bestDistance = tolerance + 1;
    for (int steps = 0; i > begin && steps < 32; ++steps) {
        --i;
        const core::DeviceEvent &event = trace.event(rows.events[i]);
        const core::Nanos distance = t < event.ts ? event.ts - t : (t > event.end() ? t - event.end() : 0);
        // Prefer the event that contains t; among near misses the closest; shorter wins ties.
        if (distance < bestDistance || (distance == bestDistance && best.valid() && event.dur < trace.event(best).dur)) {
            best = rows.events[i];
            bestDistance = distance;
        }
        if (event.end() + tolerance < t && distance > bestDistance)
            break;
    }
    return best;
}

} // namespace linkscope::ui
