#include "jobview/jobfindingslist.h"

#include <QHeaderView>

namespace linkscope::ui {

using core::job::JobFinding;

JobFindingsList::JobFindingsList(QWidget *parent) : QTreeWidget(parent)
{
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setHeaderLabels({tr("Severity"), tr("Finding"), tr("Group"), tr("#"), tr("Ranks"), tr("Message")});
    header()->setStretchLastSection(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setToolTip(tr("Cross-rank findings: selecting one frames its collective on every rank"));
    connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (m_setting || !item || !(item->flags() & Qt::ItemIsSelectable))
            return;
        emit findingActivated(indexOfTopLevelItem(item));
    });
}

void JobFindingsList::setJob(const JobPtr &job)
{
    m_setting = true;
    clear();
    m_count = 0;
    m_errors = 0;
    m_warnings = 0;
    if (job) {
        for (const JobFinding &f : job->report.findings) {
            // Ranks as ranges, made once here and bounded (rankRangeText: at most 64 ranges), so that a
            // missing_rank finding of a million-rank world is a few characters to lay out on every
            // repaint, not seven megabytes (issue 29, D9).
            const auto ranges = f.rankRanges.empty() ? core::job::rankRanges(f.ranks) : f.rankRanges;
            auto *item = new QTreeWidgetItem(
                this, {QString::fromUtf8(core::job::severityName(f.severity).data()), QString::fromStdString(f.kind),
                       QString::fromStdString(f.processGroup), f.index >= 0 ? QString::number(f.index) : QString(),
                       QString::fromStdString(core::job::rankRangeText(ranges)), QString::fromStdString(f.message)});
            item->setToolTip(5, QString::fromStdString(f.message));
            ++m_count;
            m_errors += f.severity == core::job::Severity::Error;
            m_warnings += f.severity == core::job::Severity::Warning;
        }
        if (job->report.findings.empty()) {
            auto *item = new QTreeWidgetItem(
                this, {tr("—"), tr("none"), QString(), QString(), QString(),
                       tr("Every rank issued the same collectives, with the same types and sizes; sends and receives pair up")});
            item->setFlags(Qt::ItemIsEnabled);
        }
        for (int c = 0; c < 5; ++c)
            resizeColumnToContents(c);
    }
    setCurrentItem(nullptr);
    m_setting = false;
}

int JobFindingsList::currentFinding() const
{
    const QTreeWidgetItem *item = currentItem();
    if (!item || !(item->flags() & Qt::ItemIsSelectable))
        return -1;
    return indexOfTopLevelItem(const_cast<QTreeWidgetItem *>(item));
}

void JobFindingsList::setCurrentFinding(int row)
{
    m_setting = true;
    if (row >= 0 && row < m_count)
        setCurrentItem(topLevelItem(row));
    else
        setCurrentItem(nullptr);
    m_setting = false;
}

QString JobFindingsList::summary() const
{
    if (m_count == 0)
        return tr("no cross-rank findings");
    QStringList parts;
    if (m_errors)
        parts << (m_errors == 1 ? tr("1 error") : tr("%L1 errors").arg(m_errors));
    if (m_warnings)
        parts << (m_warnings == 1 ? tr("1 warning") : tr("%L1 warnings").arg(m_warnings));
    if (const int info = m_count - m_errors - m_warnings)
        parts << tr("%L1 info").arg(info);
    return (m_count == 1 ? tr("1 cross-rank finding") : tr("%L1 cross-rank findings").arg(m_count)) + QStringLiteral(": ")
           + parts.join(QStringLiteral(", "));
}

} // namespace linkscope::ui
