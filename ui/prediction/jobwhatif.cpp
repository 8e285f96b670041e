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
        // Every rank's step, critical path and top ops under the what-if, as predict() has them for the baseline.
        const std::vector<core::predict::RankPrediction> ranks = core::predict::summarizeReplay(job, result, nullptr);
        out.elapsedMs = double(timer.nsecsElapsed()) / 1e6; // the replay and its paths
        // Every rank's baseline critical path, for "M on the path".
        core::predict::PathMembership onPath = core::predict::emptyPathMembership(job);
        for (const core::predict::RankPrediction &r : base.ranks)
            core::predict::markPath(onPath, r.path);
        countMatches(out, job, whatIf, onPath);
        out.finished = true;
        QStringList stuck;
        std::size_t slowest = ranks.size();
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            WhatIfRankStep step;
            step.rank = ranks[r].rank;
            step.finished = ranks[r].finished;
            step.stepNs = ranks[r].stepNs;
            step.breakdown = ranks[r].path.breakdown;
            // The job's graph is the baseline's: the same ranks in the same order.
            if (r < base.ranks.size()) {
                step.baselineNs = base.ranks[r].baselineNs;
                step.baselineBreakdown = base.ranks[r].path.breakdown;
            }
            out.ranks.push_back(step);
            if (!step.finished) {
                out.finished = false;
                stuck << tr("rank %1: %2").arg(step.rank).arg(QString::fromStdString(ranks[r].stuck));
            } else if (slowest == ranks.size() || step.stepNs > out.stepNs) {
                out.stepNs = step.stepNs;
                slowest = r;
            }
            out.baselineNs = std::max(out.baselineNs, step.baselineNs);
        }
        // The path of the rank whose step is the job's, beside the same rank's baseline path.
        if (out.finished && slowest < ranks.size() && slowest < base.ranks.size())
            describePathChange(out, job, base.ranks[slowest], ranks[slowest]);
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
