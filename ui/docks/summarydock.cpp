#include "docks/summarydock.h"

#include "docks/statstable.h"
#include "ground/timeformat.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTabWidget>
#include <QTableWidget>

#include <QVBoxLayout>
#include <algorithm>

namespace linkscope::ui {

namespace {

QString qs(const std::string &s) { return QString::fromStdString(s); }

QString durationOrDash(core::Nanos ns, bool present) { return present ? formatDuration(ns) : QStringLiteral("–"); }

// The first SummaryDock::kMaxOpRows of `ops` (the core orders them by total time): a row is eight
// items, and a table of a million distinct kernel names took gigabytes and most of a minute.
void fillOps(QTableWidget *table, const std::vector<core::SummaryOpStat> &ops, core::Nanos extent, bool cpu)
{
    const QLocale locale;
    const int rows = static_cast<int>(std::min<std::size_t>(ops.size(), SummaryDock::kMaxOpRows));
    table->setSortingEnabled(false);
    table->clearContents();
    table->setRowCount(rows);
    for (int r = 0; r < rows; ++r) {
        const core::SummaryOpStat &op = ops[static_cast<std::size_t>(r)];
        int c = 0;
        table->setItem(r, c++, statsTextItem(qs(op.name), qs(op.name)));
        table->setItem(r, c++, statsTextItem(qs(op.category)));
        table->setItem(r, c++, statsNumberItem(locale.toString(qulonglong(op.count)), double(op.count)));
        table->setItem(r, c++, statsNumberItem(formatDuration(op.total), double(op.total)));
        if (cpu)
            table->setItem(r, c++, statsNumberItem(formatDuration(op.self), double(op.self)));
        table->setItem(r, c++, statsNumberItem(formatDuration(op.mean()), double(op.mean())));
        table->setItem(r, c++, statsNumberItem(formatDuration(op.max), double(op.max)));
        const double pct = extent > 0 ? 100.0 * double(op.total) / double(extent) : 0.0;
        table->setItem(r, c++, statsNumberItem(statsPercentText(pct), pct));
    }
    table->setSortingEnabled(true);
}

} // namespace

SummaryDock::SummaryDock(QWidget *parent) : QDockWidget(tr("Summary"), parent)
{
    setObjectName(QStringLiteral("SummaryDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header = new QLabel(body);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_tabs = new QTabWidget(body);
    m_tables[Ranks] = makeStatsTable({tr("Rank"), tr("Extent"), tr("GPU util."), tr("GPU busy"), tr("Comm."), tr("Exposed comm."),
                                      tr("Steps"), tr("Mean step"), tr("Max step"), tr("Top GPU op")},
                                     m_tabs);
    m_tables[GpuOps] = makeStatsTable(
        {tr("GPU op"), tr("Kind"), tr("Count"), tr("Total"), tr("Mean"), tr("Max"), tr("% of trace")}, m_tabs);
    m_tables[CpuOps] = makeStatsTable(
        {tr("CPU op"), tr("Kind"), tr("Count"), tr("Total"), tr("Self"), tr("Mean"), tr("Max"), tr("% of trace")}, m_tabs);
    m_tables[Streams] = makeStatsTable(
        {tr("Stream"), tr("GPU ops"), tr("Busy"), tr("Util."), tr("Comm."), tr("Overlapped"), tr("Exposed comm.")}, m_tabs);
    m_tables[Steps] = makeStatsTable({tr("Step"), tr("Duration"), tr("Start"), tr("% of trace")}, m_tabs);
    // The ranks' widest column is the top op's name, the last one.
    m_tables[Ranks]->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tables[Ranks]->horizontalHeader()->setSectionResizeMode(m_tables[Ranks]->columnCount() - 1, QHeaderView::Stretch);
    // The Ranks table is a tab only while a job is open; until then it is a bare child of the tab
    // widget, in no layout, and would be painted over the tab bar at (0, 0) when shown with it.
    m_tables[Ranks]->hide();
    // Rows in the order the core gives them (ops by total time, streams in lane order, ranks
    // ascending) until a header is clicked.
    for (QTableWidget *t : m_tables)
        t->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
    m_tabs->addTab(m_tables[GpuOps], tr("GPU ops"));
    m_tabs->addTab(m_tables[CpuOps], tr("CPU ops"));
    m_tabs->addTab(m_tables[Streams], tr("GPU streams"));
    m_tabs->addTab(m_tables[Steps], tr("Steps"));
    layout->addWidget(m_tabs, 1);
    setWidget(body);
    refresh();
}

QTableWidget *SummaryDock::table(Table which) const { return m_tables[which]; }

QString SummaryDock::headerText() const { return m_header->text(); }

void SummaryDock::setDocument(DocumentPtr doc)
{
    if (doc == m_doc)
        return;
    m_doc = std::move(doc);
    m_stats.reset();
    m_dirty = true;
    if (isVisible())
        refresh();
}

void SummaryDock::setJob(JobPtr job)
{
    m_job = std::move(job);
    m_dirty = true;
    if (isVisible())
        refresh();
}

const core::TraceStats *SummaryDock::stats()
{
    if (!m_doc)
        return nullptr;
    if (!m_stats)
        m_stats = core::computeTraceStats(m_doc->device(), m_doc->index());
    return &*m_stats;
}

void SummaryDock::showEvent(QShowEvent *event)
{
    QDockWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

void SummaryDock::refresh()
{
    m_dirty = false;
    fillRanks();
    fillTrace();
}

void SummaryDock::fillTrace()
{
    const core::TraceStats *s = stats();
    QStringList header;
    if (m_job)
        header << tr("<b>Job</b> in %1: %2 ranks (the Ranks tab); below, the rank open in the timeline.")
                      .arg(m_job->folder.toHtmlEscaped())
                      .arg(m_job->report.ranks.size());
    if (!s) {
        header << (m_job ? tr("No rank open: double-click one in the job overview for its own ops, streams and steps.")
                         : tr("Open a trace to see its summary: top GPU and CPU ops, GPU utilisation, exposed communication, "
                              "step times."));
        m_header->setText(header.join(QStringLiteral("<br>")));
        for (Table t : {GpuOps, CpuOps, Streams, Steps})
            m_tables[t]->setRowCount(0);
        return;
    }
    const core::StepTimes steps = s->stepTimes();
    const double exposedShare = s->comm() > 0 ? 100.0 * double(s->exposedComm()) / double(s->comm()) : 0.0;
    header << tr("<b>%1</b>: %2 over %3 events; %4 GPU(s) busy %5 of the time")
                  .arg(QFileInfo(m_doc->devicePath()).fileName().toHtmlEscaped(), formatDuration(s->span()))
                  .arg(s->events)
                  .arg(s->devices.size())
                  .arg(statsPercentText(s->gpuUtilisation()));
    header << tr("Communication %1, exposed %2 (%3 of it not overlapped by computation)")
                  .arg(formatDuration(s->comm()), formatDuration(s->exposedComm()), statsPercentText(exposedShare));
    header << (steps.count ? tr("Steps: %1, mean %2 (min %3, median %4, max %5)")
                                 .arg(steps.count)
                                 .arg(formatDuration(steps.mean), formatDuration(steps.min), formatDuration(steps.median),
                                      formatDuration(steps.max))
                           : tr("Steps: none (no ProfilerStep#N span in the trace)"));
    m_header->setText(header.join(QStringLiteral("<br>")));

    fillOps(m_tables[GpuOps], s->gpuOps, s->span(), false);
    fillOps(m_tables[CpuOps], s->cpuOps, s->span(), true);
    auto opsTitle = [](const QString &what, std::size_t count) {
        return count > kMaxOpRows ? tr("%1 (top %L2 of %L3 names)").arg(what).arg(kMaxOpRows).arg(qulonglong(count)) : what;
    };
    m_tabs->setTabText(m_tabs->indexOf(m_tables[GpuOps]), opsTitle(tr("GPU ops"), s->gpuOps.size()));
    m_tabs->setTabText(m_tabs->indexOf(m_tables[CpuOps]), opsTitle(tr("CPU ops"), s->cpuOps.size()));

    QTableWidget *streams = m_tables[Streams];
    const QLocale locale;
    streams->setSortingEnabled(false);
    streams->setRowCount(static_cast<int>(s->streams.size() + s->devices.size()));
    int r = 0;
    auto streamRow = [&](const QString &label, std::uint64_t ops, core::Nanos busy, core::Nanos comm, core::Nanos overlapped) {
        streams->setItem(r, 0, statsTextItem(label));
        streams->setItem(r, 1, statsNumberItem(locale.toString(qulonglong(ops)), double(ops)));
        streams->setItem(r, 2, statsNumberItem(formatDuration(busy), double(busy)));
        streams->setItem(r, 3, statsNumberItem(statsPercentText(s->percentOf(busy)), s->percentOf(busy)));
        streams->setItem(r, 4, statsNumberItem(formatDuration(comm), double(comm)));
        streams->setItem(r, 5, statsNumberItem(formatDuration(overlapped), double(overlapped)));
        streams->setItem(r, 6, statsNumberItem(formatDuration(comm - overlapped), double(comm - overlapped)));
        ++r;
    };
    for (const core::SummaryStream &st : s->streams)
        streamRow(qs(st.label), st.ops, st.busy, st.comm, st.commOverlapped);
    for (const core::SummaryDevice &d : s->devices)
        streamRow(tr("GPU %1 (all streams)").arg(d.device), d.ops, d.busy, d.comm, d.commOverlapped);
    streams->setSortingEnabled(true);

    QTableWidget *stepTable = m_tables[Steps];
    stepTable->setSortingEnabled(false);
    stepTable->setRowCount(static_cast<int>(s->steps.size()));
    r = 0;
    for (const core::SummaryStep &step : s->steps) {
        stepTable->setItem(r, 0, statsNumberItem(QStringLiteral("ProfilerStep#%1").arg(step.number), double(step.number)));
        stepTable->setItem(r, 1, statsNumberItem(formatDuration(step.dur), double(step.dur)));
        stepTable->setItem(r, 2, statsNumberItem(formatDuration(step.start - s->start), double(step.start)));
        stepTable->setItem(r, 3, statsNumberItem(statsPercentText(s->percentOf(step.dur)), s->percentOf(step.dur)));
        ++r;
    }
    stepTable->setSortingEnabled(true);
}

void SummaryDock::fillRanks()
{
    const int at = m_tabs->indexOf(m_tables[Ranks]);
    if (!m_job) {
        if (at >= 0)
            m_tabs->removeTab(at);
        m_tables[Ranks]->hide();
        m_tables[Ranks]->setRowCount(0);
        return;
    }
    if (at < 0) {
        m_tabs->insertTab(0, m_tables[Ranks], tr("Ranks"));
        m_tabs->setCurrentIndex(0);
    }
    QTableWidget *table = m_tables[Ranks];
    const auto &ranks = m_job->report.ranks;
    table->setSortingEnabled(false);
    table->setRowCount(static_cast<int>(ranks.size()));
    for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
        const core::job::RankSummary &rank = ranks[static_cast<std::size_t>(r)];
        table->setItem(r, 0, statsNumberItem(QString::number(rank.rank), double(rank.rank)));
        const core::TraceStats *s = rank.stats.get();
        if (!s) {
            const QString why = rank.error.empty() ? tr("no statistics") : qs(rank.error);
            for (int c = 1; c < table->columnCount(); ++c)
                table->setItem(r, c, statsTextItem(c == 1 ? why : QString(), why));
            continue;
        }
        const core::StepTimes steps = s->stepTimes();
        table->setItem(r, 1, statsNumberItem(formatDuration(s->span()), double(s->span())));
        table->setItem(r, 2, statsNumberItem(statsPercentText(s->gpuUtilisation()), s->gpuUtilisation()));
        table->setItem(r, 3, statsNumberItem(formatDuration(s->gpuBusy()), double(s->gpuBusy())));
        table->setItem(r, 4, statsNumberItem(formatDuration(s->comm()), double(s->comm())));
        table->setItem(r, 5, statsNumberItem(formatDuration(s->exposedComm()), double(s->exposedComm())));
        table->setItem(r, 6, statsNumberItem(QString::number(steps.count), double(steps.count)));
        table->setItem(r, 7, statsNumberItem(durationOrDash(steps.mean, steps.count), double(steps.mean)));
        table->setItem(r, 8, statsNumberItem(durationOrDash(steps.max, steps.count), double(steps.max)));
        const QString top = s->gpuOps.empty() ? QString() : qs(s->gpuOps.front().name);
        table->setItem(r, 9, statsTextItem(top, top));
    }
    table->setSortingEnabled(true);
}

} // namespace linkscope::ui
