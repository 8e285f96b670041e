#include "prediction/chakrastep.h"

#include "predict/pairgraph.h"
#include "predict/replay.h"

#include <QElapsedTimer>

namespace linkscope::ui {

namespace {

std::shared_ptr<const core::LinkSet> chakra10Of(const DocumentPtr &doc)
{
    return doc && doc->host() && doc->chakraLinks() ? doc->chakraLinks()->chakra10 : nullptr;
}

} // namespace

ChakraStepPredictor::ChakraStepPredictor(QObject *parent)
    : QObject(parent), m_job([](const DocumentPtr &doc) { return std::make_shared<const ChakraStep>(compute(*doc)); },
                             [this](const DocumentPtr &, std::shared_ptr<const ChakraStep> step, const QString &error) {
                                 finish(std::move(step), error);
                             })
{
}

ChakraStep ChakraStepPredictor::compute(const TraceDocument &doc)
{
    ChakraStep out;
    out.links = doc.chakraLinks() ? doc.chakraLinks()->chakra10 : nullptr;
    if (!doc.host() || !out.links)
        throw std::invalid_argument("no host execution trace or no Chakra links");
    QElapsedTimer timer;
    timer.start();
    const core::predict::PairGraph graph = core::predict::buildPairGraph(*doc.host(), doc.device(), *out.links);
    core::predict::ReplayOptions quick;
    quick.keepIssueOrder = false;
    const core::predict::ReplayResult result = core::predict::replay(graph.job, {}, quick);
    out.finished = result.ranks.at(0).finished;
    out.stepNs = result.ranks[0].stepNs();
    out.stuck = QString::fromStdString(result.ranks[0].stuck);
    out.elapsedMs = double(timer.nsecsElapsed()) / 1e6;
    return out;
}

void ChakraStepPredictor::setDocument(const DocumentPtr &doc)
{
    const std::shared_ptr<const core::LinkSet> links = chakra10Of(doc);
    if (links && links == m_requested)
        return; // a correction of the same trace: Chakra's links are the same
    m_requested = links;
    m_job.dropWaiting();
    const bool hadStep = m_step != nullptr || !m_error.isEmpty();
    m_step.reset();
    m_error.clear();
    if (!links) {
        if (hadStep)
            emit changed();
        return;
    }
    emit changed();
    m_job.request(doc); // or, while another runs, started when it ends
}

void ChakraStepPredictor::finish(std::shared_ptr<const ChakraStep> step, const QString &error)
{
    if (!m_requested || (step && step->links != m_requested))
        return; // another trace (or none) was opened since
    m_step = std::move(step);
    m_error = error;
    emit changed();
}

bool ChakraStepPredictor::waitUntilBuilt(int timeoutMs) { return m_job.waitUntilIdle(timeoutMs); }

} // namespace linkscope::ui
