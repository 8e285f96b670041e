#include "shell/mainwindow.h"

#include "compare/compareui.h"
#include "docks/detailsdock.h"
#include "docks/findingsdock.h"
#include "docks/legendwidget.h"
#include "docks/rangedock.h"
#include "docks/searchdock.h"
#include "docks/summarydock.h"
#include "docks/warningsdock.h"
#include "ground/eventselection.h"
#include "ground/fromstd.h"
#include "ground/noticebar.h"
#include "ground/timeformat.h"
#include "ground/traceloader.h"
#include "jobview/jobdock.h"
#include "jobview/joboverview.h"
#include "jobview/rankpanes.h"
#include "prediction/jobpredictionpanel.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "review/correctioncontroller.h"
#include "shell/commandpalette.h"
#include "shell/jobui.h"
#include "shell/lanefilterbox.h"
#include "shell/loadprogress.h"
#include "shell/openpair.h"
#include "shell/predictionui.h"
#include "shell/recentfiles.h"
#include "shell/reviewui.h"
#include "shell/startpage.h"
#include "shell/theme.h"
#include "shell/windowlayout.h"
#include "timeline/timelineview.h"
#include "timeline/timerange.h"
#include "timeline/tooltipfit.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

namespace linkscope::ui {

namespace {

QIcon edgeIcon(core::EdgeKind kind)
{
    QPixmap pixmap(22, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(edgeColor(kind), 2.5));
    painter.drawLine(QPointF(2, 7), QPointF(16, 7));
    painter.setBrush(edgeColor(kind));
    painter.setPen(Qt::NoPen);
    painter.drawPolygon(QPolygonF({QPointF(20, 7), QPointF(14, 3), QPointF(14, 11)}));
    return QIcon(pixmap);
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_selection(new EventSelection(this)), m_timeline(new TimelineView(this)),
      m_loader(new TraceLoader(this))
{
    setWindowTitle(QStringLiteral("Linkscope"));
    setObjectName(QStringLiteral("MainWindow"));
    // The size is chosen on the first show, to fit the screen the window opens on (showEvent).
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    // The right column runs the window's height; the bottom docks sit under the lanes only.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    m_timeline->state().setSelectionModel(m_selection);
    // The timeline, with the lanes of other ranks of an open job below it (rankpanes.h).
    m_panes = new RankPanes(m_timeline, this);
    setCentralWidget(m_panes);

    m_details = new DetailsDock(m_selection, this);
    m_search = new SearchDock(m_selection, this);
    m_search->setFocusHome(m_timeline);
    m_warnings = new WarningsDock(m_selection, this);

    buildActions();
    addDock(m_details, Qt::RightDockWidgetArea);
    addDock(m_search, Qt::RightDockWidgetArea);
    addDock(m_warnings, Qt::RightDockWidgetArea);
    tabifyDockWidget(m_search, m_warnings);
    m_search->raise();
    buildStatusBar();

    connect(this, &MainWindow::documentChanged, m_details, &DetailsDock::setDocument);
    connect(this, &MainWindow::documentChanged, m_search, &SearchDock::setDocument);
    connect(this, &MainWindow::documentChanged, m_warnings, &WarningsDock::setDocument);
    connect(m_search, &SearchDock::resultsChanged, m_timeline, &TimelineView::setHighlightedEvents);
    connect(&m_timeline->state().timeRange(), &TimeRangeSelection::changed, this, &MainWindow::onTimeRangeChanged);
    connect(m_loader, &TraceLoader::started, this, &MainWindow::onLoadStarted);
    connect(m_loader, &TraceLoader::finished, this, &MainWindow::onLoaded);
    connect(m_loader, &TraceLoader::failed, this, &MainWindow::onFailed);
    connect(m_loader, &TraceLoader::cancelled, this, [this] {
        finishProgress();
        statusBar()->showMessage(tr("Cancelled"), 4000);
    });
    // Findings / Edits docks, Edit and Review menus, the corrections sidecar (mainwindowreview.cpp).
    m_review = new ReviewUi(this, m_selection, m_timeline, m_loader);
    m_readNotice = new NoticeBar(this);
    m_readNotice->setObjectName(QStringLiteral("ReadNotice"));
    m_readNotice->label()->setWordWrap(true);
    placeReview(); // and the hand-off: bookmarks, Open in Perfetto
    // Time-range statistics: wide tables, so at the bottom, a tab beside the Findings and Edits.
    m_range = new RangeDock(this);
    addDock(m_range, Qt::BottomDockWidgetArea);
    if (auto *edits = findChild<QDockWidget *>(QStringLiteral("EditsDock")))
        tabifyDockWidget(edits, m_range);
    // The whole trace (and a job's ranks) at a glance: a tab beside the Time range.
    auto *summary = new SummaryDock(this);
    addDock(summary, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_range, summary);
    connect(this, &MainWindow::documentChanged, summary, &SummaryDock::setDocument);
    m_viewMenu->addAction(tr("Trace &summary"), QKeySequence(tr("Ctrl+Shift+S")), summary, [summary] {
        summary->show();
        summary->raise();
    });
    if (auto *findings = findChild<QDockWidget *>(QStringLiteral("FindingsDock"))) {
        WindowLayout::scrollWhenShort(findings);
        findings->raise();
    }
    connect(this, &MainWindow::documentChanged, m_range, &RangeDock::setDocument);
    // Prediction: the pair replayed, its critical path (drawn on the timeline), what-ifs, and each
    // op's predicted start and slack in Details. A tab beside Search and Warnings.
    m_prediction = new PredictionUi({this, m_selection, m_timeline, m_details, m_viewMenu,
                                     [this](QDockWidget *dock) { addDock(dock, Qt::RightDockWidgetArea); }},
                                    this);
    connect(this, &MainWindow::documentChanged, m_prediction, &PredictionUi::documentChanged);
    tabifyDockWidget(m_warnings, m_prediction->dock());
    m_search->raise();
    placeJob(summary);
    m_timeline->setFocus();
    // While nothing is open: Open pair…, Open job folder…, the sample, the recent files and jobs.
    m_startPage = new StartPage(m_timeline);
    connect(m_startPage, &StartPage::openPairRequested, m_openPairAction, &QAction::trigger);
    connect(m_startPage, &StartPage::openJobRequested, m_openJobAction, &QAction::trigger);
    connect(m_startPage, &StartPage::openRecentRequested, this, &MainWindow::openRecent);
    updateStartPage();
    // The layout of the last session (windowlayout.h); without one, defaults on the first show.
    m_layoutRestored = WindowLayout::restore(this);
}

MainWindow::~MainWindow() = default;

void MainWindow::addDock(QDockWidget *dock, Qt::DockWidgetArea area)
{
    addDockWidget(area, dock);
    m_viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::buildActions()
{
    // File
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *openPairAction = file->addAction(tr("Open &pair…"), this, [this] {
        // Either file first, or both at once: each is sniffed and takes its role (openpair.h).
        const PairChoice choice = choosePair(fileDialogAsker(this));
        if (!choice.error.isEmpty())
            onFailed(choice.error);
        else if (!choice.cancelled)
            choice.host.isEmpty() ? openDevice(choice.device) : openPair(choice.host, choice.device);
    });
    openPairAction->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Kineto trace…"), this, [this] {
        const QString device = QFileDialog::getOpenFileName(this, tr("Kineto trace"), QString(),
                                                            QString::fromStdString(core::inputFileFilter()));
        if (!device.isEmpty())
            openDevice(device);
    });
    m_openPairAction = openPairAction;
    m_openJobAction = file->addAction(tr("Open &job…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open job folder"));
        if (!dir.isEmpty())
            openJob(dir);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    // File ▸ Compare with… and the Diff dock (a child: findChild<CompareUi *>()), handed what it uses of the window.
    auto *compare = new CompareUi({this, m_panes, [this] { return m_doc; }, [this] { return m_policy; },
                                   [this] { return m_prediction ? m_prediction->dock() : nullptr; },
                                   [this](QDockWidget *dock) { addDock(dock, Qt::BottomDockWidgetArea); }},
                                  file);
    connect(this, &MainWindow::documentChanged, compare, &CompareUi::onDocumentChanged);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    // View
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    // The timeline's own key bindings (TimelineInput): their keys work while the timeline has the focus.
    for (const TimelineKey key : {TimelineKey::FitAll, TimelineKey::FitRows, TimelineKey::Fit, TimelineKey::ZoomIn,
                                  TimelineKey::ZoomOut, TimelineKey::FollowIncoming, TimelineKey::FollowOutgoing})
        m_viewMenu->addAction(m_timeline->keyAction(key));
    m_viewMenu->addAction(tr("Collapse all groups"), this, [this] {
        for (int g = 0; g < static_cast<int>(m_timeline->layout().groups().size()); ++g)
            m_timeline->arrangement().setGroupCollapsed(g, true);
    });
    m_viewMenu->addAction(tr("Expand all groups"), this, [this] {
        for (int g = 0; g < static_cast<int>(m_timeline->layout().groups().size()); ++g)
            m_timeline->arrangement().setGroupCollapsed(g, false);
    });
    m_viewMenu->addAction(m_timeline->menus().gpuFirstAction());
    m_viewMenu->addAction(m_timeline->menus().hidePythonRowsAction());
    m_viewMenu->addAction(m_timeline->menus().foldPythonRowsAction());
    m_viewMenu->addAction(m_timeline->menus().showHiddenAction());
    QMenu *themeMenu = m_viewMenu->addMenu(tr("&Theme"));
    auto *themeGroup = new QActionGroup(this);
    applyTheme(savedThemeChoice());
    for (int t = 0; t < kThemeChoiceCount; ++t) {
        const auto choice = static_cast<ThemeChoice>(t);
        QAction *action = themeMenu->addAction(themeChoiceName(choice));
        action->setCheckable(true);
        action->setChecked(choice == currentThemeChoice());
        action->setData(t);
        themeGroup->addAction(action);
    }
    connect(themeGroup, &QActionGroup::triggered, this, [](QAction *action) {
        const auto choice = static_cast<ThemeChoice>(action->data().toInt());
        applyTheme(choice);
        saveThemeChoice(choice);
    });
    m_viewMenu->addSeparator();
    QAction *findAction = m_viewMenu->addAction(tr("Find…"), this, [this] { m_search->activate(); });
    findAction->setShortcuts({QKeySequence::Find, QKeySequence(Qt::Key_Slash)});
    findAction->setShortcutContext(Qt::WindowShortcut);
    // Enter in the Search dock hands the keyboard back to the timeline; these step through the hits from anywhere.
    m_viewMenu->addAction(tr("Next search hit"), QKeySequence::FindNext, this, [this] { m_search->next(); });
    m_viewMenu->addAction(tr("Previous search hit"), QKeySequence::FindPrevious, this, [this] { m_search->previous(); });
    m_viewMenu->addSeparator();

    // Edges
    QMenu *edges = menuBar()->addMenu(tr("&Edges"));
    m_allEdgesAction = m_timeline->keyAction(TimelineKey::AllEdges); // checked while all edges are shown
    edges->addAction(m_allEdgesAction);
    edges->addSeparator();
    QList<QAction *> kindActions;
    for (int k = 0; k < core::kEdgeKindCount; ++k) {
        const auto kind = static_cast<core::EdgeKind>(k);
        QAction *action = edges->addAction(edgeIcon(kind), edgeKindLabel(kind));
        action->setIconText(edgeKindShortLabel(kind));
        action->setToolTip(tr("Show %1 edges").arg(edgeKindLabel(kind)));
        action->setCheckable(true);
        action->setChecked(true);
        connect(action, &QAction::toggled, this, [this, kind](bool on) { m_timeline->setEdgeKindVisible(kind, on); });
        kindActions << action;
    }

    // Link
    QMenu *link = menuBar()->addMenu(tr("&Link"));
    m_policyGroup = new QActionGroup(this);
    m_policyBox = new QComboBox(this);
    m_policyBox->setToolTip(tr("How each GPU op's parent CPU op is chosen; changing it relinks in the background"));
    for (int p = 0; p < core::kPolicyCount; ++p) {
        const auto policy = static_cast<core::Policy>(p);
        const QString name = fromStd(policyName(policy));
        QAction *action = link->addAction(tr("Policy: %1").arg(name));
        action->setCheckable(true);
        action->setChecked(policy == m_policy);
        action->setData(p);
        m_policyGroup->addAction(action);
        m_policyBox->addItem(name, p);
    }
    connect(m_policyGroup, &QActionGroup::triggered, this,
            [this](QAction *action) { setPolicy(static_cast<core::Policy>(action->data().toInt())); });
    connect(m_policyBox, &QComboBox::activated, this,
            [this](int index) { setPolicy(static_cast<core::Policy>(m_policyBox->itemData(index).toInt())); });

    // Help
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *shortcuts = help->addAction(tr("Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    // F1, or ? as in most timeline tools (a text field keeps its ? as text).
    shortcuts->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(Qt::Key_Question)});
    // Every action of the menus and the timeline by name (commandpalette.h), made on first use.
    QAction *palette = help->addAction(tr("Command palette…"), this, [this] {
        auto *commands = findChild<CommandPalette *>(QString(), Qt::FindDirectChildrenOnly);
        (commands ? commands : new CommandPalette(this))->popup();
    });
    palette->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));

    // Toolbars: actions + policy + edge kinds (their icons double as the edge colour legend).
    QToolBar *bar = addToolBar(tr("Timeline"));
    bar->setObjectName(QStringLiteral("TimelineToolBar"));
    bar->addAction(openPairAction);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Policy: "), bar));
    bar->addWidget(m_policyBox);
    bar->addSeparator();
    bar->addAction(m_allEdgesAction);
    for (QAction *action : kindActions)
        bar->addAction(action);
    bar->addSeparator();
    auto *laneFilter = new LaneFilterBox(m_timeline, bar);
    bar->addWidget(laneFilter);
    connect(laneFilter, &QLineEdit::textChanged, m_panes, &RankPanes::setLaneFilter);
    m_viewMenu->addAction(laneFilter->focusAction());
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addToolBarBreak();
    QToolBar *legend = addToolBar(tr("Legend"));
    legend->setObjectName(QStringLiteral("LegendToolBar"));
    legend->addWidget(new LegendWidget(legend));
}

void MainWindow::buildStatusBar()
{
    m_countsLabel = new QLabel(tr("No trace loaded"), this);
    m_warningsLabel = new QLabel(this);
    m_warningsLabel->hide();
    m_warningsLabel->setTextFormat(Qt::RichText);
    connect(m_warningsLabel, &QLabel::linkActivated, this, [this] {
        m_warnings->show();
        m_warnings->raise();
    });
    statusBar()->addWidget(m_countsLabel, 1);
    // Permanent: a temporary status message ("Cancelled", …) never paints over it.
    statusBar()->addPermanentWidget(m_warningsLabel);
    keepToolTipsOnScreen(m_warningsLabel); // its list of warnings is tall: kept inside the screen

    m_progress = new LoadProgress(m_loader, this);
    statusBar()->addPermanentWidget(m_progress);
}

// A pair goes into Open Recent once it has opened (onLoaded), never when it failed.
void MainWindow::openPair(const QString &hostPath, const QString &devicePath)
{
    // A pair that is not one of the open job's ranks closes the job: its overview would stand above
    // lanes it does not describe.
    m_job->leaveUnlessRank(devicePath);
    m_loader->load(hostPath, devicePath, m_policy);
    updateStartPage();
}

void MainWindow::openDevice(const QString &devicePath) { openPair(QString(), devicePath); }

void MainWindow::openRecent(const RecentEntry &entry)
{
    entry.isJob() ? openJob(entry.folder) : openPair(entry.host, entry.device);
}

void MainWindow::updateStartPage()
{
    // Nothing open or being opened: no trace, no load, and no job open, being read or looked for.
    const bool show = m_startPage && !m_doc && !m_loader->isBusy() && !(m_job && m_job->active());
    // isHidden, not isVisible: before the window is first shown nothing is visible.
    if (show && m_startPage->isHidden()) {
        m_startPage->refresh();
        m_startPage->show();
        if (m_timeline->hasFocus() || !QApplication::focusWidget())
            m_startPage->openPairButton()->setFocus();
    } else if (!show && m_startPage && !m_startPage->isHidden()) {
        const bool hadFocus = m_startPage->isAncestorOf(QApplication::focusWidget());
        m_startPage->hide();
        if (hadFocus)
            m_timeline->setFocus();
    }
}

void MainWindow::openFiles(const QStringList &paths)
{
    if (paths.size() == 1)
        openDevice(paths.front());
    else if (paths.size() == 2)
        openPair(paths.at(0), paths.at(1));
    else
        onFailed(tr("Drop one Kineto trace, or a host ET and its Kineto trace (got %1 files).").arg(paths.size()));
}

void MainWindow::setPolicy(core::Policy policy)
{
    m_policy = policy;
    for (QAction *action : m_policyGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(policy));
    m_policyBox->setCurrentIndex(m_policyBox->findData(static_cast<int>(policy)));
    if (m_doc && m_doc->links().policy != policy)
        m_loader->relink(m_doc, policy);
}

void MainWindow::setLinks(std::shared_ptr<const core::LinkSet> links)
{
    if (!m_doc || !links)
        return;
    setDocument(TraceDocument::create(m_doc->hostPath(), m_doc->devicePath(), m_doc->hostShared(), m_doc->deviceShared(),
                                      std::move(links), nullptr, nullptr, &m_doc->deviceFormat()));
}

void MainWindow::onLoadStarted(bool relink)
{
    m_progress->start();
    if (!m_doc)
        m_timeline->setPlaceholderText(tr("Loading…"));
    statusBar()->showMessage(relink ? tr("Relinking…") : tr("Loading…"));
}

void MainWindow::finishProgress()
{
    m_timeline->setPlaceholderText(QString());
    m_progress->stop();
    statusBar()->clearMessage();
    // After the loader's signal returns it is idle: the start page again if nothing opened.
    QTimer::singleShot(0, this, &MainWindow::updateStartPage);
}

void MainWindow::onLoaded(OpenedPtr opened)
{
    finishProgress();
    if (!opened->relink && opened->shown) {
        recent::rememberPair(opened->shown->hostPath(), opened->shown->devicePath());
        emit pairOpened(opened); // the correction session starts from its sidecar, before it is shown
    }
    setDocument(opened->shown);
    showReadNotice(*opened);
    const QStringList &warnings = opened->warnings;
    // The Warnings dock lists them all (host, Kineto, linking), whatever this load added.
    const int count = m_warnings->count();
    if (count > 0) {
        m_warningsLabel->setText(
            QStringLiteral("<a href=\"warnings\">%1</a>").arg(count == 1 ? tr("⚠ 1 warning") : tr("⚠ %L1 warnings").arg(count)));
        m_warningsLabel->setToolTip(warnings.mid(0, 30).join(QLatin1Char('\n'))
                                    + (warnings.size() > 30 ? tr("\n… and %L1 more").arg(warnings.size() - 30) : QString())
                                    + tr("\n\nClick to list them in the Warnings dock"));
        m_warningsLabel->show();
    } else {
        m_warningsLabel->hide();
    }
}

void MainWindow::onFailed(const QString &message)
{
    finishProgress();
    // Whatever was open stays open. Non-blocking, so a queued result or a test never waits on it.
    auto *box = new QMessageBox(QMessageBox::Critical, tr("Could not open the trace"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit loadFailed(message);
}

void MainWindow::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    const core::EventIndex keep = m_selection->current();
    m_doc = std::move(doc);
    m_timeline->setDocument(m_doc);
    if (!sameTrace)
        m_selection->clear();
    updateRankLabels(); // the window title; a rank of the open job is named there, in Details, Findings and the panes
    emit documentChanged(m_doc);
    if (sameTrace && keep.valid()) {
        // Same events after a relink: re-announce the selection so docks show its new link.
        m_selection->clear();
        m_selection->select(keep);
    }
    m_policy = m_doc->links().policy;
    m_policyBox->setCurrentIndex(m_policyBox->findData(static_cast<int>(m_policy)));
    for (QAction *action : m_policyGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(m_policy));
    updateCounts();
}

QString MainWindow::statusText() const { return m_countsLabel->text(); }

void MainWindow::updateCounts()
{
    if (!m_doc) {
        const int ranks = m_job->job() ? static_cast<int>(m_job->job()->report.ranks.size()) : 0;
        const QString job = ranks == 1 ? tr("Job of one rank open") : tr("Job of %1 ranks open").arg(ranks);
        m_countsLabel->setText(ranks ? tr("%1 · no rank's lanes yet: double-click one in the job overview").arg(job)
                                     : tr("No trace loaded"));
        return;
    }
    const LinkCounts &counts = m_doc->counts();
    m_countsLabel->setText(tr("%L1 events · %L2 GPU ops · linked %L3 · orphans %L4 · findings %L5 · policy %6")
                               .arg(m_doc->eventCount())
                               .arg(counts.gpuOps)
                               .arg(counts.linked)
                               .arg(counts.orphans)
                               .arg(counts.findings)
                               .arg(fromStd(policyName(m_doc->links().policy))));
}

void MainWindow::rebuildRecentMenu()
{
    recent::fillMenu(m_recentMenu, [this](const RecentEntry &entry) { openRecent(entry); });
}

void MainWindow::onTimeRangeChanged()
{
    if (!m_timeline->state().timeRange().has() || !m_doc) {
        m_details->setTimeRangeHtml(QString());
        m_range->setRange(0, 0);
        if (!m_range->visibleRegion().isEmpty()) // nothing to show: its tab's title, the Findings in front
            m_review->findingsDock()->raise();
        return;
    }
    // Per op name, stream and thread (core/analysis/rangestats.h): a visit per event in the range.
    m_range->setRange(m_timeline->state().timeRange().start(), m_timeline->state().timeRange().end());
    m_range->show();
    m_range->raise();
    // Once per release: two binary searches per row, plus the GPU-op count (timerange.h).
    const TimeRangeSummary summary = summarizeTimeRange(*m_doc, m_timeline->layout(), m_timeline->state().timeRange().start(),
                                                        m_timeline->state().timeRange().end());
    m_details->setTimeRangeHtml(timeRangeHtml(summary));
    statusBar()->showMessage(tr("Time range %1 · %L2 events · %3%L4 GPU ops")
                                 .arg(formatDuration(summary.end - summary.start))
                                 .arg(summary.events())
                                 .arg(summary.estimated() ? QStringLiteral("~") : QString())
                                 .arg(summary.gpuOps()),
                             8000);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.size() <= 2
        && std::all_of(urls.begin(), urls.end(), [](const QUrl &url) { return url.isLocalFile(); }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        paths << url.toLocalFile();
    event->acceptProposedAction();
    if (paths.size() == 1 && QFileInfo(paths.front()).isDir())
        openJob(paths.front());
    else
        openFiles(paths);
}

JobDock *MainWindow::jobDock() { return m_job->dock(); }

PredictionController *MainWindow::predictionController() const { return m_prediction->controller(); }

PredictDock *MainWindow::predictDock() const { return m_prediction->dock(); }

// The job (jobui.h) wires itself to the panes and docks; the window opens what it asks, says its
// messages, and keeps its own labels and notices with the job.
void MainWindow::placeJob(SummaryDock *summary)
{
    m_job = new JobUi({this, m_timeline, m_panes, m_review->findingsDock(), summary, m_prediction->dock(),
                       [this] { return m_policy; }, [this](QDockWidget *dock) { addDock(dock, Qt::TopDockWidgetArea); }},
                      this);
    connect(this, &MainWindow::documentChanged, m_job, &JobUi::documentChanged);
    connect(m_job, &JobUi::activeChanged, this, &MainWindow::updateStartPage);
    connect(m_job, &JobUi::message, this, [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); });
    connect(m_job, &JobUi::editRankRequested, this, &MainWindow::editRankHere);
    connect(m_job, &JobUi::openPairRequested, this, &MainWindow::openPair); // host empty: the Kineto trace alone
    connect(m_job, &JobUi::opened, this, [this](const JobPtr &job) {
        recent::rememberJob(job->folder);
        showJobReadNotice(*job);
        updateRankLabels();
        updateCounts();
    });
    connect(m_job, &JobUi::closed, this, [this] {
        if (m_readNoticeOfJob)
            m_readNotice->dismiss();
        updateRankLabels();
        updateCounts();
    });
}

void MainWindow::updateRankLabels()
{
    if (!m_panes || !m_review)
        return;
    const qint64 rank = m_doc ? m_job->rankOfDevice(m_doc->devicePath()) : -1;
    m_panes->setMainRank(rank);
    m_review->findingsDock()->setOpenRank(rank);
    const bool inJob = rank >= 0 && m_job->job();
    m_details->setRankLabel(inJob ? tr("Rank %1 of the job in %2").arg(rank).arg(m_job->job()->folder) : QString());
    if (m_doc) {
        const QString names = pairFileNames(m_doc->hostPath(), m_doc->devicePath());
        setWindowTitle(inJob ? tr("Rank %1 · %2 — Linkscope").arg(rank).arg(names) : tr("%1 — Linkscope").arg(names));
    }
}

void MainWindow::editRankHere(qint64 rank)
{
    RankPane *pane = m_panes->pane(rank);
    if (!pane || !pane->isLoaded() || m_loader->isBusy())
        return;
    const auto view = m_panes->referenceView();
    const int position = m_panes->paneIndex(rank);
    // As if it had just been read: the linker's document, its sidecar looked for again (it may
    // have changed since the pane read it) and applied by the correction session.
    auto opened = std::make_shared<OpenedDocuments>();
    opened->linked = opened->shown = pane->linkedDocument();
    opened->warnings = pane->warnings();
    m_panes->closePane(rank);
    // The rank shown until now keeps its lanes, in the pane's place: its linker's document (for a
    // later swap back) and the corrected one shown.
    const qint64 previous = m_panes->mainRank();
    if (m_doc && previous >= 0)
        m_panes
            ->adoptPane(previous, m_review->controller()->linkedDocument() ? m_review->controller()->linkedDocument() : m_doc,
                        m_doc, {}, position)
            ->view()
            ->setBookmarks(m_timeline->bookmarkOverlay().bookmarks()); // its sidecar's, drawn there too
    onLoaded(std::move(opened));
    if (view)
        m_panes->setReferenceView(*view);
    statusBar()->showMessage(tr("Rank %1 is the main rank: Details, Search, Findings and corrections act on it").arg(rank), 6000);
}

void MainWindow::openJob(const QString &folder) { m_job->open(folder); }

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_placed)
        return;
    m_placed = true;
    const QScreen *screen = this->screen();
    if (!screen)
        return;
    // Unless the size was set before the first show (a saved geometry, a test), 1400×900 or what fits
    // the screen, whichever is smaller (at 1.5× scale a 1080p screen has 1280×720 logical pixels);
    // and the top-left corner on the screen.
    const QRect available = screen->availableGeometry();
    const QSize frame = frameGeometry().size() - geometry().size(); // title bar and borders
    const QSize room = available.size() - frame;
    if (!testAttribute(Qt::WA_Resized))
        resize(QSize(1400, 900).boundedTo(room));
    if (!m_layoutRestored) // once the window has its size: the docks' default sizes for it
        QTimer::singleShot(0, this, [this] { WindowLayout::applyDefaults(this); });
    QRect placed = frameGeometry();
    if (!available.contains(placed)) {
        placed.moveLeft(
            std::clamp(placed.left(), available.left(), std::max(available.left(), available.right() - placed.width() + 1)));
        placed.moveTop(
            std::clamp(placed.top(), available.top(), std::max(available.top(), available.bottom() - placed.height() + 1)));
        move(placed.topLeft());
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_loader->cancel();
    WindowLayout::save(this);
    QMainWindow::closeEvent(event);
}

} // namespace linkscope::ui
