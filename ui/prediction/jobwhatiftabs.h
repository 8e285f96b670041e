#pragma once
// The open job's what-if tools (issue: the job is the unit), two tabs on the job's graph: a what-if
// (jobwhatif.h) replayed on every rank with collectives joined, and what to fix first
// (opportunitiesview.h), whose chosen change the what-if tab replays. The job dock's prediction list
// shows each rank's step under the current what-if (applied); the main window places the tabs in
// the Prediction dock while a job is open, where there is room for them.

#include "prediction/jobpredictor.h"
#include "prediction/jobwhatif.h"

#include <QTabWidget>

namespace linkscope::ui {

class OpportunitiesView;
class WhatIfPanel;

class JobWhatIfTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit JobWhatIfTabs(QWidget *parent = nullptr);

    // The job prediction to replay (null: none yet). A new one replays the form and its rows on it.
    void setPrediction(JobPredictionPtr prediction);
    WhatIfPanel *whatIf() const { return m_whatIf; }
    OpportunitiesView *opportunities() const { return m_opportunities; }

signals:
    void applied(const linkscope::ui::WhatIfOutcome &outcome);

private:
    JobWhatIf m_evaluator;
    WhatIfPanel *m_whatIf;
    OpportunitiesView *m_opportunities;
};

} // namespace linkscope::ui
