#include "timeline/timelinepalette.h"

#include <iterator>

namespace linkscope::ui::palette {

namespace {

// Each role's light and dark colour side by side, so that a new role gets both or neither.
struct Role {
    QColor Colors::*member;
    QColor light;
    QColor dark;
};

constexpr Role kRoles[] = {
    {&Colors::background, QColor(0xfb, 0xfb, 0xfc), QColor(0x1b, 0x1e, 0x23)},
    {&Colors::laneShade, QColor(0xf0, 0xf2, 0xf5), QColor(0x23, 0x27, 0x2e)},
    {&Colors::groupBackground, QColor(0xdd, 0xe2, 0xea), QColor(0x34, 0x3a, 0x46)},
    {&Colors::headerBackground, QColor(0xf4, 0xf5, 0xf7), QColor(0x22, 0x25, 0x2b)},
    {&Colors::rulerBackground, QColor(0xea, 0xec, 0xf0), QColor(0x2a, 0x2e, 0x36)},
    {&Colors::overviewBackground, QColor(0xff, 0xff, 0xff), QColor(0x16, 0x18, 0x1c)},
    {&Colors::gridLine, QColor(0, 0, 0, 22), QColor(255, 255, 255, 26)},
    {&Colors::separator, QColor(0, 0, 0, 60), QColor(255, 255, 255, 60)},
    {&Colors::text, QColor(0x20, 0x24, 0x2a), QColor(0xdc, 0xe0, 0xe6)},
    {&Colors::selectionOutline, QColor(0x10, 0x10, 0x10), QColor(0xf2, 0xf2, 0xf2)},
    {&Colors::hoverOutline, QColor(0, 0, 0, 120), QColor(255, 255, 255, 140)},
    {&Colors::halo, QColor(255, 255, 255, 210), QColor(0x10, 0x12, 0x16, 200)},
    {&Colors::overlayBackground, QColor(255, 255, 255, 228), QColor(0x10, 0x12, 0x16, 228)},
    {&Colors::rangeFill, QColor(0x2f, 0x6f, 0xd6, 46), QColor(0x5a, 0x9a, 0xff, 56)},
    {&Colors::rangeEdge, QColor(0x2f, 0x6f, 0xd6), QColor(0x6a, 0xa4, 0xff)},
    {&Colors::viewWindow, QColor(0x10, 0x40, 0x90), QColor(0x9c, 0xc2, 0xff)},
    {&Colors::outsideView, QColor(0, 0, 0, 70), QColor(0, 0, 0, 110)},
    // Indigo: no event kind, link, mark, selection or search hit is drawn in it.
    {&Colors::pathOutline, QColor(0x4a, 0x2c, 0xf0), QColor(0xa0, 0x8c, 0xff)},
    {&Colors::pathDim, QColor(0xfb, 0xfb, 0xfc, 175), QColor(0x1b, 0x1e, 0x23, 175)},
};
static_assert(std::size(kRoles) * sizeof(QColor) == sizeof(Colors), "every role of Colors has a row");

constexpr Colors makeColors(QColor Role::*theme)
{
    Colors colors;
    for (const Role &role : kRoles)
        colors.*role.member = role.*theme;
    return colors;
}

constexpr Colors kLight = makeColors(&Role::light);
constexpr Colors kDark = makeColors(&Role::dark);

Theme g_theme = Theme::Light;

} // namespace

const Colors &colors(Theme theme) { return theme == Theme::Dark ? kDark : kLight; }
const Colors &current() { return colors(g_theme); }
Theme theme() { return g_theme; }
void setTheme(Theme theme) { g_theme = theme; }

} // namespace linkscope::ui::palette
