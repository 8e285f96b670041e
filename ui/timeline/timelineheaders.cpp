#include "timeline/timelineheaders.h"

#include "timeline/timelinepalette.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace linkscope::ui {

std::vector<TimelineHeaderLabel> TimelineHeaderPass::paint(QPainter &painter, const TimelineFrame &frame,
                                                           const TimelineHeaderDrag &drag)
{
    std::vector<TimelineHeaderLabel> labels;
    const QRect area(0, frame.content.top(), frame.headerWidth, frame.content.height());
    // A group's name may run to the content's right edge (its band spans the whole width).
    const int clipWidth = frame.content.right();
    const TimelineLayout &layout = frame.layout;
    painter.save();
    painter.setClipRect(area);
    painter.fillRect(area, palette::current().headerBackground);
    const auto &rows = layout.rows();
    // From the first row in view (rows are sorted by y), not from the top of the trace.
    auto it = std::partition_point(rows.begin(), rows.end(),
                                   [&](const LayoutRow &row) { return row.y + row.height <= frame.verticalOffset; });
    for (; it != rows.end(); ++it) {
        const LayoutRow &row = *it;
        const int y = area.top() + row.y - frame.verticalOffset;
        if (y > area.bottom())
            break;
        const QRect rowRect(area.left(), y, area.width(), row.height);
        if (row.kind == LayoutRow::Kind::GroupHeader) {
            painter.fillRect(rowRect, palette::current().groupBackground);
            painter.setClipRect(QRect(0, area.top(), clipWidth + 1, area.height())); // across the lanes
            paintGroupLabel(painter, frame, QRect(area.left(), y, clipWidth, row.height), row.group, clipWidth);
            painter.setClipRect(area);
            labels.push_back({row.group, core::kNone, rowRect, false});
            continue;
        }
        // A Python summary row says how many frames it folds (a click expands them).
        const int tagWidth = row.folded > 0 ? paintPythonTag(painter, frame, rowRect, row.folded + 1) : 0;
        if (static_cast<int>(it - rows.begin()) != layout.firstRowOfLane(row.lane))
            continue; // the label goes on the lane's first shown row
        paintLaneLabel(painter, frame, rowRect.adjusted(0, 0, -tagWidth, 0), row.lane);
        labels.push_back({row.group, row.lane, rowRect, false});
    }
    paintSticky(painter, frame, area, labels);
    painter.setPen(palette::current().separator);
    painter.drawLine(area.topRight(), area.bottomRight());
    painter.restore();
    paintDrop(painter, frame, drag);
    return labels;
}

void TimelineHeaderPass::paintGroupLabel(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect, int group,
                                         int textWidth)
{
    const bool collapsed = frame.layout.isGroupCollapsed(group);
    QFont bold = frame.font;
    bold.setBold(true);
    painter.setPen(palette::current().text);
    painter.setFont(bold);
    const QString arrow = collapsed ? QStringLiteral("▸") : QStringLiteral("▾");
    painter.drawText(rowRect.adjusted(6, 0, 0, 0), Qt::AlignVCenter, arrow);
    const QString text = QFontMetrics(bold).elidedText(frame.layout.groups()[group].label, Qt::ElideRight, textWidth - 26);
    painter.drawText(QRect(rowRect.left() + 20, rowRect.top(), textWidth - 24, rowRect.height()), Qt::AlignVCenter, text);
}

void TimelineHeaderPass::paintLaneLabel(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect,
                                        core::LaneIndex laneIndex)
{
    const core::Lane &lane = frame.doc.index().lane(laneIndex);
    QString label = QString::fromStdString(lane.label);
    if (label.isEmpty())
        label = tr("lane %1").arg(laneIndex.value);
    const int laneRows = frame.doc.laneRows(laneIndex).rowCount();
    const QFontMetrics metrics(frame.font);
    painter.setFont(frame.font);
    painter.setPen(palette::current().text);
    const int indent = 20;
    if (laneRows > 1) {
        const bool collapsed = frame.layout.isLaneCollapsed(laneIndex);
        painter.drawText(QRect(rowRect.left() + 8, rowRect.top(), 12, rowRect.height()), Qt::AlignVCenter,
                         collapsed ? QStringLiteral("▸") : QStringLiteral("▾"));
    }
    QString suffix;
    if (laneRows > 1 && frame.layout.isLaneCollapsed(laneIndex))
        suffix = tr(" (+%1 rows)").arg(laneRows - 1);
    const QString text = metrics.elidedText(label, Qt::ElideMiddle,
                                            rowRect.width() - indent - 6 - metrics.horizontalAdvance(suffix));
    painter.drawText(QRect(rowRect.left() + indent, rowRect.top(), rowRect.width() - indent - 4, rowRect.height()),
                     Qt::AlignVCenter, text + suffix);
}

int TimelineHeaderPass::paintPythonTag(QPainter &painter, const TimelineFrame &frame, const QRect &rowRect, int frames)
{
    QFont small = frame.font;
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    const QFontMetrics metrics(small);
    const QString text = tr("%L1 Python frames ▸").arg(frames);
    const int width = std::min(metrics.horizontalAdvance(text) + 10, rowRect.width() / 2);
    const QRect box(rowRect.right() - width, rowRect.top(), width, rowRect.height());
    painter.setFont(small);
    QColor color = palette::current().text;
    color.setAlpha(150);
    painter.setPen(color);
    painter.drawText(box.adjusted(0, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight,
                     metrics.elidedText(text, Qt::ElideLeft, width - 4));
    return width;
}

void TimelineHeaderPass::paintSticky(QPainter &painter, const TimelineFrame &frame, const QRect &area,
                                     std::vector<TimelineHeaderLabel> &labels)
{
    // The group and the lane at the top of the view: when their own label row has scrolled off
    // (partly or wholly) and rows of theirs are still in view, their labels stay at the top of that
    // part: the group's first, its lane's just below it, both pushed up by the end of the lane (and
    // of the group) as it scrolls past.
    const TimelineLayout &layout = frame.layout;
    const int verticalOffset = frame.verticalOffset;
    const auto &rows = layout.rows();
    auto firstBelow = [&](int y) {
        auto it = std::partition_point(rows.begin(), rows.end(), [&](const LayoutRow &row) { return row.y + row.height <= y; });
        return it == rows.end() ? -1 : static_cast<int>(it - rows.begin());
    };
    const int first = firstBelow(verticalOffset);
    if (first < 0)
        return;
    const int group = rows[first].group;
    const int header = layout.headerRowOfGroup(group);
    if (header < 0 || rows[header].y >= verticalOffset || layout.isGroupCollapsed(group))
        return; // the group's header is in view: so is every label below it
    const int groupH = TimelineLayout::kGroupHeaderHeight;
    const int laneH = layout.rowHeight();
    // The lane under the group's sticky label, if its own label row is above the sticky label's bottom.
    core::LaneIndex lane{};
    const int below = firstBelow(verticalOffset + groupH);
    if (below >= 0 && rows[below].kind == LayoutRow::Kind::LaneRow && rows[below].group == group) {
        const int labelRow = layout.firstRowOfLane(rows[below].lane);
        if (labelRow >= 0 && rows[labelRow].y < verticalOffset + groupH)
            lane = rows[below].lane;
    }
    // The lane's label is pushed up by the lane's end (under the group's label, drawn after it,
    // unless the group ends there too); the group's by the group's end, staying above its last lane's.
    int groupTop = std::min(verticalOffset, layout.groupBottom(group) - groupH);
    if (lane.valid()) {
        const int laneTop = std::min(verticalOffset + groupH, layout.laneBottom(lane) - laneH);
        if (layout.laneBottom(lane) + TimelineLayout::kLaneGap >= layout.groupBottom(group))
            groupTop = std::min(groupTop, laneTop - groupH);
        const QRect laneRect(area.left(), area.top() + laneTop - verticalOffset, area.width(), laneH);
        painter.fillRect(laneRect, palette::current().headerBackground);
        paintLaneLabel(painter, frame, laneRect, lane);
        QColor line = palette::current().separator;
        line.setAlpha(120);
        painter.setPen(line);
        painter.drawLine(laneRect.bottomLeft(), laneRect.bottomRight());
        labels.push_back({group, lane, laneRect, true});
    }
    const QRect groupRect(area.left(), area.top() + groupTop - verticalOffset, area.width(), groupH);
    painter.fillRect(groupRect, palette::current().groupBackground);
    paintGroupLabel(painter, frame, groupRect, group, area.width());
    painter.setPen(palette::current().separator);
    painter.drawLine(groupRect.bottomLeft(), groupRect.bottomRight());
    labels.push_back({group, core::kNone, groupRect, true});
}

void TimelineHeaderPass::paintDrop(QPainter &painter, const TimelineFrame &frame, const TimelineHeaderDrag &drag)
{
    if (!drag.active)
        return;
    const QRect area(0, frame.content.top(), frame.content.right() + 1, frame.content.height());
    painter.save();
    painter.setClipRect(area);
    const int y = area.top() + drag.lineY - frame.verticalOffset;
    const QColor accent = palette::current().selectionOutline;
    painter.fillRect(QRect(area.left(), y - 1, area.width(), 3), accent);
    painter.fillRect(QRect(area.left(), y - 4, 3, 9), accent);
    painter.restore();
}

const TimelineHeaderLabel *TimelineHeaderPass::stickyLabelAt(const std::vector<TimelineHeaderLabel> &labels, const QPoint &pos)
{
    // The last drawn is on top (the lane's sticky label below the group's).
    for (auto it = labels.rbegin(); it != labels.rend(); ++it)
        if (it->sticky && it->rect.contains(pos))
            return &*it;
    return nullptr;
}

TimelineHeaderDrag TimelineHeaderPass::dropAt(const TimelineLayout &layout, int r, int y)
{
    TimelineHeaderDrag drag;
    if (r < 0 || r >= static_cast<int>(layout.rows().size()))
        return drag;
    const LayoutRow &row = layout.rows()[r];
    drag.active = true;
    drag.group = row.group;
    if (row.kind == LayoutRow::Kind::GroupHeader) {
        // Among the shown groups: before the first whose middle is below y, else after the last.
        drag.isGroup = true;
        const int count = static_cast<int>(layout.groups().size());
        int before = count;
        int lastShownBottom = 0;
        for (int g = 0; g < count; ++g) {
            const int header = layout.headerRowOfGroup(g);
            if (header < 0)
                continue;
            const int top = layout.rows()[header].y;
            lastShownBottom = layout.groupBottom(g);
            if (before == count && y < (top + lastShownBottom) / 2) {
                before = g;
                drag.lineY = top;
            }
        }
        if (before == count)
            drag.lineY = lastShownBottom;
        drag.position = before > row.group ? before - 1 : before;
        drag.position = std::clamp(drag.position, 0, count - 1);
        return drag;
    }
    // A lane, among its group's shown lanes.
    drag.lane = row.lane;
    const std::vector<core::LaneIndex> &lanes = layout.groups()[row.group].lanes;
    const int from = layout.lanePosition(row.lane);
    const int count = static_cast<int>(lanes.size());
    int before = count;
    int lastShownBottom = 0;
    for (int p = 0; p < count; ++p) {
        const int first = layout.firstRowOfLane(lanes[p]);
        if (first < 0)
            continue;
        const int top = layout.rows()[first].y;
        lastShownBottom = layout.laneBottom(lanes[p]);
        if (before == count && y < (top + lastShownBottom) / 2) {
            before = p;
            drag.lineY = top - TimelineLayout::kLaneGap / 2;
        }
    }
    if (before == count)
        drag.lineY = lastShownBottom + TimelineLayout::kLaneGap / 2;
    drag.position = std::clamp(before > from ? before - 1 : before, 0, count - 1);
    return drag;
}

} // namespace linkscope::ui
