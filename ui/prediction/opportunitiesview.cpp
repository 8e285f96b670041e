#include "prediction/opportunitiesview.h"

#include "prediction/predicttext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

struct SweepOutcome {
    std::shared_ptr<const core::predict::Opportunities> result;
    QString error;
};

} // namespace

OpportunitiesView::OpportunitiesView(QWidget *parent) : QWidget(parent), m_job(1)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *row = new QHBoxLayout;
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_find = new QPushButton(tr("Find what to fix first"), this);
    m_find->setToolTip(tr("Replay the job once per candidate change — each kernel family and stream on a critical path "
                          "×0.5, communication, the network, each straggler's CPU, the longest CPU ops, all CPU — and "
                          "rank them by how much they shorten the job's step"));
    row->addWidget(m_status, 1);
    row->addWidget(m_find);
    layout->addLayout(row);
    m_list = new QTreeWidget(this);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({tr("#"), tr("Change"), tr("Job step"), tr("Ops (on path)"), tr("What moved on the path")});
    m_list->headerItem()->setToolTip(GainColumn, tr("The job's predicted step (its slowest rank's) under the change, and "
                                                    "the time it saves"));
    m_list->headerItem()->setToolTip(OpsColumn, tr("Ops the change touches, and of them on a critical path before it"));
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(ChangeColumn, QHeaderView::Interactive);
    m_list->header()->setStretchLastSection(true);
    m_list->setTextElideMode(Qt::ElideRight); // a change's title keeps its start: what it changes
    layout->addWidget(m_list, 1);
    connect(m_find, &QPushButton::clicked, this, &OpportunitiesView::find);
    connect(m_list, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem *item) { choose(m_list->indexOfTopLevelItem(item)); });
    connect(m_list, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { choose(m_list->indexOfTopLevelItem(item)); });
    setGraph(nullptr);
}

void OpportunitiesView::setGraph(std::shared_ptr<const core::predict::SimJob> job)
{
    if (job == m_graph)
        return;
    m_job.cancel();
    m_graph = std::move(job);
    m_result.reset();
    m_list->clear();
    m_find->setEnabled(m_graph != nullptr);
    m_status->setText(m_graph ? tr("Which change would shorten the step most?") : tr("No prediction yet."));
}

void OpportunitiesView::find()
{
    if (!m_graph)
        return;
    m_find->setEnabled(false);
    m_status->setText(tr("Replaying each candidate change…"));
    const std::shared_ptr<const core::predict::SimJob> graph = m_graph;
    m_job.run(
        [graph](const JobToken &) {
            SweepOutcome out;
            try {
                core::predict::OpportunityOptions options;
                options.threads = 1; // a core left for the GUI
                out.result = std::make_shared<const core::predict::Opportunities>(
                    core::predict::findOpportunities(*graph, options));
            } catch (const std::exception &e) {
                out.error = QString::fromLocal8Bit(e.what());
            }
            return out;
        },
        [this](SweepOutcome out) { show(std::move(out.result), out.error); });
}

QString OpportunitiesView::statusText() const { return m_status->text(); }

void OpportunitiesView::show(std::shared_ptr<const core::predict::Opportunities> result, const QString &error)
{
    m_find->setEnabled(m_graph != nullptr);
    m_result = std::move(result);
    m_list->clear();
    if (!m_result) {
        m_status->setText(tr("No opportunities: %1").arg(error));
        return;
    }
    const core::predict::Opportunities &o = *m_result;
    m_status->setText(
        tr("%n change(s) replayed in %1 s on the job's step of %2 (rank %3 ends last). Click one to see it as a what-if.",
           nullptr, int(o.ranked.size()))
            .arg(QLocale().toString(o.sweepMs / 1000.0, 'f', 2), msText(o.baselineMakespanNs))
            .arg(o.criticalRank));
    QStringList notOffered;
    for (const core::predict::NotOffered &n : o.notOffered)
        notOffered << QString::fromStdString(n.candidate + ": " + n.why);
    m_status->setToolTip(notOffered.isEmpty() ? QString() : tr("Not offered:\n%1").arg(notOffered.join(QLatin1Char('\n'))));
    int n = 0;
    for (const core::predict::Opportunity &c : o.ranked) {
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(OrderColumn, QString::number(++n));
        item->setText(ChangeColumn, QString::fromStdString(c.title));
        item->setToolTip(ChangeColumn, QString::fromStdString(c.title) + QLatin1Char('\n')
                                           + tr("linkscope predict %1").arg(QString::fromStdString([&] {
                                                 std::string args;
                                                 for (const std::string &a : c.args)
                                                     args += (args.empty() ? "" : " ") + a;
                                                 return args;
                                             }())));
        item->setText(GainColumn,
                      c.finished ? tr("%1 (%2)").arg(msText(c.makespanNs), changePctText(-c.gainPct())) : tr("did not finish"));
        item->setText(OpsColumn,
                      tr("%1 (%2)").arg(QLocale().toString(qulonglong(c.nodes)), QLocale().toString(qulonglong(c.onPath))));
        item->setText(MovedColumn, QString::fromStdString(c.moved()));
        item->setToolTip(MovedColumn, item->text(MovedColumn));
        for (int col : {OrderColumn, GainColumn, OpsColumn})
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
    }
}

void OpportunitiesView::choose(int row)
{
    if (!m_result || row < 0 || std::size_t(row) >= m_result->ranked.size())
        return;
    const core::predict::Opportunity &c = m_result->ranked[std::size_t(row)];
    m_list->setCurrentItem(m_list->topLevelItem(row));
    emit chosen(c.whatIf, QString::fromStdString(c.title));
}

bool OpportunitiesView::waitUntilFound(int timeoutMs)
{
    return processEventsWhile([this] { return m_job.busy(); }, timeoutMs);
}

} // namespace linkscope::ui
