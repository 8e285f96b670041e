#include "jobview/missingcollectivemarks.h"

#include "jobview/joboverviewmarks.h"
#include "timeline/timelineview.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace linkscope::ui {

MissingCollectiveMarks *MissingCollectiveMarks::of(TimelineView *view)
{
    if (auto *existing = view->findChild<MissingCollectiveMarks *>(QString(), Qt::FindDirectChildrenOnly))
        return existing;
    return new MissingCollectiveMarks(view);
}

MissingCollectiveMarks::MissingCollectiveMarks(TimelineView *view) : QWidget(view), m_view(view)
{
    setObjectName(QStringLiteral("MissingCollectiveMarks"));
    // A layer: every click, drag and wheel goes to the timeline under it.
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    setGeometry(view->rect());
    view->installEventFilter(this); // its size, and its tooltips over a mark
    connect(view, &TimelineView::viewChanged, this, qOverload<>(&QWidget::update));
    hide();
}

void MissingCollectiveMarks::setMarks(std::vector<Mark> marks)
{
    m_marks = std::move(marks);
    m_painted.clear();
    setVisible(!m_marks.empty());
    if (!m_marks.empty()) {
        setGeometry(m_view->rect());
        raise();
    }
    update();
}

bool MissingCollectiveMarks::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Resize) {
        setGeometry(m_view->rect());
    } else if (watched == m_view && event->type() == QEvent::ToolTip && !m_marks.empty()) {
        // Over a mark and no event: say what is missing here (an event keeps its own tooltip).
        const auto *help = static_cast<QHelpEvent *>(event);
        if (m_view->eventAt(help->pos()).valid())
            return false;
        for (const Painted &p : m_painted)
            if (p.band.contains(help->pos())) {
                QToolTip::showText(
                    help->globalPos(),
                    tr("This rank did not issue %1: the group's other ranks ran it here (a missing_collective finding)")
                        .arg(m_marks[p.index].label),
                    m_view);
                return true;
            }
    }
    return false;
}

void MissingCollectiveMarks::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paintOn(painter);
}

void MissingCollectiveMarks::paintOn(QPainter &painter)
{
    m_painted.clear();
    if (!m_view->document() || m_marks.empty())
        return;
    const QRect content = m_view->contentRect();
    if (content.width() <= 0 || content.height() <= 0)
        return;
    // The ruler above the lanes carries the mark's top, so it reads as an instant of the clock.
    const QRect area = content.adjusted(0, -TimelineView::kRulerHeight, 0, 0);
    const QColor colour = missingMarkColour();
    QColor fill = colour;
    fill.setAlpha(28);
    painter.save();
    painter.setClipRect(area);
    const QFontMetrics metrics(font());
    for (std::size_t i = 0; i < m_marks.size(); ++i) {
        const Mark &m = m_marks[i];
        if (m.end < m_view->state().viewStart() || m.start > m_view->state().viewEnd())
            continue;
        const double x0 = std::max<double>(area.left() - 2, m_view->timeToX(m.start));
        const double x1 = std::min<double>(area.right() + 2, std::max(m_view->timeToX(m.end), x0 + 6));
        const QRectF band(x0, area.top() + 1, x1 - x0, area.height() - 2);
        painter.fillRect(band, fill);
        painter.setPen(QPen(colour, 2, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(band);
        // Its name in the ruler, from the band's left (drawn beyond a narrow band).
        const QString text = metrics.elidedText(QStringLiteral("✗ ") + tr("not issued: %1").arg(m.label), Qt::ElideRight,
                                                std::max(60, area.right() - static_cast<int>(x0) - 4));
        const QRectF label(x0 + 3, area.top() + 2, metrics.horizontalAdvance(text) + 6, metrics.height());
        QColor back = m_view->palette().color(QPalette::Base);
        back.setAlpha(220);
        painter.fillRect(label, back);
        painter.setPen(colour);
        painter.drawText(label.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
        m_painted.push_back({i, band});
    }
    painter.restore();
}

} // namespace linkscope::ui
