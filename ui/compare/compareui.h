#pragma once
// File ▸ Compare with…: the open trace (a pair or a Kineto trace) or the open job, as run A, beside
// a second run B — a Kineto trace when A is a trace, a job folder when A is a job (docs/diff.md). B's
// traces and A's (read again: only their Kineto traces, what `linkscope diff` reads) are read and
// compared off the GUI thread by the core functions the `diff` command calls (job/runread.h,
// report/rundiff.h); the Diff dock (diffdock.h), created on first use and tabbed with the Summary,
// shows the result.

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

#include "shell/backgroundjob.h"

class QAction;
class QMenu;

namespace linkscope::ui {

class DiffDock;
class MainWindow;

// A child of the main window (findChild<CompareUi *>()), made with its File menu.
class CompareUi : public QObject {
    Q_OBJECT
public:
    // Adds File ▸ Compare with… to the end of `fileMenu`.
    CompareUi(MainWindow *window, QMenu *fileMenu);

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

signals:
    void compared();
    void failed(const QString &message);

private:
    void ask();

    MainWindow *m_window;
    QAction *m_action;
    DiffDock *m_dock = nullptr;
    QElapsedTimer m_clock;
    BackgroundJob m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
