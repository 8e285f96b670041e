// JobOverview's painting (joboverview.h): per visible rank row its header, the streams' busy bands,
// the collectives' band and the marks of collectives it did not issue; then the match across ranks
// and the critical path through them.

#include "jobview/joboverview.h"

#include "ground/timeformat.h"
#include "jobview/joboverviewmarks.h"
#include "timeline/timelineruler.h"

#include <QImage>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

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

// One paint's colours, scale and scratch, shared by the row painters below.
struct JobOverview::Frame {
    static constexpr int kKinds = static_cast<int>(CallKind::Unknown) + 1;

    Frame(QPainter &painter, const QPalette &pal) : p(painter), palette(pal) { }

    QPainter &p;
    QPalette palette;
    QColor base, alt, text, header;
    QRect content;
    int rowHeight = 0;
    qint64 viewStart = 0;
    double nanosPerPixel = 1;
    QFont baseFont, small;
    std::set<std::pair<std::int64_t, std::size_t>> selected;
    std::vector<QPointF> matchPoints;
    std::vector<QRgb> line; // one row's band, a colour per pixel column
    // Colours per call kind, computed once a frame (QColor::darker goes through HSV).
    std::array<QRgb, kKinds> callColour{};
    std::array<QColor, kKinds> tickColour{};
    QRgb busySingle = 0, busyMerged = 0;

    double xOf(qint64 t) const { return content.left() + timeToPixel(t, viewStart, nanosPerPixel); }
    int collectivesTop(int rowTop) const { return rowTop + 2; }
    int collectivesHeight() const { return std::max(4, rowHeight * 2 / 5); }
    // The scan line stretched over [y, y + h): one drawImage per band.
    void drawLine(int y, int h)
    {
        const int columns = content.width();
        const QImage scan(reinterpret_cast<const uchar *>(line.data()), columns, 1, columns * 4, QImage::Format_RGB32);
        p.drawImage(QRect(content.left(), y, columns, h), scan);
    }
};

void JobOverview::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!m_job || m_rows.empty()) {
        p.setPen(pal.color(QPalette::Text));
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   m_placeholder.isEmpty() ? tr("No job open") : m_placeholder);
        return;
    }
    Frame f(p, pal);
    f.base = pal.color(QPalette::Base);
    f.alt = pal.color(QPalette::AlternateBase);
    f.text = pal.color(QPalette::Text);
    f.header = pal.color(QPalette::Window);
    f.content = contentRect();
    f.rowHeight = rowHeight();
    f.viewStart = m_state->viewStart();
    f.nanosPerPixel = nanosPerPixel();
    f.baseFont = font();
    f.small = f.baseFont;
    f.small.setPointSizeF(std::max(6.5, f.baseFont.pointSizeF() * 0.85));
    f.selected.insert(m_selectedCalls.begin(), m_selectedCalls.end());
    for (int k = 0; k < Frame::kKinds; ++k) {
        const QColor c = kindColour(static_cast<CallKind>(k));
        const QColor shown = m_selectedCalls.empty() ? c : dimmed(c, f.base);
        f.callColour[static_cast<std::size_t>(k)] = shown.rgb();
        f.tickColour[static_cast<std::size_t>(k)] = shown.darker(160);
    }
    f.busySingle = busyBandColour().rgb();
    f.busyMerged = dimmed(busyBandColour(), f.base).darker(115).rgb();

    TimelineRuler::paint(p, font(), QRect(0, 0, width(), kRulerHeight), f.content, m_state->viewStart(), m_state->viewEnd(),
                         alignedStart());
    paintInfoLine(f);
    const QRect content = f.content, visible(0, content.top(), width(), content.height());
    p.save();
    p.setClipRect(visible);
    for (int i = m_scroll; i < static_cast<int>(m_rows.size()); ++i) {
        const int top = rowTop(i);
        if (top > content.bottom())
            break;
        const Row &row = m_rows[static_cast<std::size_t>(i)];
        const QRect rowArea(content.left(), top, content.width(), f.rowHeight);
        const QColor background = i % 2 ? f.alt : f.base;
        p.fillRect(rowArea, background);
        paintRowHeader(f, row, top);
        if (!row.summary->overview)
            continue;
        p.setClipRect(rowArea.intersected(visible));
        if (static_cast<int>(f.line.size()) != content.width())
            f.line.assign(static_cast<std::size_t>(content.width()), 0);
        paintStreamBands(f, row, top, background.rgb());
        paintCollectiveBand(f, row, top, background.rgb());
        paintMissingMarks(f, row, top);
        p.setClipRect(visible);
    }
    // The match across ranks: a line through every rank's launch of the selected collective.
    if (f.matchPoints.size() > 1) {
        p.setPen(QPen(QColor(0x10, 0x10, 0x10, 200), 1.5, Qt::DashLine));
        p.drawPolyline(f.matchPoints.data(), static_cast<int>(f.matchPoints.size()));
    }
    m_pathDrawn.clear();
    if (m_path) {
        std::map<std::int64_t, int> middles;
        for (int i = m_scroll; i < static_cast<int>(m_rows.size()) && rowTop(i) <= content.bottom(); ++i)
            middles[m_rows[static_cast<std::size_t>(i)].rank] = rowTop(i) + f.rowHeight / 2;
        m_pathDrawn = paintPlacedPath(
            p, *m_path, content, f.rowHeight,
            [&](std::int64_t rank) {
                const auto it = middles.find(rank);
                return it == middles.end() ? -1 : it->second;
            },
            [&](std::int64_t t) { return f.xOf(t); });
    }
    p.restore();
    p.setPen(QColor(0, 0, 0, 60));
    p.drawLine(kHeaderWidth - 1, content.top(), kHeaderWidth - 1, height());
    m_bookmarks.paint(p, font(), QRect(content.left(), 0, content.width(), kRulerHeight), content, m_state->viewStart(),
                      f.nanosPerPixel);
}

// The info line under the ruler: the selection, or how to make one.
void JobOverview::paintInfoLine(Frame &f) const
{
    const QRect info(0, kRulerHeight, width(), kInfoHeight);
    f.p.fillRect(info, f.header);
    f.p.setPen(f.text);
    QString selectionLine = selectionText();
    if (selectionLine.isEmpty() && m_path)
        selectionLine = m_pathLegend;
    if (selectionLine.isEmpty())
        selectionLine = tr("%L1 ranks on the aligned clock%2 · click a collective to match it across ranks · double-click a rank "
                           "to open its lanes")
                            .arg(m_rows.size())
                            .arg(m_scrollBar->isVisible() ? tr(" (rows %L1–%L2 shown; the wheel scrolls)")
                                                                .arg(m_scroll + 1)
                                                                .arg(std::min<int>(static_cast<int>(m_rows.size()),
                                                                                   m_scroll + f.content.height() / f.rowHeight))
                                                          : QString());
    f.p.drawText(info.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, selectionLine);
}

// A row's header: the rank, a straggler or finding tint, the failure if any, the selection outline.
void JobOverview::paintRowHeader(Frame &f, const Row &row, int top) const
{
    QPainter &p = f.p;
    const RankSummary &s = *row.summary;
    const int rh = f.rowHeight;
    const QRect head(0, top, kHeaderWidth, rh);
    QColor headBg = f.header;
    if (m_stragglers.count(row.rank))
        headBg = QColor(0xf4, 0xc7, 0xc3);
    if (m_highlighted.count(row.rank))
        headBg = QColor(0xff, 0xe0, 0x82);
    p.fillRect(head, headBg);
    const QColor labelColour = headBg.lightness() > 128 ? QColor(0x20, 0x24, 0x2a) : f.text;
    p.setPen(labelColour);
    QFont labelFont = f.baseFont;
    labelFont.setBold(row.rank == m_openRank);
    p.setFont(labelFont);
    QString label = row.rank == m_openRank ? tr("rank %1 ▾ open").arg(row.rank) : tr("rank %1").arg(row.rank);
    if (!s.error.empty())
        label += tr(" ✗ unreadable");
    p.drawText(head.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
    if (row.rank == m_selectedRank) {
        // The rank Open rank / Show beside act on: outlined in the selection colour.
        p.setPen(QPen(f.palette.color(QPalette::Highlight), 2));
        p.drawRect(QRectF(head).adjusted(1, 1, -1, -1));
        p.setPen(labelColour);
    }
    if (m_stragglers.count(row.rank) && rh >= 12) {
        for (const StragglerCount &c : m_job->report.timing.stragglers)
            if (c.rank == row.rank) {
                p.setFont(f.small);
                p.drawText(head.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight,
                           tr("last %1/%2").arg(c.lastArrivals).arg(c.of));
                break;
            }
    }
    p.setPen(QColor(0, 0, 0, 30));
    p.drawLine(0, top + rh - 1, width(), top + rh - 1);
}

// Streams: the lower part of the row, one band each (all in one when they do not fit). Each band
// is a scan line too (busy columns in the stream colour), one drawImage each.
void JobOverview::paintStreamBands(Frame &f, const Row &row, int top, QRgb background) const
{
    const int streamsTop = f.collectivesTop(top) + f.collectivesHeight() + 1, streamsHeight = top + f.rowHeight - 2 - streamsTop;
    const auto &streams = row.summary->overview->streams;
    const int n = static_cast<int>(streams.size());
    const bool merged = n == 0 || streamsHeight / std::max(1, n) < 2;
    const int bandHeight = std::max(1, streamsHeight / std::max(1, merged ? 1 : n));
    const int left = f.content.left(), columns = f.content.width();
    const QRgb busyColour = merged ? f.busyMerged : f.busySingle;
    std::fill(f.line.begin(), f.line.end(), background);
    for (int k = 0; k < n; ++k) {
        const auto &busy = streams[static_cast<std::size_t>(k)].busy;
        const qint64 lo = m_state->viewStart() + row.offset, hi = m_state->viewEnd() + row.offset;
        auto it = std::lower_bound(busy.begin(), busy.end(), lo, [](const auto &iv, qint64 t) { return iv.second < t; });
        for (; it != busy.end() && it->first <= hi; ++it) {
            const double x0 = f.xOf(it->first - row.offset) - left, x1 = f.xOf(it->second - row.offset) - left;
            const int a = std::clamp(static_cast<int>(std::floor(x0)), 0, columns);
            const int e = std::clamp(std::max(a + 1, static_cast<int>(std::lround(x1))), 0, columns);
            std::fill(f.line.begin() + a, f.line.begin() + e, busyColour);
        }
        if (!merged) {
            f.drawLine(streamsTop + k * bandHeight, std::max(1, bandHeight - 1));
            std::fill(f.line.begin(), f.line.end(), background);
        }
    }
    if (merged && n > 0)
        f.drawLine(streamsTop, std::max(1, bandHeight - 1));
}

// Collectives: the upper band. The kernel is the box; a tick marks the launch (the arrival), and a
// thin line the wait between launch and kernel start. The band is drawn as one scan line: each
// pixel column takes the colour of the first-issued call that covers it, the line is stretched over
// the band's height in one drawImage. A frame costs O(calls + width) per row and one draw call,
// however many calls overlap. Launch ticks and waits are drawn where a call is wide enough to show
// them, and the selected calls last, whole, on top.
void JobOverview::paintCollectiveBand(Frame &f, const Row &row, int top, QRgb background) const
{
    QPainter &p = f.p;
    const RankSummary &s = *row.summary;
    const int collTop = f.collectivesTop(top), collHeight = f.collectivesHeight();
    const int left = f.content.left(), columns = f.content.width();
    struct Span {
        double launch, start, end; // pixels
    };
    auto spanOf = [&](const CollectiveCall &c) {
        const qint64 launch = c.launchNs - row.offset;
        const qint64 end = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - row.offset;
        const qint64 start = c.startNs == kUnknownTime ? launch : std::clamp<qint64>(c.startNs - row.offset, launch, end);
        return Span{f.xOf(launch), f.xOf(start), f.xOf(end)};
    };
    std::fill(f.line.begin(), f.line.end(), background);
    int coveredTo = 0; // columns [0, coveredTo) are taken
    std::vector<std::size_t> onTop, detailed;
    for (std::size_t k = 0; k < s.calls.size(); ++k) {
        const CollectiveCall &c = s.calls[k];
        if (c.launchNs == kUnknownTime)
            continue;
        const qint64 launch = c.launchNs - row.offset;
        const qint64 end = (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - row.offset;
        if (end < m_state->viewStart() || launch > m_state->viewEnd())
            continue;
        const bool isSelected = f.selected.count({static_cast<std::int64_t>(row.rank), k})
                                || (m_selection && m_selection->index < 0 && m_selection->rank == row.rank
                                    && m_selection->call == k);
        if (isSelected) {
            onTop.push_back(k);
            continue;
        }
        const Span span = spanOf(c);
        const double xl = span.launch - left, x0 = span.start - left, x1 = span.end - left;
        const int a = std::max(coveredTo, static_cast<int>(std::floor(std::max(0.0, x0))));
        const int e = std::min(columns, std::max(a + 1, static_cast<int>(std::ceil(x1))));
        if (a >= e || a >= columns)
            continue;
        std::fill(f.line.begin() + a, f.line.begin() + e, f.callColour[static_cast<std::size_t>(c.kind)]);
        coveredTo = e;
        if ((x1 - x0 >= 4 || x0 - xl >= 2) && xl >= 0)
            detailed.push_back(k);
    }
    f.drawLine(collTop, collHeight);
    for (std::size_t k : detailed) {
        const CollectiveCall &c = s.calls[k];
        const Span span = spanOf(c);
        const QColor fill = QColor::fromRgb(f.callColour[static_cast<std::size_t>(c.kind)]);
        if (span.start - span.launch >= 2)
            p.fillRect(QRectF(span.launch, collTop + collHeight / 2.0 - 1, span.start - span.launch, 2), dimmed(fill, f.base));
        p.fillRect(QRectF(span.launch - 0.5, collTop - 1, 1.5, collHeight + 2), f.tickColour[static_cast<std::size_t>(c.kind)]);
    }
    for (std::size_t k : onTop) {
        const CollectiveCall &c = s.calls[k];
        const Span span = spanOf(c);
        const double xl = span.launch, x0 = span.start, x1 = std::max(x0 + 2, span.end);
        const QColor fill = kindColour(c.kind);
        if (x0 - xl >= 2)
            p.fillRect(QRectF(xl, collTop + collHeight / 2.0 - 1, x0 - xl, 2), fill);
        p.fillRect(QRectF(x0, collTop, x1 - x0, collHeight), fill);
        p.fillRect(QRectF(xl - 0.5, collTop - 1, 1.5, collHeight + 2), fill.darker(160));
        p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
        p.drawRect(QRectF(x0 - 1, collTop - 1, x1 - x0 + 2, collHeight + 2));
        f.matchPoints.emplace_back(xl, collTop + collHeight / 2.0);
    }
}

// Where this rank did not issue a collective its group's others did: a dashed red box over the
// others' span (joboverviewmarks.h), selected or not.
void JobOverview::paintMissingMarks(Frame &f, const Row &row, int top) const
{
    const int collTop = f.collectivesTop(top), height = std::max(f.collectivesHeight(), f.rowHeight - 4);
    for (const MissingCollective &m : m_missing) {
        if (m.rank != row.rank || m.end < m_state->viewStart() || m.start > m_state->viewEnd())
            continue;
        const double x0 = f.xOf(m.start), x1 = std::max(x0 + 6, f.xOf(m.end));
        f.p.setPen(QPen(missingMarkColour(), 2, Qt::DashLine));
        f.p.setBrush(Qt::NoBrush);
        f.p.drawRect(QRectF(x0, collTop, x1 - x0, height));
        if (x1 - x0 >= 14) {
            f.p.setPen(missingMarkColour());
            f.p.drawText(QRectF(x0, collTop, x1 - x0, height), Qt::AlignCenter, QStringLiteral("✗"));
        }
    }
}

} // namespace linkscope::ui
