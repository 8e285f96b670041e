#pragma once
// Moving the timeline to what the user asks for: fit the selection (again: with its edges' far
// ends), frame an event with its parent, reveal an event (open what hides it, bring it into view),
// follow the selection's edges and cycle its focused edge, step along the selection's row. It acts
// through the view's public interface only.

#include "ground/tracedocument.h"
#include "model/common.h"

#include <vector>

namespace linkscope::ui {

class TimelineView;

class TimelineNavigation {
public:
    explicit TimelineNavigation(TimelineView &view) : m_view(view) { }

    // Fits the selection; a second call in a row also takes in the far ends of its edges.
    void fitSelection();
    // The next fitSelection() fits the selection alone (a new selection, a double-click).
    void resetFitWidth() { m_fitWide = false; }
    // Fits the selection alone (a double-click), whatever came before.
    void zoomToSelection()
    {
        resetFitWidth();
        fitSelection();
    }
    // Frames `event` with its current parent (the menu's Frame): an eighth of their extent as margin.
    void frameEvent(core::EventIndex event);
    // Opens what hides `event`'s row (TimelineArrangement::showRowOf) and brings it into view.
    void reveal(core::EventIndex event);
    // Selects the far end of the focused incoming/outgoing edge.
    void followEdge(bool outgoing);
    void cycleFocusedEdge(int delta);
    // Selects the previous (< 0) or next event on the selection's row.
    void stepOnRow(int delta);

private:
    std::vector<DrawEdgeIndex> selectedEdges(bool incoming) const;
    void fit(core::Nanos lo, core::Nanos hi);

    TimelineView &m_view;
    bool m_fitWide = false;
};

} // namespace linkscope::ui
