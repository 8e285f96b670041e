#include "compare/diffdock.h"

#include "compare/againstview.h"

#include "docks/statstable.h"
#include "ground/timeformat.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {

QString qs(const std::string &s) { return QString::fromStdString(s); }

QString signedDuration(core::Nanos ns)
{
    return (ns > 0 ? QStringLiteral("+") : ns == 0 ? QStringLiteral("±") : QString()) + formatDuration(ns);
}

QTableWidgetItem *durationItem(core::Nanos ns, bool present = true)
{
    return present ? statsNumberItem(formatDuration(ns), double(ns)) : statsNumberItem(QStringLiteral("–"), -1.0);
}

QTableWidgetItem *changeItem(const core::DiffFigure &f)
{
    return statsNumberItem(signedDuration(f.change()), double(f.change()));
}

// The change in percent of A; "only in A/B" when one run lacks it; sorts by the percent.
QTableWidgetItem *percentItem(const core::DiffFigure &f)
{
    if (!f.inA)
        return statsNumberItem(DiffDock::tr("only in B"), 1e12);
    if (!f.inB)
        return statsNumberItem(DiffDock::tr("only in A"), -1e12);
    if (f.a == 0)
        return statsNumberItem(QStringLiteral("–"), 0.0);
    const double p = f.changePct();
    return statsNumberItem((p > 0 ? QStringLiteral("+") : QString()) + statsPercentText(p), p);
}

QTableWidgetItem *countItem(std::uint64_t n) { return statsNumberItem(QLocale().toString(qulonglong(n)), double(n)); }

QString rankName(std::int64_t rank) { return rank < 0 ? DiffDock::tr("trace") : DiffDock::tr("rank %1").arg(rank); }

// The op's name (elided in the middle by the table: both ends stay) and the full name with how many
// names of the traces met in it.
QTableWidgetItem *opNameItem(const core::DiffOp &op)
{
    QString tip = qs(op.name);
    if (op.names > 1)
        tip += DiffDock::tr("\n%1 names in the traces normalise to it").arg(op.names);
    return statsTextItem(qs(op.name), tip);
}

QString runName(const std::string &label)
{
    // A pair's label is "HOST + KINETO": each file by its name.
    const QString l = qs(label);
    QStringList parts;
    for (const QString &p : l.split(QStringLiteral(" + ")))
        parts << (QFileInfo(p).fileName().isEmpty() ? p : QFileInfo(p).fileName());
    return parts.join(QStringLiteral(" + "));
}

void beginFill(QTableWidget *table, std::size_t rows)
{
    table->setSortingEnabled(false);
    table->clearContents();
    table->setRowCount(static_cast<int>(rows));
}

} // namespace

DiffDock::DiffDock(QWidget *parent) : QDockWidget(tr("Diff"), parent)
{
    setObjectName(QStringLiteral("DiffDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_status = new QLabel(body);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_warnings = new QLabel(body);
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->hide();
    layout->addWidget(m_warnings);
    m_tabs = new QTabWidget(body);
    m_tables[Moved] = makeStatsTable(
        {tr("#"), tr("GPU op family or CPU op"), tr("Kind"), tr("Measure"), tr("A"), tr("B"), tr("Change"), tr("Change %")},
        m_tabs);
    m_tables[Ranks] = makeStatsTable({tr("Rank"), tr("Step A"), tr("Step B"), tr("Change"), tr("Change %"), tr("Steps A"),
                                      tr("Steps B"), tr("GPU busy A"), tr("GPU busy B"), tr("Change"), tr("Comm. A"),
                                      tr("Comm. B"), tr("Change"), tr("Exposed comm. A"), tr("Exposed comm. B"), tr("Change")},
                                     m_tabs);
    m_tables[Streams] = makeStatsTable({tr("Stream"), tr("Rank"), tr("Busy A"), tr("Busy B"), tr("Change"), tr("Change %")},
                                       m_tabs);
    m_tables[GpuOps] = makeStatsTable({tr("GPU op family"), tr("Kind"), tr("Count A"), tr("Count B"), tr("Total A"),
                                       tr("Total B"), tr("Mean A"), tr("Mean B"), tr("Change"), tr("Change %")},
                                      m_tabs);
    m_tables[CpuOps] = makeStatsTable({tr("CPU op"), tr("Count A"), tr("Count B"), tr("Total A"), tr("Total B"), tr("Mean A"),
                                       tr("Mean B"), tr("Self A"), tr("Self B"), tr("Self change"), tr("Self change %")},
                                      m_tabs);
    // The place comes first, the name takes the width.
    m_tables[Moved]->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tables[Moved]->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    // The ranks' first column is short; the step's change is what is read first.
    m_tables[Ranks]->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // Rows in the order the core gives them (by absolute change) until a header is clicked.
    for (QTableWidget *t : m_tables)
        t->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
    m_tabs->addTab(m_tables[Moved], tr("What moved most"));
    m_tabs->addTab(m_tables[Ranks], tr("Step per rank"));
    m_tabs->addTab(m_tables[Streams], tr("GPU streams"));
    m_tabs->addTab(m_tables[GpuOps], tr("GPU ops"));
    m_tabs->addTab(m_tables[CpuOps], tr("CPU ops"));
    m_against = new AgainstView(m_tabs);
    m_tabs->addTab(m_against, tr("Prediction vs B"));
    m_tabs->setTabToolTip(TableCount, tr("Was the prediction right? The Prediction dock's what-if, predicted for A, against "
                                         "the step B measured (linkscope predict A [what-ifs] --against B)"));
    layout->addWidget(m_tabs, 1);
    setWidget(body);
    m_status->setText(tr("File ▸ Compare with… compares the open trace or job with another run."));
}

QString DiffDock::statusText() const { return m_status->text(); }

void DiffDock::setBusy(const QString &a, const QString &b) { m_status->setText(tr("Comparing %1 with %2…").arg(a, b)); }

void DiffDock::setError(const QString &message) { m_status->setText(tr("The runs could not be compared: %1").arg(message)); }

void DiffDock::setDiff(std::shared_ptr<const core::RunDiff> diff, double seconds)
{
    m_diff = std::move(diff);
    if (!m_diff)
        return;
    const core::RunDiff &d = *m_diff;
    m_status->setText(tr("A: %1  ·  B: %2  ·  %3 %4 compared in %5 s")
                          .arg(runName(d.a), runName(d.b))
                          .arg(d.ranks.size())
                          .arg(d.job                 ? tr("ranks")
                               : d.ranks.size() == 1 ? tr("trace")
                                                     : tr("traces"))
                          .arg(QLocale().toString(seconds, 'f', 2)));
    m_status->setToolTip(tr("A: %1\nB: %2").arg(qs(d.a), qs(d.b)));
    QStringList warnings;
    for (const std::string &w : d.warnings)
        warnings << qs(w);
    m_warnings->setText(warnings.isEmpty() ? QString() : QStringLiteral("⚠ ") + warnings.join(QStringLiteral("\n⚠ ")));
    m_warnings->setVisible(!warnings.isEmpty());
    fillMoved();
    fillRanks();
    fillStreams();
    fillOps(true);
    fillOps(false);
}

void DiffDock::fillMoved()
{
    QTableWidget *t = m_tables[Moved];
    const core::RunDiff &d = *m_diff;
    beginFill(t, d.moved.size());
    for (int r = 0; r < static_cast<int>(d.moved.size()); ++r) {
        const core::DiffOp &op = d.movedOp(static_cast<std::size_t>(r));
        const core::DiffFigure &f = op.moved();
        int c = 0;
        t->setItem(r, c++, statsNumberItem(QString::number(r + 1), r + 1));
        t->setItem(r, c++, opNameItem(op));
        t->setItem(r, c++, statsTextItem(qs(op.category)));
        t->setItem(r, c++, statsTextItem(op.gpu ? tr("total") : tr("self")));
        t->setItem(r, c++, durationItem(f.a, f.inA));
        t->setItem(r, c++, durationItem(f.b, f.inB));
        t->setItem(r, c++, changeItem(f));
        t->setItem(r, c++, percentItem(f));
    }
    t->setSortingEnabled(true);
}

void DiffDock::fillRanks()
{
    QTableWidget *t = m_tables[Ranks];
    const core::RunDiff &d = *m_diff;
    beginFill(t, d.ranks.size());
    for (int r = 0; r < static_cast<int>(d.ranks.size()); ++r) {
        const core::DiffRank &k = d.ranks[static_cast<std::size_t>(r)];
        int c = 0;
        QTableWidgetItem *name = statsTextItem(rankName(k.rank));
        name->setData(kStatsSortRole, double(k.rank));
        t->setItem(r, c++, name);
        t->setItem(r, c++, durationItem(k.step.a));
        t->setItem(r, c++, durationItem(k.step.b));
        t->setItem(r, c++, changeItem(k.step));
        t->setItem(r, c++, percentItem(k.step));
        // 0 ProfilerStep#N spans: the step is the trace's extent.
        for (const std::size_t steps : {k.stepA.steps, k.stepB.steps}) {
            QTableWidgetItem *item = steps ? countItem(steps) : statsNumberItem(tr("extent"), 0.0);
            if (!steps)
                item->setToolTip(tr("No ProfilerStep#N: the step is the trace's extent"));
            t->setItem(r, c++, item);
        }
        for (const core::DiffFigure *f : {&k.gpuBusy, &k.comm, &k.exposedComm}) {
            t->setItem(r, c++, durationItem(f->a));
            t->setItem(r, c++, durationItem(f->b));
            t->setItem(r, c++, changeItem(*f));
        }
    }
    t->setSortingEnabled(true);
}

void DiffDock::fillStreams()
{
    QTableWidget *t = m_tables[Streams];
    const core::RunDiff &d = *m_diff;
    beginFill(t, d.streams.size());
    for (int r = 0; r < static_cast<int>(d.streams.size()); ++r) {
        const core::DiffStream &s = d.streams[static_cast<std::size_t>(r)];
        int c = 0;
        t->setItem(r, c++, statsTextItem(qs(s.label), qs(s.label)));
        QTableWidgetItem *rank = statsTextItem(rankName(s.rank));
        rank->setData(kStatsSortRole, double(s.rank));
        t->setItem(r, c++, rank);
        t->setItem(r, c++, durationItem(s.busy.a, s.busy.inA));
        t->setItem(r, c++, durationItem(s.busy.b, s.busy.inB));
        t->setItem(r, c++, changeItem(s.busy));
        t->setItem(r, c++, percentItem(s.busy));
    }
    t->setSortingEnabled(true);
}

void DiffDock::fillOps(bool gpu)
{
    QTableWidget *t = m_tables[gpu ? GpuOps : CpuOps];
    const std::vector<core::DiffOp> &ops = gpu ? m_diff->gpuOps : m_diff->cpuOps;
    beginFill(t, ops.size());
    for (int r = 0; r < static_cast<int>(ops.size()); ++r) {
        const core::DiffOp &op = ops[static_cast<std::size_t>(r)];
        int c = 0;
        t->setItem(r, c++, opNameItem(op));
        if (gpu)
            t->setItem(r, c++, statsTextItem(qs(op.category)));
        t->setItem(r, c++, countItem(op.countA));
        t->setItem(r, c++, countItem(op.countB));
        t->setItem(r, c++, durationItem(op.total.a, op.total.inA));
        t->setItem(r, c++, durationItem(op.total.b, op.total.inB));
        if (gpu) {
            t->setItem(r, c++, durationItem(op.meanA(), op.total.inA));
            t->setItem(r, c++, durationItem(op.meanB(), op.total.inB));
            t->setItem(r, c++, changeItem(op.total));
            t->setItem(r, c++, percentItem(op.total));
        } else {
            t->setItem(r, c++, durationItem(op.meanA(), op.total.inA));
            t->setItem(r, c++, durationItem(op.meanB(), op.total.inB));
            t->setItem(r, c++, durationItem(op.self.a, op.self.inA));
            t->setItem(r, c++, durationItem(op.self.b, op.self.inB));
            t->setItem(r, c++, changeItem(op.self));
            t->setItem(r, c++, percentItem(op.self));
        }
    }
    t->setSortingEnabled(true);
}

} // namespace linkscope::ui
