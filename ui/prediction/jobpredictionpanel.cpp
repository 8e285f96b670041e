#include "prediction/jobpredictionpanel.h"

#include "prediction/jobpath.h"
#include "prediction/predicttext.h"

#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLocale>
#include <QPixmap>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace linkscope::ui {

namespace {

QString share(std::int64_t part, std::int64_t total)
{
    return total > 0 ? QLocale().toString(100.0 * double(part) / double(total), 'f', 1) + QStringLiteral(" %")
                     : QStringLiteral("–");
}

} // namespace

JobPredictionPanel::JobPredictionPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_list = new QTreeWidget(this);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels(
        {tr("Rank"), tr("Step"), tr("What-if"), tr("CPU"), tr("GPU"), tr("Comm"), tr("Other ranks"), tr("Idle")});
    const QStringList tips = {
        tr("The rank"),
        tr("The rank's step as ASTRA-sim would simulate the exported job (the replay, docs/prediction.md)"),
        tr("The rank's step under the what-if below, replayed on the whole job, and its change"),
        tr("Share of the rank's critical path: its own CPU work"),
        tr("Share of the rank's critical path: its own GPU work"),
        tr("Share of the rank's critical path: transfers (a collective from its last member's arrival, messages)"),
        tr("Share of the rank's critical path: other ranks' work it waited for through a collective or a message, and the "
           "rank it waited for most (a straggler sets the step of every rank that meets it)"),
        tr("Share of the rank's critical path: time nothing on the path ran")};
    // The shares' columns with the colour the overview draws the path in.
    const core::predict::PathCategory categories[] = {core::predict::PathCategory::Cpu, core::predict::PathCategory::Gpu,
                                                      core::predict::PathCategory::Comm, core::predict::PathCategory::OtherRank,
                                                      core::predict::PathCategory::Idle};
    for (int c = CpuColumn; c < ColumnCount; ++c) {
        QPixmap swatch(9, 9);
        swatch.fill(pathCategoryColour(categories[c - CpuColumn]));
        m_list->headerItem()->setIcon(c, QIcon(swatch));
    }
    for (int c = 0; c < ColumnCount; ++c) {
        m_list->headerItem()->setToolTip(c, tips[c]);
        m_list->headerItem()->setTextAlignment(c, c == RankColumn ? Qt::AlignLeft | Qt::AlignVCenter
                                                                  : Qt::AlignRight | Qt::AlignVCenter);
    }
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(false);
    layout->addWidget(m_list, 1);
    m_tools = new JobWhatIfTabs(this);
    m_tools->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored); // no minimum height of its own here
    layout->addWidget(m_tools, 1);
    connect(m_tools, &JobWhatIfTabs::applied, this, &JobPredictionPanel::showWhatIf);
    connect(m_list, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { emit rankChosen(item->data(RankColumn, Qt::UserRole).toLongLong()); });
}

QString JobPredictionPanel::statusText() const { return m_status->text(); }

QString JobPredictionPanel::whatIfText(std::int64_t rank) const
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(RankColumn, Qt::UserRole).toLongLong() == rank)
            return m_list->topLevelItem(i)->text(WhatIfColumn);
    return {};
}

void JobPredictionPanel::showWhatIf(const WhatIfOutcome &outcome)
{
    m_outcome = outcome;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_list->topLevelItem(i);
        const std::int64_t rank = item->data(RankColumn, Qt::UserRole).toLongLong();
        const auto it = std::find_if(outcome.ranks.begin(), outcome.ranks.end(),
                                     [rank](const WhatIfRankStep &r) { return r.rank == rank; });
        if (it == outcome.ranks.end() || !outcome.error.isEmpty()) {
            item->setText(WhatIfColumn, QString());
            continue;
        }
        item->setText(WhatIfColumn, it->finished ? tr("%1 (%2)").arg(msText(it->stepNs), changePctText(it->changePct()))
                                                 : tr("did not finish"));
    }
}

QString JobPredictionPanel::stepText(std::int64_t rank) const
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(RankColumn, Qt::UserRole).toLongLong() == rank)
            return m_list->topLevelItem(i)->text(StepColumn);
    return {};
}

void JobPredictionPanel::showPrediction(const JobPredictor &predictor, std::int64_t pathRank)
{
    m_list->clear();
    const JobPredictionPtr p = predictor.prediction();
    if (!p && m_tools)
        m_tools->setPrediction(nullptr); // nothing to replay while the job is predicted
    if (!p) {
        m_status->setText(predictor.running()            ? tr("Predicting each rank's step (exporting the job for the replay)…")
                          : !predictor.error().isEmpty() ? tr("No prediction for this job: %1").arg(predictor.error())
                                                         : QString());
        m_status->setVisible(!m_status->text().isEmpty());
        return;
    }
    const std::int64_t slowest = p->slowestRank();
    const int s = p->indexOf(slowest);
    // Per rank, whose work its path waited for; and the rank most ranks spend most of their path on.
    std::vector<std::vector<core::predict::OtherRankShare>> others;
    std::map<std::int64_t, int> waitedFor;
    for (const core::predict::RankPrediction &r : p->prediction.ranks) {
        others.push_back(core::predict::otherRanksOfPath(p->graph.job, r.path));
        if (!others.back().empty() && 2 * r.path.breakdown.otherRankNs > r.path.breakdown.total())
            ++waitedFor[others.back().front().rank];
    }
    const auto setter = std::max_element(waitedFor.begin(), waitedFor.end(),
                                         [](const auto &a, const auto &b) { return a.second < b.second; });
    m_status->setText(tr("Predicted step: %1 (rank %2, the slowest) · network %3 · exported in %4 s, replayed in %5 ms")
                          .arg(s >= 0 ? msText(p->prediction.ranks[static_cast<std::size_t>(s)].stepNs) : tr("none"))
                          .arg(slowest)
                          .arg(QString::fromStdString(p->graph.networkSource))
                          .arg(QLocale().toString(p->buildMs / 1000.0, 'f', 1))
                          .arg(QLocale().toString(p->predictMs, 'f', p->predictMs < 10 ? 1 : 0))
                      + (setter == waitedFor.end()
                             ? QString()
                             : tr(" · %n rank(s) spend most of their path waiting for rank %1's work", nullptr, setter->second)
                                   .arg(setter->first)));
    m_status->setToolTip(tr("Every rank exported for ASTRA-sim as `linkscope job` exports it, and replayed "
                            "(docs/prediction.md). Click a rank for its critical path in the overview"));
    m_status->show();
    for (std::size_t i = 0; i < p->prediction.ranks.size(); ++i) {
        const core::predict::RankPrediction &r = p->prediction.ranks[i];
        auto *item = new QTreeWidgetItem(m_list);
        item->setData(RankColumn, Qt::UserRole, qlonglong(r.rank));
        item->setText(RankColumn, r.rank == slowest ? tr("%1 (slowest)").arg(r.rank) : QString::number(r.rank));
        const core::predict::Breakdown &b = r.path.breakdown;
        const std::int64_t t = b.total();
        item->setText(StepColumn, r.finished ? msText(r.stepNs) : tr("did not finish"));
        if (!r.finished)
            item->setToolTip(StepColumn, QString::fromStdString(r.stuck));
        item->setText(CpuColumn, share(b.cpuNs, t));
        item->setText(GpuColumn, share(b.gpuNs, t));
        item->setText(CommColumn, share(b.commNs, t));
        // Whose work: "99.9 % (rank 6)", the CPU and GPU time of each rank in the tooltip.
        if (others[i].empty()) {
            item->setText(OtherColumn, share(b.otherRankNs, t));
        } else {
            item->setText(OtherColumn, tr("%1 (rank %2)").arg(share(b.otherRankNs, t)).arg(others[i].front().rank));
            QStringList lines{tr("Rank %1's step waited for the work of:").arg(r.rank)};
            for (const core::predict::OtherRankShare &o : others[i])
                lines << tr("rank %1: CPU %2, GPU %3").arg(o.rank).arg(msText(o.cpuNs), msText(o.gpuNs));
            item->setToolTip(OtherColumn, lines.join(QLatin1Char('\n')));
        }
        item->setText(IdleColumn, share(b.idleNs, t));
        for (int c = StepColumn; c < ColumnCount; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (r.rank == pathRank) {
            QFont bold = item->font(0);
            bold.setBold(true);
            for (int c = 0; c < ColumnCount; ++c)
                item->setFont(c, bold);
            item->setToolTip(RankColumn, tr("Its critical path is drawn in the overview (critical-path mode)"));
        }
    }
    showWhatIf(m_outcome);
    if (m_tools)
        m_tools->setPrediction(p); // a new graph: its what-if replayed, the column filled again
}

} // namespace linkscope::ui
