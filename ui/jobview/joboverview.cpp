#include "jobview/joboverview.h"

#include "jobview/joboverviewmarks.h"

#include "timeline/timeformat.h"
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

namespace {
// `c` faded towards the background (opaque: cheaper to fill than a translucent colour).
QColor dimmed(const QColor &c, const QColor &background)
{
    auto mix = [](int a, int b) { return (a * 2 + b * 3) / 5; };
    return QColor(mix(c.red(), background.red()), mix(c.green(), background.green()), mix(c.blue(), background.blue()));
}
} // namespace

JobOverview::JobOverview(QWidget *parent) : QWidget(parent)
{
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

void JobOverview::showRange(qint64 start, qint64 end)
{
    // The rank panes' window (reference clock): followed as it is, without echoing it back.
    if (end <= start || (start == m_viewStart && end == m_viewEnd))
        return;
    m_viewStart = start;
    m_viewEnd = end;
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

void JobOverview::setView(qint64 start, qint64 end)
{
    if (end <= start)
        end = start + 1;
    m_viewStart = start;
    m_viewEnd = end;
    update();
    emit viewChanged();
}

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

double JobOverview::nanosPerPixel() const { return static_cast<double>(m_viewEnd - m_viewStart) / contentRect().width(); }

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
    const qint64 t = pixelToTime(x - contentRect().left(), m_viewStart, npp);
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
    const qint64 t = pixelToTime(x - contentRect().left(), m_viewStart, npp), slack = static_cast<qint64>(3 * npp);
    for (const MissingCollective &m : m_missing)
        if (m.rank == rank && t >= m.start - slack && t <= m.end + slack)
            return &m;
    return nullptr;
}

void JobOverview::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base), alt = pal.color(QPalette::AlternateBase), text = pal.color(QPalette::Text);
    const QColor header = pal.color(QPalette::Window);
    p.fillRect(rect(), base);
    const QRect content = contentRect();
    const QRect ruler(0, 0, width(), kRulerHeight);
    if (!m_job || m_rows.empty()) {
        p.setPen(text);
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   m_placeholder.isEmpty() ? tr("No job open") : m_placeholder);
        return;
    }
    const qint64 origin = alignedStart();
    TimelineRuler::paint(p, font(), ruler, content, m_viewStart, m_viewEnd, origin);
    // The info line: the selection, or how to make one.
    const QRect info(0, kRulerHeight, width(), kInfoHeight);
    p.fillRect(info, header);
    p.setPen(text);
    QString selectionLine = selectionText();
    if (selectionLine.isEmpty() && m_path)
        selectionLine = m_pathLegend;
    const int rh = rowHeight();
    p.drawText(info.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
               selectionLine.isEmpty()
                   ? tr("%L1 ranks on the aligned clock%2 · click a collective to match it across ranks · double-click a rank to "
                        "open its lanes")
                         .arg(m_rows.size())
                         .arg(m_scrollBar->isVisible() ? tr(" (rows %L1–%L2 shown; the wheel scrolls)")
                                                             .arg(m_scroll + 1)
                                                             .arg(std::min<int>(static_cast<int>(m_rows.size()),
                                                                                m_scroll + contentRect().height() / rh))
                                                       : QString())
                   : selectionLine);

    const double npp = nanosPerPixel();
    auto xOf = [&](qint64 t) { return content.left() + timeToPixel(t, m_viewStart, npp); };
    std::set<std::pair<std::int64_t, std::size_t>> selected(m_selectedCalls.begin(), m_selectedCalls.end());
    std::vector<QPointF> matchPoints;
    const QFont baseFont = font();
    QFont small = baseFont;
    small.setPointSizeF(std::max(6.5, baseFont.pointSizeF() * 0.85));

    std::vector<QRgb> line; // one row's collective band, a colour per pixel column
    // Colours per call kind, computed once a frame (QColor::darker goes through HSV).
    constexpr int kKinds = static_cast<int>(CallKind::Unknown) + 1;
    std::array<QRgb, kKinds> callColour{};
    std::array<QColor, kKinds> tickColour{};
    for (int k = 0; k < kKinds; ++k) {
        const QColor c = kindColour(static_cast<CallKind>(k));
        const QColor shown = m_selectedCalls.empty() ? c : dimmed(c, base);
        callColour[static_cast<std::size_t>(k)] = shown.rgb();
        tickColour[static_cast<std::size_t>(k)] = shown.darker(160);
    }
    const QRgb busySingle = busyBandColour().rgb(), busyMerged = dimmed(busyBandColour(), base).darker(115).rgb();
    p.save();
    p.setClipRect(QRect(0, content.top(), width(), content.height()));
    for (int i = m_scroll; i < static_cast<int>(m_rows.size()); ++i) {
        const int top = rowTop(i);
        if (top > content.bottom())
            break;
        const Row &row = m_rows[static_cast<std::size_t>(i)];
        const RankSummary &s = *row.summary;
        const QRect rowArea(content.left(), top, content.width(), rh);
        p.fillRect(rowArea, i % 2 ? alt : base);
        // Header: rank, straggler tint, finding highlight, the failure if any.
        QRect head(0, top, kHeaderWidth, rh);
        QColor headBg = header;
        if (m_stragglers.count(row.rank))
            headBg = QColor(0xf4, 0xc7, 0xc3);
        if (m_highlighted.count(row.rank))
            headBg = QColor(0xff, 0xe0, 0x82);
        p.fillRect(head, headBg);
        p.setPen(headBg.lightness() > 128 ? QColor(0x20, 0x24, 0x2a) : text);
        QFont labelFont = baseFont;
        labelFont.setBold(row.rank == m_openRank);
        p.setFont(labelFont);
        QString label = row.rank == m_openRank ? tr("rank %1 ▾ open").arg(row.rank) : tr("rank %1").arg(row.rank);
        if (!s.error.empty())
            label += tr(" ✗ unreadable");
        p.drawText(head.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        if (row.rank == m_selectedRank) {
            // The rank Open rank / Show beside act on: outlined in the selection colour.
            p.setPen(QPen(pal.color(QPalette::Highlight), 2));
            p.drawRect(QRectF(head).adjusted(1, 1, -1, -1));
            p.setPen(headBg.lightness() > 128 ? QColor(0x20, 0x24, 0x2a) : text);
        }
        if (m_stragglers.count(row.rank) && rh >= 12) {
            for (const StragglerCount &c : m_job->report.timing.stragglers)
                if (c.rank == row.rank) {
                    p.setFont(small);
                    p.drawText(head.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight,
                               tr("last %1/%2").arg(c.lastArrivals).arg(c.of));
                    break;
                }
        }
        p.setPen(QColor(0, 0, 0, 30));
        p.drawLine(0, top + rh - 1, width(), top + rh - 1);
        if (!s.overview)
            continue;
        // Streams: the lower part of the row, one band each (all in one when they do not fit).
        const int collTop = top + 2, collHeight = std::max(4, rh * 2 / 5);
        const int streamsTop = collTop + collHeight + 1, streamsHeight = top + rh - 2 - streamsTop;
        const auto &streams = s.overview->streams;
        const int n = static_cast<int>(streams.size());
        const bool merged = n == 0 || streamsHeight / std::max(1, n) < 2;
        const int bands = merged ? 1 : n;
        const int bandHeight = std::max(1, streamsHeight / std::max(1, bands));
        p.setClipRect(rowArea.intersected(QRect(0, content.top(), width(), content.height())));
        // Each band is a scan line too (busy columns in the stream colour), one drawImage each.
        const int left = content.left(), columns = content.width();
        if (static_cast<int>(line.size()) != columns)
            line.assign(static_cast<std::size_t>(columns), 0);
        const QRgb background = (i % 2 ? alt : base).rgb();
        const QRgb busyColour = merged ? busyMerged : busySingle;
        auto drawLine = [&](int y, int h) {
            const QImage scan(reinterpret_cast<const uchar *>(line.data()), columns, 1, columns * 4, QImage::Format_RGB32);
            p.drawImage(QRect(left, y, columns, h), scan);
        };
        std::fill(line.begin(), line.end(), background);
        for (int k = 0; k < n; ++k) {
            const auto &busy = streams[static_cast<std::size_t>(k)].busy;
            const qint64 lo = m_viewStart + row.offset, hi = m_viewEnd + row.offset;
            auto it = std::lower_bound(busy.begin(), busy.end(), lo, [](const auto &iv, qint64 t) { return iv.second < t; });
            for (; it != busy.end() && it->first <= hi; ++it) {
                const double x0 = xOf(it->first - row.offset) - left, x1 = xOf(it->second - row.offset) - left;
                const int a = std::clamp(static_cast<int>(std::floor(x0)), 0, columns);
                const int e = std::clamp(std::max(a + 1, static_cast<int>(std::lround(x1))), 0, columns);
                std::fill(line.begin() + a, line.begin() + e, busyColour);
            }
            if (!merged) {
                drawLine(streamsTop + k * bandHeight, std::max(1, bandHeight - 1));
                std::fill(line.begin(), line.end(), background);
            }
        }
        if (merged && n > 0)
            drawLine(streamsTop, std::max(1, bandHeight - 1));
        // Collectives: the upper band. The kernel is the box; a tick marks the launch (the arrival),
        // and a thin line the wait between launch and kernel start.
        // The band is drawn as one scan line: each pixel column takes the colour of the first-issued
        // call that covers it, the line is stretched over the band's height in one drawImage. A
        // frame costs O(calls + width) per row and one draw call, however many calls overlap (with
        // a fill per call, 64 ranks of 750 calls took 23 ms). Launch ticks and waits are drawn
        // where a call is wide enough to show them, and the selected calls last, whole, on top.
        std::fill(line.begin(), line.end(), background);
        int coveredTo = 0; // columns [0, coveredTo) are taken
        std::vector<std::size_t> onTop;
        std::vector<std::size_t> detailed;
        for (std::size_t k = 0; k < s.calls.size(); ++k) {
            const CollectiveCall &c = s.calls[k];
            if (c.launchNs == kUnknownTime)
                continue;
            const qint64 launch = c.launchNs - row.offset;
            const qint64 end = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - row.offset;
            if (end < m_viewStart || launch > m_viewEnd)
                continue;
            const bool isSelected = selected.count({static_cast<std::int64_t>(row.rank), k})
                                    || (m_selection && m_selection->index < 0 && m_selection->rank == row.rank
                                        && m_selection->call == k);
            if (isSelected) {
                onTop.push_back(k);
                continue;
            }
            const qint64 start = c.startNs == kUnknownTime ? launch : std::clamp<qint64>(c.startNs - row.offset, launch, end);
            const double xl = xOf(launch) - left, x0 = xOf(start) - left, x1 = xOf(end) - left;
            const int a = std::max(coveredTo, static_cast<int>(std::floor(std::max(0.0, x0))));
            const int e = std::min(columns, std::max(a + 1, static_cast<int>(std::ceil(x1))));
            if (a >= e || a >= columns)
                continue;
            const QRgb colour = callColour[static_cast<std::size_t>(c.kind)];
            std::fill(line.begin() + a, line.begin() + e, colour);
            coveredTo = e;
            if ((x1 - x0 >= 4 || x0 - xl >= 2) && xl >= 0)
                detailed.push_back(k);
        }
        drawLine(collTop, collHeight);
        for (std::size_t k : detailed) {
            const CollectiveCall &c = s.calls[k];
            const qint64 launch = c.launchNs - row.offset;
            const qint64 end = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - row.offset;
            const qint64 start = c.startNs == kUnknownTime ? launch : std::clamp<qint64>(c.startNs - row.offset, launch, end);
            const double xl = xOf(launch), x0 = xOf(start);
            const QColor fill = QColor::fromRgb(callColour[static_cast<std::size_t>(c.kind)]);
            if (x0 - xl >= 2)
                p.fillRect(QRectF(xl, collTop + collHeight / 2.0 - 1, x0 - xl, 2), dimmed(fill, base));
            p.fillRect(QRectF(xl - 0.5, collTop - 1, 1.5, collHeight + 2), tickColour[static_cast<std::size_t>(c.kind)]);
        }
        for (std::size_t k : onTop) {
            const CollectiveCall &c = s.calls[k];
            const qint64 launch = c.launchNs - row.offset;
            const qint64 end = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - row.offset;
            const qint64 start = c.startNs == kUnknownTime ? launch : std::clamp<qint64>(c.startNs - row.offset, launch, end);
            const double xl = xOf(launch), x0 = xOf(start), x1 = std::max(x0 + 2, xOf(end));
            const QColor fill = kindColour(c.kind);
            if (x0 - xl >= 2)
                p.fillRect(QRectF(xl, collTop + collHeight / 2.0 - 1, x0 - xl, 2), fill);
            p.fillRect(QRectF(x0, collTop, x1 - x0, collHeight), fill);
            p.fillRect(QRectF(xl - 0.5, collTop - 1, 1.5, collHeight + 2), fill.darker(160));
            p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
            p.drawRect(QRectF(x0 - 1, collTop - 1, x1 - x0 + 2, collHeight + 2));
            matchPoints.emplace_back(xl, collTop + collHeight / 2.0);
        }
        // Where this rank did not issue a collective its group's others did: a dashed red box over
        // the others' span (joboverviewmarks.h), selected or not.
        for (const MissingCollective &m : m_missing) {
            if (m.rank != row.rank || m.end < m_viewStart || m.start > m_viewEnd)
                continue;
            const double x0 = xOf(m.start), x1 = std::max(x0 + 6, xOf(m.end));
            p.setPen(QPen(missingMarkColour(), 2, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(x0, collTop, x1 - x0, std::max(collHeight, rh - 4)));
            if (x1 - x0 >= 14) {
                p.setPen(missingMarkColour());
                p.drawText(QRectF(x0, collTop, x1 - x0, std::max(collHeight, rh - 4)), Qt::AlignCenter, QStringLiteral("✗"));
            }
        }
        p.setClipRect(QRect(0, content.top(), width(), content.height()));
    }
    // The match across ranks: a line through every rank's launch of the selected collective.
    if (matchPoints.size() > 1) {
        p.setPen(QPen(QColor(0x10, 0x10, 0x10, 200), 1.5, Qt::DashLine));
        p.drawPolyline(matchPoints.data(), static_cast<int>(matchPoints.size()));
    }
    m_pathDrawn.clear();
    if (m_path) {
        std::map<std::int64_t, int> middles;
        for (int i = m_scroll; i < static_cast<int>(m_rows.size()) && rowTop(i) <= content.bottom(); ++i)
            middles[m_rows[static_cast<std::size_t>(i)].rank] = rowTop(i) + rh / 2;
        m_pathDrawn = paintPlacedPath(
            p, *m_path, content, rh,
            [&](std::int64_t rank) {
                const auto it = middles.find(rank);
                return it == middles.end() ? -1 : it->second;
            },
            [&](std::int64_t t) { return xOf(t); });
    }
    p.restore();
    p.setPen(QColor(0, 0, 0, 60));
    p.drawLine(kHeaderWidth - 1, content.top(), kHeaderWidth - 1, height());
}

void JobOverview::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragged = false;
        m_dragOrigin = event->position().toPoint();
        m_dragViewStart = m_viewStart;
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
        const qint64 span = m_viewEnd - m_viewStart;
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
        const qint64 at = pixelToTime(x, m_viewStart, nanosPerPixel());
        const double span = static_cast<double>(m_viewEnd - m_viewStart) * factor;
        const qint64 start = at - static_cast<qint64>(x / contentRect().width() * span);
        setView(start, start + std::max<qint64>(100, static_cast<qint64>(span)));
    } else if ((event->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        const qint64 shift = static_cast<qint64>(-d / 120.0 * 0.1 * static_cast<double>(m_viewEnd - m_viewStart));
        setView(m_viewStart + shift, m_viewEnd + shift);
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
                                                                                    m_viewStart, nanosPerPixel()),
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
