#include "jobview/joboverviewmarks.h"

#include <QPainter>

#include <algorithm>
#include <limits>
#include <set>

namespace linkscope::ui {

using namespace core::job;

QColor callKindColour(CallKind kind)
{
    switch (kind) {
    case CallKind::AllReduce:
        return QColor(0xe0, 0x7a, 0x1f);
    case CallKind::AllGather:
        return QColor(0x2e, 0x9e, 0x5b);
    case CallKind::ReduceScatter:
        return QColor(0x8e, 0x5c, 0xc8);
    case CallKind::AllToAll:
        return QColor(0x1f, 0x9e, 0xa8);
    case CallKind::Broadcast:
        return QColor(0xa8, 0x6b, 0x3c);
    case CallKind::Reduce:
        return QColor(0xc8, 0x4b, 0x4b);
    case CallKind::Gather:
    case CallKind::Scatter:
        return QColor(0x6b, 0x8e, 0x23);
    case CallKind::Barrier:
        return QColor(0x55, 0x55, 0x55);
    case CallKind::Send:
    case CallKind::Recv:
        return QColor(0x7f, 0x8c, 0x9d);
    case CallKind::Unknown:
        break;
    }
    return QColor(0x99, 0x99, 0x99);
}

QColor busyBandColour() { return QColor(0x4a, 0x78, 0xb0); }
QColor missingMarkColour() { return QColor(0xd0, 0x21, 0x21); }

std::vector<MissingCollective> missingCollectives(const JobDocument &job)
{
    std::vector<MissingCollective> out;
    const JobReport &report = job.report;
    for (const JobFinding &f : report.findings) {
        if (f.kind != "missing_collective" || f.processGroup.empty() || f.index < 0)
            continue;
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
        QString kind;
        for (const auto &[rank, call] : report.callsAt(f.processGroup, f.index)) {
            const RankSummary *s = report.rank(rank);
            if (!s || call >= s->calls.size())
                continue;
            const CollectiveCall &c = s->calls[call];
            if (c.launchNs == kUnknownTime)
                continue;
            const std::int64_t offset = report.timing.offsetOf(rank);
            lo = std::min(lo, c.launchNs - offset);
            hi = std::max(hi, (c.endNs == kUnknownTime ? c.launchNs : std::max(c.endNs, c.launchNs)) - offset);
            kind = QString::fromUtf8(callKindName(c.kind).data());
        }
        if (lo > hi)
            continue;
        for (const std::int64_t rank : f.ranks)
            out.push_back({rank, lo, hi,
                           QObject::tr("%1 #%2 in group %3")
                               .arg(kind.isEmpty() ? QObject::tr("collective") : kind)
                               .arg(f.index)
                               .arg(QString::fromStdString(f.processGroup))});
    }
    return out;
}

JobOverviewLegend::JobOverviewLegend(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("JobOverviewLegend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setJob(nullptr);
}

void JobOverviewLegend::setJob(const JobPtr &job)
{
    m_entries.clear();
    m_entries.push_back({tr("GPU busy (per stream)"), busyBandColour(), Entry::Box});
    std::set<int> kinds;
    if (job)
        for (const RankSummary &s : job->report.ranks)
            for (const CollectiveCall &c : s.calls)
                kinds.insert(static_cast<int>(c.kind));
    for (const int k : kinds) {
        const auto kind = static_cast<CallKind>(k);
        m_entries.push_back({QString::fromUtf8(callKindName(kind).data()), callKindColour(kind), Entry::Box});
    }
    m_entries.push_back({tr("launch (arrival)"), palette().color(QPalette::WindowText), Entry::Tick});
    m_entries.push_back({tr("not issued by this rank"), missingMarkColour(), Entry::Missing});
    updateGeometry();
    update();
}

QStringList JobOverviewLegend::entries() const
{
    QStringList out;
    for (const Entry &e : m_entries)
        out << e.text;
    return out;
}

QSize JobOverviewLegend::sizeHint() const { return {400, fontMetrics().height() + 6}; }

void JobOverviewLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const int h = height(), box = std::max(8, fontMetrics().height() - 6);
    int x = 4;
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x, 0, width(), h), Qt::AlignVCenter | Qt::AlignLeft, tr("Overview:"));
    x += fontMetrics().horizontalAdvance(tr("Overview:")) + 8;
    for (const Entry &e : m_entries) {
        const QRect mark(x, (h - box) / 2, box + 4, box);
        switch (e.shape) {
        case Entry::Box:
            p.fillRect(mark, e.colour);
            break;
        case Entry::Tick:
            p.fillRect(QRect(mark.center().x() - 1, mark.top() - 1, 2, mark.height() + 2), e.colour);
            break;
        case Entry::Missing:
            p.setPen(QPen(e.colour, 2, Qt::DashLine));
            p.drawRect(mark.adjusted(1, 1, -1, -1));
            break;
        }
        x = mark.right() + 4;
        p.setPen(palette().color(QPalette::WindowText));
        const int w = fontMetrics().horizontalAdvance(e.text);
        p.drawText(QRect(x, 0, w + 2, h), Qt::AlignVCenter | Qt::AlignLeft, e.text);
        x += w + 12;
    }
}

} // namespace linkscope::ui
