#include "timeline/timelinetooltips.h"

#include "ground/eventstyle.h"
#include "ground/fromstd.h"
#include "ground/timeformat.h"

namespace linkscope::ui {

namespace {

QString htmlEscaped(const QString &s) { return s.toHtmlEscaped(); }

} // namespace

QString TimelineTooltips::event(const TraceDocument &doc, core::EventIndex e, const EventNotes *notes)
{
    const core::DeviceEvent &event = doc.event(e);
    QString html = QStringLiteral("<b>%1</b><br>%2 · %3<br>start +%4 · duration %5")
                       .arg(htmlEscaped(doc.eventName(e)), eventStyleName(doc.style(e)),
                            htmlEscaped(fromStd(categoryName(event.category))), formatDuration(event.ts - doc.startTime()),
                            formatDuration(event.dur));
    if (const core::GpuLink *link = doc.gpuLink(e)) {
        if (link->parent.in(doc.eventCount()))
            html += QStringLiteral("<br>parent: %1 <i>(%2)</i>")
                        .arg(htmlEscaped(doc.eventName(link->parent)), fromStd(parentRuleName(link->rule)));
        else
            html += QStringLiteral("<br><font color='#c00'>orphan: %1</font>").arg(fromStd(orphanReasonName(link->orphan)));
    }
    if (doc.hasFinding(e))
        html += tr("<br><font color='#b07000'>has a finding (see Details)</font>");
    if (notes) {
        if (auto it = notes->flags.find(e); it != notes->flags.end())
            html += tr("<br><font color='#c00'>⚑ flagged by you as wrong</font>%1")
                        .arg(it->second.isEmpty() ? QString() : QStringLiteral(": ") + htmlEscaped(it->second));
        if (auto it = notes->notes.find(e); it != notes->notes.end())
            html += tr("<br>✎ note: %1").arg(htmlEscaped(it->second));
        if (notes->isAccepted(e))
            html += tr("<br>✓ accepted by you");
    }
    return html;
}

QString TimelineTooltips::edge(const TraceDocument &doc, const TimelineLayout &layout, DrawEdgeIndex id)
{
    if (!id.in(doc.edges().size()))
        return {};
    const DrawEdge &edge = doc.edges()[id];
    QString how = edgeProvenanceLabel(edge.provenance);
    if (edge.kind == core::EdgeKind::Parent)
        if (const core::GpuLink *link = doc.gpuLink(edge.to))
            how = tr("rule %1 · %2").arg(fromStd(parentRuleName(link->rule)), how);
    auto end = [&](core::EventIndex e) {
        const core::DeviceEvent &event = doc.event(e);
        return tr("%1 <i>(%2, +%3 … +%4)</i>")
            .arg(htmlEscaped(doc.eventName(e)), eventStyleName(doc.style(e)), formatDuration(event.ts - doc.startTime()),
                 formatDuration(event.end() - doc.startTime()));
    };
    // An end folded into a collapsed or hidden lane or group says where it is.
    auto folded = [&](core::EventIndex e) -> QString {
        const core::TraceIndex &index = doc.index();
        if (!e.in(index.laneOf.size()) || index.laneOf[e.get()].isNone())
            return {};
        const core::LaneIndex lane = index.laneOf[e.get()];
        const int group = layout.groupOfLane(lane);
        const QString groupLabel = htmlEscaped(layout.groups()[group].label);
        if (layout.isGroupHidden(group))
            return tr(" <i>· in hidden group “%1”</i>").arg(groupLabel);
        if (layout.isGroupCollapsed(group))
            return tr(" <i>· in collapsed group “%1”</i>").arg(groupLabel);
        if (layout.isLaneHidden(lane))
            return tr(" <i>· in a hidden lane of “%1”</i>").arg(groupLabel);
        if (layout.rowOfEvent(e) < 0)
            return tr(" <i>· on a folded row (collapsed lane or hidden Python rows)</i>");
        return {};
    };
    return tr("<b>%1 edge</b> · %2<br>from: %3%4<br>to: %5%6")
        .arg(htmlEscaped(edgeKindLabel(edge.kind)), htmlEscaped(how), end(edge.from), folded(edge.from), end(edge.to),
             folded(edge.to));
}

} // namespace linkscope::ui
