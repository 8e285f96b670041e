#pragma once
// The job dock: File ▸ Open job… (or a folder on the command line / dropped) shows here. While the
// ranks load, a progress bar per rank (the ones in flight) and Cancel; ranks appear in the overview
// as they finish. Then: a one-line summary (ranks, process groups, collectives, findings,
// stragglers), the overview (joboverview.h), and the cross-rank findings, each naming its ranks;
// selecting a finding frames its collective on every rank involved and tints those ranks. Open
// rank (or a double-click) asks the main window to load that rank's full lanes below; Export job…
// writes what `linkscope job` writes. Once the job is open its prediction runs in the background
// (jobpredictor.h): each rank's predicted step and breakdown are listed under the findings, and in
// critical-path mode the overview draws the slowest rank's critical path (or the rank clicked in the list).

#include "ground/jobloader.h"
#include "jobview/jobfindingslist.h"
#include "prediction/jobpredictor.h"

#include <QDockWidget>
#include <QList>

#include <map>

class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;
class QTreeWidget;
class QToolButton;
class QUndoStack;
class QSplitter;

namespace linkscope::ui {

class JobOverview;
class PredictDock;
class JobOverviewLegend;
class JobPredictionPanel;

class JobDock : public QDockWidget {
    Q_OBJECT
public:
    explicit JobDock(QWidget *parent = nullptr);

    // Opens the job in `folder`. The job open until now stays, whole, until the folder's ranks are
    // found; a folder without traces leaves it open and says why (failed()).
    void open(const QString &folder, core::Policy policy = core::Policy::Nesting);
    // Closes the open job (or stops the one being opened) and hides the dock: a pair that is not one of
    // its ranks was opened. jobClosed() when a job was open.
    void closeOpenJob();
    // True from open() until the folder's ranks are found (or not).
    bool discovering() const { return m_discovering; }
    // Applies the suggestion of every `kind` finding on every rank (each rank's own sidecar), as one
    // step of undoStack(); fixApplied() once written.
    void fixAcrossRanks(core::FindingKind kind);
    QUndoStack *undoStack() const { return m_undo; }
    // Writes the open job's outputs to `outDir` in the background (exported() / failed() tell).
    void exportTo(const QString &outDir);

    JobLoader *loader() const { return m_loader; }
    JobOverview *overview() const { return m_overview; }
    JobOverviewLegend *legend() const { return m_legend; }
    JobFindingsList *findingsList() const { return m_findings; }
    JobPredictor *predictor() const { return m_predictor; }
    JobPredictionPanel *predictionPanel() const { return m_predictionPanel; }
    // Attaches the job to the window's Prediction dock: the job's what-if tools are placed in it while
    // a job is open, and the overview draws the path the dock draws — in critical-path mode (View ▸
    // Critical path) pathRank()'s predicted path, or (its "Path: What-if") the path under the job's
    // current what-if of the rank whose step is the job's under it, once that what-if is replayed.
    // Right-clicking the overview offers the dock's path switch.
    void attachPrediction(PredictDock *predict);
    bool criticalPathMode() const { return m_pathMode != PathMode::Off; }
    // The rank whose path is drawn: the one chosen in the prediction list, else the slowest; -1 none.
    qint64 pathRank() const;
    // Draws `rank`'s path (-1: the slowest rank's).
    void choosePathRank(qint64 rank);
    const JobPtr &job() const { return m_job; }
    QString summaryText() const;
    // The rank selected (a finding's first rank, or the last rank clicked); -1 none.
    qint64 currentRank() const { return m_currentRank; }
    // The rank whose Kineto trace is `devicePath` (the same file, however spelled), -1 if none of this job's.
    qint64 rankOfDevice(const QString &devicePath) const;
    // The rank a button acts on: the rank chosen last (clicked in the overview, a finding's first
    // rank, or opened by a double-click), else the first.
    qint64 selectedRank() const;
    // What a click on a rank's row in the overview does: `rank` is the one the buttons act on.
    void selectRank(qint64 rank);
    QPushButton *openRankButton() const { return m_openRank; }
    // Asks for `rank`'s full lanes in the main timeline (openRankRequested).
    void requestRank(qint64 rank);
    // Asks for `rank`'s lanes beside the open rank's (showBesideRequested).
    void requestBeside(qint64 rank);
    QPushButton *besideButton() const { return m_beside; }
    // The main window shows the traces of `devicePath`: marks that rank as open in the overview.
    void documentShown(const QString &devicePath);
    // Selects the cross-rank finding in row `row` of the list (as a click does): its ranks tinted, its
    // collective framed on every rank; findingSelected(row).
    void selectFinding(int row);

signals:
    void jobOpened(linkscope::ui::JobPtr job);
    // The job open until now was closed: another folder's ranks were found and are being read.
    void jobClosed();
    void findingSelected(int row);
    void openRankRequested(qint64 rank, const QString &hostPath, const QString &devicePath);
    void showBesideRequested(qint64 rank, const QString &hostPath, const QString &devicePath);
    void exported(const QString &outDir, const QString &summary);
    // Rank sidecars were written (a fix across ranks, its undo or redo): open ranks should reload.
    void sidecarsChanged(const QList<qint64> &ranks, const QString &message);
    void failed(const QString &message);

private:
    // The constructor's sections, top to bottom, then their wiring.
    QHBoxLayout *buildToolbar(QWidget *body);
    QWidget *buildProgressPanel(QWidget *body);
    QSplitter *buildOverviewSection(QWidget *body);
    void wirePrediction();
    void wireProgress();
    void wireLoading();
    void wireExportAndFix();
    void wireSelection();
    void onDiscovered(const core::job::JobLayout &layout);
    void closeJob(); // forgets the open job (its findings, overview, undo steps)
    void onRankLoaded(const core::job::RankSummary &summary);
    void onFinished(JobPtr job);
    void updateProgress();
    void showProgress(bool on);
    void rebuildFixMenu();
    enum class PathMode { Off, Baseline, WhatIf };
    void setPathMode(PathMode mode);
    void showPath();                                        // the overview's critical path, as the mode says
    void showJobPrediction();                               // the list and, in critical-path mode, the overview's path
    const core::job::RankFiles *filesOf(qint64 rank) const; // null: not a rank of the job
    friend class JobFixCommand;
    // The fix's findings counts (after: true) or those before it, put into the shown job.
    void showFixCounts(const core::job::JobFix &fix, const std::map<qint64, std::map<std::string, std::size_t>> &counts);

    JobLoader *m_loader;
    JobOverview *m_overview;
    JobOverviewLegend *m_legend;
    QLabel *m_summary;
    // While a job loads: a bar per rank in flight (ticked by the timer) and Cancel.
    struct Progress {
        QWidget *panel = nullptr;
        QLabel *label = nullptr;
        std::vector<QProgressBar *> bars;
        QPushButton *cancel = nullptr;
        QTimer *timer = nullptr;
    } m_progress;
    QPushButton *m_openRank;
    QPushButton *m_beside;
    QPushButton *m_export;
    QToolButton *m_fix;
    QUndoStack *m_undo;
    JobFindingsList *m_findings;
    JobPredictor *m_predictor;
    JobPredictionPanel *m_predictionPanel;
    PathMode m_pathMode = PathMode::Off;
    qint64 m_chosenPathRank = -1;
    JobPtr m_job;
    QString m_folder;
    QString m_pendingFolder; // being opened: becomes m_folder once its ranks are found
    core::Policy m_pendingPolicy = core::Policy::Nesting;
    bool m_discovering = false;
    core::job::JobLayout m_layout;
    std::vector<core::job::RankSummary> m_partial;
    bool m_partialDirty = false;
    qint64 m_currentRank = -1;
    core::Policy m_policy = core::Policy::Nesting;
};

} // namespace linkscope::ui
