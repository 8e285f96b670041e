#include "timeline/timerangeselection.h"

#include <algorithm>
#include <utility>

namespace linkscope::ui {

void TimeRangeSelection::set(core::Nanos start, core::Nanos end)
{
    if (end < start)
        std::swap(start, end);
    if (start == end)
        start = end = 0;
    if (start == m_start && end == m_end)
        return;
    m_start = start;
    m_end = end;
    emit changed();
}

void TimeRangeSelection::preview(core::Nanos start, core::Nanos end)
{
    m_start = std::min(start, end);
    m_end = std::max(start, end);
    emit redraw();
}

void TimeRangeSelection::commit(core::Nanos start, core::Nanos end)
{
    // Reset first so that set() always announces the result.
    m_start = m_end = 0;
    if (start == end) {
        emit changed();
        return;
    }
    set(start, end);
}

} // namespace linkscope::ui
