#pragma once
// What a timeline shows, apart from how it is drawn: the visible time window, the Shift+drag time
// range, what the mouse hovers (an event, an edge) and the event selection it shows. One object with
// signals, as Qt Creator's TimelineZoomControl is for its views: the widget, its input and
// navigation helpers, and whoever follows a view (the rank panes, the job overview) read and change
// it here, not through the widget.
//
// Times are in the clock of the trace shown (trace nanoseconds); a job's reference window
// (RankPanes::jobWindow) is one on the job's aligned clock, shared by the job overview and mapped
// onto each rank's view. x and width are pixels of the area the window is drawn across (a view's
// event area), measured from its left edge.

#include "ground/eventselection.h"
#include "ground/tracedocument.h"
#include "timeline/timelineviewport.h"
#include "timeline/timerangeselection.h"

#include <QObject>

#include <optional>
#include <utility>

namespace linkscope::ui {

class TimelineViewState : public QObject {
    Q_OBJECT
public:
    explicit TimelineViewState(QObject *parent = nullptr);

    // --- The visible window (TimelineViewport: clamped to the trace's bounds when they are set) ---
    core::Nanos viewStart() const { return m_viewport.start(); }
    core::Nanos viewEnd() const { return m_viewport.end(); }
    const TimelineViewport &viewport() const { return m_viewport; }
    // The trace's extent (nullopt: none, no clamping). Does not move the window.
    void setTraceBounds(std::optional<std::pair<core::Nanos, core::Nanos>> bounds) { m_viewport.setTraceBounds(bounds); }
    void setVisibleRange(core::Nanos start, core::Nanos end);
    void centreOn(core::Nanos centre);
    // The whole trace with a small margin (TimelineViewport::fitAll).
    void fitAll();
    // Brings [ts, end) into view (TimelineViewport::reveal).
    void reveal(core::Nanos ts, core::Nanos end);
    // Multiplies the span by `factor` (< 1 zooms in) keeping the time at x of an area `width` wide fixed.
    void zoomAt(double factor, double x, int width);
    void panByPixels(double dx, int width);

    // --- The time range (Shift+drag; a band over every lane) ---
    TimeRangeSelection &timeRange() const { return *m_range; }
    // The window zooms to the range, with a small margin that keeps its edges in view.
    void fitTimeRange();

    // --- Hover (outlined; TimelineInput sets it as the mouse moves): an event, or else an edge ---
    struct Hover {
        core::EventIndex event{};
        DrawEdgeIndex edge{};
        bool operator==(const Hover &) const = default;
    };
    const Hover &hover() const { return m_hover; }
    void setHover(Hover hover);

    // --- The selection shown (shared with the docks; not owned) ---
    EventSelection *selectionModel() const { return m_selection; }
    void setSelectionModel(EventSelection *selection);

signals:
    void windowChanged(); // the visible window moved
    void hoverChanged();
    // Another selection object (not a selection change: EventSelection::changed says that).
    void selectionModelChanged();

private:
    void moved(bool changed);

    TimelineViewport m_viewport;
    TimeRangeSelection *m_range;
    Hover m_hover;
    EventSelection *m_selection = nullptr;
};

} // namespace linkscope::ui
