#include "shell/jobui.h"

#include "docks/findingsdock.h"
#include "docks/summarydock.h"
#include "jobview/jobdock.h"
#include "jobview/jobfindingslist.h"
#include "jobview/joboverview.h"
#include "jobview/rankpanes.h"
#include "shell/windowlayout.h"
#include "timeline/timelineview.h"

#include <QMainWindow>
#include <QTimer>

#include <algorithm>

namespace linkscope::ui {

JobUi::JobUi(JobHost host, QObject *parent) : QObject(parent), m_host(std::move(host)) { }

bool JobUi::active() const { return m_dock && (m_dock->job() || m_pending); }

const JobPtr &JobUi::job() const
{
    static const JobPtr none;
    return m_dock ? m_dock->job() : none;
}

qint64 JobUi::rankOfDevice(const QString &devicePath) const { return m_dock ? m_dock->rankOfDevice(devicePath) : -1; }

void JobUi::setPending(bool pending)
{
    if (pending == m_pending)
        return;
    m_pending = pending;
    emit activeChanged();
}

void JobUi::open(const QString &folder)
{
    JobDock *d = dock();
    d->show();
    setPending(true);
    fitLayout();
    m_fitOnShow = true;
    if (!m_doc)
        m_host.timeline->setPlaceholderText(
            tr("Opening the job in %1: its ranks appear in the Job overview above as they are read").arg(folder));
    d->open(folder, m_host.policy());
}

void JobUi::leaveUnlessRank(const QString &devicePath)
{
    if (active() && m_dock->rankOfDevice(devicePath) < 0) {
        setPending(false);
        m_dock->closeOpenJob();
    }
}

void JobUi::documentChanged(const DocumentPtr &doc)
{
    m_doc = doc;
    if (!m_dock)
        return;
    if (doc)
        m_dock->documentShown(doc->devicePath());
    // The first rank's Findings have filled their dock: sized again, once per job opened, so that a
    // size the user drags to later is kept.
    if (doc && m_fitOnShow) {
        m_fitOnShow = false;
        fitLayout();
    }
}

void JobUi::fitLayout()
{
    // The overview about 24 % of the window's height (eight rank rows at 1080 px), the Findings
    // under the lanes 20 % (they scroll): the rank's lanes keep the middle. Asked for once the
    // layout has taken the job's dock in (sizes asked for before are lost): as the job opens, when
    // it is open, and when its first rank is shown.
    QTimer::singleShot(0, this, [this] {
        QMainWindow *window = m_host.window;
        if (!m_dock || !m_dock->isVisible() || m_dock->isFloating() || m_restored)
            return; // a size saved from the last session is kept
        const int jobHeight = std::max(240, window->height() * 24 / 100);
        window->resizeDocks({m_dock}, {jobHeight}, Qt::Vertical);
        WindowLayout::fitColumnUnder(window, jobHeight);
        if (QDockWidget *findings = m_host.findings; findings->isVisible() && !findings->isFloating())
            window->resizeDocks({findings}, {std::max(170, window->height() * 20 / 100)}, Qt::Vertical);
    });
}

JobDock *JobUi::dock()
{
    if (!m_dock) {
        m_dock = new JobDock(m_host.window);
        m_host.addDock(m_dock);
        m_restored = WindowLayout::restoreDock(m_host.window, m_dock);
        wire();
    }
    return m_dock;
}

void JobUi::wire()
{
    RankPanes *panes = m_host.panes;
    // The Prediction dock holds the job's what-if tools; the overview draws the path it draws.
    m_dock->attachPrediction(m_host.predict);
    // Another folder's ranks were found: the previous job's panes and findings go with it.
    connect(m_dock->loader(), &JobLoader::cancelled, this, [this] { setPending(false); });
    connect(m_dock, &JobDock::jobClosed, this, [this, panes] {
        panes->setJob(nullptr);
        m_host.findings->setJob(nullptr);
        if (m_host.summary)
            m_host.summary->setJob(nullptr);
        emit closed();
    });
    connect(m_dock, &JobDock::jobOpened, this, [this, panes](const JobPtr &job) {
        setPending(false);
        if (!m_doc)
            m_host.timeline->setPlaceholderText(
                tr("Double-click a rank in the Job overview above (or click it and Open rank) to open its lanes here"));
        fitLayout();
        panes->setJob(job);
        m_host.findings->setJob(job);
        if (m_host.summary)
            m_host.summary->setJob(job);
        emit opened(job);
    });
    connect(m_dock, &JobDock::openRankRequested, this, [this, panes](qint64 rank, const QString &host, const QString &device) {
        if (RankPane *pane = panes->pane(rank); pane && pane->isLoaded()) {
            emit editRankRequested(rank); // already read: swapped in, not read again
            return;
        }
        panes->closePane(rank);
        emit message(tr("Opening rank %1 of the job").arg(rank), 4000);
        emit openPairRequested(host, device);
    });
    connect(m_dock, &JobDock::showBesideRequested, this, [this, panes](qint64 rank, const QString &host, const QString &device) {
        if (rank == panes->mainRank()) {
            emit message(tr("Rank %1 is the rank open above: click another rank in the Job overview, then Show beside").arg(rank),
                         6000);
            return;
        }
        panes->openPane(rank, host, device, m_host.policy());
        emit message(tr("Rank %1 below the open rank, on the job's aligned clock").arg(rank), 4000);
    });
    connect(panes, &RankPanes::editRequested, this, &JobUi::editRankRequested);
    connect(panes, &RankPanes::paneBookmarkRequested, this, [this](qint64 rank) {
        emit message(tr("Rank %1's lanes are read-only here: Edit here makes it the main rank, where M adds a bookmark "
                        "to its sidecar")
                         .arg(rank),
                     6000);
    });
    JobOverview *overview = m_dock->overview();
    // A collective clicked in the overview, or a cross-rank finding's: shown in every rank's lanes.
    connect(overview, &JobOverview::collectiveSelected, panes, &RankPanes::frameCollective);
    // And the overview shows the job's window, which the ranks' lanes show on their clocks: they
    // zoom and pan together.
    overview->setViewState(panes->jobWindow());
    // And draws every shown rank's bookmarks.
    connect(panes, &RankPanes::bookmarksShared, overview, &JobOverview::setBookmarks);
    // The job dock's list and the Findings dock's "Across ranks" stay on the same finding.
    connect(m_dock, &JobDock::findingSelected, this, [this](int row) { m_host.findings->jobFindings()->setCurrentFinding(row); });
    connect(m_host.findings, &FindingsDock::jobFindingActivated, m_dock, &JobDock::selectFinding);
    connect(m_dock, &JobDock::exported, this, [this](const QString &, const QString &summary) { emit message(summary, 10000); });
    connect(m_dock, &JobDock::failed, this, [this](const QString &text) {
        setPending(false);
        if (!m_doc && !m_dock->job())
            m_host.timeline->setPlaceholderText(QString());
        emit message(text, 10000);
    });
    // A fix across ranks rewrote rank sidecars: the rank open below is reopened with its own.
    connect(m_dock, &JobDock::sidecarsChanged, this, [this](const QList<qint64> &ranks, const QString &text) {
        emit message(text.section(QLatin1Char('\n'), 0, 0), 10000);
        if (!m_doc || !m_dock->job())
            return;
        for (const auto &r : m_dock->job()->layout.ranks)
            if (ranks.contains(r.rank) && QString::fromStdString(r.device) == m_doc->devicePath())
                emit openPairRequested(QString::fromStdString(r.host), QString::fromStdString(r.device));
    });
}

} // namespace linkscope::ui
