#pragma once
// The lanes' vertical scrolling: which content y is at the top of the scrolling part, the pinned
// rows kept above it, the scroll bar that shows and moves the offset, and "fit rows" (the rows
// shrink so that all fit the height). It knows the layout, not the widget's other parts: the view
// passes the height of the lanes' area (`contentHeight`) and where that area begins (`top`).

#include "timeline/timelinelayout.h"

#include <QObject>
#include <QSize>

class QScrollBar;
class QWidget;

namespace linkscope::ui {

class TimelineScroll : public QObject {
    Q_OBJECT
public:
    // The scroll bar is a child of `view`, at its right edge.
    TimelineScroll(QWidget *view, TimelineLayout &layout);

    int offset() const { return m_offset; }
    // The largest offset: the last row a little above the bottom; 0 when all rows are in view.
    int maxOffset(int contentHeight) const;
    // Clamped to [0, maxOffset]; returns false when that is the offset already.
    bool setOffset(int offset, int contentHeight);
    // The height of the pinned rows kept at the top of the lanes (TimelineLayout::pinnedHeight(),
    // or 0 when they would take more than half of `contentHeight`: then everything scrolls).
    int pinnedHeight(int contentHeight) const;
    // The content y (TimelineLayout's) under widget y `y`, pinned rows included.
    int contentY(int y, int top, int contentHeight) const;
    // Scrolls layout row `row` a third of the way down unless it is in view (or pinned); returns
    // whether the offset changed.
    bool scrollToRow(int row, int contentHeight);

    // Sizes and places the bar for a widget of `size` whose lanes begin at `top`, shows it while
    // something is out of view, and clamps the offset to the new range (returns true then).
    bool placeBar(const QSize &size, int top);
    // The bar's width while it is shown, else 0.
    int barWidth() const;

    bool fitRows() const { return m_fitRows; }
    // Off: the rows get their normal height back.
    void setFitRows(bool fit);
    // While fitting: the row height that makes every row fit `contentHeight`.
    void refitRows(int contentHeight);

signals:
    // The user moved the bar to `offset` (unclamped; the view sets it).
    void barMoved(int offset);

private:
    TimelineLayout &m_layout;
    QScrollBar *m_bar = nullptr;
    int m_offset = 0;
    bool m_fitRows = false;
};

} // namespace linkscope::ui
