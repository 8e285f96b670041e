#include "jobpredictionpanel.h"


#include "jobpath.h"

#include <QHeaderView>
#include <QIcon>
#include <QPixmap>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

QString msText(std::int64_t ns) { return QLocale().toString(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

QString share(std::int64_t part, std::int64_t total)
{
    return total > 0 ? QLocale().toString(100.0 * double(part) / double(total), 'f', 1) + QStringLiteral(" %") : QStringLiteral("–");
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
    m_list->setHeaderLabels({tr("Rank"), tr("Step"), tr("CPU"), tr("GPU"), tr("Comm"), tr("Other"), tr("Idle")});
    const QStringList tips = {
        tr("The rank"),
        tr("The rank's step as ASTRA-sim would simulate the exported job (the replay, docs/prediction.md)"),
        tr("Share of the rank's critical path: its own CPU work"),
        tr("Share of the rank's critical path: its own GPU work"),
        tr("Share of the rank's critical path: transfers (a collective from its last member's arrival, messages)"),
        tr("Share of the rank's critical path: other ranks' work it waited for through a collective or a message"),
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
        m_list->headerItem()->setTextAlignment(c, c == RankColumn ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    }
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(false);
    layout->addWidget(m_list, 1);
    connect(m_list, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        emit rankChosen(item->data(RankColumn, Qt::UserRole).toLongLong());
    });
}

QString JobPredictionPanel::statusText() const { return m_status->text(); }

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
    if (!p) {
        m_status->setText(predictor.running() ? tr("Predicting each rank's step (exporting the job for the replay)…")
                          : !predictor.error().isEmpty() ? tr("No prediction for this job: %1").arg(predictor.error())
                                                         : QString());
        m_status->setVisible(!m_status->text().isEmpty());
        return;
    }
    const std::int64_t slowest = p->slowestRank();
    const int s = p->indexOf(slowest);
    m_status->setText(tr("Predicted step: %1 (rank %2, the slowest) · network %3 · exported in %4 s, replayed in %5 ms")
                          .arg(s >= 0 ? msText(p->prediction.ranks[static_cast<std::size_t>(s)].stepNs) : tr("none"))
                          .arg(slowest)
                          .arg(QString::fromStdString(p->graph.networkSource))
                          .arg(QLocale().toString(p->buildMs / 1000.0, 'f', 1))
                          .arg(QLocale().toString(p->predictMs, 'f', p->predictMs < 10 ? 1 : 0)));
    m_status->setToolTip(tr("Every rank exported for ASTRA-sim as `linkscope job` exports it, and replayed "
                            "(docs/prediction.md). Click a rank for its critical path in the overview"));
    m_status->show();
    for (const core::predict::RankPrediction &r : p->prediction.ranks) {
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
        item->setText(OtherColumn, share(b.otherRankNs, t));
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
}

} // namespace linkscope::ui
