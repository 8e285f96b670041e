#pragma once
// "Compared with Chakra" in numbers: the open pair's predicted step under the links Chakra 1.0's
// rule gives (Policy::ExternalId, TraceDocument::chakraLinks — linked once per load by the loader),
// its replay graph built and replayed off the GUI thread, once per trace: Chakra's links do not
// depend on corrections. The Prediction dock sets it beside the step of the links shown.

#include "ground/backgroundjob.h"
#include "ground/tracedocument.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>

namespace linkscope::ui {

struct ChakraStep {
    std::shared_ptr<const core::LinkSet> links; // Chakra 1.0's links it was replayed from
    bool finished = false;
    std::int64_t stepNs = 0;
    QString stuck;        // why the replay did not finish
    double elapsedMs = 0; // build and replay
};

class ChakraStepPredictor : public QObject {
    Q_OBJECT
public:
    explicit ChakraStepPredictor(QObject *parent = nullptr);

    // Replays `doc`'s Chakra 1.0 links in the background when they are not the ones already replayed.
    void setDocument(const DocumentPtr &doc);

    // Null while building, for a document without a host ET or Chakra's links, or when it failed.
    const std::shared_ptr<const ChakraStep> &step() const { return m_step; }
    bool building() const { return m_job.running(); }
    const QString &error() const { return m_error; }
    // Tests: processes events until nothing runs or waits. False on timeout.
    bool waitUntilBuilt(int timeoutMs = 30000);

    // The step under `doc`'s Chakra 1.0 links, on the calling thread. Throws what buildPairGraph throws.
    static ChakraStep compute(const TraceDocument &doc);

signals:
    void changed();

private:
    void finish(std::shared_ptr<const ChakraStep> step, const QString &error);

    std::shared_ptr<const ChakraStep> m_step;
    std::shared_ptr<const core::LinkSet> m_requested;
    QString m_error;
    NewestRequestJob<DocumentPtr, ChakraStep> m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
