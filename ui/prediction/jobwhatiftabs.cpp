#include "prediction/jobwhatiftabs.h"

#include "prediction/opportunitiesview.h"
#include "prediction/whatifpanel.h"

#include <QScrollArea>

namespace linkscope::ui {

JobWhatIfTabs::JobWhatIfTabs(QWidget *parent) : QTabWidget(parent)
{
    setDocumentMode(true);
    // The form in a scroll area: it must not raise the minimum height of the dock it is in.
    auto *scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    m_whatIf = new WhatIfPanel(&m_evaluator, scroll);
    scroll->setWidget(m_whatIf);
    m_opportunities = new OpportunitiesView(this);
    addTab(scroll, tr("What-if on the job"));
    addTab(m_opportunities, tr("What to fix first"));
    setTabToolTip(0, tr("A change replayed on the whole job, every rank with its collectives joined: each rank's step "
                        "under it fills the Job dock's What-if column"));
    setTabToolTip(1, tr("Candidate changes ranked by how much they shorten the job's step"));
    m_whatIf->setEnabled(false);
    connect(m_whatIf, &WhatIfPanel::applied, this, &JobWhatIfTabs::applied);
    connect(m_opportunities, &OpportunitiesView::chosen, this, [this](const core::WhatIf &whatIf, const QString &title) {
        m_whatIf->showWhatIf(whatIf, title);
        setCurrentIndex(0);
    });
}

void JobWhatIfTabs::setPrediction(JobPredictionPtr prediction)
{
    const bool newGraph = prediction != m_evaluator.prediction();
    m_evaluator.setPrediction(prediction);
    m_whatIf->setEnabled(prediction != nullptr);
    m_opportunities->setGraph(prediction ? std::shared_ptr<const core::predict::SimJob>(prediction, &prediction->graph.job)
                                         : nullptr);
    if (newGraph)
        m_whatIf->refresh(); // the form and its rows replayed on the job's graph
}

} // namespace linkscope::ui
