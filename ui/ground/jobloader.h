#pragma once
// Opens a whole job off the GUI thread: discovers its ranks (core/job/discovery.h), then loads and
// links them, one per core at a time, through the same per-rank code path as `linkscope job`
// (core/job/jobrun.h processRank) with the overview kept and nothing written. A rank's traces are
// released as soon as its summary and overview exist, so a job of any size opens in the memory of a
// few ranks. Each rank is delivered as it finishes (rankLoaded), then the cross-rank report
// (finished). The work runs as a BackgroundJob (ground/backgroundjob.h): a newer request supersedes
// the running one, whose results are dropped. Progress per rank lives under a mutex the GUI polls;
// Cancel is cooperative (the ranks being read stop at their next progress report, the others are
// not started) and says so at once (cancelled).
//
// exportJob() writes the job's outputs exactly as `linkscope job DIR --out OUTDIR` does (the same
// core calls: checkJobOutputs, processRanks, buildJobReport, writeJobOutputs).

#include "ground/backgroundjob.h"
#include "job/discovery.h"
#include "job/jobfix.h"
#include "job/jobrun.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace linkscope::ui {

struct JobDocument {
    QString folder;
    core::Policy policy = core::Policy::Nesting;
    core::job::JobLayout layout;
    core::job::JobReport report; // ranks, with their overviews
};
using JobPtr = std::shared_ptr<const JobDocument>;

// The job's aligned origin: the earliest rank start on the reference clock (core/job/timing.h
// offsets). The job overview's ruler and every rank pane's count from it. 0 without a rank.
std::int64_t alignedJobStart(const core::job::JobReport &report);

class JobLoader : public QObject {
    Q_OBJECT
public:
    struct RankState {
        std::int64_t rank = -1;
        QString stage; // "waiting", "load", "link", "export", "check", "done", "failed"
        double fraction = 0;
    };

    struct States; // the current job's RankStates, under a mutex

    explicit JobLoader(QObject *parent = nullptr);
    ~JobLoader() override; // cancels and waits

    // `policy`: for ranks without a sidecar (a rank's sidecar keeps its own).
    void open(const QString &folder, core::Policy policy = core::Policy::Nesting, int jobs = 0); // 0: one rank per core
    // Applies every `kind` finding's suggestion on every rank of `job`, into each rank's sidecar.
    void fixAcrossRanks(const JobPtr &job, core::FindingKind kind, core::Policy policy, int jobs = 0);
    void exportJob(const JobPtr &job, const QString &outDir, int jobs = 0);
    void cancel();
    std::vector<RankState> progress() const;
    void waitForIdle() { m_job.waitForIdle(); } // tests: blocks until the work is done (results still arrive queued)

signals:
    void discovered(const linkscope::core::job::JobLayout &layout);
    void rankLoaded(const linkscope::core::job::RankSummary &summary);
    void finished(linkscope::ui::JobPtr job);
    void exported(const QString &outDir, const QString &summary);
    void fixed(const linkscope::core::job::JobFix &fix);
    void failed(const QString &message);
    void cancelled();

private:
    void run(std::function<void(States &, const JobToken &)> body);

    std::shared_ptr<States> m_states;
    BackgroundJob m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
