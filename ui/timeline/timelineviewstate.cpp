#include "timeline/timelineviewstate.h"

namespace linkscope::ui {

TimelineViewState::TimelineViewState(QObject *parent) : QObject(parent), m_range(new TimeRangeSelection(this)) { }

void TimelineViewState::moved(bool changed)
{
    if (changed)
        emit windowChanged();
}

void TimelineViewState::setVisibleRange(core::Nanos start, core::Nanos end) { moved(m_viewport.setRange(start, end)); }

void TimelineViewState::centreOn(core::Nanos centre) { moved(m_viewport.centreOn(centre)); }

void TimelineViewState::fitAll() { moved(m_viewport.fitAll()); }

void TimelineViewState::reveal(core::Nanos ts, core::Nanos end) { moved(m_viewport.reveal(ts, end)); }

void TimelineViewState::zoomAt(double factor, double x, int width) { moved(m_viewport.zoomAt(factor, x, width)); }

void TimelineViewState::panByPixels(double dx, int width) { moved(m_viewport.panByPixels(dx, width)); }

void TimelineViewState::fitTimeRange()
{
    if (!m_range->has())
        return;
    const core::Nanos start = m_range->start(), end = m_range->end();
    moved(m_viewport.fitInterval(start, end, (end - start) / 40));
}

void TimelineViewState::setHover(Hover hover)
{
    if (hover == m_hover)
        return;
    m_hover = hover;
    emit hoverChanged();
}

void TimelineViewState::setSelectionModel(EventSelection *selection)
{
    if (selection == m_selection)
        return;
    m_selection = selection;
    emit selectionModelChanged();
}

} // namespace linkscope::ui
