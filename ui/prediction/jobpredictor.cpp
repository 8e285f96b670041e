#include "prediction/jobpredictor.h"

#include <QCoreApplication>
#include <QElapsedTimer>

namespace linkscope::ui {

namespace {

struct Outcome {
    JobPtr job;
    std::shared_ptr<const JobPrediction> prediction;
    QString error;
};

} // namespace

int JobPrediction::indexOf(std::int64_t rank) const
{
    for (std::size_t i = 0; i < prediction.ranks.size(); ++i)
        if (prediction.ranks[i].rank == rank)
            return static_cast<int>(i);
    return -1;
}

std::int64_t JobPrediction::slowestRank() const
{
    const core::predict::RankPrediction *slowest = nullptr;
    for (const core::predict::RankPrediction &r : prediction.ranks)
        if (!slowest || (r.finished && !slowest->finished)
            || (r.finished == slowest->finished
                && (r.stepNs > slowest->stepNs ||
                    // Ranks that meet in collectives end together: the one that waited least for others sets the pace.
                    (r.stepNs == slowest->stepNs && r.path.breakdown.otherRankNs < slowest->path.breakdown.otherRankNs))))
            slowest = &r;
    return slowest ? slowest->rank : -1;
}

JobPredictor::JobPredictor(QObject *parent) : QObject(parent) { }

core::job::JobOptions JobPredictor::optionsFor(const JobDocument &job)
{
    core::job::JobOptions options; // the astra-sim target (exportJobGraph sets it too)
    options.jobs = 1;
    options.link.policy = job.policy;
    return options;
}

JobPrediction JobPredictor::compute(const JobDocument &job)
{
    JobPrediction out;
    out.folder = job.folder;
    QElapsedTimer timer;
    timer.start();
    out.graph = core::predict::exportJobGraph(job.layout.ranks, job.layout.worldSize, optionsFor(job));
    out.buildMs = double(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    out.prediction = core::predict::predict(out.graph.job, {});
    out.predictMs = double(timer.nsecsElapsed()) / 1e6;
    return out;
}

void JobPredictor::start(const JobPtr &job)
{
    m_requested = job;
    m_pending.reset();
    m_prediction.reset();
    m_error.clear();
    emit predicted();
    if (!job)
        return;
    if (m_running)
        m_pending = job; // started when the running one ends
    else
        launch(job);
}

void JobPredictor::launch(JobPtr job)
{
    m_running = true;
    emit started();
    m_job.run(
        [job](const JobToken &) {
            Outcome outcome;
            outcome.job = job;
            try {
                outcome.prediction = std::make_shared<const JobPrediction>(compute(*job));
            } catch (const std::exception &error) {
                outcome.error = QString::fromLocal8Bit(error.what());
            }
            return outcome;
        },
        [this](Outcome outcome) {
            m_running = false;
            if (m_pending) {
                launch(std::exchange(m_pending, nullptr));
                return;
            }
            if (outcome.job != m_requested)
                return; // another job (or none) since
            m_prediction = std::move(outcome.prediction);
            m_error = outcome.error;
            emit predicted();
        });
}

bool JobPredictor::waitUntilPredicted(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (m_running || m_pending) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

} // namespace linkscope::ui
