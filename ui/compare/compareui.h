#pragma once
// File ▸ Compare with…: the open trace (a pair or a Kineto trace) or the open job, as run A, beside
// a second run B — a Kineto trace (or a pair) when A is a trace, a job folder when A is a job
// (docs/diff.md). B's traces and A's (read again: only their Kineto traces, what `linkscope diff`
// reads) are read and compared off the GUI thread by the core functions the `diff` command calls
// (job/runread.h, report/rundiff.h); the Diff dock (diffdock.h), created on first use and tabbed with
// the Summary, shows the result. Then B's lanes are shown beside A's (RankPanes::openRunPane: of a
// job, B's rank that A shows, following it), on A's clock with the runs' steps aligned
// (report/runalign.h); and while a what-if is active in the Prediction dock it is checked against
// B (againstcheck.h), in the dock's "Prediction vs B" tab.

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include "ground/backgroundjob.h"
#include "ground/tracedocument.h"

#include <functional>
#include <vector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace linkscope::ui {

class AgainstCheck;
class DiffDock;
class JobPredictor;
class PredictDock;
class RankPanes;
class WhatIfPanel;

// What CompareUi uses of the window it is a child of, handed in by the window (compare stands
// below the shell): the window's parts, read when needed.
struct CompareHost {
    QMainWindow *window = nullptr;              // the parent: of the dialogs, the Diff dock; its status bar
    RankPanes *panes = nullptr;                 // where run B's lanes open beside A's
    std::function<DocumentPtr()> document;      // the pair open (null: none)
    std::function<core::Policy()> policy;       // the linking policy A was read under
    std::function<PredictDock *()> predictDock; // the pair's prediction dock (null: not made yet)
    std::function<void(QDockWidget *)> addDock; // places the Diff dock (at the bottom, with a View-menu toggle)
};

// A child of the main window (findChild<CompareUi *>()), made with its File menu.
class CompareUi : public QObject {
    Q_OBJECT
public:
    // Adds File ▸ Compare with… to the end of `fileMenu`. The window connects its documentChanged
    // to onDocumentChanged().
    CompareUi(CompareHost host, QMenu *fileMenu);

    // What is open, as run A: a job's folder, or the pair's files (the Kineto trace alone); empty when
    // nothing is.
    QStringList currentRun() const;
    // Compares the open run with `b` (a Kineto trace, a host ET and its Kineto trace, or a job
    // folder) in the background; compared() or failed() follows. False when nothing is open.
    bool compareWith(const QStringList &b);

    QAction *compareAction() const { return m_action; }
    // The Diff dock, created on first use.
    DiffDock *dock();
    bool busy() const { return m_job.busy(); }
    // The check of the active what-if against B.
    AgainstCheck *againstCheck() const { return m_check; }
    // The what-if panel whose what-if is checked: the job's (a job is open) or the pair's.
    WhatIfPanel *whatIfPanel() const;

public slots:
    // A changed (another trace or job opened): the comparison's pane and check end; else the pane
    // follows the rank A shows.
    void onDocumentChanged();

signals:
    void compared();
    void failed(const QString &message);

private:
    // One trace of run B: a rank of its job (-1: B is a trace) and its files.
    struct RunFiles {
        qint64 rank = -1;
        QString host, device;
    };
    void ask();
    // Run B's lanes beside the main timeline: B's trace, of a job the rank A shows (none while A
    // shows none, or when B lacks it: said in the status bar).
    void showRunB();
    // The active what-if and the job's graph handed to the check, once its signals are connected.
    void watchPrediction();
    void updateWhatIf();

    CompareHost m_host;
    QAction *m_action;
    DiffDock *m_dock = nullptr;
    QElapsedTimer m_clock;
    QStringList m_a, m_b;           // the runs of the last comparison that succeeded
    std::vector<RunFiles> m_bFiles; // B's traces
    AgainstCheck *m_check;
    QPointer<WhatIfPanel> m_pairPanel, m_jobPanel; // whose signals are connected
    QPointer<JobPredictor> m_predictor;            // the job predictor whose signal is connected
    BackgroundJob m_job;                           // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
