#pragma once
// Level of detail: the rows of the lanes in view become plain rectangles, grouped by
// colour, plus the events wide enough for a label. Lanes outside the viewport are culled; per row a
// binary search finds the first visible event; events narrower than a pixel are merged into one rect
// per pixel column by jumping (galloping search) to the first event of the next column, or, when a
// row has a coverage summary coarse enough for the zoom, read from that summary; so the cost of a row
// is bounded by its width in pixels, not by its event count. No painting here: TimelineView paints
// the result and caches it until the time range, the size, the vertical offset or the layout change.

#include "ground/eventstyle.h"
#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QRect>
#include <QSize>
#include <QString>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace linkscope::ui {

struct TimelineLabel {
    QRect rect;
    core::EventIndex event{};
    QString text; // elided on first paint, then reused by hover/selection repaints
    bool elided = false;
};

struct TimelineGeometry {
    // What it was built for (the cache key).
    const TraceDocument *doc = nullptr;
    core::Nanos start = 0;
    core::Nanos end = 0;
    QSize contentSize;
    int verticalOffset = 0;
    std::uint64_t layoutVersion = 0;

    std::array<std::vector<QRect>, kEventStyleCount> rects; // content coordinates, per EventStyle
    std::vector<TimelineLabel> labels;
    std::size_t mergedColumns = 0; // pixel columns that stand for more than one event

    void clear();
};

inline constexpr int kTimelineLabelMinWidth = 36;  // px; narrower events get no label
inline constexpr int kTimelineLabelMinHeight = 12; // px; so do events in rows lower than this ("fit rows")

// Appends row `row` of `rows` as drawn between geometry.start and geometry.end at `nanosPerPixel`,
// `width` pixels wide, its top at y, `rowHeight` tall.
void buildTimelineRow(const TraceDocument &doc, TimelineGeometry &geometry, const LaneRows &rows, int row, int y, int width,
                      double nanosPerPixel, int rowHeight = TimelineLayout::kRowHeight);

// Clears `geometry` and fills it with every lane row of `layout` that intersects a content area of
// `geometry.contentSize` scrolled down by `geometry.verticalOffset`, for geometry.start … end.
void buildTimelineGeometry(const TraceDocument *doc, const TimelineLayout &layout, TimelineGeometry &geometry);

} // namespace linkscope::ui
