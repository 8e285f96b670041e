#include "timeline/timelineviewport.h"

#include "ground/timeformat.h"

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

bool TimelineViewport::setRange(core::Nanos start, core::Nanos end)
{
    if (end - start < kMinSpan) {
        const core::Nanos mid = start + (end - start) / 2;
        start = mid - kMinSpan / 2;
        end = start + kMinSpan;
    }
    if (start == m_start && end == m_end)
        return false;
    m_start = start;
    m_end = end;
    clamp();
    return true;
}

void TimelineViewport::clamp()
{
    if (!m_bounds)
        return;
    const auto [traceStart, traceEnd] = *m_bounds;
    const core::Nanos span = m_end - m_start;
    const core::Nanos traceSpan = traceEnd - traceStart;
    if (span > traceSpan * 2 + kMinSpan) {
        const core::Nanos margin = traceSpan / 20;
        m_start = traceStart - margin;
        m_end = traceEnd + margin;
        return;
    }
    const core::Nanos lo = traceStart - span / 2;
    const core::Nanos hi = traceEnd + span / 2;
    if (m_start < lo) {
        m_start = lo;
        m_end = lo + span;
    } else if (m_end > hi) {
        m_end = hi;
        m_start = hi - span;
    }
}

double TimelineViewport::timeToX(core::Nanos t, int width) const { return timeToPixel(t, m_start, nanosPerPixel(width)); }

core::Nanos TimelineViewport::xToTime(double x, int width) const { return pixelToTime(x, m_start, nanosPerPixel(width)); }

bool TimelineViewport::zoomAt(double factor, double x, int width)
{
    const double px = std::clamp(x, 0.0, double(width));
    const double span = static_cast<double>(m_end - m_start);
    const double newSpan = std::max<double>(kMinSpan, span * factor);
    // The time under the cursor stays under the cursor: t = start + px*span/width before and after.
    const core::Nanos anchor = m_start + static_cast<core::Nanos>(std::llround(px * span / width));
    const core::Nanos start = anchor - static_cast<core::Nanos>(std::llround(px * newSpan / width));
    return setRange(start, start + static_cast<core::Nanos>(std::llround(newSpan)));
}

bool TimelineViewport::panByPixels(double dx, int width)
{
    const core::Nanos delta = static_cast<core::Nanos>(std::llround(dx * nanosPerPixel(width)));
    return setRange(m_start + delta, m_end + delta);
}

bool TimelineViewport::centreOn(core::Nanos centre)
{
    const core::Nanos span = m_end - m_start;
    return setRange(centre - span / 2, centre - span / 2 + span);
}

bool TimelineViewport::fitAll()
{
    if (!m_bounds)
        return setRange(0, 1'000'000);
    const auto [traceStart, traceEnd] = *m_bounds;
    const core::Nanos margin = std::max<core::Nanos>((traceEnd - traceStart) / 50, 1);
    return setRange(traceStart - margin, traceEnd + margin);
}

bool TimelineViewport::reveal(core::Nanos ts, core::Nanos end)
{
    if (ts >= m_start && end <= m_end)
        return false;
    const core::Nanos span = m_end - m_start;
    const core::Nanos dur = end - ts;
    if (dur < span * 8 / 10) {
        const core::Nanos mid = ts + dur / 2;
        return setRange(mid - span / 2, mid - span / 2 + span);
    }
    const core::Nanos margin = std::max<core::Nanos>(dur / 8, kMinSpan);
    return setRange(ts - margin, end + margin);
}

} // namespace linkscope::ui
