#pragma once
// The job dock's prediction list: a line saying what was predicted (the network, the time it took,
// the slowest rank) and one row per rank: its predicted step and where its critical path's time
// goes (CPU, GPU, communication, other ranks, idle). The rank whose path the overview draws is
// bold; clicking a row asks for that rank's path (rankChosen). Shows a JobPredictor's result.
// Its what-if tools (jobwhatiftabs.h: a what-if on the job's graph, what to fix first) fill the
// list's What-if column with every rank's step under the current what-if, so delaying one rank shows
// which ranks it holds back; the main window shows the tools in the Prediction dock (jobTools()).

#include "prediction/jobpredictor.h"
#include "prediction/jobwhatiftabs.h"

#include <QPointer>

#include <QWidget>

class QLabel;
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
    // The what-if tools, for the main window to place (they outlive the panel once placed elsewhere).
    JobWhatIfTabs *jobTools() const { return m_tools; }
    WhatIfPanel *whatIf() const { return m_tools ? m_tools->whatIf() : nullptr; }
    OpportunitiesView *opportunities() const { return m_tools ? m_tools->opportunities() : nullptr; }

signals:
    void rankChosen(qint64 rank);

private:
    void showWhatIf(const WhatIfOutcome &outcome);

    QLabel *m_status;
    QTreeWidget *m_list;
    QPointer<JobWhatIfTabs> m_tools;
    WhatIfOutcome m_outcome; // the tools' current what-if, for the What-if column
};

} // namespace linkscope::ui
