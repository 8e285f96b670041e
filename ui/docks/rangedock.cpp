#include "docks/rangedock.h"

#include "docks/statstable.h"
#include "ground/fromstd.h"
#include "ground/timeformat.h"
#include "io/file/atomicfile.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

namespace linkscope::ui {

namespace {

constexpr int kIndexRole = Qt::UserRole + 2; // position in RangeStats' vector

QTableWidgetItem *textItem(const QString &text, const QString &tooltip = QString()) { return statsTextItem(text, tooltip); }
QTableWidgetItem *numberItem(const QString &text, double sortKey) { return statsNumberItem(text, sortKey); }
QString percentText(double p) { return statsPercentText(p); }
QTableWidget *makeTable(const QStringList &headers, QWidget *parent) { return makeStatsTable(headers, parent); }

} // namespace

RangeDock::RangeDock(QWidget *parent) : QDockWidget(tr("Time range"), parent)
{
    setObjectName(QStringLiteral("RangeDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(body);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_tabs = new QTabWidget(body);
    m_tables[GpuOps] = makeTable({tr("GPU op"), tr("Kind"), tr("Count"), tr("Total"), tr("Mean"), tr("Max"), tr("% of range")},
                                 m_tabs);
    m_tables[Streams] = makeTable({tr("Stream"), tr("GPU ops"), tr("Busy"), tr("Busy %")}, m_tabs);
    m_tables[Threads] = makeTable({tr("Thread"), tr("Process"), tr("Events"), tr("CPU time"), tr("% of range")}, m_tabs);
    m_tabs->addTab(m_tables[GpuOps], tr("GPU ops"));
    m_tabs->addTab(m_tables[Streams], tr("GPU streams"));
    m_tabs->addTab(m_tables[Threads], tr("CPU threads"));
    layout->addWidget(m_tabs, 1);

    auto *buttons = new QHBoxLayout;
    m_copy = new QPushButton(tr("Copy"), body);
    m_copy->setToolTip(tr("Copy the selected rows, or all rows, as tab-separated text (Ctrl+C)"));
    m_export = new QPushButton(tr("Export CSV…"), body);
    m_export->setToolTip(tr("Write every row of the three tables to a CSV file"));
    m_status = new QLabel(body);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buttons->addWidget(m_copy);
    buttons->addWidget(m_export);
    buttons->addWidget(m_status, 1);
    layout->addLayout(buttons);
    setWidget(body);

    auto *copyAction = new QAction(tr("Copy"), this);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(copyAction);
    connect(copyAction, &QAction::triggered, this, &RangeDock::copyToClipboard);
    connect(m_copy, &QPushButton::clicked, this, &RangeDock::copyToClipboard);
    connect(m_export, &QPushButton::clicked, this, [this] {
        QString name = QStringLiteral("range.csv");
        if (m_doc)
            name = QFileInfo(m_doc->devicePath()).completeBaseName().section(QLatin1Char('.'), 0, 0)
                   + QStringLiteral("_range.csv");
        const QString dir = m_doc ? QFileInfo(m_doc->devicePath()).absolutePath() : QString();
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the range's statistics"), QDir(dir).filePath(name),
                                                          tr("CSV (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    rebuild();
}

QTableWidget *RangeDock::table(Table which) const { return m_tables[which]; }

QString RangeDock::summaryText() const { return m_summary->text(); }

void RangeDock::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    m_doc = std::move(doc);
    if (!sameTrace)
        m_stats.reset();
    else if (m_stats)
        m_stats = core::computeRangeStats(m_doc->device(), m_doc->index(), m_stats->start, m_stats->end);
    rebuild();
}

void RangeDock::setRange(core::Nanos start, core::Nanos end)
{
    if (!m_doc || end <= start)
        m_stats.reset();
    else
        m_stats = core::computeRangeStats(m_doc->device(), m_doc->index(), start, end);
    m_status->clear();
    rebuild();
}

void RangeDock::rebuild()
{
    for (QTableWidget *t : m_tables) {
        t->setSortingEnabled(false);
        t->clearContents();
        t->setRowCount(0);
    }
    m_copy->setEnabled(m_stats.has_value());
    m_export->setEnabled(m_stats.has_value());
    if (!m_stats || !m_doc) {
        // No range: no counts left over from the last one in the tabs' names.
        m_tabs->setTabText(GpuOps, tr("GPU ops"));
        m_tabs->setTabText(Streams, tr("GPU streams"));
        m_tabs->setTabText(Threads, tr("CPU threads"));
        m_summary->setText(tr("Shift+drag on the timeline to select a time range; its GPU ops, stream busy time and "
                              "CPU time per thread show here."));
        return;
    }
    const core::RangeStats &s = *m_stats;
    const core::DeviceTrace &trace = m_doc->device();
    const core::TraceIndex &index = m_doc->index();
    const QLocale locale;
    std::uint64_t ops = 0;
    core::Nanos busy = 0;
    for (const core::RangeOpStat &op : s.ops)
        ops += op.count;
    for (const core::RangeLaneStat &lane : s.streams)
        busy = std::max(busy, lane.time);
    m_summary->setText(tr("<b>%1</b> from +%2 to +%3 · %L4 GPU ops of %L5 names · busiest stream %6")
                           .arg(formatDuration(s.span()), formatDuration(s.start - m_doc->startTime()),
                                formatDuration(s.end - m_doc->startTime()))
                           .arg(qulonglong(ops))
                           .arg(qulonglong(s.ops.size()))
                           .arg(percentText(s.percentOf(busy))));

    QTableWidget *opTable = m_tables[GpuOps];
    const int opRows = static_cast<int>(std::min<std::size_t>(s.ops.size(), kMaxRows));
    opTable->setRowCount(opRows);
    for (int r = 0; r < opRows; ++r) {
        const core::RangeOpStat &op = s.ops[r];
        const QString name = fromStd(trace.strings.at(op.name));
        QTableWidgetItem *nameItem = textItem(name, name);
        nameItem->setData(kIndexRole, r);
        opTable->setItem(r, 0, nameItem);
        opTable->setItem(r, 1, textItem(fromStd(core::categoryName(op.category))));
        opTable->setItem(r, 2, numberItem(locale.toString(qulonglong(op.count)), double(op.count)));
        opTable->setItem(r, 3, numberItem(formatDuration(op.total), double(op.total)));
        opTable->setItem(r, 4, numberItem(formatDuration(op.mean()), double(op.mean())));
        opTable->setItem(r, 5, numberItem(formatDuration(op.max), double(op.max)));
        opTable->setItem(r, 6, numberItem(percentText(s.percentOf(op.total)), s.percentOf(op.total)));
    }
    m_tabs->setTabText(GpuOps, s.ops.size() > kMaxRows ? tr("GPU ops (%L1 of %L2)").arg(kMaxRows).arg(s.ops.size())
                                                       : tr("GPU ops (%L1)").arg(s.ops.size()));

    QTableWidget *streamTable = m_tables[Streams];
    streamTable->setRowCount(static_cast<int>(s.streams.size()));
    for (int r = 0; r < static_cast<int>(s.streams.size()); ++r) {
        const core::RangeLaneStat &lane = s.streams[r];
        QTableWidgetItem *nameItem = textItem(QString::fromStdString(index.lane(lane.lane).label));
        nameItem->setData(kIndexRole, r);
        streamTable->setItem(r, 0, nameItem);
        streamTable->setItem(r, 1, numberItem(locale.toString(qulonglong(lane.events)), double(lane.events)));
        streamTable->setItem(r, 2, numberItem(formatDuration(lane.time), double(lane.time)));
        streamTable->setItem(r, 3, numberItem(percentText(s.percentOf(lane.time)), s.percentOf(lane.time)));
    }

    QTableWidget *threadTable = m_tables[Threads];
    threadTable->setRowCount(static_cast<int>(s.threads.size()));
    for (int r = 0; r < static_cast<int>(s.threads.size()); ++r) {
        const core::RangeLaneStat &lane = s.threads[r];
        const core::Lane &l = index.lane(lane.lane);
        QTableWidgetItem *nameItem = textItem(QString::fromStdString(l.label));
        nameItem->setData(kIndexRole, r);
        threadTable->setItem(r, 0, nameItem);
        threadTable->setItem(r, 1, textItem(tr("pid %1").arg(QString::fromStdString(trace.idText(l.key.pid)))));
        threadTable->setItem(r, 2, numberItem(locale.toString(qulonglong(lane.events)), double(lane.events)));
        threadTable->setItem(r, 3, numberItem(formatDuration(lane.time), double(lane.time)));
        threadTable->setItem(r, 4, numberItem(percentText(s.percentOf(lane.time)), s.percentOf(lane.time)));
    }
    for (QTableWidget *t : m_tables)
        t->setSortingEnabled(true);
    opTable->sortByColumn(3, Qt::DescendingOrder);
}

QString RangeDock::selectionTsv() const
{
    if (!m_stats || !m_doc)
        return {};
    const core::RangeStats &s = *m_stats;
    const auto format = core::TableFormat::Tsv;
    const int current = m_tabs->currentIndex();
    const QTableWidget *t = m_tables[current];
    std::set<int> rows; // in display order
    for (const QModelIndex &index : t->selectionModel()->selectedRows())
        rows.insert(index.row());
    if (rows.empty())
        return QString::fromStdString(core::rangeStatsTable(s, m_doc->device(), m_doc->index(), format));
    std::string out = core::rangeStatsHeader(format);
    for (int row : rows) {
        const int i = t->item(row, 0)->data(kIndexRole).toInt();
        if (current == GpuOps)
            out += core::rangeStatsOpLine(s, s.ops[i], m_doc->device(), format);
        else
            out += core::rangeStatsLaneLine(s, current == Streams ? s.streams[i] : s.threads[i], current == Streams,
                                            m_doc->device(), m_doc->index(), format);
    }
    return QString::fromStdString(out);
}

void RangeDock::copyToClipboard()
{
    const QString text = selectionTsv();
    if (text.isEmpty())
        return;
    QApplication::clipboard()->setText(text);
    const int lines = static_cast<int>(text.count(QLatin1Char('\n'))) - 1;
    showStatus(tr("Copied %Ln row(s)", nullptr, lines), false);
}

QString RangeDock::exportCsv(const QString &path)
{
    if (!m_stats || !m_doc)
        return tr("No time range is selected");
    try {
        const std::string csv = core::rangeStatsTable(*m_stats, m_doc->device(), m_doc->index(), core::TableFormat::Csv);
        core::writeFileAtomically(QFile::encodeName(path).toStdString(), csv);
        showStatus(tr("Wrote %1").arg(QDir::toNativeSeparators(path)), false);
        return {};
    } catch (const std::exception &error) {
        const QString message = tr("Could not write the CSV: %1").arg(QString::fromLocal8Bit(error.what()));
        showStatus(message, true);
        return message;
    }
}

void RangeDock::showStatus(const QString &text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#c0392b") : QString());
    m_status->setToolTip(text);
}

} // namespace linkscope::ui
