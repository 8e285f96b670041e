#pragma once
// The header column's render pass: group bands with their names (which may run past the column),
// each lane's label on its first shown row, the sticky labels of a group and lane whose own label
// rows have scrolled off, and the drop line of a header being dragged. It returns the labels it
// drew; hit-testing (a click or a menu on a sticky label) reads them back from there.

#include "timeline/timelineframe.h"

#include <QCoreApplication>
#include <QPoint>

#include <vector>

class QPainter;

namespace linkscope::ui {

// A header dragged to a new place: a group header moves its group among the groups, a lane's
// header its lane among its group's lanes. While it is dragged a line marks where it would go.
struct TimelineHeaderDrag {
    bool active = false;
    bool isGroup = false;
    int group = -1;         // the dragged group, or the dragged lane's group
    core::LaneIndex lane{}; // the dragged lane (isGroup false)
    int position = -1;      // where it would go (moveGroup / moveLane position)
    int lineY = 0;          // content y of the drop line
};

class TimelineHeaderPass {
    Q_DECLARE_TR_FUNCTIONS(TimelineHeaderPass)
public:
    // Paints the header column of `frame` (and, when `drag` is active, its drop line across the
    // lanes) and returns the labels drawn, in drawing order (a sticky lane label before its group's).
    static std::vector<TimelineHeaderLabel> paint(QPainter &painter, const TimelineFrame &frame, const TimelineHeaderDrag &drag);

    // The sticky label under widget position `pos` (it stands for its lane or group), or null.
    static const TimelineHeaderLabel *stickyLabelAt(const std::vector<TimelineHeaderLabel> &labels, const QPoint &pos);
    // Where a header drag from layout row `row` would drop for content y `y`.
    static TimelineHeaderDrag dropAt(const TimelineLayout &layout, int row, int y);

private:
    static void paintGroupLabel(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect, int group, int textWidth);
    // The "N Python frames" tag at the right of a summary row's header; returns its width.
    static int paintPythonTag(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect, int frames);
    static void paintLaneLabel(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect, core::LaneIndex lane);
    static void paintSticky(QPainter &painter, const TimelineFrame &frame, const QRect &area,
                            std::vector<TimelineHeaderLabel> &labels);
    static void paintDrop(QPainter &painter, const TimelineFrame &frame, const TimelineHeaderDrag &drag);
};

} // namespace linkscope::ui
