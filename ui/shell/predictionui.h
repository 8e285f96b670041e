#pragma once
// Prediction as a feature of the main window: the pair replayed (PredictionController), the
// Prediction dock (critical path, what-ifs, the job's tools), the path drawn on the timeline and
// switched from its right-click menus, the critical-path toggle in the View menu, and each op's
// predicted start and slack in Details — made and wired here, not in the window. The window places
// the dock (PredictionHost::addDock) and sends it the document shown (documentChanged).

#include "ground/tracedocument.h"

#include <QObject>

#include <functional>

class QDockWidget;
class QMenu;

namespace linkscope::ui {

class DetailsDock;
class EventSelection;
class PredictDock;
class PredictionController;
class TimelineView;

// What PredictionUi uses of the window, handed in by the window.
struct PredictionHost {
    QWidget *window = nullptr;                  // the parent of the controller and the dock
    EventSelection *selection = nullptr;        // the selection the dock shows and changes
    TimelineView *timeline = nullptr;           // where the path is drawn (and switched)
    DetailsDock *details = nullptr;             // annotated with each op's predicted start and slack
    QMenu *viewMenu = nullptr;                  // gets the critical-path toggle
    std::function<void(QDockWidget *)> addDock; // places the Prediction dock
};

class PredictionUi : public QObject {
    Q_OBJECT
public:
    PredictionUi(const PredictionHost &host, QObject *parent);

    PredictionController *controller() const { return m_controller; }
    PredictDock *dock() const { return m_dock; }

public slots:
    void documentChanged(const DocumentPtr &doc);

private:
    PredictionController *m_controller;
    PredictDock *m_dock;
};

} // namespace linkscope::ui
