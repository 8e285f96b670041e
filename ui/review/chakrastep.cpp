#include "review/chakrastep.h"

#include "predict/pairgraph.h"
#include "predict/replay.h"

#include <QCoreApplication>
#include <QElapsedTimer>

namespace linkscope::ui {

namespace {

std::shared_ptr<const core::LinkSet> chakra10Of(const DocumentPtr &doc)
{
    return doc && doc->host() && doc->chakraLinks() ? doc->chakraLinks()->chakra10 : nullptr;
}

struct Outcome {
    std::shared_ptr<const ChakraStep> step;
    QString error;
};

} // namespace

ChakraStepPredictor::ChakraStepPredictor(QObject *parent) : QObject(parent) { }

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
    out.stepNs = result.ranks[0].endNs;
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
    m_pending.reset();
    const bool hadStep = m_step != nullptr || !m_error.isEmpty();
    m_step.reset();
    m_error.clear();
    if (!links) {
        if (hadStep)
            emit changed();
        return;
    }
    emit changed();
    if (m_running)
        m_pending = doc;
    else
        start(doc);
}

void ChakraStepPredictor::start(DocumentPtr doc)
{
    m_running = true;
    m_job.run(
        [doc](const JobToken &) {
            Outcome outcome;
            try {
                outcome.step = std::make_shared<const ChakraStep>(compute(*doc));
            } catch (const std::exception &error) {
                outcome.error = QString::fromLocal8Bit(error.what());
            }
            return outcome;
        },
        [this](const Outcome &outcome) {
            m_running = false;
            if (m_pending) {
                start(std::exchange(m_pending, nullptr));
                return;
            }
            if (!m_requested || (outcome.step && outcome.step->links != m_requested))
                return; // another trace (or none) was opened since
            m_step = outcome.step;
            m_error = outcome.error;
            emit changed();
        });
}

bool ChakraStepPredictor::waitUntilBuilt(int timeoutMs)
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
