#pragma once
// Was the prediction right? (docs/diff.md, "In the GUI"): while two runs are compared (compareui.h)
// and a what-if is active in the Prediction dock, the what-if replayed on run A's graph and checked
// against run B's measured steps by the core functions `linkscope predict A [what-ifs] --against B`
// calls (predict/against.h readMeasuredRun and compareAgainst, predict/prediction.h predict), so the
// GUI and the command cannot disagree. A job's graph is its prediction's (JobPredictor: what the
// command exports); a pair's is read as the command reads it (exportPairGraph, its sidecar applied).
//
// Two stages off the GUI thread: the graphs, read once per comparison (BackgroundJob: exports that
// take seconds), then each what-if's check (NewestRequestJob: a replay, asked for at every change of
// the what-if; only the newest waiting runs next). Holds no widgets: the Diff dock shows it.

#include "ground/backgroundjob.h"
#include "predict/against.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace linkscope::ui {

class AgainstCheck : public QObject {
    Q_OBJECT
public:
    enum class State {
        None,     // no comparison
        NoWhatIf, // no what-if active
        Reading,  // the runs' graphs are being read
        Waiting,  // for the job's prediction (its graph is A's)
        Checking,
        Done,
        Failed // error()
    };
    struct Result {
        core::predict::Against against;
        QString whatIf; // WhatIf::describe()
        double ms = 0;  // the replay and the comparison
    };

    explicit AgainstCheck(QObject *parent = nullptr);

    // The runs compared: A's files (a job folder, or a pair / a Kineto trace) and B's (what --against
    // takes). The graphs are read when a what-if is active. `options`: what the job's prediction was
    // exported under (JobPredictor::optionsFor), used for B and for a pair A.
    void setRuns(const QStringList &a, const QStringList &b, bool job, const core::job::JobOptions &options);
    void clear();
    // A job's graph (its prediction's), or null while there is none; ignored for a pair.
    void setJobGraph(std::shared_ptr<const core::predict::JobGraph> graph);
    // The what-if to check; nullopt: none active.
    void setWhatIf(std::optional<core::WhatIf> whatIf);

    State state() const { return m_state; }
    const QString &error() const { return m_error; }
    const std::shared_ptr<const Result> &result() const { return m_result; }
    // Tests: processes events until nothing is read or checked. False on timeout.
    bool waitUntilIdle(int timeoutMs = 120000);

signals:
    void changed(); // state(), result() or error()

private:
    struct Request {
        std::shared_ptr<const core::predict::JobGraph> a, b;
        std::string source;
        core::WhatIf whatIf;
    };
    struct Graphs {
        std::shared_ptr<const core::predict::JobGraph> a, b;
        std::string source;
    };
    void update();
    void readGraphs();
    void setState(State state, const QString &error = QString());

    QStringList m_a, m_b;
    bool m_job = false;
    core::job::JobOptions m_options;
    std::optional<core::WhatIf> m_whatIf;
    std::shared_ptr<const core::predict::JobGraph> m_jobGraph;
    std::shared_ptr<const Graphs> m_graphs; // read for the runs set
    std::shared_ptr<const Request> m_last;  // the check asked for last
    QString m_readError;                    // why the graphs could not be read
    State m_state = State::None;
    QString m_error;
    std::shared_ptr<const Result> m_result;
    BackgroundJob m_read;
    NewestRequestJob<std::shared_ptr<const Request>, Result> m_check; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
