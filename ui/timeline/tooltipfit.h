#pragma once
// Tooltips that stay on the screen: Qt places a tooltip within the screen's full geometry and lets a
// tall one run off its bottom (a status-bar label's list of warnings, a long warning message). These
// helpers bound the text to what the screen's available geometry (without panels and docks) holds
// and move the tip inside it.

#include <QPoint>
#include <QRect>
#include <QString>

class QObject;
class QWidget;

namespace linkscope::ui {

// `text` cut to the lines `available` holds in `widget`'s tooltip font (the last line says how many
// were left out), each line wrapped at about 100 characters.
QString toolTipTextWithin(const QString &text, const QRect &available, const QWidget *widget);

// Shows `text` as `widget`'s tooltip near `globalPos`, wholly inside the available geometry of the
// screen at `globalPos`. Empty text hides the tooltip.
void showToolTipWithin(const QPoint &globalPos, const QString &text, QWidget *widget);

// The tooltip on screen (Qt's tip label), or null when none is shown: tests check its geometry.
QWidget *shownToolTip();

// Makes `widget`'s own tooltips (QWidget::toolTip, or an item view's ToolTipRole under the pointer
// when `widget` is a view's viewport) open through showToolTipWithin.
void keepToolTipsOnScreen(QWidget *widget);

} // namespace linkscope::ui
