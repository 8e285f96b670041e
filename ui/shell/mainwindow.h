#pragma once
// The main window: file opening (menu, recent files, drag and drop, command line), background
// loading with per-stage progress and Cancel, the linking policy, the timeline and its docks.
//
// Extending with docks: create the dock with selection() and connect documentChanged() to its
// setDocument(); call addDock() so that it gets a View-menu toggle. document() is the loaded,
// immutable TraceDocument (null before the first load); it is replaced, never mutated.

#include "ground/tracedocument.h"
#include "ground/traceloader.h"
#include "link/linkset.h"

#include <QMainWindow>
#include <QStringList>

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;

namespace linkscope::ui {

class DetailsDock;
class JobDock;
class JobUi;
struct JobDocument;
class LoadProgress;
class NoticeBar;
class EventSelection;
class PredictDock;
class PredictionController;
class PredictionUi;
class RangeDock;
class RankPanes;
class SearchDock;
class TimelineView;
class TraceLoader;
class ReviewUi;
class StartPage;
class SummaryDock;
class WarningsDock;
struct RecentEntry;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void openPair(const QString &hostPath, const QString &devicePath);
    void openDevice(const QString &devicePath);
    // One file: a Kineto trace. Two files: a pair in either order (the files are sniffed).
    void openFiles(const QStringList &paths);
    // A folder of per-rank traces: the job dock (jobdock.h) opens it; its ranks open here on request.
    void openJob(const QString &folder);
    // A pair or a job of File ▸ Open recent or the start page.
    void openRecent(const RecentEntry &entry);
    // What the window shows while nothing is open (startpage.h).
    StartPage *startPage() const { return m_startPage; }
    // The job dock, created on first use.
    JobDock *jobDock();
    // The timeline and, below it, other ranks' lanes of the open job (the central widget).
    RankPanes *rankPanes() const { return m_panes; }
    // Makes `rank` (shown in a pane below) the main rank, without reading it again; the rank shown
    // until now takes its pane.
    void editRankHere(qint64 rank);

    const DocumentPtr &document() const { return m_doc; }
    EventSelection *selection() const { return m_selection; }
    TimelineView *timeline() const { return m_timeline; }
    TraceLoader *loader() const { return m_loader; }
    DetailsDock *detailsDock() const { return m_details; }
    SearchDock *searchDock() const { return m_search; }
    RangeDock *rangeDock() const { return m_range; }
    WarningsDock *warningsDock() const { return m_warnings; }
    // The open pair's prediction (rebuilt when the links change) and the dock that shows it.
    PredictionController *predictionController() const;
    PredictDock *predictDock() const;
    QLabel *warningsLabel() const { return m_warningsLabel; } // "⚠ N warnings": a link that opens the dock
    // Above the timeline: what could not be read whole (a trace cut short, a job's missing ranks), in a sentence.
    NoticeBar *readNotice() const { return m_readNotice; }
    QMenu *viewMenu() const { return m_viewMenu; }
    void addDock(QDockWidget *dock, Qt::DockWidgetArea area);

    // Replaces the links of the open traces (e.g. after a user correction) and emits
    // documentChanged(). Builds the timeline arrays on the calling (GUI) thread: O(events), meant
    // for edits, not for relinking a 10M-event trace (setPolicy() does that in the background).
    void setLinks(std::shared_ptr<const core::LinkSet> links);

    // Review and corrections (docks, menus, undo, sidecar): see reviewui.h.
    ReviewUi *review() const { return m_review; }

    // The keyboard-shortcut sheet (Help ▸ Keyboard shortcuts, F1) as HTML, generated from the
    // timeline's key bindings, the menus' actions that have keys, and the mouse gestures.
    QString shortcutSheetHtml() const;
    // Shows `doc` in place of the linker's document of the same traces (the corrected links).
    void showCorrectedDocument(DocumentPtr doc) { setDocument(std::move(doc)); }

    core::Policy policy() const { return m_policy; }
    // Relinks the open traces under `policy` in the background (no-op without a document).
    void setPolicy(core::Policy policy);

    // The status line text ("N GPU ops · linked … · orphans … · findings …"), for tests.
    QString statusText() const;

signals:
    // A pair was opened (a load, Edit here), its sidecar as found: emitted before it is shown.
    void pairOpened(linkscope::ui::OpenedPtr opened);
    void documentChanged(linkscope::ui::DocumentPtr doc);
    void loadFailed(const QString &message);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    // The job as a feature (jobui.h) and what the window does for it.
    void placeJob(SummaryDock *summary);
    void onTimeRangeChanged();
    void buildActions();
    void buildStatusBar();
    void setDocument(DocumentPtr doc);
    void onLoaded(OpenedPtr opened);
    // The review's docks, menus and notice in the window, and its signals wired; the bookmarks and
    // the Perfetto hand-off with them (mainwindowreview.cpp).
    void placeReview();
    // The read notice for a load or for the job just opened (mainwindowreview.cpp).
    void showReadNotice(const OpenedDocuments &opened);
    void showJobReadNotice(const JobDocument &job);
    void onFailed(const QString &message);
    void onLoadStarted(bool relink);
    void finishProgress();
    void rebuildRecentMenu();
    // The start page is shown while no trace is open or loading and no job is open or opening.
    void updateStartPage();
    void updateCounts();
    void showShortcuts();
    void updateRankLabels();

    DocumentPtr m_doc;
    EventSelection *m_selection;
    TimelineView *m_timeline;
    TraceLoader *m_loader;
    DetailsDock *m_details;
    SearchDock *m_search;
    RangeDock *m_range = nullptr;
    WarningsDock *m_warnings;
    PredictionUi *m_prediction = nullptr;
    ReviewUi *m_review = nullptr;
    JobUi *m_job = nullptr;
    RankPanes *m_panes = nullptr;
    core::Policy m_policy = core::Policy::Nesting;

    QMenu *m_viewMenu = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_openPairAction = nullptr;
    QAction *m_openJobAction = nullptr;
    StartPage *m_startPage = nullptr;
    QComboBox *m_policyBox = nullptr;
    QActionGroup *m_policyGroup = nullptr;
    QAction *m_allEdgesAction = nullptr;

    QLabel *m_countsLabel = nullptr;
    QLabel *m_warningsLabel = nullptr;
    NoticeBar *m_readNotice = nullptr;
    bool m_readNoticeOfJob = false; // the read notice is the job's (closed with it)
    LoadProgress *m_progress = nullptr;
    bool m_placed = false;         // sized and placed on the screen (first show)
    bool m_layoutRestored = false; // the last session's layout was applied (windowlayout.h)
};

} // namespace linkscope::ui
