#include "timeline/timelinearrangement.h"

namespace linkscope::ui {

int TimelineArrangement::showRowOf(const TraceDocument &doc, core::EventIndex event)
{
    const core::TraceIndex &index = doc.index();
    if (!event.in(doc.eventCount()) || !event.in(index.laneOf.size()) || index.laneOf[event.get()].isNone())
        return -2;
    const core::LaneIndex lane = index.laneOf[event.get()];
    const int group = m_layout.groupOfLane(lane);
    const int hiddenBefore = m_layout.hiddenCount();
    m_layout.setGroupHidden(group, false);
    m_layout.setLaneHidden(lane, false);
    if (m_layout.isGroupCollapsed(group))
        m_layout.setGroupCollapsed(group, false);
    if (m_layout.rowOfEvent(event) < 0)
        m_layout.setLaneCollapsed(lane, false);
    if (m_layout.rowOfEvent(event) < 0 && m_layout.hidePythonRows())
        m_layout.setHidePythonRows(false); // a Python frame was asked for
    if (const int r = m_layout.rowOfEvent(event); r >= 0 && m_layout.rows()[r].depth != m_layout.depthOf(event))
        m_layout.setPythonExpanded(lane, true); // folded into a Python summary row
    emit changed(m_layout.hiddenCount() != hiddenBefore);
    return m_layout.rowOfEvent(event);
}

void TimelineArrangement::toggleRow(const TraceDocument & /*doc*/, int r)
{
    if (r < 0 || r >= static_cast<int>(m_layout.rows().size()))
        return;
    const LayoutRow row = m_layout.rows()[r];
    if (row.kind == LayoutRow::Kind::GroupHeader)
        setGroupCollapsed(row.group, !m_layout.isGroupCollapsed(row.group));
    else if (row.folded > 0)
        setPythonExpanded(row.lane, true); // a Python summary row: its frames, one row each
    else if (m_layout.rowsOf(row.lane).rowCount() > 1)
        setLaneCollapsed(row.lane, !m_layout.isLaneCollapsed(row.lane));
}

} // namespace linkscope::ui
