#pragma once
// What to fix first (docs/prediction.md, "Opportunities"): the sweep of candidate changes
// (core/predict/opportunities.h) on a graph already built — the open job's, every rank joined — run
// off the GUI thread when asked (it replays the graph once per candidate: about a second on
// megatron's 8 ranks), ranked by how much each shortens the job's step. Choosing a row emits its
// what-if, which the what-if panel beside it replays and shows (whatifpanel.h showWhatIf).

#include "ground/backgroundjob.h"
#include "predict/opportunities.h"
#include "predict/simgraph.h"

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace linkscope::ui {

class OpportunitiesView : public QWidget {
    Q_OBJECT
public:
    enum Column { OrderColumn, ChangeColumn, GainColumn, OpsColumn, MovedColumn, ColumnCount };

    explicit OpportunitiesView(QWidget *parent = nullptr);

    // The graph to sweep (null: none). A new graph drops the list and a sweep still running.
    void setGraph(std::shared_ptr<const core::predict::SimJob> job);
    // Starts the sweep of the current graph.
    void find();
    bool running() const { return m_job.busy(); }
    // The last sweep's result; null before one finished (or after the graph changed).
    const std::shared_ptr<const core::predict::Opportunities> &result() const { return m_result; }
    QTreeWidget *list() const { return m_list; }
    QString statusText() const;
    // Chooses the list's row `row` as if clicked.
    void choose(int row);
    // The Change column's text of `row` as shown: the whole title when the column has room, else the
    // kind of change and its target first ("CPU op aten::mm ×0.5 · rank 0"), the target elided in
    // its middle; the whole title is the cell's tooltip.
    QString changeText(int row) const;
    // Tests: processes events until no sweep runs. False on timeout.
    bool waitUntilFound(int timeoutMs = 120000);

signals:
    void chosen(const linkscope::core::WhatIf &whatIf, const QString &title);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitColumns();     // the Change column gets the room the step and ops columns leave
    void fitChangeTexts(); // each change's text to the Change column's width
    void show(std::shared_ptr<const core::predict::Opportunities> result, const QString &error);

    std::shared_ptr<const core::predict::SimJob> m_graph;
    std::shared_ptr<const core::predict::Opportunities> m_result;
    QLabel *m_status;
    QPushButton *m_find;
    QTreeWidget *m_list;
    BackgroundJob m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
