#include "compare/againstcheck.h"

#include "ground/fromstd.h"
#include "predict/prediction.h"

#include <QElapsedTimer>

#include <variant>

namespace linkscope::ui {

namespace {

// The model `linkscope predict` replays by default (its --model faithful).
constexpr core::predict::ReplayModel kModel = core::predict::ReplayModel::Faithful;

} // namespace

AgainstCheck::AgainstCheck(QObject *parent)
    : QObject(parent), m_read(1),
      m_check(
          [](const std::shared_ptr<const Request> &r) {
              QElapsedTimer timer;
              timer.start();
              // What runPredict does with --against: the what-if's prediction, then the comparison.
              const core::predict::Prediction p = core::predict::predict(r->a->job, r->whatIf, 10, nullptr, kModel);
              auto out = std::make_shared<Result>();
              out->against = core::predict::compareAgainst(r->a->job, p, r->whatIf, kModel, *r->b, r->source);
              out->whatIf = QString::fromStdString(r->whatIf.describe());
              out->ms = double(timer.nsecsElapsed()) / 1e6;
              return std::shared_ptr<const Result>(std::move(out));
          },
          [this](const std::shared_ptr<const Request> &request, std::shared_ptr<const Result> result, const QString &error) {
              if (request != m_last)
                  return; // of runs (or a what-if) given up meanwhile
              if (!result) {
                  setState(State::Failed, error);
                  return;
              }
              m_result = std::move(result);
              setState(State::Done);
          })
{
}

void AgainstCheck::setRuns(const QStringList &a, const QStringList &b, bool job, const core::job::JobOptions &options)
{
    m_a = a;
    m_b = b;
    m_job = job;
    m_options = options;
    m_graphs.reset();
    m_last.reset();
    m_readError.clear();
    m_result.reset();
    m_read.cancel();
    m_check.dropWaiting();
    update();
}

void AgainstCheck::clear()
{
    m_a.clear();
    m_b.clear();
    m_readError.clear();
    m_graphs.reset();
    m_last.reset();
    m_result.reset();
    m_read.cancel();
    m_check.dropWaiting();
    setState(State::None);
}

void AgainstCheck::setJobGraph(std::shared_ptr<const core::predict::JobGraph> graph)
{
    if (graph == m_jobGraph)
        return;
    m_jobGraph = std::move(graph);
    if (m_job && m_graphs) {
        // A's graph is the job's prediction's: a new one (another policy, a fix across ranks) is used.
        auto graphs = std::make_shared<Graphs>(*m_graphs);
        graphs->a = m_jobGraph;
        m_graphs = std::move(graphs);
    }
    update();
}

void AgainstCheck::setWhatIf(std::optional<core::WhatIf> whatIf)
{
    m_whatIf = std::move(whatIf);
    update();
}

bool AgainstCheck::waitUntilIdle(int timeoutMs)
{
    return processEventsWhile([this] { return m_read.busy() || m_check.running(); }, timeoutMs)
           && m_check.waitUntilIdle(timeoutMs);
}

void AgainstCheck::setState(State state, const QString &error)
{
    m_state = state;
    m_error = error;
    emit changed();
}

void AgainstCheck::update()
{
    if (m_a.isEmpty() || m_b.isEmpty())
        return setState(State::None);
    if (!m_whatIf)
        return setState(State::NoWhatIf);
    if (!m_readError.isEmpty())
        return setState(State::Failed, m_readError); // a new comparison reads again
    if (!m_graphs) {
        if (!m_read.busy())
            readGraphs();
        return setState(State::Reading);
    }
    if (!m_graphs->a)
        return setState(State::Waiting);
    auto request = std::make_shared<const Request>(Request{m_graphs->a, m_graphs->b, m_graphs->source, *m_whatIf});
    // Asked again for what was checked last (another rank shown, the dock's signals): nothing to do.
    if (m_last && m_last->a == request->a && m_last->b == request->b && m_last->whatIf.describe() == request->whatIf.describe()
        && (m_state == State::Done || m_state == State::Checking))
        return;
    m_last = request;
    m_check.request(std::move(request));
    setState(State::Checking);
}

void AgainstCheck::readGraphs()
{
    using Outcome = std::variant<std::shared_ptr<const Graphs>, QString>;
    const bool readA = !m_job; // a job's graph is its prediction's
    m_read.run(
        [a = toStd(m_a), b = toStd(m_b), readA, options = m_options](const JobToken &) -> Outcome {
            try {
                auto graphs = std::make_shared<Graphs>();
                core::predict::MeasuredRun measured = core::predict::readMeasuredRun(b, options);
                graphs->b = std::make_shared<const core::predict::JobGraph>(std::move(measured.graph));
                graphs->source = std::move(measured.source);
                if (readA) {
                    // `linkscope predict [--host HOST] --device KINETO`: the pair standing for its job.
                    const std::string host = a.size() == 2 ? a.front() : std::string();
                    graphs->a = std::make_shared<const core::predict::JobGraph>(
                        core::predict::exportPairGraph(host, a.back(), options));
                }
                return std::shared_ptr<const Graphs>(std::move(graphs));
            } catch (const std::exception &e) {
                return QString::fromLocal8Bit(e.what());
            }
        },
        [this](Outcome outcome) {
            if (auto *error = std::get_if<QString>(&outcome)) {
                m_readError = error->isEmpty() ? tr("the runs could not be read") : *error;
                update();
                return;
            }
            auto graphs = std::make_shared<Graphs>(*std::get<std::shared_ptr<const Graphs>>(outcome));
            if (m_job)
                graphs->a = m_jobGraph;
            m_graphs = std::move(graphs);
            update();
        });
}

} // namespace linkscope::ui
