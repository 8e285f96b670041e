#include "timeline/timerange.h"

#include "ground/timeformat.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>

namespace linkscope::ui {

namespace {

bool isGpuOpStyle(EventStyle style)
{
    return style == EventStyle::Kernel || style == EventStyle::NcclKernel || style == EventStyle::Memcpy
           || style == EventStyle::Memset;
}

QString tr(const char *text) { return QCoreApplication::translate("TimeRange", text); }

} // namespace

std::uint64_t TimeRangeSummary::events() const
{
    std::uint64_t n = 0;
    for (const TimeRangeGroup &g : groups)
        n += g.events;
    return n;
}

std::uint64_t TimeRangeSummary::gpuOps() const
{
    std::uint64_t n = 0;
    for (const TimeRangeGroup &g : groups)
        n += g.gpuOps;
    return n;
}

bool TimeRangeSummary::estimated() const
{
    return std::any_of(groups.begin(), groups.end(), [](const TimeRangeGroup &g) { return g.gpuOpsEstimated; });
}

std::pair<std::uint32_t, std::uint32_t> rowEventsOverlapping(const LaneRows &rows, int row, const core::DeviceTrace &trace,
                                                             core::Nanos start, core::Nanos end)
{
    const std::uint32_t begin = rows.rowBegin[row];
    const std::uint32_t stop = rows.rowBegin[row + 1];
    const core::Nanos *starts = rows.starts.data();
    // Everything starting before `end`...
    const auto last = static_cast<std::uint32_t>(std::lower_bound(starts + begin, starts + stop, end) - starts);
    // ...minus what ended by `start`. Events of a row do not nest, so their ends rise with their
    // starts except for the few partial overlaps; step back over those as the painter does.
    auto first = static_cast<std::uint32_t>(std::upper_bound(starts + begin, starts + last, start) - starts);
    for (int back = 0; back < 8 && first > begin; ++back) {
        if (trace.event(rows.events[first - 1]).end() > start)
            --first;
        else
            break;
    }
    return {first, std::max(first, last)};
}

TimeRangeSummary summarizeTimeRange(const TraceDocument &doc, const TimelineLayout &layout, core::Nanos start, core::Nanos end)
{
    TimeRangeSummary summary;
    summary.start = std::min(start, end);
    summary.end = std::max(start, end);
    const core::DeviceTrace &trace = doc.device();
    struct Span {
        const LaneRows *rows;
        std::uint32_t first, last;
        std::size_t group;
    };
    std::vector<Span> gpuSpans;
    std::uint64_t gpuCandidates = 0;
    for (const TimelineGroup &group : layout.groups()) {
        TimeRangeGroup out;
        out.label = group.label;
        out.gpu = group.gpu;
        for (core::LaneIndex lane : group.lanes) {
            const LaneRows &rows = doc.laneRows(lane);
            for (int r = 0; r < rows.rowCount(); ++r) {
                const auto [first, last] = rowEventsOverlapping(rows, r, trace, summary.start, summary.end);
                out.events += last - first;
                if (group.gpu && last > first) {
                    gpuSpans.push_back({&rows, first, last, summary.groups.size()});
                    gpuCandidates += last - first;
                }
            }
        }
        summary.groups.push_back(std::move(out));
    }
    // GPU ops sit in the GPU groups only (kernels, memcpys, memsets), among GPU annotations.
    const std::uint64_t stride = gpuCandidates <= kExactGpuOpBudget ? 1
                                                                    : (gpuCandidates + kExactGpuOpBudget - 1) / kExactGpuOpBudget;
    for (const Span &span : gpuSpans) {
        std::uint64_t seen = 0, ops = 0;
        for (std::uint64_t p = span.first; p < span.last; p += stride) {
            ++seen;
            ops += isGpuOpStyle(doc.style(span.rows->events[p])) ? 1 : 0;
        }
        TimeRangeGroup &group = summary.groups[span.group];
        if (stride == 1) {
            group.gpuOps += ops;
        } else {
            group.gpuOps += seen ? static_cast<std::uint64_t>(double(ops) / seen * (span.last - span.first) + 0.5) : 0;
            group.gpuOpsEstimated = true;
        }
    }
    return summary;
}

QString timeRangeHtml(const TimeRangeSummary &summary)
{
    const QLocale locale;
    auto count = [&](std::uint64_t n, bool estimated) {
        return (estimated ? QStringLiteral("~") : QString()) + locale.toString(qulonglong(n));
    };
    QString html = QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>")
                       .arg(tr("Time range %1").arg(formatDuration(summary.end - summary.start)));
    html += QStringLiteral("<p style='color:#555;margin-top:0'>%1</p>")
                .arg(tr("%1 events · %2 GPU ops (F zooms to it, Esc clears)")
                         .arg(count(summary.events(), false), count(summary.gpuOps(), summary.estimated())));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'><tr><th align='left'>%1</th><th align='right'>%2</th>"
                           "<th align='right'>%3</th></tr>")
                .arg(tr("Lane group"), tr("events"), tr("GPU ops"));
    for (const TimeRangeGroup &group : summary.groups) {
        if (group.events == 0)
            continue;
        html += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td></tr>")
                    .arg(group.label.toHtmlEscaped(), count(group.events, false),
                         group.gpu ? count(group.gpuOps, group.gpuOpsEstimated) : QStringLiteral("—"));
    }
    html += QStringLiteral("</table><hr>");
    return html;
}

} // namespace linkscope::ui
