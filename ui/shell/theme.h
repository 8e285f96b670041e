#pragma once
// The application's theme (View ▸ Theme): System, Light or Dark. Light and Dark set the Fusion style
// with a light or dark palette for the widgets and switch the timeline's own colours
// (timelinepalette.h) to match; System gives back the style and palette the application started with,
// and the timeline follows that palette's window colour (dark when it is dark). Persisted in QSettings
// under "view/theme". GUI thread only.

#include <QString>

namespace linkscope::ui {

enum class ThemeChoice { System, Light, Dark };
inline constexpr int kThemeChoiceCount = 3;

QString themeChoiceName(ThemeChoice choice); // "System", "Light", "Dark" (translated)
void applyTheme(ThemeChoice choice);         // repaints every widget
ThemeChoice currentThemeChoice();
ThemeChoice savedThemeChoice();
void saveThemeChoice(ThemeChoice choice);

} // namespace linkscope::ui
