#include "timeline/timelinegeometry.h"

#include "ground/timeformat.h"

#include "base/nearsearch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace linkscope::ui {

namespace {

// First position in [from, end) whose start is >= t, galloping out from `from`
// (core/base/nearsearch.h): the next pixel column's first event is usually close.
std::uint32_t gallopLowerBound(const core::Nanos *starts, std::uint32_t from, std::uint32_t end, core::Nanos t)
{
    std::size_t finger = 0;
    return from
           + static_cast<std::uint32_t>(core::lowerBoundNear(std::span<const core::Nanos>(starts + from, end - from), t, finger));
}

// The labels of one row, placed so that none overlaps another: events of a row may overlap (one that
// only partly overlaps another is drawn beside it, as its sibling), and each label keeps to its
// event's free width: it starts after the end of the events before it, and the label before it
// ends where it starts. A label left narrower than kTimelineLabelMinWidth is dropped.
class RowLabels {
public:
    RowLabels(TimelineGeometry &geometry, int width) : m_geometry(geometry), m_width(width) { }

    // An event drawn over [left, right) pixels of the row, `top` and `height` as its rect.
    void add(core::EventIndex e, int left, int right, int top, int height)
    {
        // Back-to-back events share a pixel column (their ends are rounded outwards): not an overlap.
        const bool pushed = m_coveredRight - 1 > std::max(left, 0);
        const int begin = std::max({left, 0, m_coveredRight - 1});
        const int end = std::min(right, m_width);
        if (m_last >= 0) {
            QRect &previous = m_geometry.labels[m_last].rect;
            if (previous.right() >= left) {
                previous.setRight(left - 1);
                if (previous.width() < kTimelineLabelMinWidth - 1) {
                    m_geometry.labels.erase(m_geometry.labels.begin() + m_last);
                    m_last = -1;
                }
            }
        }
        m_coveredRight = std::max(m_coveredRight, right);
        if (right - left < kTimelineLabelMinWidth || height < kTimelineLabelMinHeight
            || (pushed && end - begin - 1 < kTimelineLabelMinWidth - 1))
            return;
        m_last = static_cast<std::ptrdiff_t>(m_geometry.labels.size());
        m_geometry.labels.push_back({QRect(begin, top, end - begin - 1, height), e, QString(), false});
    }

private:
    TimelineGeometry &m_geometry;
    int m_width;
    int m_coveredRight = std::numeric_limits<int>::min() / 2; // the right end of the events so far (no overflow at - 1)
    std::ptrdiff_t m_last = -1;                               // this row's last label in geometry.labels
};

void buildRowFromSummary(const TraceDocument &doc, TimelineGeometry &geometry, const LaneRows &rows, const RowSummary &summary,
                         int top, int width, double nanosPerPixel, int height)
{
    const core::DeviceTrace &trace = doc.device();
    const core::Nanos t0 = geometry.start;
    const core::Nanos t1 = geometry.end;
    // The coarsest level whose buckets are still no wider than a pixel: one or two per column.
    const int level = std::clamp(static_cast<int>(std::floor(std::log2(nanosPerPixel))) - summary.baseShift, 0,
                                 summary.levelCount() - 1);
    const int shift = summary.baseShift + level;
    const std::uint32_t levelBegin = summary.levelBegin[level];
    const std::int64_t bucketCount = summary.levelBegin[level + 1] - levelBegin;

    // Each bucket lands in the column holding its start; a column shows the colour of its most
    // covered bucket, so sub-pixel events stay visible as merged coverage.
    std::vector<std::uint8_t> columnStyle(width, 0); // 0: empty, else style + 1
    std::vector<std::uint8_t> columnCoverage(width, 0);
    const core::Nanos fromTime = std::max(t0, summary.origin) - summary.origin;
    std::int64_t bucket = fromTime >> shift;
    const std::int64_t lastBucket = std::min<std::int64_t>(bucketCount - 1, (t1 - summary.origin) >> shift);
    const std::uint8_t *coverage = summary.coverage.data() + levelBegin;
    const std::uint8_t *styles = summary.style.data() + levelBegin;
    for (; bucket <= lastBucket; ++bucket) {
        const std::uint8_t c = coverage[bucket];
        if (c == 0)
            continue;
        const core::Nanos bucketStart = summary.origin + (core::Nanos(bucket) << shift);
        const int column = static_cast<int>(std::floor(timeToPixel(std::max(bucketStart, t0), t0, nanosPerPixel)));
        if (column < 0 || column >= width)
            continue;
        if (c > columnCoverage[column]) {
            columnCoverage[column] = c;
            columnStyle[column] = static_cast<std::uint8_t>(styles[bucket] + 1);
        }
    }

    // Events at least a pixel wide are drawn on their own (with the gap and label of the
    // event-by-event path) and take their columns from the coverage. They are all in this
    // level's list, since a pixel is at least a bucket here.
    const std::uint32_t *longBegin = summary.longEvents.data() + summary.longBegin[level];
    const std::uint32_t *longEnd = summary.longEvents.data() + summary.longBegin[level + 1];
    const core::Nanos *starts = rows.starts.data();
    const std::uint32_t *it = std::upper_bound(longBegin, longEnd, t0,
                                               [&](core::Nanos t, std::uint32_t p) { return t < starts[p]; });
    for (int back = 0; back < 8 && it > longBegin; ++back) {
        if (trace.event(rows.events[*(it - 1)]).end() > t0)
            --it;
        else
            break;
    }
    RowLabels labels(geometry, width);
    for (; it < longEnd && starts[*it] < t1; ++it) {
        const core::EventIndex e = rows.events[*it];
        const core::DeviceEvent &event = trace.event(e);
        const double x0 = timeToPixel(event.ts, t0, nanosPerPixel);
        const double x1 = timeToPixel(event.end(), t0, nanosPerPixel);
        if (x1 - x0 < 1.0)
            continue;
        const int left = static_cast<int>(std::floor(std::max(x0, -2.0)));
        const int right = static_cast<int>(std::ceil(std::min(x1, width + 2.0)));
        const int w = std::max(1, right - left - (right - left >= 4 ? 1 : 0));
        geometry.rects[static_cast<int>(doc.style(e))].emplace_back(left, top, w, height);
        labels.add(e, left, right, top, height);
        std::fill(columnStyle.begin() + std::clamp(left, 0, width), columnStyle.begin() + std::clamp(right, 0, width),
                  std::uint8_t(0));
    }

    // What is left: one rect per run of columns of the same colour.
    for (int x = 0; x < width;) {
        const std::uint8_t style = columnStyle[x];
        int runEnd = x + 1;
        while (runEnd < width && columnStyle[runEnd] == style)
            ++runEnd;
        if (style != 0) {
            geometry.rects[style - 1].emplace_back(x, top, runEnd - x, height);
            geometry.mergedColumns += runEnd - x;
        }
        x = runEnd;
    }
}

} // namespace

void TimelineGeometry::clear()
{
    for (auto &list : rects)
        list.clear();
    labels.clear();
    mergedColumns = 0;
}

void buildTimelineRow(const TraceDocument &doc, TimelineGeometry &geometry, const LaneRows &rows, int row, int y, int width,
                      double nanosPerPixel, int rowHeight)
{
    const core::DeviceTrace &trace = doc.device();
    const std::uint32_t begin = rows.rowBegin[row];
    const std::uint32_t end = rows.rowBegin[row + 1];
    const core::Nanos *starts = rows.starts.data();
    const core::Nanos t0 = geometry.start;
    const core::Nanos t1 = geometry.end;

    // First event starting after t0, then step back over the few that start before t0 and may
    // still cover it (a row does not nest, so normally only one; partial overlaps allow a few).
    std::uint32_t i = static_cast<std::uint32_t>(std::upper_bound(starts + begin, starts + end, t0) - starts);
    for (int back = 0; back < 8 && i > begin; ++back) {
        if (trace.event(rows.events[i - 1]).end() > t0)
            --i;
        else
            break;
    }

    const int top = y + 1;
    const int height = rowHeight - 2;
    const RowSummary &summary = rows.summaries[row];
    if (summary.baseShift >= 0 && nanosPerPixel >= std::ldexp(1.0, summary.baseShift)) {
        buildRowFromSummary(doc, geometry, rows, summary, top, width, nanosPerPixel, height);
        return;
    }
    int lastStyle = -1;
    QRect *last = nullptr;
    RowLabels labels(geometry, width);
    while (i < end && starts[i] < t1) {
        const core::EventIndex e = rows.events[i];
        const core::DeviceEvent &event = trace.event(e);
        const double x0 = timeToPixel(event.ts, t0, nanosPerPixel);
        const double x1 = timeToPixel(event.end(), t0, nanosPerPixel);
        const int style = static_cast<int>(doc.style(e));
        if (x1 - x0 >= 1.0) {
            const int left = static_cast<int>(std::floor(std::max(x0, -2.0)));
            const int right = static_cast<int>(std::ceil(std::min(x1, width + 2.0)));
            // A one-pixel gap separates wide neighbours so that back-to-back kernels stay countable.
            const int w = std::max(1, right - left - (right - left >= 4 ? 1 : 0));
            geometry.rects[style].emplace_back(left, top, w, height);
            last = &geometry.rects[style].back();
            lastStyle = style;
            labels.add(e, left, right, top, height);
            ++i;
            continue;
        }
        // Sub-pixel: this event and every later one starting in the same pixel column become one
        // 1-px rect in the first event's colour; jump straight to the next column's first event.
        const int column = static_cast<int>(std::floor(x0));
        const core::Nanos nextColumnTime = t0 + static_cast<core::Nanos>(std::ceil((column + 1) * nanosPerPixel));
        std::uint32_t next = gallopLowerBound(starts, i + 1, end, nextColumnTime);
        // Events do not overlap within a row, so only the last skipped one can reach past this
        // column; draw it properly instead of folding it.
        if (next > i + 1 && trace.event(rows.events[next - 1]).end() > nextColumnTime)
            --next;
        if (last && lastStyle == style && last->top() == top && last->right() + 1 >= column)
            last->setRight(std::max(last->right(), column));
        else {
            geometry.rects[style].emplace_back(column, top, 1, height);
            last = &geometry.rects[style].back();
            lastStyle = style;
        }
        if (next > i + 1)
            ++geometry.mergedColumns;
        i = std::max(next, i + 1);
    }
}

void buildTimelineGeometry(const TraceDocument *doc, const TimelineLayout &layout, TimelineGeometry &geometry)
{
    geometry.clear();
    if (!doc)
        return;
    const int width = geometry.contentSize.width();
    const double nanosPerPixel = static_cast<double>(geometry.start < geometry.end ? geometry.end - geometry.start : 1) / width;
    const auto &rows = layout.rows();
    // Lane culling: only rows intersecting the viewport.
    const int verticalOffset = geometry.verticalOffset;
    int first = layout.rowAt(verticalOffset);
    if (first < 0) {
        first = static_cast<int>(
            std::upper_bound(rows.begin(), rows.end(), verticalOffset, [](int v, const LayoutRow &r) { return v < r.y; })
            - rows.begin());
        first = std::max(0, first - 1);
    }
    const int bottom = verticalOffset + geometry.contentSize.height();
    for (int r = first; r < static_cast<int>(rows.size()) && rows[r].y < bottom; ++r) {
        const LayoutRow &row = rows[r];
        if (row.kind != LayoutRow::Kind::LaneRow)
            continue;
        const LaneRows &laneRows = layout.rowsOf(row.lane);
        if (row.depth >= laneRows.rowCount())
            continue;
        buildTimelineRow(*doc, geometry, laneRows, row.depth, row.y - verticalOffset, width, nanosPerPixel, row.height);
    }
}

} // namespace linkscope::ui
