#pragma once
// The open pair's prediction (docs/prediction.md) for the GUI: the pair's replay graph
// (core/predict/pairgraph.h) built off the GUI thread whenever the links change (a load, a
// correction, an undo, a relink), replayed once as measured — the predicted step, its critical path,
// the path's breakdown and top ops, each node's slack — and what-ifs replayed on demand on the same
// graph (no rebuild). Holds no widgets: the Prediction dock shows it, the timeline draws its path,
// Details its per-op timing.

#include "ground/backgroundjob.h"
#include "ground/tracedocument.h"
#include "predict/criticalpath.h"
#include "predict/pairgraph.h"
#include "predict/replay.h"
#include "predict/whatif.h"
#include "prediction/whatifevaluator.h"

#include <QObject>
#include <QString>

#include <QStringList>
#include <cstdint>

#include <memory>
#include <optional>
#include <vector>

namespace linkscope::ui {

// One build: immutable once published, shared with whoever shows it.
struct PairPrediction {
    core::predict::PairGraph graph;
    core::predict::ReplayResult baseline;       // the graph as exported (keepIssueOrder, for slack)
    core::predict::RankPath path;               // rank 0's critical path
    std::vector<core::predict::PathShare> top;  // the names that take most of it
    std::vector<std::int64_t> slack;            // per node of rank 0; -1: never ran
    std::vector<core::EventIndex> pathChain;    // the path's ops (DeviceTrace events), in path order
    std::shared_ptr<const core::LinkSet> links; // what it was built from
    std::shared_ptr<const core::DeviceTrace> device;
    // A Kineto trace opened alone: the host ET derived from it (pipeline/derivedhost.h), which
    // graph.hostOf indexes; null for a pair.
    std::shared_ptr<const core::HostTrace> derivedHost;
    bool derived() const { return derivedHost != nullptr; }
    double buildMs = 0;  // the graph
    double replayMs = 0; // replay, critical path and slack
    std::int64_t stepNs() const { return baseline.ranks.empty() ? 0 : baseline.ranks[0].stepNs(); }
    bool finished() const { return !baseline.ranks.empty() && baseline.ranks[0].finished; }
};
using PredictionPtr = std::shared_ptr<const PairPrediction>;

// Where the replay put one op.
struct PredictedTiming {
    bool known = false; // the op is a node of the graph and it ran
    std::int64_t startNs = 0, endNs = 0, slackNs = 0;
    bool onPath = false;
};

class PredictionController : public QObject, public WhatIfEvaluator {
    Q_OBJECT
public:
    explicit PredictionController(QObject *parent = nullptr);
    ~PredictionController() override;

    // Builds the new links' prediction in the background (nothing when they are the current ones).
    void setDocument(DocumentPtr doc);

    PredictionPtr prediction() const { return m_prediction; }
    bool building() const { return m_job.running(); }
    // Why there is no prediction for the open pair (no host ET, an export error); empty otherwise.
    const QString &unavailableReason() const { return m_unavailable; }
    // The step of the previous build of the same trace when the links changed since (a correction,
    // an undo, a relink); -1 when the last build is the trace's first.
    std::int64_t previousStepNs() const { return m_previousStepNs; }
    // The previous build's linking policy when the last change of the links was a switch of policy
    // (not a correction); nullopt otherwise.
    std::optional<core::Policy> previousPolicy() const { return m_previousPolicy; }
    quint64 completedBuilds() const { return m_builds; }

    // Replays the current graph under `whatIf` on the calling thread (a few ms on the sample). A delay
    // of a rank the pair is not gets an error saying so (and, mirrored, that the job folder has it).
    WhatIfOutcome evaluate(const core::WhatIf &whatIf) const override;
    std::int64_t defaultRank() const override;
    QString scopeText() const override;
    PredictedTiming timingOf(core::EventIndex event) const;
    // "Predicted: starts at X ms, slack Y ms (on the critical path)" for Details; empty when unknown.
    QString timingText(core::EventIndex event) const;

    // The ops (DeviceTrace events) a path of the pair's graph runs through, in path order: the
    // baseline's (PairPrediction::pathChain) or a what-if's (WhatIfPathChange::path), for the timeline.
    static std::vector<core::EventIndex> chainOf(const core::predict::PairGraph &graph, const core::predict::RankPath &path);
    std::vector<core::EventIndex> chainOf(const core::predict::RankPath &path) const; // on the current graph

    // Tests: processes events until no build is running or pending. False on timeout.
    bool waitUntilBuilt(int timeoutMs = 30000);

    // The prediction of `links` over `doc`'s traces, on the calling thread. Throws what
    // buildPairGraph throws (a pair without a host ET, an invalid graph).
    static std::shared_ptr<PairPrediction> build(const TraceDocument &doc, std::shared_ptr<const core::LinkSet> links);

signals:
    void buildStarted();
    void predicted(); // prediction() changed (or was cleared)
    void unavailable(const QString &reason);

private:
    void finish(const DocumentPtr &doc, PredictionPtr prediction, const QString &error);

    PredictionPtr m_prediction;
    std::shared_ptr<const core::LinkSet> m_requested; // links of the newest document asked for
    QString m_unavailable;
    std::int64_t m_previousStepNs = -1;
    std::optional<core::Policy> m_previousPolicy;
    quint64 m_builds = 0;
    // One build at a time; the newest document asked for meanwhile is built next.
    NewestRequestJob<DocumentPtr, PairPrediction> m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
