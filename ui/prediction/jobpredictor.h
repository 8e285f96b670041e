#pragma once
// The open job's prediction (docs/prediction.md) for the GUI: every rank the job loader discovered
// exported as `linkscope job` exports it (the astra-sim target, each rank's sidecar, the network
// fitted from its collectives: core/predict/jobgraph.h exportJobGraph) and replayed as measured
// (predict::predict): per rank the predicted step, its breakdown and critical path. Runs off the GUI
// thread with one export worker, leaving a core for the GUI; a job opened meanwhile makes the
// running one's result ignored (the export cannot be interrupted) and is predicted next.

#include "ground/jobloader.h"

#include "ground/backgroundjob.h"
#include "predict/jobgraph.h"
#include "predict/prediction.h"

#include <QObject>
#include <QString>

#include <memory>

namespace linkscope::ui {

struct JobPrediction {
    QString folder;
    core::predict::JobGraph graph;
    core::predict::Prediction prediction;
    double buildMs = 0;   // exportJobGraph: export, network fit, load
    double predictMs = 0; // replay and critical paths
    // Index into prediction.ranks of `rank`, or -1.
    int indexOf(std::int64_t rank) const;
    // The rank whose predicted step is the longest (finished ranks first; of equal steps, the one
    // whose path waited least for other ranks); -1 when none.
    std::int64_t slowestRank() const;
};
using JobPredictionPtr = std::shared_ptr<const JobPrediction>;

class JobPredictor : public QObject {
    Q_OBJECT
public:
    explicit JobPredictor(QObject *parent = nullptr);

    // Predicts `job` in the background (replacing what is shown); null: clears.
    void start(const JobPtr &job);
    // Forgets the current job: a running prediction's result is ignored.
    void cancel() { start(nullptr); }

    const JobPredictionPtr &prediction() const { return m_prediction; }
    bool running() const { return m_job.running(); }
    // Why the last prediction failed; empty otherwise.
    const QString &error() const { return m_error; }
    // Tests: processes events until nothing runs or waits. False on timeout.
    bool waitUntilPredicted(int timeoutMs = 120000);

    // What the GUI passes exportJobGraph for `job`: the astra-sim target, one rank at a time, the
    // job's policy for ranks without a sidecar.
    static core::job::JobOptions optionsFor(const JobDocument &job);
    // The prediction of `job` on the calling thread; throws what exportJobGraph throws.
    static JobPrediction compute(const JobDocument &job);

signals:
    void started();
    void predicted(); // prediction() or error() changed

private:
    void finish(const JobPtr &job, JobPredictionPtr prediction, const QString &error);

    JobPredictionPtr m_prediction;
    JobPtr m_requested; // the job whose prediction is wanted
    QString m_error;
    NewestRequestJob<JobPtr, JobPrediction> m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
