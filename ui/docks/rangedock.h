#pragma once
// What a time-range selection holds (core/analysis/rangestats): per GPU-op name the count, total,
// mean and longest time inside the range, each GPU stream's busy share, each CPU thread's time, in
// three sortable tables. Ctrl+C (or Copy) copies the selected rows, or all of them, as TSV with a
// header line; Export CSV… writes every row atomically. Computed once when the range is set.

#include "analysis/rangestats.h"
#include "ground/tracedocument.h"

#include <QDockWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace linkscope::ui {

class RangeDock : public QDockWidget {
    Q_OBJECT
public:
    // More rows than this per table are left out of the tables (not of the copy or the CSV).
    static constexpr int kMaxRows = 5000;

    explicit RangeDock(QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    // Computes and shows [start, end); an empty range (end <= start) clears the tables.
    void setRange(core::Nanos start, core::Nanos end);
    const std::optional<core::RangeStats> &stats() const { return m_stats; }

    enum Table { GpuOps, Streams, Threads };
    QTableWidget *table(Table which) const;
    QTabWidget *tabs() const { return m_tabs; }
    QString summaryText() const;

    // The selected rows of the current table as TSV (header first), or every row of all three
    // tables when none is selected; also what Ctrl+C puts on the clipboard.
    QString selectionTsv() const;
    void copyToClipboard();
    // Writes every row as CSV to `path` (atomic). Returns an empty string or the error, which is
    // also shown in the dock.
    QString exportCsv(const QString &path);

private:
    void rebuild();
    void showStatus(const QString &text, bool error);

    DocumentPtr m_doc;
    std::optional<core::RangeStats> m_stats;
    QLabel *m_summary = nullptr;
    QLabel *m_status = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableWidget *m_tables[3] = {};
    QPushButton *m_copy = nullptr;
    QPushButton *m_export = nullptr;
};

} // namespace linkscope::ui
