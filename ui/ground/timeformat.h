#pragma once
// Time ↔ text and time ↔ pixel conversions for the timeline, kept as free functions so that the
// tests check them without a widget.

#include "model/common.h"

#include <QString>

namespace linkscope::ui {

// "1.25 ms", "830 ns", "2.000 s": `digits` significant decimals after the unit's integer part.
QString formatDuration(core::Nanos ns, int decimals = 3);

// A time shown on the ruler: offset from the trace start, with enough decimals that two adjacent
// ticks `tickStep` apart read differently (e.g. "12.340 ms" for a 10 µs step).
QString formatTickLabel(core::Nanos offset, core::Nanos tickStep);

// The ruler's major tick step: a 1/2/5 × 10^k ns step whose spacing is at least `minPixels`.
core::Nanos niceTickStep(double nanosPerPixel, double minPixels);

// Pixel position of `time` for a view starting at `viewStart` with `nanosPerPixel`; no clamping.
// int64 difference first: epoch-based traces have ~1e18 ns timestamps where a double loses ns.
inline double timeToPixel(core::Nanos time, core::Nanos viewStart, double nanosPerPixel)
{
    return static_cast<double>(time - viewStart) / nanosPerPixel;
}

// "1 rank", "8 ranks": a count of ranks said as a person would.
QString ranksText(std::size_t ranks);

inline core::Nanos pixelToTime(double x, core::Nanos viewStart, double nanosPerPixel)
{
    return viewStart + static_cast<core::Nanos>(x * nanosPerPixel);
}

} // namespace linkscope::ui
