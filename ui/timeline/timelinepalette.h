#pragma once
// The colours of the timeline's chrome (backgrounds, lane stripes, text, grid, outlines, halos),
// shared by its painters, in a light and a dark set. Event and edge colours (eventstyle.h) are the
// same in both: they are chosen to read on either background.
//
// The set in use is process-wide (one theme per application): setTheme() switches it, and
// palette::current() is what every painter reads per frame. GUI thread only.

#include <QColor>

namespace linkscope::ui::palette {

enum class Theme { Light, Dark };

struct Colors {
    QColor background;       // behind the lanes
    QColor laneShade;        // every other lane
    QColor groupBackground;  // group header bands
    QColor headerBackground; // the lane-header column
    QColor rulerBackground;  // ruler and overview strip
    QColor overviewBackground;
    QColor gridLine;
    QColor separator; // the header column's right edge, the ruler's bottom
    QColor text;
    QColor selectionOutline; // the selected event's frame
    QColor hoverOutline;
    QColor halo;              // drawn under edges and the drag curve so that they read over events
    QColor overlayBackground; // boxes with text over the lanes
    QColor rangeFill;
    QColor rangeEdge;
    QColor viewWindow;  // the overview's frame around the visible span
    QColor outsideView; // the overview's shade outside it
    QColor pathOutline; // critical-path mode: the ops on the path and the line joining them
    QColor pathDim;     // critical-path mode: washed over the ops off the path
};

const Colors &colors(Theme theme);
const Colors &current();
Theme theme();
void setTheme(Theme theme);

} // namespace linkscope::ui::palette
