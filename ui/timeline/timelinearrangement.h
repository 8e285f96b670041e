#pragma once
// What the user arranged of the timeline's lanes, on top of TimelineLayout: collapsed, hidden and
// pinned groups and lanes, Python frames hidden or folded, the order. Each change is announced
// with `changed(save)` (save: it belongs in the trace's view settings), and the view redraws.

#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QObject>

namespace linkscope::ui {

class TimelineArrangement : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    const TimelineLayout &layout() const { return m_layout; }
    TimelineLayout &layout() { return m_layout; }

    void setGroupCollapsed(int group, bool collapsed) { apply(true, &TimelineLayout::setGroupCollapsed, group, collapsed); }
    void setLaneCollapsed(core::LaneIndex lane, bool collapsed)
    {
        apply(true, &TimelineLayout::setLaneCollapsed, lane, collapsed);
    }
    void setGroupHidden(int group, bool hidden) { apply(true, &TimelineLayout::setGroupHidden, group, hidden); }
    void setLaneHidden(core::LaneIndex lane, bool hidden) { apply(true, &TimelineLayout::setLaneHidden, lane, hidden); }
    void showAllHidden() { apply(true, &TimelineLayout::showAllHidden); }
    void setHidePythonRows(bool hide) { apply(true, &TimelineLayout::setHidePythonRows, hide); }
    // The lane filter (TimelineLayout::setLaneFilter): not saved with the view settings.
    void setLaneFilter(const QString &text, const QString &context = {})
    {
        apply(false, &TimelineLayout::setLaneFilter, text, context);
    }
    void setFoldPythonRows(bool fold) { apply(true, &TimelineLayout::setFoldPythonRows, fold); }
    void setPythonExpanded(core::LaneIndex lane, bool expanded)
    {
        apply(false, &TimelineLayout::setPythonExpanded, lane, expanded);
    }
    void setGroupPinned(int group, bool pinned) { apply(true, &TimelineLayout::setGroupPinned, group, pinned); }
    void setGpuFirst(bool gpuFirst) { apply(true, &TimelineLayout::setGpuFirst, gpuFirst); }
    void resetOrder() { apply(true, &TimelineLayout::resetOrder); }
    // Moves (TimelineLayout::moveGroup ...); announced only when something moved.
    void moveGroup(int group, int position) { move(&TimelineLayout::moveGroup, group, position); }
    void moveLane(core::LaneIndex lane, int position) { move(&TimelineLayout::moveLane, lane, position); }
    void moveGroupBy(int group, int delta) { move(&TimelineLayout::moveGroupBy, group, delta); }
    void moveLaneBy(core::LaneIndex lane, int delta) { move(&TimelineLayout::moveLaneBy, lane, delta); }

    // Opens what hides `event`'s row of `doc` (its group, lane, collapsed rows, hidden or folded
    // Python frames); returns the row's index, -1 if it is still not shown, -2 for no such event.
    int showRowOf(const TraceDocument &doc, core::EventIndex event);
    // A click on header row `row`: a group collapses or expands, a Python summary row expands its
    // frames, a lane of several rows collapses or expands.
    void toggleRow(const TraceDocument &doc, int row);

signals:
    void changed(bool save);

private:
    template <typename F, typename... A>
    void apply(bool save, F f, A... args)
    {
        (m_layout.*f)(args...);
        emit changed(save);
    }
    template <typename F, typename... A>
    void move(F f, A... args)
    {
        if ((m_layout.*f)(args...))
            emit changed(true);
    }

    TimelineLayout m_layout;
};

} // namespace linkscope::ui
