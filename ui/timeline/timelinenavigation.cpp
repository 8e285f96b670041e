#include "timeline/timelinenavigation.h"

#include "timeline/timelineview.h"

#include <algorithm>

namespace linkscope::ui {

void TimelineNavigation::fit(core::Nanos lo, core::Nanos hi)
{
    const core::Nanos span = std::max<core::Nanos>(hi - lo, TimelineViewport::kMinSpan);
    TimelineViewport viewport = m_view.state().viewport();
    viewport.fitInterval(lo, hi, span / 8);
    m_view.state().setVisibleRange(viewport.start(), viewport.end());
}

void TimelineNavigation::fitSelection()
{
    const DocumentPtr &doc = m_view.document();
    const EventSelection *selection = m_view.state().selectionModel();
    if (!doc || !selection || !selection->hasSelection())
        return;
    const core::EventIndex selected = selection->current();
    const core::DeviceEvent &event = doc->event(selected);
    core::Nanos lo = event.ts;
    core::Nanos hi = event.end();
    // A second F in a row also takes in the far ends of the selection's edges.
    if (m_fitWide) {
        auto [begin, end] = doc->edgesOf(selected);
        for (const DrawEdgeIndex *it = begin; it != end; ++it) {
            const DrawEdge &edge = doc->edges()[*it];
            if (!m_view.edgeOverlay().isKindVisible(edge.kind))
                continue;
            for (core::EventIndex e : {edge.from, edge.to}) {
                lo = std::min(lo, doc->event(e).ts);
                hi = std::max(hi, doc->event(e).end());
            }
        }
    }
    m_fitWide = !m_fitWide;
    fit(lo, hi);
    reveal(selected);
}

void TimelineNavigation::frameEvent(core::EventIndex e)
{
    const DocumentPtr &doc = m_view.document();
    if (!doc || !e.in(doc->eventCount()))
        return;
    if (EventSelection *selection = m_view.state().selectionModel())
        selection->selectInPlace(e);
    core::Nanos lo = doc->event(e).ts;
    core::Nanos hi = doc->event(e).end();
    if (const core::GpuLink *link = doc->gpuLink(e); link && link->parent.in(doc->eventCount())) {
        lo = std::min(lo, doc->event(link->parent).ts);
        hi = std::max(hi, doc->event(link->parent).end());
    }
    fit(lo, hi);
    reveal(e);
}

void TimelineNavigation::reveal(core::EventIndex event)
{
    const DocumentPtr &doc = m_view.document();
    if (!doc)
        return;
    const int r = m_view.arrangement().showRowOf(*doc, event); // opens what hides it
    if (r < -1)
        return;
    // Horizontally: keep the zoom when the event fits, else zoom out to show it with a margin.
    const core::DeviceEvent &e = doc->event(event);
    TimelineViewport viewport = m_view.state().viewport();
    if (viewport.reveal(e.ts, e.end()))
        m_view.state().setVisibleRange(viewport.start(), viewport.end());
    // Vertically: into the scrolling part, unless its row is pinned (always in view).
    if (r >= 0)
        m_view.scrollToRow(r);
    m_view.update();
}

std::vector<DrawEdgeIndex> TimelineNavigation::selectedEdges(bool incoming) const
{
    const EventSelection *selection = m_view.state().selectionModel();
    if (!m_view.document() || !selection || !selection->hasSelection())
        return {};
    return m_view.edgeOverlay().edgesOf(*m_view.document(), selection->current(), incoming);
}

void TimelineNavigation::followEdge(bool outgoing)
{
    EventSelection *selection = m_view.state().selectionModel();
    const DocumentPtr &doc = m_view.document();
    if (!doc || !selection || !selection->hasSelection())
        return;
    const std::vector<DrawEdgeIndex> candidates = selectedEdges(!outgoing);
    if (candidates.empty())
        return;
    DrawEdgeIndex edgeId = candidates.front();
    if (std::find(candidates.begin(), candidates.end(), m_view.edgeOverlay().focusedEdge()) != candidates.end())
        edgeId = m_view.edgeOverlay().focusedEdge();
    const DrawEdge &edge = doc->edges()[edgeId];
    selection->select(outgoing ? edge.to : edge.from);
    // Keep the edge we came along focused so that the way back is the same edge.
    m_view.setFocusedEdge(edgeId);
}

void TimelineNavigation::cycleFocusedEdge(int delta)
{
    std::vector<DrawEdgeIndex> all = selectedEdges(true);
    const std::vector<DrawEdgeIndex> out = selectedEdges(false);
    all.insert(all.end(), out.begin(), out.end());
    if (all.empty())
        return;
    auto it = std::find(all.begin(), all.end(), m_view.edgeOverlay().focusedEdge());
    int position = it == all.end() ? (delta > 0 ? -1 : 0) : static_cast<int>(it - all.begin());
    position = (position + delta + static_cast<int>(all.size())) % static_cast<int>(all.size());
    m_view.setFocusedEdge(all[position]);
}

void TimelineNavigation::stepOnRow(int delta)
{
    EventSelection *selection = m_view.state().selectionModel();
    const DocumentPtr &doc = m_view.document();
    if (!doc || !selection || !selection->hasSelection())
        return;
    const core::EventIndex selected = selection->current();
    const core::TraceIndex &index = doc->index();
    if (!selected.in(index.laneOf.size()) || index.laneOf[selected.get()].isNone())
        return;
    // The row as shown (without the Python frames while they are hidden; a frame itself by nesting).
    const TimelineLayout &layout = m_view.layout();
    const bool shown = layout.depthOf(selected) >= 0;
    const LaneRows &rows = shown ? layout.rowsOf(index.laneOf[selected.get()]) : doc->laneRows(index.laneOf[selected.get()]);
    const int depth = shown ? layout.depthOf(selected) : index.depth[selected.get()];
    const auto begin = rows.events.begin() + rows.rowBegin[depth];
    const auto end = rows.events.begin() + rows.rowBegin[depth + 1];
    const auto it = std::find(begin
                                  + (std::lower_bound(rows.starts.begin() + rows.rowBegin[depth],
                                                      rows.starts.begin() + rows.rowBegin[depth + 1], doc->event(selected).ts)
                                     - (rows.starts.begin() + rows.rowBegin[depth])),
                              end, selected);
    if (it == end)
        return;
    const auto target = it + delta;
    if (target < begin || target >= end)
        return;
    selection->select(*target);
}

} // namespace linkscope::ui
