#include "prediction/whatifdiffview.h"

#include "predict/opportunities.h"

#include "prediction/predicttext.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <tuple>

namespace linkscope::ui {

namespace {

using core::predict::Breakdown;
using core::predict::PathShare;

constexpr int kTopRows = 8;
constexpr qsizetype kDiffNameChars = 40;

// "+1.234 ms", "−0.500 ms", "0": a change of time.
QString deltaText(std::int64_t ns)
{
    if (ns == 0)
        return QStringLiteral("0");
    return (ns > 0 ? QStringLiteral("+") : QStringLiteral("−")) + msText(std::abs(ns));
}

// The kernel's own name, before its template arguments (what tells two collectives apart, as the
// dock's top ops show it), with the rank when it is not the path's own.
QString shareName(const PathShare &s, std::int64_t pathRank)
{
    const std::string family = core::predict::kernelFamily(s.name);
    QString name = QString::fromStdString(family.empty() ? s.name : family);
    if (s.rank != pathRank)
        name = QObject::tr("rank %1: %2").arg(s.rank).arg(name);
    return name;
}

QTableWidget *compactTable(int columns, const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, columns, parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 2);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < columns; ++c)
        t->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setWordWrap(false);
    t->setTextElideMode(Qt::ElideRight); // names start with what tells them apart
    return t;
}

} // namespace

WhatIfDiffView::WhatIfDiffView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);
    m_breakdown = compactTable(4, {tr("Critical path"), tr("Baseline"), tr("What-if"), tr("Change")}, this);
    m_breakdown->setToolTip(tr("Where the critical path's time goes, before the what-if and under it"));
    // Five shares and the step: all rows shown, never scrolled.
    const int rows = 6;
    m_breakdown->setFixedHeight(m_breakdown->verticalHeader()->defaultSectionSize() * rows
                                + m_breakdown->horizontalHeader()->sizeHint().height() + 2 * m_breakdown->frameWidth());
    m_breakdown->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_breakdown);
    m_diff = new QLabel(this);
    m_diff->setWordWrap(true);
    m_diff->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_diff->setToolTip(tr("Ops on the baseline's critical path and not on the what-if's (they left it), and ops on the "
                          "what-if's path that were not on the baseline's (they joined it); the longest of each named, "
                          "with their time on the path they were on"));
    layout->addWidget(m_diff);
    layout->addStretch(1);
    // Placed by the what-if panel in a tab of its own (topTable()): no parent's layout here.
    m_top = compactTable(4, {tr("Top ops on either path"), tr("Baseline"), tr("What-if"), tr("Change")}, this);
    m_top->hide();
    showOutcome({});
}

void WhatIfDiffView::showOutcome(const WhatIfOutcome &outcome)
{
    m_breakdown->setRowCount(0);
    m_top->setRowCount(0);
    m_diffPlain.clear();
    if (!outcome.pathKnown) {
        m_caption->setText(tr("<small>The breakdown, the top ops and the path under a what-if appear here once one "
                              "is replayed.</small>"));
        m_caption->show();
        m_diff->clear();
        return;
    }
    const WhatIfPathChange &c = outcome.path;
    // A pair has one path (the tab says what it is); a job's is named by its rank, in the table's
    // header (a line of its own would cost the room the diff needs).
    m_caption->hide();
    QTableWidgetItem *head = m_breakdown->horizontalHeaderItem(Share);
    head->setText(outcome.ranks.empty() ? tr("Critical path") : tr("Rank %1's path").arg(c.rank));
    head->setToolTip(outcome.ranks.empty() ? QString()
                                           : tr("Rank %1's step is the job's under the what-if: its path is shown, beside "
                                                "the same rank's baseline path")
                                                 .arg(c.rank));
    const auto row = [](QTableWidget *t, const QString &name, std::int64_t before, std::int64_t after) {
        const int r = t->rowCount();
        t->insertRow(r);
        t->setItem(r, Share, readOnlyCell(name, false));
        t->setItem(r, Baseline, readOnlyCell(msText(before), true));
        t->setItem(r, WhatIf, readOnlyCell(msText(after), true));
        t->setItem(r, Delta, readOnlyCell(deltaText(after - before), true));
    };
    const Breakdown &b = c.baselineBreakdown, &w = c.breakdown;
    row(m_breakdown, tr("cpu"), b.cpuNs, w.cpuNs);
    row(m_breakdown, tr("gpu"), b.gpuNs, w.gpuNs);
    row(m_breakdown, tr("comm"), b.commNs, w.commNs);
    row(m_breakdown, tr("other rank"), b.otherRankNs, w.otherRankNs);
    row(m_breakdown, tr("idle"), b.idleNs, w.idleNs);
    row(m_breakdown, tr("step"), b.total(), w.total());

    // The names on either path, keyed as topOfPath groups them; the longest under the what-if first.
    std::map<std::tuple<std::int64_t, std::string, int>, std::pair<std::int64_t, std::int64_t>> both;
    std::map<std::tuple<std::int64_t, std::string, int>, const PathShare *> shares;
    for (const PathShare &s : c.baselineTop) {
        both[{s.rank, s.name, int(s.kind)}].first = s.ns;
        shares[{s.rank, s.name, int(s.kind)}] = &s;
    }
    for (const PathShare &s : c.top) {
        both[{s.rank, s.name, int(s.kind)}].second = s.ns;
        shares[{s.rank, s.name, int(s.kind)}] = &s;
    }
    std::vector<std::pair<const PathShare *, std::pair<std::int64_t, std::int64_t>>> rows;
    for (const auto &[key, times] : both)
        rows.push_back({shares[key], times});
    std::sort(rows.begin(), rows.end(), [](const auto &x, const auto &y) {
        return std::max(x.second.first, x.second.second) > std::max(y.second.first, y.second.second);
    });
    if (rows.size() > kTopRows)
        rows.resize(kTopRows);
    for (const auto &[share, times] : rows) {
        row(m_top, shareName(*share, c.rank), times.first, times.second);
        m_top->item(m_top->rowCount() - 1, Share)->setToolTip(QString::fromStdString(share->name));
    }

    // On screen the longest of each side, its name bounded (the view must not widen the dock); every
    // name listed in the tooltip.
    const auto listed = [&](const std::vector<PathShare> &shares, std::size_t count, bool rich) {
        QStringList names;
        for (const PathShare &s : shares) {
            if (rich && !names.isEmpty()) {
                names << QStringLiteral("…");
                break;
            }
            QString name = shareName(s, c.rank);
            if (rich && name.size() > kDiffNameChars)
                name = name.left(kDiffNameChars / 2 - 1) + QChar(0x2026) + name.right(kDiffNameChars / 2);
            names << (rich ? QStringLiteral("<span style='white-space:nowrap'>%1&nbsp;%2</span>")
                                 .arg(name.toHtmlEscaped(), msText(s.ns).replace(QLatin1Char(' '), QStringLiteral("&nbsp;")))
                           : name + QLatin1Char(' ') + msText(s.ns));
        }
        const QString n = tr("%n op(s)", nullptr, static_cast<int>(count));
        return names.isEmpty() ? n : n + QStringLiteral(" — ") + names.join(QStringLiteral(" · "));
    };
    const core::predict::PathDiff &d = c.diff;
    m_diffPlain =
        tr("Left the path: %1\nJoined it: %2").arg(listed(d.left, d.leftCount, false), listed(d.joined, d.joinedCount, false));
    m_diff->setText(tr("<b>Left the path</b>: %1<br><b>Joined it</b>: %2")
                        .arg(listed(d.left, d.leftCount, true), listed(d.joined, d.joinedCount, true)));
    m_diff->setToolTip(m_diffPlain);
}

} // namespace linkscope::ui
