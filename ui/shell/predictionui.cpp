#include "shell/predictionui.h"

#include "docks/detailsdock.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "timeline/timelineview.h"

#include <QMenu>

namespace linkscope::ui {

PredictionUi::PredictionUi(const PredictionHost &host, QObject *parent)
    : QObject(parent), m_controller(new PredictionController(host.window)),
      m_dock(new PredictDock(m_controller, host.selection, host.window))
{
    host.addDock(m_dock);
    host.viewMenu->addAction(m_dock->criticalPathAction());
    TimelineView *timeline = host.timeline;
    connect(m_dock, &PredictDock::pathHighlightChanged, timeline, &TimelineView::setPathEvents);
    // Which path is drawn, switched where it is drawn: the timeline's right-click menus.
    timeline->menus().setViewProvider([this](QMenu *menu) { m_dock->addPathActions(menu); });
    DetailsDock *details = host.details;
    auto annotateDetails = [this, details] {
        details->setEventAnnotation([this](core::EventIndex event) { return m_controller->timingText(event); });
    };
    annotateDetails();
    connect(m_controller, &PredictionController::predicted, this, annotateDetails);
}

void PredictionUi::documentChanged(const DocumentPtr &doc)
{
    m_controller->setDocument(doc);
    m_dock->setDocument(doc);
}

} // namespace linkscope::ui
