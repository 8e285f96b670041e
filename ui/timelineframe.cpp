#include "timelineframe.h"

#include "timeformat.h"

#include <algorithm>

namespace linkscope::ui {

QRectF timelineEventRect(const TraceDocument &doc, const TimelineLayout &layout, core::EventIndex event, const QRect &content,
                         core::Nanos start, double nanosPerPixel, int verticalOffset)
{
    const core::TraceIndex &index = doc.index();
    if (!event.in(index.laneOf.size()) || index.laneOf[event.get()].isNone())
        return {};
    const core::LaneIndex lane = index.laneOf[event.get()];
    const int r = layout.rowOfDepth(lane, index.depth[event.get()]);
    if (r < 0)
        return {};
    const LayoutRow &row = layout.rows()[r];
    const core::DeviceEvent &e = doc.event(event);
    const double x0 = content.left() + timeToPixel(e.ts, start, nanosPerPixel);
    const double x1 = content.left() + timeToPixel(e.end(), start, nanosPerPixel);
    return QRectF(QPointF(x0, content.top() + row.y - verticalOffset + 1),
                  QPointF(std::max(x1, x0 + 1), content.top() + row.y - verticalOffset + row.height - 1));
}

QRectF TimelineFrame::eventRect(core::EventIndex event) const
{
    return timelineEventRect(doc, layout, event, content, start, nanosPerPixel, verticalOffset);
}

core::EventIndex timelineEventInRow(const TraceDocument &doc, const LayoutRow &row, core::Nanos t, core::Nanos tolerance)
{
    const LaneRows &rows = doc.laneRows(row.lane);
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
        if (distance < bestDistance
            || (distance == bestDistance && best.valid() && event.dur < trace.event(best).dur)) {
            best = rows.events[i];
            bestDistance = distance;
        }
        if (event.end() + tolerance < t && distance > bestDistance)
            break;
    }
    return best;
}

} // namespace linkscope::ui
