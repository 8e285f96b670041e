#pragma once
// The job as a feature of the main window: the Job dock (made when first asked for), and everything
// that ties a job to the rest of the window — the rank panes, the Findings' "Across ranks", the
// Summary, the Prediction dock, the job overview sharing the ranks' window — wired here, not in the
// window. It says what only the window can do through signals (open a rank's pair, make a pane's
// rank the main one, a status message, the job opened or closed for the window's labels and
// notices), and keeps the job's own state: being opened, the dock's size fitted once per job.

#include "ground/jobloader.h"
#include "ground/tracedocument.h"
#include "link/linkset.h"

#include <QObject>
#include <QString>

#include <functional>

class QMainWindow;
class QDockWidget;

namespace linkscope::ui {

class FindingsDock;
class JobDock;
class PredictDock;
class RankPanes;
class SummaryDock;
class TimelineView;

// What JobUi uses of the window, handed in by the window.
struct JobHost {
    QMainWindow *window = nullptr;              // the dock's parent; resized to fit the job
    TimelineView *timeline = nullptr;           // the main rank's lanes (their placeholder text)
    RankPanes *panes = nullptr;                 // the ranks shown beside the main one
    FindingsDock *findings = nullptr;           // "Across ranks"
    SummaryDock *summary = nullptr;             // the job's summary (null: none)
    PredictDock *predict = nullptr;             // the job's what-if tools
    std::function<core::Policy()> policy;       // the linking policy ranks are read under
    std::function<void(QDockWidget *)> addDock; // places the Job dock (at the top, with a View-menu toggle)
};

class JobUi : public QObject {
    Q_OBJECT
public:
    JobUi(JobHost host, QObject *parent);

    // The Job dock, made and wired when first asked for.
    JobDock *dock();
    // A job is open, or being looked for or read.
    bool active() const;
    // The rank of the open job whose Kineto trace is `devicePath` (-1: none, or no job).
    qint64 rankOfDevice(const QString &devicePath) const;
    const JobPtr &job() const;
    // Opens the job in `folder` (its ranks appear in the overview as they are read).
    void open(const QString &folder);
    // A pair that is not a rank of the job open (or being opened) closes the job: its overview would
    // stand above lanes it does not describe.
    void leaveUnlessRank(const QString &devicePath);

public slots:
    // The window shows `doc`: the dock marks its rank open; the first rank shown fits the docks again.
    void documentChanged(const DocumentPtr &doc);

signals:
    void opened(const JobPtr &job); // the panes, Findings and Summary have it
    void closed();
    void activeChanged();                                               // active() changed
    void openPairRequested(const QString &host, const QString &device); // a rank to read (host empty: Kineto only)
    void editRankRequested(qint64 rank);                                // a pane's rank, already read, to be the main one
    void message(const QString &text, int timeoutMs);

private:
    void wire();
    void setPending(bool pending);
    // The overview about 24 % of the window's height, the Findings under the lanes 20 %.
    void fitLayout();

    JobHost m_host;
    JobDock *m_dock = nullptr;
    DocumentPtr m_doc;
    bool m_pending = false;   // a job folder is being looked into or read
    bool m_fitOnShow = false; // fit the docks again once the job's first rank is shown
    bool m_restored = false;  // the dock took its place and size from the last session
};

} // namespace linkscope::ui
