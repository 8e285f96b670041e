#pragma once
// Several ranks of a job, one above the other, on one time axis. The main window's timeline is the
// first pane: the rank that Details, Search, Findings and edits act on. Each rank shown beside it
// ("Show beside" in the job dock) gets a pane below: its full lanes (CPU threads, GPU streams) and
// edges, with the links its own corrections sidecar makes, read-only. Every pane scrolls and
// zooms with the others through the job's clock alignment (core/job/timing.h: a rank's clock minus
// the reference rank's), and its header column keeps the main one's width, so one x is one instant
// in every pane. "Edit here" swaps a pane's rank with the main one without reading anything again.
// Each pane's title names its rank, as the main one's does. A pane draws its rank's bookmarks (its
// sidecar's; `M` there is passed on: a pane is read-only) and every view of a rank marks the
// collectives that rank did not issue (missingcollectivemarks.h).
//
// The same panes show another run beside the open one (File ▸ Compare with…, ui/compare/): run B's
// trace — of a job, B's rank that A's main timeline shows — in a pane of its own below the ranks,
// titled as run B, read-only, on A's clock moved so that the runs' steps line up (the rule is the
// core's: report/runalign.h). It scrolls and zooms with the others and its ruler reads as A's.

#include "edit/bookmarks.h"
#include "ground/backgroundjob.h"
#include "ground/jobloader.h"
#include "ground/tracedocument.h"
#include "jobview/joboverviewmarks.h"
#include "report/runalign.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QLabel;
class QSplitter;
class QTimer;
class QToolButton;

namespace linkscope::ui {

class EventSelection;
class TimelineView;
class TimelineViewState;

class RankPane : public QWidget {
    Q_OBJECT
public:
    // Loads the pair in the background (the rank's sidecar applied, if it has one).
    RankPane(qint64 rank, const QString &hostPath, const QString &devicePath, core::Policy policy, QWidget *parent = nullptr);
    // Shows documents that are already loaded (a rank the main window showed until now).
    RankPane(qint64 rank, DocumentPtr linked, DocumentPtr shown, QStringList warnings, QWidget *parent = nullptr);
    ~RankPane() override; // cancels a load in flight

    qint64 rank() const { return m_rank; }
    QString hostPath() const { return m_host; }
    QString devicePath() const { return m_device; }
    TimelineView *view() const { return m_view; }
    EventSelection *selection() const { return m_selection; }
    // The linker's document, and the one shown (the sidecar's corrections applied; == linked without).
    const DocumentPtr &linkedDocument() const { return m_linked; }
    const DocumentPtr &document() const { return m_shown; }
    const QStringList &warnings() const { return m_warnings; }
    bool isLoaded() const { return m_shown != nullptr; }
    QString titleText() const;
    QString errorText() const { return m_error; }
    // Another run's pane (RankPanes::openRunPane): titled `run` ("B"), no "Edit here"; `clock` says
    // how its clock is aligned with the open run's.
    void setRun(const QString &run);
    const QString &run() const { return m_run; }
    void setClockNote(const QString &clock);

signals:
    void loaded();
    void failed(const QString &message);
    void editRequested(qint64 rank);
    void closeRequested(qint64 rank);
    // `M` on the pane's lanes (a pane is read-only: its bookmarks are drawn, not edited here).
    void bookmarkRequested(qint64 rank, core::Nanos ts);

private:
    struct Load;
    struct Loaded;
    void build();
    void show(DocumentPtr linked, DocumentPtr shown, QStringList warnings, QString note);
    void updateTitle();

    qint64 m_rank;
    QString m_host;
    QString m_device;
    QString m_note;  // "3 corrections applied from …"
    QString m_run;   // another run's pane: its name ("B"); empty for a rank of the open job
    QString m_clock; // how a run pane's clock is aligned
    QString m_error;
    DocumentPtr m_linked;
    DocumentPtr m_shown;
    QStringList m_warnings;
    std::shared_ptr<Load> m_load;
    EventSelection *m_selection;
    TimelineView *m_view;
    QLabel *m_title;
    QToolButton *m_edit;
    QTimer *m_progressTimer;
    BackgroundJob m_job; // last: destroyed (and waited for) first
};

class RankPanes : public QWidget {
    Q_OBJECT
public:
    // `main` is the main window's timeline; it becomes the first pane (reparented here).
    explicit RankPanes(TimelineView *main, QWidget *parent = nullptr);

    // The job whose ranks are shown (clock offsets, calls). Null closes every pane.
    void setJob(JobPtr job);
    const JobPtr &job() const { return m_job; }
    // The rank the main timeline shows (-1: none, or a trace outside the job).
    void setMainRank(qint64 rank);
    qint64 mainRank() const { return m_mainRank; }

    // Opens (or raises) the pane of `rank`; the main rank has none.
    RankPane *openPane(qint64 rank, const QString &hostPath, const QString &devicePath, core::Policy policy);
    // A pane for documents already loaded (the main rank's, after "Edit here").
    RankPane *adoptPane(qint64 rank, DocumentPtr linked, DocumentPtr shown, QStringList warnings, int position = -1);
    void closePane(qint64 rank);
    void closeAll();
    RankPane *pane(qint64 rank) const;
    std::vector<RankPane *> panes() const; // top to bottom; the ranks of the open job (not run B's)
    // Run B's pane (File ▸ Compare with…): `rank` of B (-1: a trace that is no rank of a job), read
    // like a rank pane, below the others, replacing the run pane shown. Its clock is A's main
    // timeline's moved by alignRuns (report/runalign.h) once both are loaded, and again whenever the
    // main timeline shows another trace.
    RankPane *openRunPane(const QString &run, qint64 rank, const QString &hostPath, const QString &devicePath,
                          core::Policy policy);
    RankPane *runPane() const { return m_runView.pane; }
    void closeRunPane();
    // How the run pane is aligned with the main timeline; nullopt until both are loaded.
    const std::optional<core::RunAlignment> &runAlignment() const { return m_runView.alignment; }
    int paneIndex(qint64 rank) const; // position among the panes, -1

    // Time `t` of rank `from`'s trace (its document's clock) on rank `to`'s; unaligned ranks map by
    // their absolute clocks (baseTimeNanoseconds + ts).
    core::Nanos mapTime(qint64 from, const TraceDocument &fromDoc, qint64 to, const TraceDocument &toDoc, core::Nanos t) const;
    // Shows collective `index` of `group` in every pane (and the main timeline), padded so that its
    // launches and kernels on all ranks are in view.
    void frameCollective(const QString &group, qint64 index);
    // The job's window: the time span every view of a rank shows, on the reference clock (the job's
    // aligned clock). The job overview draws it and pans and zooms it; each view of a rank shows it
    // moved by its rank's clock offset, and a view panned or zoomed moves it (syncFrom).
    TimelineViewState *jobWindow() const { return m_window; }
    // The window a view of a rank shows, on the reference clock (the main timeline's, else the first
    // loaded pane's); nullopt when no rank of the job is shown.
    std::optional<std::pair<core::Nanos, core::Nanos>> referenceView() const;
    // Sets the job's window and shows it in every view of a rank (also when it did not change: a rank
    // swapped in shows it).
    void setReferenceView(std::pair<core::Nanos, core::Nanos> view);
    // Makes the other panes show what `source` shows (called on every view change).
    void syncFrom(TimelineView *source);

    // The lane filter (TimelineLayout::setLaneFilter) on every view of a rank: the main timeline and
    // each pane; a view whose rank's name ("rank 3") contains the text shows all its lanes.
    void setLaneFilter(const QString &text);
    const QString &laneFilter() const { return m_filter; }

    QLabel *mainTitle() const { return m_mainTitle; }
    QSplitter *splitter() const { return m_split; }

signals:
    // "Edit here" on a pane: the main window swaps that rank in.
    void editRequested(qint64 rank);
    void panesChanged();
    // `M` on a pane's lanes: bookmarks are added on the main rank (Edit here makes a pane's rank it).
    void paneBookmarkRequested(qint64 rank, core::Nanos ts);
    // The bookmarks of every rank shown, on the reference clock, each named with its rank: the job
    // overview draws them (and every view draws the other ranks' on its own clock).
    void bookmarksShared(const core::BookmarkList &bookmarks);

private:
    RankPane *addPane(RankPane *pane, int position);
    // A view of a rank or of run B, and the clock it is on.
    struct RankView {
        qint64 rank;        // -1: the main one is none
        TimelineView *view; //
        bool run = false;   // run B's pane (its rank is B's)
    };
    // The main timeline, the panes top to bottom, then run B's.
    std::vector<RankView> rankViews() const;
    // The view shows a document on the shared (reference) clock: a rank of the job, run B once
    // aligned, and the main timeline beside an aligned run B.
    bool onClock(const RankView &v) const;
    core::Nanos clockOffset(qint64 rank) const; // 0 without a job, or for an unaligned rank
    core::Nanos offsetOf(const RankView &v) const;
    core::Nanos toReference(qint64 rank, const TraceDocument &doc, core::Nanos t) const;
    core::Nanos fromReference(qint64 rank, const TraceDocument &doc, core::Nanos t) const;
    core::Nanos toReference(const RankView &v, core::Nanos t) const;
    core::Nanos fromReference(const RankView &v, core::Nanos t) const;
    // The run pane's alignment for the documents shown now (computed again when either changed).
    void alignRunPane();
    void updateMainTitle();
    // Every view of a rank counts its ruler from the job's aligned origin; others from their start.
    void updateRulers();
    // The collectives `rank` did not issue (missing_collective), marked on its view
    // (missingcollectivemarks.h); none for a view that shows no rank of the job.
    void updateMissingMarks(qint64 rank, TimelineView *view);
    // Each view's bookmarks drawn on the other views of the job's ranks, and bookmarksShared().
    void shareBookmarks();
    void applyLaneFilter();
    // The job's window shown by every view of a rank on the clock.
    void showJobWindow();

    TimelineView *m_main;
    QWidget *m_mainBox;
    QLabel *m_mainTitle;
    QSplitter *m_split;
    TimelineViewState *m_window;
    JobPtr m_job;
    std::vector<MissingCollective> m_missing; // the job's, on the aligned clock
    qint64 m_mainRank = -1;
    bool m_syncing = false;
    QString m_filter; // the lane filter's text
    // Run B's pane and how it is aligned with the main timeline.
    struct RunView {
        QPointer<RankPane> pane;
        std::optional<core::RunAlignment> alignment;
        std::weak_ptr<const core::DeviceTrace> alignedMain, alignedRun; // the traces `alignment` is of
    } m_runView;
};

} // namespace linkscope::ui
