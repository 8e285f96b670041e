#pragma once
// The timeline's horizontal viewport: which span of trace time is visible and how it maps onto the
// pixels of the event area. Pure arithmetic, no widget, so it is unit-tested on its own
// (tests/gui/test_timelineviewport.cpp). Times are trace nanoseconds; x is pixels from the left edge
// of the event area, `width` that area's width in pixels.
//
// The visible span is never shorter than kMinSpan. With trace bounds set, the view may extend half
// a view beyond either end of the trace and no further; a view wider than twice the trace shows the
// trace with a 5 % margin.

#include "model/common.h"

#include <optional>
#include <utility>

namespace linkscope::ui {

class TimelineViewport {
public:
    static constexpr core::Nanos kMinSpan = 50; // ns; below this a pixel is a fraction of a nanosecond

    core::Nanos start() const { return m_start; }
    core::Nanos end() const { return m_end; }
    core::Nanos span() const { return m_end - m_start; }

    // The trace's extent, for clamping and fitting; nullopt (no trace) disables clamping.
    void setTraceBounds(std::optional<std::pair<core::Nanos, core::Nanos>> bounds) { m_bounds = bounds; }

    // Shows [start, end) (widened to kMinSpan around its middle, then clamped). Returns false when the
    // requested range equals the current one, in which case nothing changes.
    bool setRange(core::Nanos start, core::Nanos end);

    double nanosPerPixel(int width) const { return static_cast<double>(m_end - m_start) / width; }
    double timeToX(core::Nanos t, int width) const;
    core::Nanos xToTime(double x, int width) const;

    // Multiplies the span by `factor` (< 1 zooms in) keeping the time under x (clamped to the area) fixed.
    bool zoomAt(double factor, double x, int width);
    bool panByPixels(double dx, int width);
    // Keeps the span and puts `centre` in the middle.
    bool centreOn(core::Nanos centre);
    // The whole trace with a 2 % margin each side; 0 … 1 ms without trace bounds.
    bool fitAll();
    // Shows [lo, hi] with `margin` each side.
    bool fitInterval(core::Nanos lo, core::Nanos hi, core::Nanos margin) { return setRange(lo - margin, hi + margin); }
    // Brings [ts, end) into view: unchanged when it is already inside; centred at the current zoom when it
    // is shorter than 80 % of the span; else zoomed out to show it with a margin of an eighth of it.
    bool reveal(core::Nanos ts, core::Nanos end);

private:
    void clamp();

    core::Nanos m_start = 0;
    core::Nanos m_end = 1;
    std::optional<std::pair<core::Nanos, core::Nanos>> m_bounds;
};

} // namespace linkscope::ui
