#include "timeline/timelinepalette.h"

namespace linkscope::ui::palette {

namespace {

const Colors kLight = {
    QColor(0xfb, 0xfb, 0xfc),      // background
    QColor(0xf0, 0xf2, 0xf5),      // laneShade
    QColor(0xdd, 0xe2, 0xea),      // groupBackground
    QColor(0xf4, 0xf5, 0xf7),      // headerBackground
    QColor(0xea, 0xec, 0xf0),      // rulerBackground
    QColor(0xff, 0xff, 0xff),      // overviewBackground
    QColor(0, 0, 0, 22),           // gridLine
    QColor(0, 0, 0, 60),           // separator
    QColor(0x20, 0x24, 0x2a),      // text
    QColor(0x10, 0x10, 0x10),      // selectionOutline
    QColor(0, 0, 0, 120),          // hoverOutline
    QColor(255, 255, 255, 210),    // halo
    QColor(255, 255, 255, 228),    // overlayBackground
    QColor(0x2f, 0x6f, 0xd6, 46),  // rangeFill
    QColor(0x2f, 0x6f, 0xd6),      // rangeEdge
    QColor(0x10, 0x40, 0x90),      // viewWindow
    QColor(0, 0, 0, 70),           // outsideView
    QColor(0xd9, 0x48, 0x00),      // pathOutline
    QColor(0xfb, 0xfb, 0xfc, 175), // pathDim
};

const Colors kDark = {
    QColor(0x1b, 0x1e, 0x23),      // background
    QColor(0x23, 0x27, 0x2e),      // laneShade
    QColor(0x34, 0x3a, 0x46),      // groupBackground
    QColor(0x22, 0x25, 0x2b),      // headerBackground
    QColor(0x2a, 0x2e, 0x36),      // rulerBackground
    QColor(0x16, 0x18, 0x1c),      // overviewBackground
    QColor(255, 255, 255, 26),     // gridLine
    QColor(255, 255, 255, 60),     // separator
    QColor(0xdc, 0xe0, 0xe6),      // text
    QColor(0xf2, 0xf2, 0xf2),      // selectionOutline
    QColor(255, 255, 255, 140),    // hoverOutline
    QColor(0x10, 0x12, 0x16, 200), // halo
    QColor(0x10, 0x12, 0x16, 228), // overlayBackground
    QColor(0x5a, 0x9a, 0xff, 56),  // rangeFill
    QColor(0x6a, 0xa4, 0xff),      // rangeEdge
    QColor(0x9c, 0xc2, 0xff),      // viewWindow
    QColor(0, 0, 0, 110),          // outsideView
    QColor(0xff, 0x9a, 0x3c),      // pathOutline
    QColor(0x1b, 0x1e, 0x23, 175), // pathDim
};

Theme g_theme = Theme::Light;

} // namespace

const Colors &colors(Theme theme) { return theme == Theme::Dark ? kDark : kLight; }
const Colors &current() { return colors(g_theme); }
Theme theme() { return g_theme; }
void setTheme(Theme theme) { g_theme = theme; }

} // namespace linkscope::ui::palette
