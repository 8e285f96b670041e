#pragma once
// The Diff dock's "Prediction vs B" tab: was the prediction right? The what-if active in the
// Prediction dock, predicted for each rank of A, beside the step B measured, the error, and where
// the two part — GPU compute time per kernel family (over the ranks), per stream and the CPU time
// per rank — as AgainstCheck (againstcheck.h) computed them with the core's compareAgainst
// (predict/against.h): the figures of `linkscope predict A [what-ifs] --against B`. Read-only.

#include "compare/againstcheck.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace linkscope::ui {

class AgainstView : public QWidget {
    Q_OBJECT
public:
    enum Column { Where, Rank, Name, Predicted, Measured, Gap, Error, ColumnCount };

    explicit AgainstView(QWidget *parent = nullptr);

    // Shows what `check` holds now (its state, its result: the last result's rows stay while a new
    // what-if is checked).
    void showCheck(const AgainstCheck &check);

    QTableWidget *table() const { return m_table; }
    QString statusText() const;
    QString warningsText() const;

private:
    void fill(const core::predict::Against &against);

    QLabel *m_status;
    QLabel *m_warnings;
    QTableWidget *m_table;
};

} // namespace linkscope::ui
