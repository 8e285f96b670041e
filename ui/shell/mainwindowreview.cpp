// The review's place in the main window: ReviewUi, its CorrectionController, the bookmarks and the
// Perfetto hand-off know no window; their docks, menus and notice are placed here and their signals
// wired to the window's parts.

#include "docks/detailsdock.h"
#include "docks/editsdock.h"
#include "docks/findingsdock.h"
#include "docks/searchdock.h"
#include "docks/warningsdock.h"
#include "ground/noticebar.h"
#include "review/bookmarkui.h"
#include "review/correctioncontroller.h"
#include "review/perfettohandoff.h"
#include "shell/mainwindow.h"
#include "shell/readnotice.h"
#include "shell/reviewui.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QVBoxLayout>

namespace linkscope::ui {

void MainWindow::placeReview()
{
    ReviewUi *review = m_review;
    CorrectionController *controller = review->controller();
    // The notice sits above whatever the window's central widget is (the timeline and its panes).
    if (QWidget *central = takeCentralWidget()) {
        auto *column = new QWidget(this);
        auto *layout = new QVBoxLayout(column);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(0);
        layout->addWidget(m_readNotice);
        layout->addWidget(review->noticeBar());
        layout->addWidget(central, 1);
        setCentralWidget(column);
    }
    addDock(review->findingsDock(), Qt::BottomDockWidgetArea);
    addDock(review->editsDock(), Qt::BottomDockWidgetArea);
    tabifyDockWidget(review->findingsDock(), review->editsDock());
    review->findingsDock()->raise();
    // Edit and Review before Help (the last menu), wherever the window's own menus end.
    QMenuBar *bar = menuBar();
    QAction *help = bar->actions().isEmpty() ? nullptr : bar->actions().last();
    bar->insertMenu(help, review->editMenu());
    bar->insertMenu(help, review->reviewMenu());

    // A load hands the controller its pair (the sidecar as found and applied) before it is shown.
    connect(this, &MainWindow::pairOpened, controller, &CorrectionController::pairOpened);
    connect(this, &MainWindow::documentChanged, controller, &CorrectionController::documentChanged);
    connect(this, &MainWindow::documentChanged, review, &ReviewUi::documentChanged);
    connect(controller, &CorrectionController::showDocument, this, &MainWindow::showCorrectedDocument);
    connect(controller, &CorrectionController::policyRequested, this, &MainWindow::setPolicy);
    connect(controller, &CorrectionController::message, statusBar(), &QStatusBar::showMessage);
    connect(review, &ReviewUi::message, statusBar(), &QStatusBar::showMessage);
    // Flags and notes on the timeline and in Details.
    connect(review, &ReviewUi::eventNotesChanged, m_timeline, &TimelineView::setEventNotes);
    connect(review, &ReviewUi::eventNotesChanged, m_details, &DetailsDock::setEventNotes);
    // The GPU ops of a story count or of a relink, listed in the Search tab, brought to the front.
    connect(review, &ReviewUi::listEventsRequested, m_search,
            [this](const QString &title, const std::vector<core::EventIndex> &events) {
                m_search->show();
                m_search->raise();
                m_search->showEvents(title, events);
            });
    // A warning or a search hit made current frames its event (a GPU op with its suggested parent).
    connect(m_warnings, &WarningsDock::frameRequested, review,
            [review](core::EventIndex event) { review->frame(event, core::kNone); });
    connect(m_search, &SearchDock::frameRequested, review, &ReviewUi::frameGpuOp);
    // Hand-off (issue 28 item 16): bookmarks (M, the Bookmarks menu before Help) and Open in Perfetto
    // (File, before the separator above Quit; the Review menu, beside Export corrected traces…).
    auto *bookmarks = new BookmarkUi(this, m_timeline, controller);
    bar->insertMenu(bar->actions().isEmpty() ? nullptr : bar->actions().last(), bookmarks->menu());
    connect(bookmarks, &BookmarkUi::message, statusBar(), &QStatusBar::showMessage);
    auto *perfetto = new PerfettoHandoff(this, controller, review->noticeBar());
    if (QMenu *file = bar->actions().isEmpty() ? nullptr : bar->actions().first()->menu()) {
        const QList<QAction *> items = file->actions();
        file->insertAction(items.size() >= 2 ? items.at(items.size() - 2) : nullptr, perfetto->action());
    }
    connect(perfetto, &PerfettoHandoff::message, statusBar(), &QStatusBar::showMessage);
    review->reviewMenu()->addAction(perfetto->action());
}

void MainWindow::showReadNotice(const OpenedDocuments &opened)
{
    if (opened.relink || !opened.shown)
        return;
    const QString sentence = incompleteTraceSentence(*opened.shown);
    if (sentence.isEmpty()) {
        if (!m_readNoticeOfJob)
            m_readNotice->dismiss();
        return;
    }
    m_readNoticeOfJob = false;
    m_readNotice->showNotice(sentence, opened.warnings.mid(0, 5).join(QLatin1Char('\n')), tr("Show warnings"), [this] {
        m_warnings->show();
        m_warnings->raise();
    });
}

void MainWindow::showJobReadNotice(const JobDocument &job)
{
    const QString sentence = incompleteJobSentence(job);
    if (sentence.isEmpty()) {
        if (m_readNoticeOfJob)
            m_readNotice->dismiss();
        return;
    }
    m_readNoticeOfJob = true;
    m_readNotice->showNotice(sentence, incompleteJobProblems(job).join(QLatin1Char('\n')));
}

} // namespace linkscope::ui
