#include "prediction/jobwhatif.h"

#include "predict/pathmembership.h"
#include "predict/replay.h"

#include <QElapsedTimer>

#include <algorithm>

namespace linkscope::ui {

WhatIfOutcome JobWhatIf::evaluate(const core::WhatIf &whatIf) const
{
    WhatIfOutcome out;
    out.description = QString::fromStdString(whatIf.describe());
    if (!m_prediction) {
        out.error = tr("No job prediction yet");
        return out;
    }
    const core::predict::SimJob &job = m_prediction->graph.job;
    const core::predict::Prediction &base = m_prediction->prediction;
    for (const auto &delay : whatIf.rankDelayMs)
        if (std::none_of(job.ranks.begin(), job.ranks.end(),
                         [&](const core::predict::SimRank &r) { return r.rank == delay.first; })) {
            out.error = tr("The job has no rank %1 (its ranks: %2 to %3).")
                            .arg(delay.first)
                            .arg(job.ranks.empty() ? 0 : job.ranks.front().rank)
                            .arg(job.ranks.empty() ? 0 : job.ranks.back().rank);
            return out;
        }
    QElapsedTimer timer;
    timer.start();
    try {
        core::predict::ReplayOptions quick;
        quick.keepIssueOrder = false;
        const core::predict::ReplayResult result = core::predict::replay(job, whatIf, quick);
        out.elapsedMs = double(timer.nsecsElapsed()) / 1e6;
        // Every rank's baseline critical path, for "M on the path".
        core::predict::PathMembership onPath = core::predict::emptyPathMembership(job);
        for (const core::predict::RankPrediction &r : base.ranks)
            core::predict::markPath(onPath, r.path);
        countMatches(out, job, whatIf, onPath);
        out.finished = true;
        QStringList stuck;
        for (std::size_t r = 0; r < result.ranks.size() && r < job.ranks.size(); ++r) {
            WhatIfRankStep step;
            step.rank = job.ranks[r].rank;
            step.finished = result.ranks[r].finished;
            step.stepNs = result.ranks[r].stepNs();
            const auto b = std::find_if(base.ranks.begin(), base.ranks.end(),
                                        [&](const core::predict::RankPrediction &p) { return p.rank == step.rank; });
            step.baselineNs = b == base.ranks.end() ? 0 : b->baselineNs;
            out.ranks.push_back(step);
            if (!step.finished) {
                out.finished = false;
                stuck << tr("rank %1: %2").arg(step.rank).arg(QString::fromStdString(result.ranks[r].stuck));
            } else {
                out.stepNs = std::max(out.stepNs, step.stepNs);
            }
            out.baselineNs = std::max(out.baselineNs, step.baselineNs);
        }
        if (!out.finished)
            out.error = tr("the replay did not finish: %1").arg(stuck.join(QStringLiteral("; ")));
    } catch (const std::exception &error) {
        out.elapsedMs = double(timer.nsecsElapsed()) / 1e6;
        out.error = QString::fromLocal8Bit(error.what());
    }
    return out;
}

std::int64_t JobWhatIf::defaultRank() const { return m_prediction ? m_prediction->slowestRank() : -1; }

QString JobWhatIf::scopeText() const
{
    if (!m_prediction)
        return tr("the open job");
    return tr("the open job: its %n rank(s), collectives joined across them", nullptr, int(m_prediction->graph.job.ranks.size()));
}

} // namespace linkscope::ui
