#pragma once
// The Prediction dock (docs/prediction.md): the open pair replayed as measured — the predicted step,
// its breakdown along the critical path (a bar and a line of shares: CPU, GPU, communication, other
// ranks, idle), the top ops on the path — the change a correction made to the step, and the
// what-if panel (whatifpanel.h). Its "Critical path" action turns the timeline's critical-path mode
// on (pathHighlightChanged). Under the step, the step under Chakra 1.0's links (chakrastep.h): what
// "Compared with Chakra" means for the prediction. Shows what the controllers compute; computes
// nothing itself.

#include "ground/eventselection.h"
#include "ground/tracedocument.h"
#include "prediction/chakrastep.h"
#include "prediction/predictioncontroller.h"

#include <QDockWidget>
#include <QPointer>

#include <vector>

class QAction;
class QLabel;
class QMenu;
class QScrollArea;
class QTabWidget;
class QTableWidget;
class QVBoxLayout;

namespace linkscope::ui {

class BreakdownBar;
class JobWhatIfTabs;
class WhatIfPanel;

class PredictDock : public QDockWidget {
    Q_OBJECT
public:
    PredictDock(PredictionController *controller, EventSelection *selection, QWidget *parent = nullptr);

    void setDocument(DocumentPtr doc);
    // Checkable: while on, pathHighlightChanged() carries the path's ops (else nothing).
    QAction *criticalPathAction() const { return m_pathAction; }
    // Which path critical-path mode draws: the baseline's, or the current what-if's (the "What if"
    // tab's, replayed on the open pair's graph). Choosing one turns the mode on.
    enum class PathShown { Baseline, WhatIf };
    void setPathShown(PathShown shown);
    PathShown pathShown() const;
    // Adds to a context menu (the timeline's, the job overview's) the critical path's switch and which
    // path it draws, the baseline's or the what-if's.
    void addPathActions(QMenu *menu);
    // The dock's own switch between the two (its "Path:" buttons).
    QAction *pathAction(PathShown shown) const { return shown == PathShown::WhatIf ? m_whatIfPath : m_baselinePath; }
    // The path's ops in path order while critical-path mode is on (the what-if's when it is chosen
    // and replayed, else the baseline's); empty otherwise.
    std::vector<core::EventIndex> highlightedPath() const;
    // Whose path highlightedPath() is: "baseline", "what-if", or why the baseline's stands in.
    QString pathShownText() const;

    QString summaryText() const;    // "Predicted step 12.345 ms · …", or why there is none
    QString correctionText() const; // "correction: 12.345 → 12.001 ms (−2.8 %)", or empty
    QString breakdownText() const;  // "cpu 10.0 % · gpu 70.0 % · …"
    // "under Chakra 1.0's links: 12.345 ms (+2.8 % vs the links shown)" (or "(the same as the links
    // shown)"), or why there is none (empty: no host ET).
    QString chakraText() const;
    ChakraStepPredictor *chakraPredictor() const { return m_chakraStep; }
    QTableWidget *topTable() const { return m_top; }
    WhatIfPanel *whatIf() const { return m_whatIf; }
    // The open job's what-if tools (jobwhatiftabs.h), which fill the dock while a job is open
    // (setJobOpen, which raises the dock), the open rank's pair prediction a tab beside them: with a
    // job open, the what-if acts on the job.
    void setJobTools(JobWhatIfTabs *tools);
    void setJobOpen(bool open);
    // The pair's what-if and top ops, in tabs under the step and its breakdown.
    QTabWidget *pairTabs() const { return m_pairTabs; }

signals:
    void pathHighlightChanged(const std::vector<linkscope::core::EventIndex> &chain);

private:
    void showPrediction();
    void setPairShown(bool shown); // the pair's breakdown, what-if and top ops
    void showChakraStep();

    PredictionController *m_controller;
    EventSelection *m_selection;
    DocumentPtr m_doc;
    QAction *m_pathAction = nullptr;
    QAction *m_baselinePath = nullptr;
    QAction *m_whatIfPath = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_correction = nullptr;
    QLabel *m_chakra = nullptr;
    ChakraStepPredictor *m_chakraStep = nullptr;
    BreakdownBar *m_bar = nullptr;
    QLabel *m_breakdown = nullptr;
    QString m_breakdownPlain; // what m_breakdown shows, as plain text
    QTableWidget *m_top = nullptr;
    WhatIfPanel *m_whatIf = nullptr;
    QVBoxLayout *m_bodyLayout = nullptr;
    QWidget *m_pairPage = nullptr;       // the pair's prediction: in the dock's body, or (job open) in
    QScrollArea *m_pairScroll = nullptr; // this, a tab of the job's tools
    QPointer<JobWhatIfTabs> m_jobTools;
    QTabWidget *m_pairTabs = nullptr; // the pair's what-if and top ops
    bool m_jobOpen = false;
};

} // namespace linkscope::ui
