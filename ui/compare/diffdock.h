#pragma once
// The Diff dock: two runs side by side (File ▸ Compare with…, compareui.h), the tables of `linkscope
// diff` (report/rundiff.h, docs/diff.md): what moved most, ranked; the step, GPU busy, communication
// and exposed communication per rank; GPU busy per stream; the GPU op families and the CPU ops (count,
// total, mean, change). A status line names both runs and how long the diff took. Read-only: it shows
// what the core computed. A sixth tab checks the Prediction dock's active what-if against B
// (againstview.h).

#include "report/rundiff.h"

#include <QDockWidget>

#include <array>
#include <memory>

class QLabel;
class QTabWidget;
class QTableWidget;

namespace linkscope::ui {

class AgainstView;

class DiffDock : public QDockWidget {
    Q_OBJECT
public:
    enum Table { Moved, Ranks, Streams, GpuOps, CpuOps, TableCount };

    explicit DiffDock(QWidget *parent = nullptr);

    // Shows `diff`, computed in `seconds`.
    void setDiff(std::shared_ptr<const core::RunDiff> diff, double seconds);
    // While a diff is being computed, and when it failed: the status line says so (the tables of
    // the last diff stay).
    void setBusy(const QString &a, const QString &b);
    void setError(const QString &message);

    const std::shared_ptr<const core::RunDiff> &diff() const { return m_diff; }
    QTableWidget *table(Table t) const { return m_tables[t]; }
    QTabWidget *tabs() const { return m_tabs; }
    // "Prediction vs B": was the what-if right (compareui.h fills it).
    AgainstView *againstView() const { return m_against; }
    QString statusText() const;

private:
    void fillMoved();
    void fillRanks();
    void fillStreams();
    void fillOps(bool gpu);

    std::shared_ptr<const core::RunDiff> m_diff;
    QLabel *m_status;
    QLabel *m_warnings;
    QTabWidget *m_tabs;
    std::array<QTableWidget *, TableCount> m_tables{};
    AgainstView *m_against;
};

} // namespace linkscope::ui
