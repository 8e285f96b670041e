#pragma once
// The colours of the timeline's chrome (backgrounds, text, grid), shared by its painters.

#include <QColor>

namespace linkscope::ui::palette {

inline const QColor kBackground(0xfb, 0xfb, 0xfc);
inline const QColor kLaneShade(0xf0, 0xf2, 0xf5);
inline const QColor kGroupBackground(0xdd, 0xe2, 0xea);
inline const QColor kHeaderBackground(0xf4, 0xf5, 0xf7);
inline const QColor kRulerBackground(0xea, 0xec, 0xf0);
inline const QColor kGridLine(0, 0, 0, 22);
inline const QColor kText(0x20, 0x24, 0x2a);
inline const QColor kRangeFill(0x2f, 0x6f, 0xd6, 46);
inline const QColor kRangeEdge(0x2f, 0x6f, 0xd6);

} // namespace linkscope::ui::palette
