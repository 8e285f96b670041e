#include "compare/compareui.h"

#include "compare/againstcheck.h"
#include "compare/againstview.h"
#include "compare/diffdock.h"
#include "docks/summarydock.h"
#include "ground/fromstd.h"
#include "io/formats.h"
#include "job/discovery.h"
#include "job/runread.h"
#include "jobview/jobdock.h"
#include "jobview/rankpanes.h"
#include "pipeline/pairpipeline.h"
#include "prediction/jobpredictionpanel.h"
#include "prediction/predictdock.h"
#include "prediction/whatifpanel.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>

#include <variant>

namespace linkscope::ui {

namespace {

QString runTitle(const QStringList &paths)
{
    QStringList names;
    for (const QString &p : paths)
        names << QFileInfo(p).fileName();
    return names.join(QStringLiteral(" + "));
}

} // namespace

CompareUi::CompareUi(CompareHost host, QMenu *fileMenu)
    : QObject(host.window), m_host(std::move(host)), m_check(new AgainstCheck(this)), m_job(1)
{
    m_action = new QAction(tr("Co&mpare with…"), this);
    m_action->setToolTip(tr("Compare the open trace or job with another run: the step, GPU busy, op times and what moved "
                            "most, its lanes beside, and the active what-if checked against it"));
    connect(m_action, &QAction::triggered, this, &CompareUi::ask);
    fileMenu->addAction(m_action);
    // Enabled while something is open to compare.
    connect(fileMenu, &QMenu::aboutToShow, this, [this] { m_action->setEnabled(!currentRun().isEmpty()); });
    connect(m_check, &AgainstCheck::changed, this, [this] { dock()->againstView()->showCheck(*m_check); });
}

QStringList CompareUi::currentRun() const
{
    if (auto *jobDock = m_host.window->findChild<JobDock *>(); jobDock && jobDock->job())
        return {jobDock->job()->folder};
    if (const DocumentPtr doc = m_host.document())
        return doc->hostPath().isEmpty() ? QStringList{doc->devicePath()} : QStringList{doc->hostPath(), doc->devicePath()};
    return {};
}

void CompareUi::ask()
{
    const QStringList a = currentRun();
    if (a.isEmpty())
        return;
    // A job is compared with a job, a trace with a trace (docs/diff.md); a trace's host ET may be
    // chosen with it (what checking a prediction against B needs).
    const bool job = a.size() == 1 && QFileInfo(a.front()).isDir();
    const QStringList b = job ? QStringList{QFileDialog::getExistingDirectory(m_host.window, tr("Compare with job folder"))}
                              : QFileDialog::getOpenFileNames(m_host.window, tr("Compare with a Kineto trace (and its host ET)"),
                                                              QFileInfo(a.back()).path(),
                                                              QString::fromStdString(core::inputFileFilter()));
    if (b.size() > 2) {
        m_host.window->statusBar()->showMessage(tr("Choose one Kineto trace, or a host ET and its Kineto trace"), 6000);
        return;
    }
    if (!b.isEmpty() && !b.front().isEmpty())
        compareWith(b);
}

DiffDock *CompareUi::dock()
{
    if (!m_dock) {
        m_dock = new DiffDock(m_host.window);
        m_host.addDock(m_dock);
        if (auto *summary = m_host.window->findChild<SummaryDock *>())
            m_host.window->tabifyDockWidget(summary, m_dock);
    }
    return m_dock;
}

bool CompareUi::compareWith(const QStringList &b)
{
    const QStringList a = currentRun();
    if (a.isEmpty() || b.isEmpty())
        return false;
    DiffDock *d = dock();
    d->show();
    d->raise();
    d->setBusy(runTitle(a), runTitle(b));
    m_clock.start();
    // The diff, and B's traces as files (its job's ranks), for its lanes.
    struct Done {
        std::shared_ptr<const core::RunDiff> diff;
        std::vector<RunFiles> files;
    };
    using DiffOutcome = std::variant<Done, QString>;
    m_job.run(
        [sideA = toStd(a), sideB = toStd(b)](const JobToken &token) -> DiffOutcome {
            try {
                core::job::RunReadOptions options;
                options.cancel = token.flag();
                const core::job::RunPair runs = core::job::readRunPair(sideA, sideB, options);
                if (token.cancelled())
                    return QString();
                if (const std::string problem = core::job::unreadableRun(runs); !problem.empty())
                    return QString::fromStdString(problem);
                core::RunDiff diff = core::diffRuns(runs.a, runs.b);
                // Where a trace was cut (read up to its cut): said with the diff's own warnings.
                diff.warnings.insert(diff.warnings.begin(), runs.truncated.begin(), runs.truncated.end());
                Done done{std::make_shared<const core::RunDiff>(std::move(diff)), {}};
                if (runs.b.job) {
                    for (const core::job::RankFiles &r : core::job::discoverJob(sideB).ranks)
                        done.files.push_back({r.rank, QString::fromStdString(r.host), QString::fromStdString(r.device)});
                } else {
                    const core::PairFiles files = core::resolvePairFiles(sideB.front(), sideB.size() > 1 ? sideB[1] : "");
                    done.files.push_back({-1, QString::fromStdString(files.host), QString::fromStdString(files.device)});
                }
                return done;
            } catch (const std::exception &e) {
                return QString::fromLocal8Bit(e.what());
            }
        },
        [this, a, b](DiffOutcome outcome) {
            const double seconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
            if (auto *done = std::get_if<Done>(&outcome)) {
                m_dock->setDiff(done->diff, seconds);
                m_a = a;
                m_b = b;
                m_bFiles = std::move(done->files);
                showRunB();
                watchPrediction();
                const bool job = m_a.size() == 1 && QFileInfo(m_a.front()).isDir();
                core::job::JobOptions options;
                options.jobs = 1;
                options.link.policy = m_host.policy();
                if (auto *jobDock = m_host.window->findChild<JobDock *>(); job && jobDock && jobDock->job())
                    options = JobPredictor::optionsFor(*jobDock->job()); // what A's graph was exported under
                m_check->setRuns(m_a, m_b, job, options);
                updateWhatIf();
                emit compared();
            } else {
                m_dock->setError(std::get<QString>(outcome));
                emit failed(std::get<QString>(outcome));
            }
        });
    return true;
}

void CompareUi::showRunB()
{
    RankPanes *panes = m_host.panes;
    if (m_bFiles.empty()) {
        panes->closeRunPane();
        return;
    }
    // A job's B rank is the rank A shows; a trace's B is its one trace.
    const bool job = m_bFiles.front().rank >= 0;
    const qint64 rank = job ? panes->mainRank() : -1;
    const RunFiles *files = nullptr;
    for (const RunFiles &f : m_bFiles)
        if (f.rank == rank || !job)
            files = &f;
    if (!files) {
        panes->closeRunPane();
        if (rank >= 0)
            m_host.window->statusBar()->showMessage(tr("Run B has no rank %1: its lanes are not shown beside").arg(rank), 6000);
        return;
    }
    if (RankPane *shown = panes->runPane(); shown && shown->rank() == files->rank && shown->devicePath() == files->device)
        return;
    panes->openRunPane(tr("B"), files->rank, files->host, files->device, m_host.policy());
}

void CompareUi::onDocumentChanged()
{
    if (m_a.isEmpty())
        return;
    if (currentRun() != m_a) {
        // Another run is open: the comparison was of the one before (its tables stay in the dock).
        m_a.clear();
        m_b.clear();
        m_bFiles.clear();
        m_host.panes->closeRunPane();
        m_check->clear();
        return;
    }
    showRunB(); // of a job, B's rank follows the one A shows
    updateWhatIf();
}

WhatIfPanel *CompareUi::whatIfPanel() const
{
    if (auto *jobDock = m_host.window->findChild<JobDock *>(); jobDock && jobDock->job())
        return jobDock->predictionPanel()->whatIf();
    return m_host.predictDock() ? m_host.predictDock()->whatIf() : nullptr;
}

void CompareUi::watchPrediction()
{
    // Connected once each: the pair's what-if, the job's, the job's prediction (A's graph).
    if (WhatIfPanel *pair = m_host.predictDock() ? m_host.predictDock()->whatIf() : nullptr; pair && pair != m_pairPanel) {
        m_pairPanel = pair;
        connect(pair, &WhatIfPanel::applied, this, &CompareUi::updateWhatIf);
    }
    auto *jobDock = m_host.window->findChild<JobDock *>();
    if (!jobDock)
        return;
    if (WhatIfPanel *job = jobDock->predictionPanel()->whatIf(); job && job != m_jobPanel) {
        m_jobPanel = job;
        connect(job, &WhatIfPanel::applied, this, &CompareUi::updateWhatIf);
    }
    if (jobDock->predictor() != m_predictor) {
        m_predictor = jobDock->predictor();
        connect(jobDock->predictor(), &JobPredictor::predicted, this, &CompareUi::updateWhatIf);
    }
}

void CompareUi::updateWhatIf()
{
    if (m_a.isEmpty())
        return;
    auto *jobDock = m_host.window->findChild<JobDock *>();
    if (jobDock && jobDock->job()) {
        // A's graph: the job's prediction, when it is of the job compared.
        const JobPredictionPtr &p = jobDock->predictor()->prediction();
        m_check->setJobGraph(p && p->folder == m_a.front() ? std::shared_ptr<const core::predict::JobGraph>(p, &p->graph)
                                                           : nullptr);
    }
    WhatIfPanel *panel = whatIfPanel();
    m_check->setWhatIf(panel ? panel->activeWhatIf() : std::optional<core::WhatIf>());
}

} // namespace linkscope::ui
