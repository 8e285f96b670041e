#include "jobview/joboverview.h"

#include "jobview/joboverviewmarks.h"

#include "ground/timeformat.h"
#include "timeline/timelineruler.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace linkscope::ui {

using namespace core::job;

JobOverview::JobOverview(QWidget *parent) : QWidget(parent), m_state(new TimelineViewState(this))
{
    connect(m_state, &TimelineViewState::windowChanged, this, qOverload<>(&QWidget::update));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(kRulerHeight + kInfoHeight + 4 * 12);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_scrollBar->hide();
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int v) {
        if (v != m_scroll) {
            m_scroll = v;
            update();
        }
    });
}

void JobOverview::syncScrollBar()
{
    const int visible = std::max(1, contentRect().height() / rowHeight());
    const int hidden = std::max(0, static_cast<int>(m_rows.size()) - visible);
    m_scrollBar->setVisible(hidden > 0);
    if (hidden > 0) {
        const QRect c = contentRect();
        m_scrollBar->setGeometry(width() - m_scrollBar->sizeHint().width(), c.top(), m_scrollBar->sizeHint().width(), c.height());
        m_scrollBar->setRange(0, hidden);
        m_scrollBar->setPageStep(visible);
        m_scrollBar->setValue(m_scroll);
    }
}

void JobOverview::setJob(JobPtr job)
{
    const bool first = !m_job || !job || m_job->folder != job->folder;
    m_job = std::move(job);
    m_rows.clear();
    m_stragglers.clear();
    m_missing = m_job ? missingCollectives(*m_job) : std::vector<MissingCollective>{};
    if (m_job) {
        const JobReport &r = m_job->report;
        for (const RankSummary &s : r.ranks) {
            m_rows.push_back({s.rank, &s, r.timing.offsetOf(s.rank)});
        }
        for (const StragglerCount &c : r.timing.stragglers)
            if (c.straggler)
                m_stragglers.insert(c.rank);
    }
    if (m_selection) {
        const Selection keep = *m_selection;
        if (keep.index >= 0)
            selectCollective(keep.group, keep.index, false);
        else
            clearSelection();
    }
    if (first)
        frameAll();
    clampScroll();
    update();
}

void JobOverview::setPlaceholder(const QString &text)
{
    m_placeholder = text;
    update();
}

qint64 JobOverview::alignedStart() const { return m_job ? alignedJobStart(m_job->report) : 0; }

void JobOverview::setBookmarks(core::BookmarkList bookmarks)
{
    m_bookmarks.setBookmarks(std::move(bookmarks));
    update();
}

void JobOverview::setViewState(TimelineViewState *state)
{
    if (!state || state == m_state)
        return;
    disconnect(m_state, nullptr, this, nullptr);
    m_state = state;
    connect(m_state, &TimelineViewState::windowChanged, this, qOverload<>(&QWidget::update));
    update();
}

qint64 JobOverview::alignedEnd() const
{
    qint64 hi = std::numeric_limits<qint64>::min();
    for (const Row &row : m_rows)
        if (row.summary->overview && row.summary->overview->endNs > row.summary->overview->startNs)
            hi = std::max(hi, row.summary->overview->endNs - row.offset);
    return hi == std::numeric_limits<qint64>::min() ? 1 : hi;
}

void JobOverview::frameAll() { setView(alignedStart(), alignedEnd()); }

void JobOverview::frameRange(qint64 start, qint64 end)
{
    const qint64 span = std::max<qint64>(end - start, 1000);
    setView(start - span / 4, end + span / 4);
}

void JobOverview::setView(qint64 start, qint64 end) { m_state->setVisibleRange(start, std::max(end, start + 1)); }

QRect JobOverview::contentRect() const
{
    const int bar = m_scrollBar && m_scrollBar->isVisible() ? m_scrollBar->width() : 0;
    return QRect(kHeaderWidth, kRulerHeight + kInfoHeight, std::max(1, width() - kHeaderWidth - bar),
                 std::max(1, height() - kRulerHeight - kInfoHeight));
}

int JobOverview::rowHeight() const
{
    // Every row visible when they fit at 12 px or more; otherwise 12 px rows and the wheel scrolls.
    if (m_rows.empty())
        return 28;
    const int fit = contentRect().height() / static_cast<int>(m_rows.size());
    return std::clamp(fit, 12, 44);
}

int JobOverview::rowTop(int row) const { return contentRect().top() + (row - m_scroll) * rowHeight(); }

int JobOverview::rowAt(int y) const
{
    if (y < contentRect().top())
        return -1;
    const int row = (y - contentRect().top()) / rowHeight() + m_scroll;
    return row >= 0 && row < static_cast<int>(m_rows.size()) ? row : -1;
}

void JobOverview::clampScroll()
{
    const int visible = std::max(1, contentRect().height() / rowHeight());
    m_scroll = std::clamp(m_scroll, 0, std::max(0, static_cast<int>(m_rows.size()) - visible));
    syncScrollBar();
}

double JobOverview::nanosPerPixel() const
{
    return static_cast<double>(m_state->viewEnd() - m_state->viewStart()) / contentRect().width();
}

QRect JobOverview::rowRect(qint64 rank) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].rank == rank) {
            const int top = rowTop(static_cast<int>(i));
            if (top < contentRect().top() || top >= contentRect().bottom())
                return {};
            return QRect(0, top, width(), rowHeight());
        }
    return {};
}

std::optional<std::pair<qint64, qint64>> JobOverview::alignedCall(qint64 rank, std::size_t call) const
{
    for (const Row &row : m_rows)
        if (row.rank == rank && call < row.summary->calls.size()) {
            const CollectiveCall &c = row.summary->calls[call];
            if (c.launchNs == kUnknownTime)
                return std::nullopt;
            const qint64 end = c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs);
            return std::make_pair(c.launchNs - row.offset, end - row.offset);
        }
    return std::nullopt;
}

void JobOverview::setCriticalPath(std::shared_ptr<const PlacedPath> path, const QString &legend)
{
    m_path = std::move(path);
    m_pathLegend = legend;
    if (!m_path)
        m_pathDrawn.clear();
    update();
}

QColor JobOverview::kindColour(CallKind kind) const { return callKindColour(kind); }

QString JobOverview::selectionText() const
{
    if (!m_selection || !m_job)
        return {};
    const Selection &s = *m_selection;
    if (s.index < 0) {
        const RankSummary *r = m_job->report.rank(s.rank);
        if (!r || s.call >= r->calls.size())
            return {};
        const CollectiveCall &c = r->calls[s.call];
        return tr("rank %1: %2 in group %3, not in the group's common sequence")
            .arg(s.rank)
            .arg(QString::fromUtf8(callKindName(c.kind).data()))
            .arg(QString::fromStdString(c.processGroup));
    }
    QString kind;
    for (const auto &[rank, call] : m_selectedCalls)
        if (const RankSummary *r = m_job->report.rank(rank); r && call < r->calls.size()) {
            kind = QString::fromUtf8(callKindName(r->calls[call].kind).data());
            break;
        }
    QString text = tr("%1 #%2 in group %3 on %4").arg(kind).arg(s.index).arg(s.group, ranksText(m_selectedCalls.size()));
    for (const CollectiveTiming &t : m_job->report.timing.collectives)
        if (QString::fromStdString(t.processGroup) == s.group && t.index == s.index) {
            text += tr(": arrival skew %1, last to arrive: rank %2").arg(formatDuration(t.skewNs)).arg(t.lastRank);
            break;
        }
    return text;
}

void JobOverview::selectCollective(const QString &group, qint64 index, bool frame)
{
    if (!m_job)
        return;
    m_selection = Selection{group, index, -1, 0};
    m_selectedCalls = m_job->report.callsAt(group.toStdString(), index);
    if (frame && !m_selectedCalls.empty()) {
        qint64 lo = std::numeric_limits<qint64>::max(), hi = std::numeric_limits<qint64>::min();
        for (const auto &[rank, call] : m_selectedCalls)
            if (const auto span = alignedCall(rank, call)) {
                lo = std::min(lo, span->first);
                hi = std::max(hi, span->second);
            }
        if (lo <= hi)
            frameRange(lo, hi);
    }
    update();
    emit collectiveSelected(group, index);
}

void JobOverview::clearSelection()
{
    m_selection.reset();
    m_selectedCalls.clear();
    update();
}

void JobOverview::setHighlightedRanks(const std::vector<qint64> &ranks)
{
    m_highlighted = std::set<qint64>(ranks.begin(), ranks.end());
    // The first highlighted rank scrolled into view.
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_highlighted.count(m_rows[i].rank)) {
            const int visible = std::max(1, contentRect().height() / rowHeight());
            if (static_cast<int>(i) < m_scroll || static_cast<int>(i) >= m_scroll + visible)
                m_scroll = static_cast<int>(i);
            clampScroll();
            break;
        }
    update();
}

void JobOverview::setOpenRank(qint64 rank)
{
    m_openRank = rank;
    update();
}

void JobOverview::setSelectedRank(qint64 rank)
{
    m_selectedRank = rank;
    update();
}

long JobOverview::callAt(int row, int x) const
{
    const Row &r = m_rows[static_cast<std::size_t>(row)];
    const double npp = nanosPerPixel();
    const qint64 t = pixelToTime(x - contentRect().left(), m_state->viewStart(), npp);
    const qint64 slack = static_cast<qint64>(3 * npp);
    long best = -1;
    qint64 bestDistance = std::numeric_limits<qint64>::max();
    for (std::size_t i = 0; i < r.summary->calls.size(); ++i) {
        const CollectiveCall &c = r.summary->calls[i];
        if (c.launchNs == kUnknownTime)
            continue;
        const qint64 a = c.launchNs - r.offset,
                     b = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - r.offset;
        const qint64 d = t < a ? a - t : (t > b ? t - b : 0);
        if (d <= slack && d < bestDistance) {
            best = static_cast<long>(i);
            bestDistance = d;
        }
    }
    return best;
}

const MissingCollective *JobOverview::missingAt(qint64 rank, int x) const
{
    const double npp = nanosPerPixel();
    const qint64 t = pixelToTime(x - contentRect().left(), m_state->viewStart(), npp), slack = static_cast<qint64>(3 * npp);
    for (const MissingCollective &m : m_missing)
        if (m.rank == rank && t >= m.start - slack && t <= m.end + slack)
            return &m;
    return nullptr;
}

void JobOverview::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragged = false;
        m_dragOrigin = event->position().toPoint();
        m_dragViewStart = m_state->viewStart();
    }
}

void JobOverview::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return;
    const int dx = event->position().toPoint().x() - m_dragOrigin.x();
    if (std::abs(dx) > 3)
        m_dragged = true;
    if (m_dragged) {
        const qint64 span = m_state->viewEnd() - m_state->viewStart();
        const qint64 start = m_dragViewStart - static_cast<qint64>(dx * nanosPerPixel());
        setView(start, start + span);
    }
}

void JobOverview::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_dragging)
        return;
    m_dragging = false;
    if (m_dragged)
        return;
    const QPoint pos = event->position().toPoint();
    const int row = rowAt(pos.y());
    if (row >= 0 && m_job) {
        // A click anywhere on a rank's row (its label or its lanes) picks that rank.
        const qint64 clicked = m_rows[static_cast<std::size_t>(row)].rank;
        setSelectedRank(clicked);
        emit rankClicked(clicked);
    }
    if (row < 0 || pos.x() < kHeaderWidth || !m_job) {
        clearSelection();
        return;
    }
    const long call = callAt(row, pos.x());
    if (call < 0) {
        clearSelection();
        return;
    }
    const qint64 rank = m_rows[static_cast<std::size_t>(row)].rank;
    const auto [group, index] = m_job->report.positionOf(rank, static_cast<std::size_t>(call));
    if (index >= 0) {
        selectCollective(QString::fromStdString(group), index, false);
    } else {
        m_selection = Selection{QString::fromStdString(group), -1, rank, static_cast<std::size_t>(call)};
        m_selectedCalls.clear();
        update();
    }
}

void JobOverview::mouseDoubleClickEvent(QMouseEvent *event)
{
    const int row = rowAt(event->position().toPoint().y());
    if (row >= 0)
        emit rankActivated(m_rows[static_cast<std::size_t>(row)].rank);
}

void JobOverview::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        const double factor = std::pow(0.85, delta.y() / 120.0);
        const double x = event->position().x() - contentRect().left();
        const qint64 at = pixelToTime(x, m_state->viewStart(), nanosPerPixel());
        const double span = static_cast<double>(m_state->viewEnd() - m_state->viewStart()) * factor;
        const qint64 start = at - static_cast<qint64>(x / contentRect().width() * span);
        setView(start, start + std::max<qint64>(100, static_cast<qint64>(span)));
    } else if ((event->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        const qint64 shift = static_cast<qint64>(-d / 120.0 * 0.1
                                                 * static_cast<double>(m_state->viewEnd() - m_state->viewStart()));
        setView(m_state->viewStart() + shift, m_state->viewEnd() + shift);
    } else {
        m_scroll -= delta.y() / 40;
        clampScroll();
        update();
    }
    event->accept();
}

void JobOverview::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        clearSelection();
        return;
    }
    if (event->key() == Qt::Key_F && m_selection && m_selection->index >= 0) {
        selectCollective(m_selection->group, m_selection->index, true);
        return;
    }
    if (event->key() == Qt::Key_0 || event->key() == Qt::Key_Home) {
        frameAll();
        return;
    }
    QWidget::keyPressEvent(event);
}

void JobOverview::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    clampScroll();
}

bool JobOverview::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_job) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int row = rowAt(help->pos().y());
        if (row >= 0) {
            const Row &r = m_rows[static_cast<std::size_t>(row)];
            QString tip;
            if (help->pos().x() < kHeaderWidth) {
                tip = tr("rank %1\n%2\n%L3 GPU ops, %L4 linked, %L5 communication calls")
                          .arg(r.rank)
                          .arg(QString::fromStdString(r.summary->device))
                          .arg(r.summary->gpuOps)
                          .arg(r.summary->linked)
                          .arg(r.summary->calls.size());
                if (!r.summary->error.empty())
                    tip += QLatin1Char('\n') + QString::fromStdString(r.summary->error);
                tip += tr("\nclock offset %1 from rank %2").arg(formatDuration(r.offset)).arg(m_job->report.timing.referenceRank);
            } else if (const PlacedStep *step = m_path ? m_path->stepAt(r.rank,
                                                                        pixelToTime(help->pos().x() - contentRect().left(),
                                                                                    m_state->viewStart(), nanosPerPixel()),
                                                                        static_cast<qint64>(3 * nanosPerPixel()))
                                                       : nullptr;
                       step && std::abs(help->pos().y() - (rowTop(row) + rowHeight() / 2)) <= std::max(4, rowHeight() / 6)) {
                const std::string_view category = core::predict::pathCategoryName(step->category);
                tip = tr("Critical path of rank %1: %2 (%3) on rank %4\nreplayed %5 – %6 (%7)\n%8")
                          .arg(m_path->rank)
                          .arg(step->name.isEmpty() ? tr("no node") : step->name)
                          .arg(QString::fromUtf8(category.data(), static_cast<qsizetype>(category.size())))
                          .arg(step->rank)
                          .arg(formatDuration(step->simStartNs), formatDuration(step->simEndNs),
                               formatDuration(step->simEndNs - step->simStartNs))
                          .arg(step->anchored
                                   ? tr("drawn at the collective's measured kernel")
                                   : tr("placed between the measured collectives around it, in the replay's proportions"));
            } else if (const MissingCollective *m = missingAt(r.rank, help->pos().x())) {
                tip = tr("rank %1 did not issue %2: the group's other ranks ran it here (a missing_collective finding)")
                          .arg(r.rank)
                          .arg(m->label);
            } else if (const long call = callAt(row, help->pos().x()); call >= 0) {
                const CollectiveCall &c = r.summary->calls[static_cast<std::size_t>(call)];
                const auto [group, index] = m_job->report.positionOf(r.rank, static_cast<std::size_t>(call));
                tip = tr("%1 on group %2, position %3\n%4 · %L5 elements · %L6 bytes\n%7")
                          .arg(QString::fromUtf8(callKindName(c.kind).data()))
                          .arg(QString::fromStdString(group))
                          .arg(index >= 0 ? QString::number(index) : tr("none (not issued by the others)"))
                          .arg(c.dtype.empty() ? tr("dtype unknown") : QString::fromStdString(c.dtype))
                          .arg(c.elements)
                          .arg(c.bytes)
                          .arg(QString::fromStdString(c.where));
                if (c.endNs != kUnknownTime && c.launchNs != kUnknownTime)
                    tip += tr("\nlaunch to kernel end %1").arg(formatDuration(c.endNs - c.launchNs));
            }
            if (!tip.isEmpty()) {
                QToolTip::showText(help->globalPos(), tip, this);
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

} // namespace linkscope::ui
