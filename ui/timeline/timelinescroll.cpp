#include "timeline/timelinescroll.h"

#include "timeline/timelineframe.h"

#include <QScrollBar>
#include <QWidget>

#include <algorithm>

namespace linkscope::ui {

TimelineScroll::TimelineScroll(QWidget *view, TimelineLayout &layout) : QObject(view), m_layout(layout)
{
    m_bar = new QScrollBar(Qt::Vertical, view);
    m_bar->setCursor(Qt::ArrowCursor);
    connect(m_bar, &QScrollBar::valueChanged, this, &TimelineScroll::barMoved);
}

int TimelineScroll::maxOffset(int contentHeight) const { return std::max(0, m_layout.totalHeight() - contentHeight + 8); }

bool TimelineScroll::setOffset(int offset, int contentHeight)
{
    offset = std::clamp(offset, 0, maxOffset(contentHeight));
    if (offset == m_offset)
        return false;
    m_offset = offset;
    if (m_bar->value() != offset)
        m_bar->setValue(offset);
    return true;
}

int TimelineScroll::pinnedHeight(int contentHeight) const
{
    // Pinned rows taking more than half the view would leave too little to scroll: then they scroll too.
    const int pinned = m_layout.pinnedHeight();
    return pinned <= contentHeight / 2 ? pinned : 0;
}

int TimelineScroll::contentY(int y, int top, int contentHeight) const
{
    return timelineContentY(y, top, m_offset, pinnedHeight(contentHeight));
}

bool TimelineScroll::scrollToRow(int r, int contentHeight)
{
    const LayoutRow &row = m_layout.rows().at(r);
    const int pinned = pinnedHeight(contentHeight);
    if (row.y < pinned)
        return false; // pinned: always in view
    // In the scrolling part, below the pinned rows.
    const int top = m_offset + pinned;
    if (row.y < top || row.y + row.height > m_offset + contentHeight)
        return setOffset(row.y - pinned - (contentHeight - pinned) / 3, contentHeight);
    return false;
}

bool TimelineScroll::placeBar(const QSize &size, int top)
{
    const int width = m_bar->sizeHint().width();
    m_bar->setGeometry(size.width() - width, top, width, std::max(0, size.height() - top));
    const int maximum = maxOffset(size.height() - top);
    m_bar->setRange(0, maximum);
    m_bar->setPageStep(std::max(1, size.height() - top));
    m_bar->setSingleStep(TimelineLayout::kRowHeight * 3);
    m_bar->setVisible(maximum > 0);
    if (m_offset <= maximum)
        return false;
    m_offset = maximum;
    return true;
}

int TimelineScroll::barWidth() const { return m_bar->isVisible() ? m_bar->width() : 0; }

void TimelineScroll::setFitRows(bool fit)
{
    m_fitRows = fit;
    if (!fit)
        m_layout.setRowHeight(TimelineLayout::kRowHeight);
}

void TimelineScroll::refitRows(int contentHeight)
{
    // Fitted to the rows at the normal height, so that the result does not depend on the last fit.
    if (!m_fitRows)
        return;
    m_layout.setRowHeight(TimelineLayout::kRowHeight);
    m_layout.setRowHeight(m_layout.rowHeightToFit(contentHeight - 8));
}

} // namespace linkscope::ui
