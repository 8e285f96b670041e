#pragma once
// The job dock's prediction list: a line saying what was predicted (the network, the time it took,
// the slowest rank) and one row per rank: its predicted step and where its critical path's time
// goes (CPU, GPU, communication, other ranks, idle). The rank whose path the overview draws is
// bold; clicking a row asks for that rank's path (rankChosen). Shows a JobPredictor's result.

#include "prediction/jobpredictor.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace linkscope::ui {

class JobPredictionPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { RankColumn, StepColumn, CpuColumn, GpuColumn, CommColumn, OtherColumn, IdleColumn, ColumnCount };

    explicit JobPredictionPanel(QWidget *parent = nullptr);

    // `pathRank`: the rank whose path is drawn (bold).
    void showPrediction(const JobPredictor &predictor, std::int64_t pathRank);
    QTreeWidget *list() const { return m_list; }
    QString statusText() const;
    // The Step column of `rank`'s row; empty when not listed.
    QString stepText(std::int64_t rank) const;

signals:
    void rankChosen(qint64 rank);

private:
    QLabel *m_status;
    QTreeWidget *m_list;
};

} // namespace linkscope::ui
