#include "prediction/predictioncontroller.h"

#include "pipeline/derivedhost.h"
#include "predict/pathmembership.h"
#include "predict/prediction.h"

#include "prediction/predicttext.h"

#include <QElapsedTimer>

#include <algorithm>

namespace linkscope::ui {

namespace {

using namespace core::predict;

constexpr std::size_t kTopLimit = 10;

double elapsedMs(const QElapsedTimer &timer) { return double(timer.nsecsElapsed()) / 1e6; }

} // namespace

PredictionController::PredictionController(QObject *parent)
    : QObject(parent),
      // Off the GUI thread, as all background work (ground/backgroundjob.h).
      m_job([](const DocumentPtr &doc) -> PredictionPtr { return build(*doc, doc->linksShared()); },
            [this](const DocumentPtr &doc, PredictionPtr prediction, const QString &error) {
                finish(doc, std::move(prediction), error);
            },
            [this] { emit buildStarted(); })
{
}

// A running build holds its own copies (shared pointers); m_job waits for it.
PredictionController::~PredictionController() = default;

std::shared_ptr<PairPrediction> PredictionController::build(const TraceDocument &doc, std::shared_ptr<const core::LinkSet> links)
{
    auto out = std::make_shared<PairPrediction>();
    out->links = links;
    out->device = doc.deviceShared();
    QElapsedTimer timer;
    timer.start();
    if (doc.host()) {
        out->graph = buildPairGraph(*doc.host(), doc.device(), *links);
    } else {
        // A Kineto trace alone: the host ET its CPU ops imply (pipeline/derivedhost.h), attached to
        // the links as they are (the user's corrections included).
        out->derivedHost = core::deriveHostEt(doc.device(), doc.index());
        const std::shared_ptr<const core::LinkSet> attached = core::attachDerivedHost(*links, *out->derivedHost, doc.device());
        out->graph = buildPairGraph(*out->derivedHost, doc.device(), *attached);
    }
    out->buildMs = elapsedMs(timer);
    timer.restart();
    const SimJob &job = out->graph.job;
    out->baseline = replay(job); // keeps the issue order: slack needs it
    if (out->finished()) {
        out->path = criticalPath(job, out->baseline, 0);
        out->top = topOfPath(job, out->path, kTopLimit);
        std::vector<std::vector<std::int64_t>> slacks = slack(job, out->baseline);
        if (!slacks.empty())
            out->slack = std::move(slacks[0]);
        out->pathChain = chainOf(out->graph, out->path);
    }
    out->replayMs = elapsedMs(timer);
    return out;
}

std::vector<core::EventIndex> PredictionController::chainOf(const core::predict::PairGraph &graph,
                                                            const core::predict::RankPath &path)
{
    std::vector<core::EventIndex> chain;
    for (const PathStep &step : path.steps) {
        if (step.rank != 0 || step.node == kNoNode || step.node >= graph.eventOf.size())
            continue;
        const core::EventIndex event = graph.eventOf[step.node];
        if (event.valid() && (chain.empty() || chain.back() != event))
            chain.push_back(event);
    }
    return chain;
}

std::vector<core::EventIndex> PredictionController::chainOf(const core::predict::RankPath &path) const
{
    return m_prediction ? chainOf(m_prediction->graph, path) : std::vector<core::EventIndex>();
}

void PredictionController::setDocument(DocumentPtr doc)
{
    const std::shared_ptr<const core::LinkSet> links = doc ? doc->linksShared() : nullptr;
    if (links && links == m_requested)
        return;
    m_requested = links;
    m_job.dropWaiting();
    const bool otherTrace = m_prediction && (!doc || m_prediction->device != doc->deviceShared());
    if (otherTrace) {
        m_prediction.reset();
        m_previousStepNs = -1;
    }
    if (!doc) {
        m_prediction.reset();
        m_previousStepNs = -1;
        m_unavailable = tr("Open a trace pair to predict its step.");
        emit unavailable(m_unavailable);
        emit predicted();
        return;
    }
    if (otherTrace)
        emit predicted();
    m_job.request(std::move(doc)); // or, while a build runs, built when it ends
}

void PredictionController::finish(const DocumentPtr &doc, PredictionPtr prediction, const QString &error)
{
    if (doc->linksShared() != m_requested)
        return; // another trace (or none) was opened since
    ++m_builds;
    if (!prediction) {
        m_prediction.reset();
        m_unavailable = tr("No prediction for this pair: %1").arg(error);
        emit unavailable(m_unavailable);
        emit predicted();
        return;
    }
    const bool sameTrace = m_prediction && m_prediction->device == prediction->device;
    m_previousStepNs = sameTrace ? m_prediction->stepNs() : -1;
    m_previousPolicy.reset();
    if (sameTrace && m_prediction->links && prediction->links && m_prediction->links->policy != prediction->links->policy)
        m_previousPolicy = m_prediction->links->policy;
    m_prediction = std::move(prediction);
    m_unavailable.clear();
    emit predicted();
}

WhatIfOutcome PredictionController::evaluate(const core::WhatIf &whatIf) const
{
    WhatIfOutcome out;
    out.description = QString::fromStdString(whatIf.describe());
    if (!m_prediction) {
        out.error = m_unavailable.isEmpty() ? tr("No prediction yet") : m_unavailable;
        return out;
    }
    out.baselineNs = m_prediction->stepNs();
    const core::predict::SimJob &graph = m_prediction->graph.job;
    for (const auto &delay : whatIf.rankDelayMs)
        if (graph.ranks.empty() || delay.first != graph.ranks[0].rank) {
            const std::int64_t own = graph.ranks.empty() ? 0 : graph.ranks[0].rank;
            out.error = graph.mirrored ? tr("Rank %1 is not in this pair: it is rank %2 of a %3-rank job, replayed alone (its "
                                            "collectives mirrored). Open the job folder to delay another rank.")
                                             .arg(delay.first)
                                             .arg(own)
                                             .arg(graph.npus)
                                       : tr("Rank %1 is not in this trace: it is rank %2.").arg(delay.first).arg(own);
            return out;
        }
    QElapsedTimer timer;
    timer.start();
    try {
        ReplayOptions quick;
        quick.keepIssueOrder = false;
        const ReplayResult result = replay(m_prediction->graph.job, whatIf, quick);
        const core::predict::SimJob &job = m_prediction->graph.job;
        std::vector<RankPrediction> ranks = summarizeReplay(job, result, &m_prediction->baseline, kTopLimit);
        out.elapsedMs = elapsedMs(timer); // the replay and its path
        core::predict::PathMembership onPath = core::predict::emptyPathMembership(job);
        core::predict::markPath(onPath, m_prediction->path); // rank 0's path: the pair's only rank
        countMatches(out, job, whatIf, onPath);
        out.finished = result.ranks[0].finished;
        out.stepNs = result.ranks[0].stepNs();
        if (out.finished && m_prediction->finished()) {
            RankPrediction base;
            base.rank = ranks[0].rank;
            base.path = m_prediction->path;
            base.top = m_prediction->top;
            describePathChange(out, job, base, std::move(ranks[0]));
        }
        if (!out.finished)
            out.error = tr("the replay did not finish: %1").arg(QString::fromStdString(result.ranks[0].stuck));
    } catch (const std::exception &error) {
        out.elapsedMs = elapsedMs(timer);
        out.error = QString::fromLocal8Bit(error.what());
    }
    return out;
}

std::int64_t PredictionController::defaultRank() const
{
    return m_prediction && !m_prediction->graph.job.ranks.empty() ? m_prediction->graph.job.ranks[0].rank : -1;
}

QString PredictionController::scopeText() const
{
    if (!m_prediction || m_prediction->graph.job.ranks.empty())
        return tr("the open trace");
    const core::predict::SimJob &job = m_prediction->graph.job;
    return job.mirrored
               ? tr("the open pair alone: rank %1 of %2, the other ranks mirrored from it").arg(job.ranks[0].rank).arg(job.npus)
               : tr("the open pair");
}

PredictedTiming PredictionController::timingOf(core::EventIndex event) const
{
    PredictedTiming t;
    if (!m_prediction || m_prediction->baseline.ranks.empty())
        return t;
    const std::uint32_t node = m_prediction->graph.nodeOfEvent(event);
    const RankReplay &rank = m_prediction->baseline.ranks[0];
    if (node == kNoNode || node >= rank.end.size() || rank.end[node] < 0)
        return t;
    t.known = true;
    t.startNs = rank.start[node];
    t.endNs = rank.end[node];
    t.slackNs = node < m_prediction->slack.size() ? std::max<std::int64_t>(0, m_prediction->slack[node]) : 0;
    const auto &chain = m_prediction->pathChain;
    t.onPath = std::find(chain.begin(), chain.end(), event) != chain.end();
    return t;
}

QString PredictionController::timingText(core::EventIndex event) const
{
    const PredictedTiming t = timingOf(event);
    if (!t.known)
        return {};
    return tr("Predicted: starts at %1, slack %2%3")
        .arg(msText(t.startNs), msText(t.slackNs), t.onPath ? tr(" (on the critical path)") : QString());
}

bool PredictionController::waitUntilBuilt(int timeoutMs) { return m_job.waitUntilIdle(timeoutMs); }

} // namespace linkscope::ui
