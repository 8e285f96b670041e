#pragma once
// The job dock's prediction list: a line saying what was predicted (the network, the time it took,
// the slowest rank) and one row per rank: its predicted step and where its critical path's time
// goes (CPU, GPU, communication, other ranks, idle). The rank whose path the overview draws is
// bold; clicking a row asks for that rank's path (rankChosen). Shows a JobPredictor's result.
// Under the list, two tabs on the job's graph: a what-if (jobwhatif.h), every rank's step under it
// in the list's What-if column, so delaying one rank shows which ranks it holds back; and what to fix
// first (opportunitiesview.h), whose chosen change the what-if tab shows.

#include "prediction/jobpredictor.h"
#include "prediction/jobwhatif.h"

#include <QWidget>

class QLabel;
class QTabWidget;
class QTreeWidget;

namespace linkscope::ui {
class OpportunitiesView;
class WhatIfPanel;
} // namespace linkscope::ui

namespace linkscope::ui {

class JobPredictionPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { RankColumn, StepColumn, WhatIfColumn, CpuColumn, GpuColumn, CommColumn, OtherColumn, IdleColumn, ColumnCount };

    explicit JobPredictionPanel(QWidget *parent = nullptr);

    // `pathRank`: the rank whose path is drawn (bold).
    void showPrediction(const JobPredictor &predictor, std::int64_t pathRank);
    QTreeWidget *list() const { return m_list; }
    QString statusText() const;
    // The Step column of `rank`'s row; empty when not listed.
    QString stepText(std::int64_t rank) const;
    // The What-if column of `rank`'s row ("612.3 ms (−2.2 %)"); empty without a what-if.
    QString whatIfText(std::int64_t rank) const;
    WhatIfPanel *whatIf() const { return m_whatIf; }
    OpportunitiesView *opportunities() const { return m_opportunities; }

signals:
    void rankChosen(qint64 rank);

private:
    void showWhatIf(const WhatIfOutcome &outcome);

    QLabel *m_status;
    QTreeWidget *m_list;
    JobWhatIf m_evaluator;
    QTabWidget *m_tabs;
    WhatIfPanel *m_whatIf;
    OpportunitiesView *m_opportunities;
};

} // namespace linkscope::ui
