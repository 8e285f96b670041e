#pragma once
// The whole trace at a glance, without selecting anything (core/analysis/tracestats.h, the same
// numbers as `linkscope summary`): a header line (extent, GPU utilisation, communication and the
// part of it not overlapped by computation, step times) over sortable tables of the GPU ops and CPU
// ops by total time, the GPU streams and GPUs, and the ProfilerStep#N steps. With a job open, a Ranks
// table first: one row per rank from the statistics the job loader kept (RankSummary::stats).
// Computed when shown: a hidden dock only notes that its document changed.

#include "analysis/tracestats.h"
#include "ground/jobloader.h"
#include "ground/tracedocument.h"

#include <QDockWidget>

#include <optional>

class QLabel;
class QTableWidget;
class QTabWidget;

namespace linkscope::ui {

class SummaryDock : public QDockWidget {
    Q_OBJECT
public:
    explicit SummaryDock(QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    void setJob(JobPtr job);

    enum Table { Ranks, GpuOps, CpuOps, Streams, Steps };
    // Ops tables list the names with the most total time, this many at most (the tab says of how many).
    static constexpr std::size_t kMaxOpRows = 5000;
    QTableWidget *table(Table which) const;
    QTabWidget *tabs() const { return m_tabs; }
    QString headerText() const;
    // The open document's statistics (computed on demand, even while hidden).
    const core::TraceStats *stats();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void fillTrace();
    void fillRanks();

    DocumentPtr m_doc;
    JobPtr m_job;
    std::optional<core::TraceStats> m_stats;
    bool m_dirty = true;
    QLabel *m_header = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableWidget *m_tables[5] = {};
};

} // namespace linkscope::ui
