#include "ground/timeformat.h"

#include <QCoreApplication>

#include <cmath>
#include <cstdlib>

namespace linkscope::ui {

namespace {

struct Unit {
    core::Nanos scale;
    const char *suffix;
};

Unit unitFor(core::Nanos magnitude)
{
    if (magnitude >= 1'000'000'000)
        return {1'000'000'000, "s"};
    if (magnitude >= 1'000'000)
        return {1'000'000, "ms"};
    if (magnitude >= 1'000)
        return {1'000, "µs"};
    return {1, "ns"};
}

} // namespace

QString formatDuration(core::Nanos ns, int decimals)
{
    const Unit unit = unitFor(std::llabs(ns));
    if (unit.scale == 1)
        return QString::number(ns) + QStringLiteral(" ns");
    return QString::number(static_cast<double>(ns) / static_cast<double>(unit.scale), 'f', decimals) + u' '
           + QString::fromUtf8(unit.suffix);
}

QString formatTickLabel(core::Nanos offset, core::Nanos tickStep)
{
    // The unit follows the magnitude of the position; the decimals follow the step, so that
    // labels on a 10 µs grid at 12 ms read "12.340 ms", "12.350 ms".
    const core::Nanos magnitude = std::max<core::Nanos>(std::llabs(offset), tickStep);
    const Unit unit = unitFor(magnitude);
    if (unit.scale == 1)
        return QString::number(offset) + QStringLiteral(" ns");
    int decimals = 0;
    for (core::Nanos s = unit.scale; s > tickStep && s > 1 && decimals < 9; s /= 10)
        ++decimals;
    return QString::number(static_cast<double>(offset) / static_cast<double>(unit.scale), 'f', decimals) + u' '
           + QString::fromUtf8(unit.suffix);
}

core::Nanos niceTickStep(double nanosPerPixel, double minPixels)
{
    const double minStep = std::max(1.0, nanosPerPixel * minPixels);
    double decade = std::pow(10.0, std::floor(std::log10(minStep)));
    for (;;) {
        for (double factor : {1.0, 2.0, 5.0}) {
            if (decade * factor >= minStep)
                return static_cast<core::Nanos>(std::llround(decade * factor));
        }
        decade *= 10.0;
    }
}

QString ranksText(std::size_t ranks)
{
    return ranks == 1 ? QCoreApplication::translate("ranks", "1 rank")
                      : QCoreApplication::translate("ranks", "%L1 ranks").arg(static_cast<qulonglong>(ranks));
}

} // namespace linkscope::ui
