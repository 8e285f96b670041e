#include "jobview/jobdock.h"

#include "ground/timeformat.h"
#include "jobview/joboverview.h"
#include "prediction/jobpredictionpanel.h"
#include "prediction/jobwhatiftabs.h"
#include "prediction/predictdock.h"
#include "prediction/whatifpanel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

namespace linkscope::ui {

using namespace core::job;

namespace {
constexpr int kBars = 4; // ranks in flight shown with a bar (one per core is typical)
} // namespace

// One fix across ranks as one undo step: undo puts every rank's sidecar back, redo writes the fix
// again (core/job/jobfix.h refuses ranks whose sidecar changed meanwhile).
class JobFixCommand : public QUndoCommand {
public:
    JobFixCommand(JobDock *dock, JobFix fix, std::map<qint64, std::map<std::string, std::size_t>> before)
        : m_dock(dock), m_fix(std::move(fix)), m_before(std::move(before))
    {
        setText(QObject::tr("fix %L1 links on %L2 ranks (%3)")
                    .arg(m_fix.edits())
                    .arg(m_fix.changedRanks())
                    .arg(QString::fromUtf8(findingKindName(m_fix.kind).data())));
        for (const RankFix &r : m_fix.ranks)
            m_after[r.rank] = r.findings;
    }
    void undo() override { apply(undoJobFix(m_fix), m_before, QObject::tr("Undone")); }
    void redo() override
    {
        if (m_first) {
            m_first = false;
            apply({}, m_after, QObject::tr("Applied"));
            return;
        }
        apply(redoJobFix(m_fix), m_after, QObject::tr("Redone"));
    }

private:
    void apply(const std::vector<std::string> &refused, const std::map<qint64, std::map<std::string, std::size_t>> &counts,
               const QString &verb)
    {
        m_dock->showFixCounts(m_fix, counts);
        QList<qint64> ranks;
        for (const RankFix &r : m_fix.ranks)
            if (r.edits)
                ranks << r.rank;
        QString message = QObject::tr("%1: %2 — the sidecars of %3").arg(verb, text(), ranksText(ranks.size()));
        for (const std::string &m : refused)
            message += QLatin1Char('\n') + QString::fromStdString(m);
        emit m_dock->sidecarsChanged(ranks, message);
        m_dock->m_predictor->start(m_dock->m_job); // the links changed: predicted again
    }

    JobDock *m_dock;
    JobFix m_fix;
    std::map<qint64, std::map<std::string, std::size_t>> m_before, m_after;
    bool m_first = true;
};

JobDock::JobDock(QWidget *parent) : QDockWidget(tr("Job"), parent)
{
    setObjectName(QStringLiteral("jobDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(3);
    layout->addLayout(buildToolbar(body));
    layout->addWidget(buildProgressPanel(body));
    layout->addWidget(buildOverviewSection(body), 1);
    setWidget(body);

    m_loader = new JobLoader(this);
    m_predictor = new JobPredictor(this);
    wirePrediction();
    wireProgress();
    wireLoading();
    wireExportAndFix();
    wireSelection();
}

// The summary line and the buttons beside it (fix across ranks with its undo and redo, open rank,
// show beside, export).
QHBoxLayout *JobDock::buildToolbar(QWidget *body)
{
    auto *top = new QHBoxLayout;
    m_summary = new QLabel(tr("No job open: File ▸ Open job… takes a folder of per-rank traces"), body);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    top->addWidget(m_summary, 1);
    m_openRank = new QPushButton(tr("Open rank"), body);
    m_openRank->setToolTip(tr("Load the selected rank's full lanes (CPU threads, GPU streams, links) below"));
    m_openRank->setEnabled(false);
    m_beside = new QPushButton(tr("Show beside"), body);
    m_beside->setToolTip(tr("Show the selected rank's full lanes below the open one, on the same aligned time axis (read-only; "
                            "\"Edit here\" swaps it in)"));
    m_beside->setEnabled(false);
    m_export = new QPushButton(tr("Export job…"), body);
    m_export->setToolTip(tr("Write every rank's .et, comm_group.json and job-report.json, as `linkscope job` does"));
    m_export->setEnabled(false);
    m_undo = new QUndoStack(this);
    m_fix = new QToolButton(body);
    m_fix->setText(tr("Fix across ranks"));
    m_fix->setToolTip(
        tr("Apply the suggestion of every finding of one kind on every rank, into each rank's sidecar, as one undoable step"));
    m_fix->setPopupMode(QToolButton::InstantPopup);
    m_fix->setMenu(new QMenu(m_fix));
    m_fix->setEnabled(false);
    auto *undoButton = new QToolButton(body);
    undoButton->setDefaultAction(m_undo->createUndoAction(this, tr("Undo")));
    auto *redoButton = new QToolButton(body);
    redoButton->setDefaultAction(m_undo->createRedoAction(this, tr("Redo")));
    top->addWidget(m_fix);
    top->addWidget(undoButton);
    top->addWidget(redoButton);
    top->addWidget(m_openRank);
    top->addWidget(m_beside);
    top->addWidget(m_export);
    return top;
}

// A bar per rank in flight while the job loads, and Cancel; hidden until then.
QWidget *JobDock::buildProgressPanel(QWidget *body)
{
    m_progress.panel = new QWidget(body);
    auto *progress = new QHBoxLayout(m_progress.panel);
    progress->setContentsMargins(0, 0, 0, 0);
    m_progress.label = new QLabel(m_progress.panel);
    progress->addWidget(m_progress.label);
    for (int i = 0; i < kBars; ++i) {
        auto *bar = new QProgressBar(m_progress.panel);
        bar->setRange(0, 1000);
        bar->setTextVisible(true);
        // Wide enough for its longest text ("rank 1234 export 100%"), which the style draws inside.
        bar->setMinimumWidth(fontMetrics().horizontalAdvance(tr("rank 0000 export 100%")) + 24);
        bar->setMaximumWidth(std::max(180, bar->minimumWidth()));
        bar->hide();
        progress->addWidget(bar);
        m_progress.bars.push_back(bar);
    }
    progress->addStretch(1);
    m_progress.cancel = new QPushButton(tr("Cancel"), m_progress.panel);
    progress->addWidget(m_progress.cancel);
    m_progress.panel->hide();
    return m_progress.panel;
}

// The overview with its legend, beside the cross-rank findings over the prediction panel.
QSplitter *JobDock::buildOverviewSection(QWidget *body)
{
    auto *split = new QSplitter(Qt::Horizontal, body);
    split->setObjectName(QStringLiteral("jobOverviewSplit")); // kept across launches (windowlayout.h)
    // The overview with its legend under it (its colours are per collective kind).
    auto *overviewBox = new QWidget(split);
    auto *overviewLayout = new QVBoxLayout(overviewBox);
    overviewLayout->setContentsMargins(0, 0, 0, 0);
    overviewLayout->setSpacing(1);
    m_overview = new JobOverview(overviewBox);
    m_legend = new JobOverviewLegend(overviewBox);
    overviewLayout->addWidget(m_overview, 1);
    overviewLayout->addWidget(m_legend);
    auto *side = new QSplitter(Qt::Vertical, split);
    side->setObjectName(QStringLiteral("jobSideSplit"));
    m_findings = new JobFindingsList(side);
    m_predictionPanel = new JobPredictionPanel(side);
    side->addWidget(m_findings);
    side->addWidget(m_predictionPanel);
    split->addWidget(overviewBox);
    split->addWidget(side);
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 2);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({700, 300});
    return split;
}

void JobDock::wirePrediction()
{
    connect(m_predictor, &JobPredictor::started, this, &JobDock::showJobPrediction);
    connect(m_predictor, &JobPredictor::predicted, this, &JobDock::showJobPrediction);
    connect(m_predictionPanel, &JobPredictionPanel::rankChosen, this, &JobDock::choosePathRank);
    if (JobWhatIfTabs *tools = m_predictionPanel->jobTools())
        connect(tools, &JobWhatIfTabs::applied, this, [this] {
            if (m_pathMode == PathMode::WhatIf)
                showPath();
        });
}

void JobDock::wireProgress()
{
    m_progress.timer = new QTimer(this);
    m_progress.timer->setInterval(150);
    connect(m_progress.timer, &QTimer::timeout, this, &JobDock::updateProgress);
    connect(m_progress.cancel, &QPushButton::clicked, m_loader, &JobLoader::cancel);
}

// What the loader reports while a job opens: its ranks found, each rank read, the job, a failure or a cancel.
void JobDock::wireLoading()
{
    connect(m_loader, &JobLoader::discovered, this, &JobDock::onDiscovered);
    connect(m_loader, &JobLoader::rankLoaded, this, &JobDock::onRankLoaded);
    connect(m_loader, &JobLoader::finished, this, &JobDock::onFinished);
    connect(m_loader, &JobLoader::failed, this, [this](const QString &message) {
        showProgress(false);
        const bool kept = m_discovering && m_job; // no ranks found: the job open stays open, whole
        m_discovering = false;
        if (kept) {
            m_summary->setText(summaryText() + QLatin1Char('\n') + tr("⚠ Not opened, the job above stays open: %1").arg(message));
            m_predictor->start(m_job);
        } else {
            m_summary->setText(tr("Job: %1").arg(message));
            if (!m_job) {
                m_overview->setJob(nullptr);
                m_overview->setPlaceholder(tr("No job open: %1").arg(message.section(QLatin1Char('\n'), 0, 0)));
            }
        }
        m_export->setEnabled(m_job != nullptr);
        m_fix->setEnabled(m_job != nullptr);
        emit failed(message);
    });
    connect(m_loader, &JobLoader::cancelled, this, [this] {
        showProgress(false);
        m_discovering = false;
        m_fix->setEnabled(m_job != nullptr);
        m_summary->setText(m_job ? summaryText() : tr("Opening the job was cancelled"));
        if (m_job && !m_predictor->prediction())
            m_predictor->start(m_job); // the job open stays: predicted again
        if (!m_job)
            m_overview->setPlaceholder(tr("No job open: opening it was cancelled"));
        m_export->setEnabled(m_job != nullptr);
    });
}

void JobDock::wireExportAndFix()
{
    connect(m_loader, &JobLoader::exported, this, [this](const QString &dir, const QString &summary) {
        showProgress(false);
        m_export->setEnabled(true);
        m_summary->setText(summaryText() + QStringLiteral("\n") + summary);
        emit exported(dir, summary);
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the job to a folder"), m_folder);
        if (!dir.isEmpty())
            exportTo(dir);
    });
    connect(m_loader, &JobLoader::fixed, this, [this](const JobFix &fix) {
        showProgress(false);
        m_fix->setEnabled(true);
        m_export->setEnabled(true);
        std::map<qint64, std::map<std::string, std::size_t>> before;
        if (m_job)
            for (const RankSummary &s : m_job->report.ranks)
                before[s.rank] = s.findings;
        std::vector<std::string> errors;
        for (const RankFix &r : fix.ranks)
            if (!r.error.empty())
                errors.push_back("rank " + std::to_string(r.rank) + ": " + r.error);
        if (fix.edits() == 0) {
            QString message = tr("Nothing to fix: no %1 finding with a suggestion on any rank")
                                  .arg(QString::fromUtf8(findingKindName(fix.kind).data()));
            for (const std::string &e : errors)
                message += QLatin1Char('\n') + QString::fromStdString(e);
            m_summary->setText(summaryText() + QLatin1Char('\n') + message);
            return;
        }
        m_undo->push(new JobFixCommand(this, fix, std::move(before)));
        if (!errors.empty()) {
            QString message;
            for (const std::string &e : errors)
                message += QString::fromStdString(e) + QLatin1Char('\n');
            m_summary->setText(summaryText() + QLatin1Char('\n') + message.trimmed());
        }
    });
}

// The rank the buttons act on, from the overview and the findings.
void JobDock::wireSelection()
{
    connect(m_overview, &JobOverview::rankActivated, this, &JobDock::requestRank);
    // A rank clicked (its label or a collective of its row) is the one the buttons act on.
    connect(m_overview, &JobOverview::rankClicked, this, &JobDock::selectRank);
    connect(m_overview, &JobOverview::collectiveSelected, this, [this] {
        m_openRank->setEnabled(m_job != nullptr);
        m_beside->setEnabled(m_job != nullptr);
    });
    connect(m_openRank, &QPushButton::clicked, this, [this] { requestRank(selectedRank()); });
    connect(m_beside, &QPushButton::clicked, this, [this] { requestBeside(selectedRank()); });
    connect(m_findings, &JobFindingsList::findingActivated, this, &JobDock::selectFinding);
}

void JobDock::open(const QString &folder, core::Policy policy)
{
    // The job open (if any) stays, whole, until the new folder's ranks are found (onDiscovered): a
    // folder without traces leaves it as it was and says why.
    m_pendingFolder = folder;
    m_pendingPolicy = policy;
    m_discovering = true;
    // The open job's prediction is dropped now (it is predicted again if the job stays, below).
    m_predictor->cancel();
    const QString looking = tr("Looking for the ranks in %1…").arg(folder);
    m_summary->setText(m_job ? QString(summaryText() + QLatin1Char('\n') + looking) : looking);
    if (!m_job)
        m_overview->setPlaceholder(looking);
    show();
    raise();
    showProgress(true);
    m_loader->open(folder, policy);
}

void JobDock::closeJob()
{
    m_undo->clear();
    m_fix->setEnabled(false);
    m_job.reset();
    m_partial.clear();
    m_currentRank = -1;
    m_overview->setSelectedRank(-1);
    m_chosenPathRank = -1;
    m_predictor->cancel(); // a running prediction of the previous job is ignored
    m_findings->setJob(nullptr);
    m_overview->clearSelection();
    m_overview->setHighlightedRanks({});
    m_overview->setJob(nullptr);
    m_legend->setJob(nullptr);
    m_export->setEnabled(false);
    m_openRank->setEnabled(false);
    m_beside->setEnabled(false);
}

void JobDock::closeOpenJob()
{
    const bool open = m_job != nullptr || !m_layout.ranks.empty();
    closeJob();
    m_loader->cancel(); // a job still being read stops
    m_discovering = false;
    m_folder.clear();
    m_layout = {};
    showProgress(false);
    m_summary->setText(QString());
    m_overview->setPlaceholder(tr("No job open: File ▸ Open job…"));
    hide();
    if (open)
        emit jobClosed();
}

void JobDock::fixAcrossRanks(core::FindingKind kind)
{
    if (!m_job)
        return;
    m_fix->setEnabled(false);
    m_export->setEnabled(false);
    showProgress(true);
    m_loader->fixAcrossRanks(m_job, kind, m_policy);
}

void JobDock::showFixCounts(const JobFix &fix, const std::map<qint64, std::map<std::string, std::size_t>> &counts)
{
    if (!m_job)
        return;
    auto doc = std::make_shared<JobDocument>(*m_job);
    for (RankSummary &s : doc->report.ranks) {
        const bool changed = std::any_of(fix.ranks.begin(), fix.ranks.end(),
                                         [&](const RankFix &r) { return r.rank == s.rank && r.edits; });
        if (changed)
            if (const auto it = counts.find(s.rank); it != counts.end())
                s.findings = it->second;
    }
    m_job = std::move(doc);
    m_overview->setJob(m_job);
    m_summary->setText(summaryText());
    rebuildFixMenu();
}

void JobDock::rebuildFixMenu()
{
    QMenu *menu = m_fix->menu();
    menu->clear();
    if (!m_job)
        return;
    // Link finding kinds with their totals over the ranks.
    std::map<std::string, std::pair<std::size_t, std::size_t>> kinds; // kind → (findings, ranks)
    for (const RankSummary &s : m_job->report.ranks)
        for (const auto &[kind, n] : s.findings) {
            kinds[kind].first += n;
            kinds[kind].second += 1;
        }
    for (const auto &[name, counts] : kinds) {
        const auto kind = core::findingKindFromName(name);
        if (!kind)
            continue;
        QAction *a = menu->addAction(
            tr("%1: %L2 on %3").arg(QString::fromStdString(name)).arg(counts.first).arg(ranksText(counts.second)));
        const core::FindingKind k = *kind;
        connect(a, &QAction::triggered, this, [this, k] { fixAcrossRanks(k); });
    }
    if (menu->isEmpty())
        menu->addAction(tr("No link findings on any rank"))->setEnabled(false);
}

void JobDock::exportTo(const QString &outDir)
{
    if (!m_job)
        return;
    m_export->setEnabled(false);
    showProgress(true);
    m_loader->exportJob(m_job, outDir);
}

void JobDock::showProgress(bool on)
{
    m_progress.panel->setVisible(on);
    if (on)
        m_progress.timer->start();
    else
        m_progress.timer->stop();
    updateProgress();
}

void JobDock::updateProgress()
{
    const auto states = m_loader->progress();
    std::size_t done = 0, failedRanks = 0;
    std::vector<const JobLoader::RankState *> active;
    for (const auto &s : states) {
        if (s.stage == QLatin1String("done"))
            ++done;
        else if (s.stage == QLatin1String("failed"))
            ++failedRanks;
        else if (s.stage != QLatin1String("waiting"))
            active.push_back(&s);
    }
    // Before the ranks are found there is no count to give ("0 of 0").
    m_progress.label->setText(m_discovering ? tr("Looking for ranks…")
                                            : tr("%L1 of %L2 ranks done%3")
                                                  .arg(done + failedRanks)
                                                  .arg(states.size())
                                                  .arg(failedRanks ? tr(", %L1 failed").arg(failedRanks) : QString()));
    for (std::size_t i = 0; i < m_progress.bars.size(); ++i) {
        QProgressBar *bar = m_progress.bars[i];
        if (i < active.size()) {
            bar->setValue(static_cast<int>(std::clamp(active[i]->fraction, 0.0, 1.0) * 1000));
            bar->setFormat(tr("rank %1 %2 %p%").arg(active[i]->rank).arg(active[i]->stage));
            bar->show();
        } else {
            bar->hide();
        }
    }
    // Ranks that finished since the last tick appear in the overview (unaligned until the end).
    if (m_partialDirty && !m_job) {
        m_partialDirty = false;
        auto doc = std::make_shared<JobDocument>();
        doc->folder = m_folder;
        doc->layout = m_layout;
        doc->report.ranks = m_partial;
        std::sort(doc->report.ranks.begin(), doc->report.ranks.end(),
                  [](const RankSummary &a, const RankSummary &b) { return a.rank < b.rank; });
        m_overview->setJob(std::move(doc));
    }
}

void JobDock::onDiscovered(const JobLayout &layout)
{
    // Ranks found: the previous job closes now, and the new one fills in rank by rank.
    const bool replaced = m_job != nullptr;
    closeJob();
    m_discovering = false;
    m_folder = m_pendingFolder;
    m_policy = m_pendingPolicy;
    m_layout = layout;
    m_summary->setText(tr("Opening %L1 ranks in %2…").arg(layout.ranks.size()).arg(m_folder));
    m_overview->setPlaceholder(tr("Reading %L1 ranks: each appears here as it is read").arg(layout.ranks.size()));
    if (replaced)
        emit jobClosed();
}

void JobDock::onRankLoaded(const RankSummary &summary)
{
    m_partial.push_back(summary);
    m_partialDirty = true;
}

void JobDock::onFinished(JobPtr job)
{
    m_job = std::move(job);
    m_partial.clear();
    showProgress(false);
    m_overview->setJob(m_job);
    m_legend->setJob(m_job);
    m_overview->frameAll();
    m_summary->setText(summaryText());
    m_findings->setJob(m_job);
    m_export->setEnabled(true);
    m_fix->setEnabled(true);
    rebuildFixMenu();
    m_openRank->setEnabled(!m_job->report.ranks.empty());
    m_beside->setEnabled(!m_job->report.ranks.empty());
    m_predictor->start(m_job);
    emit jobOpened(m_job);
}

void JobDock::attachPrediction(PredictDock *predict)
{
    predict->setJobTools(m_predictionPanel->jobTools());
    connect(this, &JobDock::jobOpened, predict, [predict] { predict->setJobOpen(true); });
    connect(this, &JobDock::jobClosed, predict, [predict] { predict->setJobOpen(false); });
    const auto mode = [predict] {
        if (!predict->criticalPathAction()->isChecked())
            return PathMode::Off;
        return predict->pathShown() == PredictDock::PathShown::WhatIf ? PathMode::WhatIf : PathMode::Baseline;
    };
    setPathMode(mode());
    connect(predict, &PredictDock::pathHighlightChanged, this, [this, mode] { setPathMode(mode()); });
    m_overview->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_overview, &QWidget::customContextMenuRequested, this, [this, predict](const QPoint &pos) {
        QMenu menu(m_overview);
        predict->addPathActions(&menu);
        menu.exec(m_overview->mapToGlobal(pos));
    });
}

void JobDock::setPathMode(PathMode mode)
{
    if (mode == m_pathMode) // a new job what-if redraws through its own signal (applied)
        return;
    m_pathMode = mode;
    showPath();
}

qint64 JobDock::pathRank() const
{
    const JobPredictionPtr p = m_predictor->prediction();
    if (!p)
        return -1;
    return m_chosenPathRank >= 0 && p->indexOf(m_chosenPathRank) >= 0 ? m_chosenPathRank : p->slowestRank();
}

void JobDock::choosePathRank(qint64 rank)
{
    m_chosenPathRank = rank;
    showJobPrediction();
}

void JobDock::showJobPrediction()
{
    m_predictionPanel->showPrediction(*m_predictor, pathRank());
    showPath();
}

void JobDock::showPath()
{
    const qint64 rank = pathRank();
    const JobPredictionPtr p = m_predictor->prediction();
    const int index = p ? p->indexOf(rank) : -1;
    if (m_pathMode == PathMode::Off || !m_job || index < 0) {
        m_overview->setCriticalPath(nullptr, QString());
        return;
    }
    const WhatIfPanel *whatIf = m_predictionPanel->whatIf();
    if (m_pathMode == PathMode::WhatIf && whatIf && whatIf->current().pathKnown) {
        // Only the rank whose step is the job's has its path kept under the what-if (jobwhatif.h).
        const WhatIfOutcome &w = whatIf->current();
        auto path = std::make_shared<const PlacedPath>(placePath(m_job->report, p->graph.job, w.path.path));
        const QString legend = tr("Critical path under the what-if (%1): rank %2, the slowest under it, %3 · outlined: "
                                  "collectives at their measured kernels (%L4/%L5) · hover for more")
                                   .arg(w.description)
                                   .arg(w.path.rank)
                                   .arg(QLocale().toString(double(w.stepNs) / 1e6, 'f', 3) + QStringLiteral(" ms"))
                                   .arg(path->anchored)
                                   .arg(path->collectives);
        m_overview->setCriticalPath(std::move(path), legend);
        return;
    }
    const core::predict::RankPrediction &r = p->prediction.ranks[static_cast<std::size_t>(index)];
    auto path = std::make_shared<const PlacedPath>(placePath(m_job->report, p->graph.job, r.path));
    const QString stand = m_pathMode == PathMode::WhatIf ? tr("No what-if on the job replayed yet: the baseline's path. ")
                                                         : QString();
    const QString legend = stand
                           + tr("Critical path of rank %1%2, %3 · outlined: collectives at their measured kernels (%L4/%L5), "
                                "between them the replay's proportions · hover for more")
                                 .arg(rank)
                                 .arg(rank == p->slowestRank() ? tr(" (slowest)") : QString())
                                 .arg(QLocale().toString(double(r.stepNs) / 1e6, 'f', 3) + QStringLiteral(" ms"))
                                 .arg(path->anchored)
                                 .arg(path->collectives);
    m_overview->setCriticalPath(std::move(path), legend);
}

QString JobDock::summaryText() const
{
    if (!m_job)
        return {};
    const JobReport &r = m_job->report;
    std::size_t collectives = 0, errors = 0, warnings = 0;
    for (const auto &[name, n] : r.collectivesPerGroup)
        collectives += n;
    for (const JobFinding &f : r.findings)
        (f.severity == Severity::Error ? errors : warnings) += 1;
    QString text = tr("%1: %2%3, %L4 process groups, %L5 collectives")
                       .arg(m_job->folder, ranksText(r.ranks.size()))
                       .arg(r.worldSize > 0 && r.worldSize != static_cast<std::int64_t>(r.ranks.size())
                                ? tr(" of %L1").arg(r.worldSize)
                                : QString())
                       .arg(r.groups.size())
                       .arg(collectives);
    text += r.findings.empty() ? tr(" · no cross-rank findings")
                               : tr(" · %L1 errors, %L2 warnings across ranks").arg(errors).arg(warnings);
    if (!r.timing.stragglers.empty() && r.timing.stragglers.front().lastArrivals > 0) {
        const StragglerCount &s = r.timing.stragglers.front();
        text += tr(" · arrives last most often: rank %1 (%L2 of %L3)").arg(s.rank).arg(s.lastArrivals).arg(s.of);
    }
    return text;
}

void JobDock::selectFinding(int row)
{
    if (!m_job || row < 0 || row >= static_cast<int>(m_job->report.findings.size()))
        return;
    m_findings->setCurrentFinding(row);
    const JobFinding &f = m_job->report.findings[static_cast<std::size_t>(row)];
    std::vector<qint64> ranks(f.ranks.begin(), f.ranks.end());
    m_overview->setHighlightedRanks(ranks);
    m_currentRank = ranks.empty() ? -1 : ranks.front();
    m_overview->setSelectedRank(m_currentRank);
    m_openRank->setEnabled(m_currentRank >= 0);
    m_beside->setEnabled(m_currentRank >= 0);
    if (!f.processGroup.empty() && f.index >= 0)
        m_overview->selectCollective(QString::fromStdString(f.processGroup), f.index, true);
    emit findingSelected(row);
}

void JobDock::selectRank(qint64 rank)
{
    m_currentRank = rank;
    m_overview->setSelectedRank(rank);
    m_openRank->setEnabled(m_job != nullptr);
    m_beside->setEnabled(m_job != nullptr);
}

qint64 JobDock::rankOfDevice(const QString &devicePath) const
{
    const QFileInfo asked(devicePath);
    for (const RankFiles &r : m_layout.ranks) {
        const QString device = QString::fromStdString(r.device);
        if (device == devicePath || QFileInfo(device) == asked)
            return r.rank;
    }
    return -1;
}

void JobDock::documentShown(const QString &devicePath) { m_overview->setOpenRank(rankOfDevice(devicePath)); }

qint64 JobDock::selectedRank() const
{
    // The rank chosen last: clicked in the overview (label or collective), a finding's first rank,
    // or the one opened by a double-click.
    qint64 rank = m_currentRank;
    if (rank < 0 && m_overview->selection())
        rank = m_overview->selection()->rank;
    if (rank < 0 && m_job && !m_job->report.ranks.empty())
        rank = m_job->report.ranks.front().rank;
    return rank;
}

const RankFiles *JobDock::filesOf(qint64 rank) const
{
    const auto &ranks = m_layout.ranks;
    const auto it = std::find_if(ranks.begin(), ranks.end(), [&](const RankFiles &f) { return f.rank == rank; });
    return it == ranks.end() ? nullptr : &*it;
}

void JobDock::requestBeside(qint64 rank)
{
    if (const RankFiles *files = filesOf(rank))
        emit showBesideRequested(rank, QString::fromStdString(files->host), QString::fromStdString(files->device));
}

void JobDock::requestRank(qint64 rank)
{
    const RankFiles *files = filesOf(rank);
    if (!files)
        return;
    m_currentRank = rank;
    m_overview->setSelectedRank(rank);
    emit openRankRequested(rank, QString::fromStdString(files->host), QString::fromStdString(files->device));
}

} // namespace linkscope::ui
