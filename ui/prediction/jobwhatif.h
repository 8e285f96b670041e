#pragma once
// A what-if on the open job (issue: the job is the unit): replayed on the job's graph, every rank
// with its collectives joined (JobPredictor's export), so delaying rank 6 delays the ranks that meet
// it at a collective. The step is the slowest rank's; each rank's is listed against its baseline.

#include "prediction/jobpredictor.h"
#include "prediction/whatifevaluator.h"

#include <QCoreApplication>

namespace linkscope::ui {

class JobWhatIf : public WhatIfEvaluator {
    Q_DECLARE_TR_FUNCTIONS(JobWhatIf)
public:
    // The job prediction replayed; null: none yet (evaluate says so).
    void setPrediction(JobPredictionPtr prediction) { m_prediction = std::move(prediction); }
    const JobPredictionPtr &prediction() const { return m_prediction; }

    WhatIfOutcome evaluate(const core::WhatIf &whatIf) const override;
    std::int64_t defaultRank() const override;
    QString scopeText() const override;

private:
    JobPredictionPtr m_prediction;
};

} // namespace linkscope::ui
