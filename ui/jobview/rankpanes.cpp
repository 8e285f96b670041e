#include "jobview/rankpanes.h"

#include "ground/eventselection.h"
#include "ground/timeformat.h"
#include "ground/traceloader.h"
#include "jobview/joboverviewmarks.h"
#include "jobview/missingcollectivemarks.h"
#include "timeline/timelineview.h"
#include "timeline/timelineviewstate.h"

#include "edit/sidecar.h"
#include "link/chakracompare.h"
#include "pipeline/pairpipeline.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <limits>

namespace linkscope::ui {

struct RankPane::Load {
    std::atomic<int> permille{0};
    std::atomic<int> stage{0}; // a load stage (traceloader.h): core::PairStage, then kTimelineStage
};

struct RankPane::Loaded {
    OpenedDocuments opened;
    core::BookmarkList bookmarks;
    QString note;
    QString error;
};

namespace {

// The title bar above a rank's lanes (a pane's, the main timeline's): a panel-coloured strip whose
// row starts with the title, in rich text, taking the room the row's other widgets leave.
struct TitleBar {
    QFrame *bar;
    QHBoxLayout *row;
    QLabel *title;
};

TitleBar titleBar(QWidget *parent, const QMargins &rowMargins)
{
    auto *bar = new QFrame(parent);
    bar->setFrameShape(QFrame::StyledPanel);
    bar->setAutoFillBackground(true);
    bar->setBackgroundRole(QPalette::AlternateBase);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(rowMargins);
    auto *title = new QLabel(bar);
    title->setTextFormat(Qt::RichText);
    row->addWidget(title, 1);
    return {bar, row, title};
}

} // namespace

RankPane::RankPane(qint64 rank, const QString &hostPath, const QString &devicePath, core::Policy policy, QWidget *parent)
    : QWidget(parent), m_rank(rank), m_host(hostPath), m_device(devicePath), m_load(std::make_shared<Load>())
{
    build();
    // Read, link and correct off the GUI thread, as the main window's loads are (openDocuments:
    // the rank's sidecar applied, under its policy); the result comes back queued, and is dropped
    // if the pane was closed meanwhile (the job's cancel flag stops it at the next progress call).
    std::shared_ptr<Load> load = m_load;
    m_job.run(
        [load, hostPath, devicePath, policy](const JobToken &token) {
            Loaded out;
            try {
                const core::PairProgressFn progress = [load, token](core::PairStage stage, std::uint64_t done,
                                                                    std::uint64_t total) {
                    load->stage = static_cast<int>(stage);
                    load->permille = total ? static_cast<int>(1000.0 * double(done) / double(total)) : 0;
                    return !token.cancelled();
                };
                out.opened = openDocuments(hostPath, devicePath, policy, progress, token.flag());
                // Its bookmarks (M) are drawn as in the main timeline; a sidecar of other inputs is
                // not applied, and its instants are not this trace's either.
                const core::SidecarFound &found = *out.opened.sidecar;
                if (found.applies()) {
                    out.bookmarks = found.sidecar->bookmarks;
                    out.note = QObject::tr("%L1 corrections from its sidecar").arg(out.opened.corrections);
                } else if (found.status.state == core::SidecarState::Mismatch) {
                    out.note = QObject::tr("its sidecar was made from other inputs: not applied");
                }
            } catch (const core::Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                out.error = QString::fromUtf8(e.what());
            }
            return out;
        },
        [this](Loaded out) {
            m_progressTimer->stop();
            if (!out.error.isEmpty()) {
                m_error = out.error;
                updateTitle();
                emit failed(out.error);
                return;
            }
            show(out.opened.linked, out.opened.shown, out.opened.warnings, out.note);
            m_view->setBookmarks(out.bookmarks);
        });
    m_progressTimer->start();
}

RankPane::RankPane(qint64 rank, DocumentPtr linked, DocumentPtr shown, QStringList warnings, QWidget *parent)
    : QWidget(parent), m_rank(rank), m_host(shown ? shown->hostPath() : QString()),
      m_device(shown ? shown->devicePath() : QString())
{
    build();
    show(std::move(linked), std::move(shown), std::move(warnings), QString());
}

RankPane::~RankPane() = default; // m_job cancels a load in flight and waits for it to stop

void RankPane::build()
{
    setObjectName(QStringLiteral("rankPane%1").arg(m_rank));
    m_selection = new EventSelection(this);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    const auto [bar, row, title] = titleBar(this, {6, 1, 2, 1});
    m_title = title;
    m_edit = new QToolButton(bar);
    m_edit->setText(tr("Edit here"));
    m_edit->setToolTip(tr("Make this rank the main one: Details, Search, Findings and corrections act on it"));
    m_edit->setEnabled(false);
    auto *close = new QToolButton(bar);
    close->setText(QStringLiteral("\u2715"));
    close->setToolTip(tr("Close this rank's lanes"));
    close->setAutoRaise(true);
    row->addWidget(m_edit);
    row->addWidget(close);
    layout->addWidget(bar);
    m_view = new TimelineView(this);
    m_view->setObjectName(QStringLiteral("rankPaneTimeline%1").arg(m_rank));
    m_view->state().setSelectionModel(m_selection);
    m_view->setOverviewVisible(false); // the main timeline has one; a pane's height goes to its lanes
    m_view->setPlaceholderText(tr("Loading rank %1…").arg(m_rank));
    m_view->setMinimumHeight(60); // the splitter shares the height; a pane never grows the window
    layout->addWidget(m_view, 1);
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(150);
    connect(m_progressTimer, &QTimer::timeout, this, &RankPane::updateTitle);
    connect(m_edit, &QToolButton::clicked, this, [this] { emit editRequested(m_rank); });
    // A pane is read-only: `M` here is passed on, for the window to say where bookmarks are added.
    connect(m_view, &TimelineView::bookmarkRequested, this, [this](core::Nanos ts) { emit bookmarkRequested(m_rank, ts); });
    connect(close, &QToolButton::clicked, this, [this] { emit closeRequested(m_rank); });
    // What is selected here is named in the title (Details follows the main timeline).
    connect(m_selection, &EventSelection::changed, this, &RankPane::updateTitle);
    updateTitle();
}

void RankPane::show(DocumentPtr linked, DocumentPtr shown, QStringList warnings, QString note)
{
    m_linked = std::move(linked);
    m_shown = std::move(shown);
    m_warnings = std::move(warnings);
    m_note = std::move(note);
    m_load.reset();
    {
        // A new document fits the whole trace: not a view change the other panes should follow
        // (RankPanes puts this pane on their time window once it has loaded).
        const QSignalBlocker quiet(m_view);
        m_view->setDocument(m_shown);
    }
    m_edit->setEnabled(m_linked != nullptr);
    updateTitle();
    emit loaded();
}

void RankPane::setRun(const QString &run)
{
    m_run = run;
    setObjectName(QStringLiteral("runPane"));
    m_view->setObjectName(QStringLiteral("runPaneTimeline"));
    m_edit->hide(); // another run's trace: nothing of the open run to act on
    m_view->setPlaceholderText(tr("Loading run %1…").arg(run));
    updateTitle();
}

void RankPane::setClockNote(const QString &clock)
{
    m_clock = clock;
    updateTitle();
}

QString RankPane::titleText() const
{
    const QString files = pairFileNames(m_host, m_device).toHtmlEscaped();
    QString text = tr("<b>Rank %1</b> · %2").arg(m_rank).arg(files);
    if (!m_run.isEmpty()) {
        const QString name = m_rank >= 0 ? tr("%1 · rank %2").arg(m_run.toHtmlEscaped()).arg(m_rank) : m_run.toHtmlEscaped();
        text = tr("<b>Run %1</b> · %2").arg(name, files);
        if (!m_clock.isEmpty())
            text += QStringLiteral(" · ") + m_clock.toHtmlEscaped();
    }
    if (!m_error.isEmpty())
        return text + tr(" · <span style=\"color:#c0392b\">could not open: %1</span>").arg(m_error.toHtmlEscaped());
    if (!m_shown) {
        if (!m_load)
            return text;
        const QString what = loadStageName(m_load->stage.load()).toLower();
        return text + tr(" · loading %1 %2%").arg(what).arg(m_load->permille.load() / 10);
    }
    const LinkCounts &counts = m_shown->counts();
    text += tr(" · %L1 GPU ops, %L2 linked, %L3 findings").arg(counts.gpuOps).arg(counts.linked).arg(counts.findings);
    if (!m_note.isEmpty())
        text += QStringLiteral(" · ") + m_note.toHtmlEscaped();
    const core::EventIndex selected = m_selection->current();
    if (selected.in(m_shown->eventCount())) {
        const auto &e = m_shown->event(selected);
        text += tr(" · selected: %1 (%2)")
                    .arg(QString::fromUtf8(m_shown->device().name(e).data()).toHtmlEscaped(), formatDuration(e.dur));
    }
    return text;
}

void RankPane::updateTitle() { m_title->setText(titleText()); }

// ---------------------------------------------------------------------------------------------

RankPanes::RankPanes(TimelineView *main, QWidget *parent) : QWidget(parent), m_main(main), m_window(new TimelineViewState(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->setChildrenCollapsible(false);
    m_mainBox = new QWidget(m_split);
    auto *box = new QVBoxLayout(m_mainBox);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(0);
    const TitleBar title = titleBar(m_mainBox, {6, 2, 6, 2});
    m_mainTitle = title.title;
    title.bar->hide(); // shown while a job is open
    box->addWidget(title.bar);
    main->setParent(m_mainBox);
    // The splitter shares the height between the main timeline and the panes: none of them may
    // force the window past the screen (each keeps its ruler and a few rows).
    main->setMinimumHeight(90);
    box->addWidget(main, 1);
    m_split->addWidget(m_mainBox);
    layout->addWidget(m_split);
    connect(m_main, &TimelineView::viewChanged, this, [this] { syncFrom(m_main); });
    // The job overview moved the job's window: every rank's view follows.
    connect(m_window, &TimelineViewState::windowChanged, this, [this] {
        if (!m_syncing)
            showJobWindow();
    });
    connect(m_main, &TimelineView::bookmarksChanged, this, &RankPanes::shareBookmarks);
}

void RankPanes::setJob(JobPtr job)
{
    const bool other = !job || !m_job || job->folder != m_job->folder;
    m_job = std::move(job);
    m_missing = m_job ? missingCollectives(*m_job) : std::vector<MissingCollective>{};
    if (other)
        closeAll();
    updateMainTitle();
    updateRulers();
}

void RankPanes::setMainRank(qint64 rank)
{
    m_mainRank = rank;
    updateRulers();
    updateMainTitle();
    syncFrom(m_main);
}

void RankPanes::updateRulers()
{
    alignRunPane();
    const auto views = rankViews();
    // The job's aligned origin; without a job, the main trace's start (its ruler's default) on the
    // reference clock, so that run B's ruler reads as A's.
    std::optional<core::Nanos> origin;
    if (m_job)
        origin = alignedJobStart(m_job->report);
    else if (m_main->document() && onClock(views.front()))
        origin = toReference(views.front(), m_main->document()->index().minTs);
    for (const RankView &v : views) {
        const bool own = m_job && v.rank >= 0 && !v.run; // a rank of the job
        if (origin && onClock(v) && (own || v.run))
            v.view->setRulerOrigin(fromReference(v, *origin));
        else
            v.view->setRulerOrigin(std::nullopt);
        updateMissingMarks(v.run ? -1 : v.rank, v.view);
    }
    shareBookmarks();
    applyLaneFilter();
}

void RankPanes::alignRunPane()
{
    const DocumentPtr main = m_main->document();
    const DocumentPtr run = m_runView.pane ? m_runView.pane->document() : nullptr;
    if (!main || !run) {
        m_runView.alignment.reset();
        m_runView.alignedMain.reset();
        m_runView.alignedRun.reset();
        return;
    }
    // Once per pair of traces (a correction makes a new document of the same events).
    if (m_runView.alignment && m_runView.alignedMain.lock() == main->deviceShared()
        && m_runView.alignedRun.lock() == run->deviceShared())
        return;
    // The core's rule (report/runalign.h): B's first step onto A's, else their first events. One
    // pass over each trace's events.
    m_runView.alignment = core::alignRuns(main->device(), main->index(), run->device(), run->index());
    m_runView.alignedMain = main->deviceShared();
    m_runView.alignedRun = run->deviceShared();
    m_runView.pane->setClockNote(m_runView.alignment->bySteps
                                     ? tr("steps aligned: %1").arg(QString::fromStdString(m_runView.alignment->describe()))
                                     : QString::fromStdString(m_runView.alignment->describe()));
}

void RankPanes::setLaneFilter(const QString &text)
{
    m_filter = text;
    applyLaneFilter();
}

void RankPanes::applyLaneFilter()
{
    for (const RankView &v : rankViews()) {
        const QString rank = v.rank >= 0 ? tr("rank %1").arg(v.rank) : QString();
        const QString name = v.run ? QStringLiteral("%1 %2").arg(m_runView.pane->run(), rank).trimmed() : rank;
        v.view->arrangement().setLaneFilter(m_filter, name);
    }
}

void RankPanes::shareBookmarks()
{
    // Every rank's bookmarks on the reference clock, named with their rank.
    struct Shared {
        qint64 rank;
        core::Bookmark onReference;
    };
    std::vector<Shared> all;
    const auto views = rankViews();
    if (m_job)
        for (const auto &[rank, v, run] : views)
            if (rank >= 0 && !run && v->document())
                for (const core::Bookmark &b : v->bookmarkOverlay().bookmarks())
                    all.push_back({rank,
                                   {toReference(rank, *v->document(), b.ts),
                                    tr("rank %1: %2").arg(rank).arg(QString::fromStdString(b.name)).toStdString()}});
    // Each view of the job draws the others' on its own clock (run B's pane: another run's times).
    for (const auto &[rank, v, run] : views) {
        core::BookmarkList echoes;
        if (rank >= 0 && !run && v->document())
            for (const Shared &s : all)
                if (s.rank != rank)
                    echoes.push_back({fromReference(rank, *v->document(), s.onReference.ts), s.onReference.name});
        v->setBookmarkEchoes(std::move(echoes));
    }
    core::BookmarkList reference;
    for (Shared &s : all)
        reference.push_back(std::move(s.onReference));
    core::sortBookmarks(reference);
    emit bookmarksShared(reference);
}

void RankPanes::updateMissingMarks(qint64 rank, TimelineView *view)
{
    // The collectives this rank did not issue, where its group's others ran them (aligned clock),
    // on the rank's own clock.
    std::vector<MissingCollectiveMarks::Mark> marks;
    if (m_job && rank >= 0 && view->document())
        for (const MissingCollective &m : m_missing)
            if (m.rank == rank)
                marks.push_back(
                    {fromReference(rank, *view->document(), m.start), fromReference(rank, *view->document(), m.end), m.label});
    if (!marks.empty() || view->findChild<MissingCollectiveMarks *>(QString(), Qt::FindDirectChildrenOnly))
        MissingCollectiveMarks::of(view)->setMarks(std::move(marks));
}

void RankPanes::updateMainTitle()
{
    QWidget *bar = m_mainTitle->parentWidget();
    bar->setVisible(m_job != nullptr || m_runView.pane);
    const DocumentPtr &doc = m_main->document();
    if (!m_job) {
        // Beside run B: the open trace is run A.
        if (m_runView.pane)
            m_mainTitle->setText(doc ? tr("<b>Run A</b> · %1 · Details, Search, Findings and corrections act on this run")
                                           .arg(pairFileNames(doc->hostPath(), doc->devicePath()).toHtmlEscaped())
                                     : tr("<b>Run A</b> · nothing open"));
        return;
    }
    if (m_mainRank < 0) {
        m_mainTitle->setText(
            doc ? tr("<b>Not a rank of the job</b> · %1").arg(QFileInfo(doc->devicePath()).fileName().toHtmlEscaped())
                : tr("No rank open: double-click a rank in the job overview, or use Open rank / Show beside"));
        return;
    }
    const QString files = doc ? pairFileNames(doc->hostPath(), doc->devicePath()) : QString();
    m_mainTitle->setText(tr("<b>%1Rank %2</b> · %3 · Details, Search, Findings and corrections act on this rank · "
                            "rulers on the job's aligned clock")
                             .arg(m_runView.pane ? tr("Run A · ") : QString())
                             .arg(m_mainRank)
                             .arg(files.toHtmlEscaped()));
}

RankPane *RankPanes::addPane(RankPane *pane, int position)
{
    // Run B's pane stays last: a rank's pane goes above it.
    const int end = m_split->count() - (m_runView.pane && pane != m_runView.pane ? 1 : 0);
    const int at = position < 0 ? end : std::min(position + 1, end);
    m_split->insertWidget(at, pane);
    m_split->setStretchFactor(at, 1);
    TimelineView *view = pane->view();
    connect(view, &TimelineView::viewChanged, this, [this, view] { syncFrom(view); });
    connect(view, &TimelineView::bookmarksChanged, this, &RankPanes::shareBookmarks);
    connect(pane, &RankPane::loaded, this, [this] {
        updateRulers();
        syncFrom(m_main);
        emit panesChanged();
    });
    connect(pane, &RankPane::editRequested, this, &RankPanes::editRequested);
    if (pane->run().isEmpty())
        connect(pane, &RankPane::closeRequested, this, &RankPanes::closePane);
    else
        connect(pane, &RankPane::closeRequested, this, &RankPanes::closeRunPane);
    connect(pane, &RankPane::bookmarkRequested, this, &RankPanes::paneBookmarkRequested);
    // The main timeline (the rank the docks act on) keeps half the height, the panes share the
    // other half: with two panes beside it at 1920x1080 (Megatron), the main rank shows its
    // overview, both GPU streams and its thread, each pane its two streams. It keeps that share
    // as the window is resized (stretch: one per pane for the main box).
    const int panes = m_split->count() - 1;
    const int half = std::max(200, m_split->height()) / 2;
    QList<int> sizes{half};
    for (int i = 0; i < panes; ++i)
        sizes << std::max(1, half / panes);
    m_split->setSizes(sizes);
    m_split->setStretchFactor(0, panes);
    emit panesChanged();
    return pane;
}

RankPane *RankPanes::openPane(qint64 rank, const QString &hostPath, const QString &devicePath, core::Policy policy)
{
    if (rank == m_mainRank)
        return nullptr;
    if (RankPane *existing = pane(rank))
        return existing;
    return addPane(new RankPane(rank, hostPath, devicePath, policy, m_split), -1);
}

RankPane *RankPanes::adoptPane(qint64 rank, DocumentPtr linked, DocumentPtr shown, QStringList warnings, int position)
{
    closePane(rank);
    return addPane(new RankPane(rank, std::move(linked), std::move(shown), std::move(warnings), m_split), position);
}

void RankPanes::closePane(qint64 rank)
{
    if (RankPane *p = pane(rank)) {
        p->hide();
        p->setParent(nullptr);
        p->deleteLater();
        shareBookmarks();
        emit panesChanged();
    }
}

void RankPanes::closeAll()
{
    for (RankPane *p : panes())
        closePane(p->rank());
}

RankPane *RankPanes::openRunPane(const QString &run, qint64 rank, const QString &hostPath, const QString &devicePath,
                                 core::Policy policy)
{
    closeRunPane();
    auto *pane = new RankPane(rank, hostPath, devicePath, policy, m_split);
    pane->setRun(run);
    m_runView.pane = pane;
    addPane(pane, -1);
    updateMainTitle();
    applyLaneFilter();
    return pane;
}

void RankPanes::closeRunPane()
{
    if (!m_runView.pane)
        return;
    RankPane *p = m_runView.pane;
    m_runView.pane.clear();
    p->hide();
    p->setParent(nullptr);
    p->deleteLater();
    m_runView.alignment.reset();
    updateMainTitle();
    updateRulers();
    emit panesChanged();
}

RankPane *RankPanes::pane(qint64 rank) const
{
    for (RankPane *p : panes())
        if (p->rank() == rank)
            return p;
    return nullptr;
}

std::vector<RankPane *> RankPanes::panes() const
{
    std::vector<RankPane *> out;
    for (int i = 0; i < m_split->count(); ++i)
        if (auto *p = qobject_cast<RankPane *>(m_split->widget(i)); p && p != m_runView.pane)
            out.push_back(p);
    return out;
}

int RankPanes::paneIndex(qint64 rank) const
{
    const auto all = panes();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i]->rank() == rank)
            return static_cast<int>(i);
    return -1;
}

std::vector<RankPanes::RankView> RankPanes::rankViews() const
{
    std::vector<RankView> views{{m_mainRank, m_main, false}};
    for (RankPane *p : panes())
        views.push_back({p->rank(), p->view(), false});
    if (m_runView.pane)
        views.push_back({m_runView.pane->rank(), m_runView.pane->view(), true});
    return views;
}

bool RankPanes::onClock(const RankView &v) const
{
    if (!v.view->document())
        return false;
    const bool runAligned = m_runView.pane && m_runView.alignment && m_main->document();
    if (v.run)
        return runAligned;
    if (m_job && v.rank >= 0)
        return true;
    return v.view == m_main && runAligned; // a trace outside any job, beside run B: its own clock
}

core::Nanos RankPanes::clockOffset(qint64 rank) const { return m_job ? m_job->report.timing.offsetOf(rank) : 0; }

core::Nanos RankPanes::offsetOf(const RankView &v) const
{
    if (!v.run)
        return v.rank >= 0 ? clockOffset(v.rank) : 0;
    // Run B: an instant of B (absolute) is drawn where A's main trace has it moved by the
    // alignment's shift, on whichever clock the main trace is.
    const core::Nanos main = m_job && m_mainRank >= 0 ? clockOffset(m_mainRank) : 0;
    return main - (m_runView.alignment ? m_runView.alignment->shiftNs() : 0);
}

core::Nanos RankPanes::toReference(const RankView &v, core::Nanos t) const
{
    return t + v.view->document()->device().baseTimeNs.value_or(0) - offsetOf(v);
}

core::Nanos RankPanes::fromReference(const RankView &v, core::Nanos t) const
{
    return t + offsetOf(v) - v.view->document()->device().baseTimeNs.value_or(0);
}

core::Nanos RankPanes::toReference(qint64 rank, const TraceDocument &doc, core::Nanos t) const
{
    // A document's times are the trace's `ts` (relative to baseTimeNanoseconds when it has one);
    // the job's calls and offsets are on absolute clocks.
    return t + doc.device().baseTimeNs.value_or(0) - clockOffset(rank);
}

core::Nanos RankPanes::fromReference(qint64 rank, const TraceDocument &doc, core::Nanos t) const
{
    return t + clockOffset(rank) - doc.device().baseTimeNs.value_or(0);
}

core::Nanos RankPanes::mapTime(qint64 from, const TraceDocument &fromDoc, qint64 to, const TraceDocument &toDoc,
                               core::Nanos t) const
{
    return fromReference(to, toDoc, toReference(from, fromDoc, t));
}

void RankPanes::syncFrom(TimelineView *source)
{
    if (m_syncing || !source->document())
        return;
    const auto views = rankViews();
    const auto it = std::find_if(views.begin(), views.end(), [source](const RankView &rv) { return rv.view == source; });
    if (it == views.end() || !onClock(*it))
        return;
    // The source's window on the reference clock, shown by every other view on it.
    const core::Nanos start = toReference(*it, source->state().viewStart());
    const core::Nanos end = toReference(*it, source->state().viewEnd());
    m_syncing = true;
    m_window->setVisibleRange(start, end);
    for (const RankView &v : views) {
        if (v.view == source || !onClock(v))
            continue;
        v.view->setHeaderWidth(source->headerWidth());
        v.view->state().setVisibleRange(fromReference(v, start), fromReference(v, end));
    }
    m_syncing = false;
}

std::optional<std::pair<core::Nanos, core::Nanos>> RankPanes::referenceView() const
{
    for (const RankView &v : rankViews())
        if (onClock(v))
            return std::make_pair(toReference(v, v.view->state().viewStart()), toReference(v, v.view->state().viewEnd()));
    return std::nullopt;
}

void RankPanes::showJobWindow()
{
    const core::Nanos start = m_window->viewStart(), end = m_window->viewEnd();
    m_syncing = true;
    for (const RankView &v : rankViews())
        if (onClock(v))
            v.view->state().setVisibleRange(fromReference(v, start), fromReference(v, end));
    m_syncing = false;
}

void RankPanes::frameCollective(const QString &group, qint64 index)
{
    if (!m_job)
        return;
    // The collective's extent on the reference clock, over every rank that issued it: from the
    // earliest launch to the latest kernel end.
    core::Nanos lo = std::numeric_limits<core::Nanos>::max(), hi = std::numeric_limits<core::Nanos>::min();
    for (const auto &[rank, call] : m_job->report.callsAt(group.toStdString(), index)) {
        const core::job::RankSummary *s = m_job->report.rank(rank);
        if (!s || call >= s->calls.size())
            continue;
        const core::job::CollectiveCall &c = s->calls[call];
        const core::Nanos shift = clockOffset(rank);
        for (const std::int64_t t : {c.launchNs, c.startNs, c.endNs})
            if (t != core::job::kUnknownTime) {
                lo = std::min(lo, t - shift);
                hi = std::max(hi, t - shift);
            }
    }
    if (lo > hi)
        return;
    const core::Nanos pad = std::max<core::Nanos>((hi - lo) / 4, 1000);
    lo -= pad;
    hi += pad;
    setReferenceView({lo, hi});
}

void RankPanes::setReferenceView(std::pair<core::Nanos, core::Nanos> view)
{
    m_window->setVisibleRange(view.first, view.second);
    showJobWindow(); // also when the window was already there
}

} // namespace linkscope::ui
