#include "prediction/jobpredictor.h"

#include <QElapsedTimer>

namespace linkscope::ui {

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

JobPredictor::JobPredictor(QObject *parent)
    : QObject(parent), m_job([](const JobPtr &job) { return std::make_shared<const JobPrediction>(compute(*job)); },
                             [this](const JobPtr &job, JobPredictionPtr prediction, const QString &error) {
                                 finish(job, std::move(prediction), error);
                             },
                             [this] { emit started(); })
{
}

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
    m_job.dropWaiting();
    m_prediction.reset();
    m_error.clear();
    emit predicted();
    if (job)
        m_job.request(job); // or, while another runs, started when it ends
}

void JobPredictor::finish(const JobPtr &job, JobPredictionPtr prediction, const QString &error)
{
    if (job != m_requested)
        return; // another job (or none) since
    m_prediction = std::move(prediction);
    m_error = error;
    emit predicted();
}

bool JobPredictor::waitUntilPredicted(int timeoutMs) { return m_job.waitUntilIdle(timeoutMs); }

} // namespace linkscope::ui
