#include "shell/reviewui.h"

#include "ground/fromstd.h"

#include "docks/editsdock.h"
#include "docks/findingsdock.h"
#include "export/targets.h"
#include "ground/eventselection.h"
#include "ground/noticebar.h"
#include "review/correctioncontroller.h"
#include "review/exportdialog.h"
#include "review/storypanel.h"
#include "timeline/timelineview.h"

#include <algorithm>

#include <QAction>
#include <QDateTime>
#include <QDesktopServices>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QProgressDialog>
#include <QUndoStack>
#include <QUrl>

namespace linkscope::ui {

ReviewUi::ReviewUi(QWidget *window, EventSelection *selection, TimelineView *timeline, const TraceLoader *loader)
    : QObject(window), m_window(window), m_selection(selection), m_timeline(timeline),
      m_controller(new CorrectionController(loader, window)), m_findings(new FindingsDock(m_controller, selection, window)),
      m_edits(new EditsDock(m_controller, selection, window)), m_notice(new NoticeBar(window))
{
    // The first screen's story: compared_with_chakra and the notices for the links shown; a click
    // on a count filters the Findings and lists the GPU ops in the search results.
    connect(m_findings->storyPanel(), &StoryPanel::showEventsRequested, this,
            [this](const QString &title, const std::vector<core::EventIndex> &events) {
                m_findings->showEvents(title, events);
                m_findings->raise();
                // The list is in the Search tab: brought to the front, whatever tab was (Warnings).
                emit listEventsRequested(title, events);
            });
    // A finding or a search hit made current frames its GPU op with its current and suggested parents.
    m_findings->setFocusHome(timeline);
    connect(m_findings, &FindingsDock::frameRequested, this, &ReviewUi::frame);
    buildMenus();
    timeline->menus().setProvider(
        [this](QMenu *menu, core::EventIndex event, DrawEdgeIndex edge) { addContextActions(menu, event, edge); });
    timeline->installEventFilter(this);
    connect(timeline, &TimelineView::viewChanged, this, [this] {
        if (m_dragFrom.valid())
            updateDrag(m_dragCursor);
    });
    connect(selection, &EventSelection::changed, this, &ReviewUi::updateActions);
    connect(m_controller, &CorrectionController::changed, this, &ReviewUi::updateActions);
    // Flags and notes on the timeline and in Details, after every edit (and a new trace's sidecar).
    connect(m_controller, &CorrectionController::changed, this, [this] {
        const core::CorrectionSession *session = m_controller->session();
        const DocumentPtr &linked = m_controller->linkedDocument();
        EventNotesPtr notes;
        if (session && session->attached() && linked)
            notes = EventNotes::fromReview(session->editor().review(), linked->deviceShared());
        emit eventNotesChanged(notes);
    });
    connect(m_controller, &CorrectionController::sidecarChanged, this, &ReviewUi::updateActions);
    // A relink says what changed in a notice above the timeline, never in a dialog.
    connect(m_controller, &CorrectionController::linksChanged, this,
            [this](const QString &summary, const QStringList &details, const std::vector<core::EventIndex> &events) {
                if (events.empty()) {
                    say(summary);
                    m_notice->dismiss();
                    return;
                }
                m_notice->showNotice(summary, details.join(QLatin1Char('\n')), tr("Show changed links"),
                                     [this, events] { showChangedLinks(events); });
            });
    updateActions();
}

void ReviewUi::documentChanged(const DocumentPtr &doc)
{
    // Another trace: the GPU ops listed by a click on the story panel are of the old one.
    // Another policy: the story's counts are of other links, so its list is stale too (the
    // Search dock drops it as well: it keeps only a query's hits across a relink).
    const core::DeviceTrace *device = doc ? &doc->device() : nullptr;
    const int policy = doc ? static_cast<int>(doc->links().policy) : -1;
    if (device != m_storyDevice || policy != m_storyPolicy)
        m_findings->clearEventFilter();
    m_storyDevice = device;
    m_storyPolicy = policy;
    m_findings->storyPanel()->setDocument(doc);
    // Another trace: the notice was about the old one.
    if (m_notice->isVisible() && doc && doc->deviceShared() != m_noticeDevice)
        m_notice->dismiss();
    m_noticeDevice = doc ? doc->deviceShared() : nullptr;
}

void ReviewUi::frameGpuOp(core::EventIndex event)
{
    // A GPU op's first finding with a suggested parent (the one the Findings dock would frame).
    core::EventIndex suggested = core::kNone;
    const DocumentPtr &doc = m_controller->document();
    const core::GpuLinkIndex link = doc && event.in(doc->links().gpuLinkOf.size()) ? doc->links().gpuLinkOf[event]
                                                                                   : core::GpuLinkIndex(core::kNone);
    if (link.valid())
        for (auto [f, end] = doc->links().findings.ofGpuOp(link.get()); f != end && suggested.isNone(); ++f)
            suggested = f->suggestedParent;
    frame(event, suggested);
}

bool ReviewUi::eventFilter(QObject *watched, QEvent *event)
{
    TimelineView *timeline = m_timeline;
    if (watched != timeline || !m_controller->ready())
        return false;
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto *mouse = static_cast<QMouseEvent *>(event);
        if (mouse->button() != Qt::LeftButton || !(mouse->modifiers() & Qt::ControlModifier))
            return false;
        const core::EventIndex hit = timeline->eventAt(mouse->position().toPoint());
        const DocumentPtr &doc = m_controller->document();
        if (hit.isNone() || !doc || !doc->gpuLink(hit))
            return false;
        m_dragFrom = hit;
        m_dragTarget = core::kNone;
        timeline->setFocus(Qt::MouseFocusReason); // for Esc
        timeline->setCursor(Qt::DragLinkCursor);
        updateDrag(mouse->position().toPoint());
        say(tr("Re-parent %1: release on the new parent CPU op (Esc cancels)").arg(doc->eventName(hit)));
        return true; // the timeline would start panning
    }
    case QEvent::MouseMove:
        if (m_dragFrom.isNone())
            return false;
        updateDrag(static_cast<QMouseEvent *>(event)->position().toPoint());
        return true;
    case QEvent::KeyPress:
        if (m_dragFrom.isNone() || static_cast<QKeyEvent *>(event)->key() != Qt::Key_Escape)
            return false;
        endDrag();
        say(tr("Re-parent cancelled"));
        return true;
    case QEvent::MouseButtonRelease: {
        if (m_dragFrom.isNone())
            return false;
        auto *mouse = static_cast<QMouseEvent *>(event);
        const core::EventIndex gpu = m_dragFrom;
        endDrag();
        const core::EventIndex target = timeline->eventAt(mouse->position().toPoint());
        const QString problem = m_controller->reparentProblem(gpu, target);
        if (problem.isEmpty() && m_controller->reparent(gpu, target)) {
            const DocumentPtr &doc = m_controller->document();
            say(tr("Re-parented %1 to %2 (Ctrl+Z undoes)").arg(doc->eventName(gpu), doc->eventName(target)));
            m_selection->select(gpu);
        } else
            say(tr("Not re-parented: %1").arg(problem.isEmpty() ? tr("the edit was refused") : problem));
        return true;
    }
    default:
        return false;
    }
}

void ReviewUi::updateDrag(const QPoint &pos)
{
    TimelineView *timeline = m_timeline;
    TimelineView::LinkDrag drag;
    drag.from = m_dragFrom;
    drag.cursor = pos;
    drag.target = timeline->eventAt(pos);
    if (drag.target == drag.from)
        drag.target = core::kNone; // still on the op itself
    if (drag.target.valid()) {
        drag.reason = m_controller->reparentProblem(m_dragFrom, drag.target);
        drag.valid = drag.reason.isEmpty();
    }
    m_dragCursor = pos;
    timeline->setLinkDrag(drag);
    if (drag.target != m_dragTarget) {
        // Only when the target changes: a status message per mouse move would flicker.
        m_dragTarget = drag.target;
        const DocumentPtr &doc = m_controller->document();
        if (drag.target.isNone())
            say(tr("Re-parent %1: release on the new parent CPU op (Esc cancels)").arg(doc->eventName(m_dragFrom)));
        else if (drag.valid)
            say(tr("Release to re-parent %1 to %2").arg(doc->eventName(m_dragFrom), doc->eventName(drag.target)));
        else
            say(tr("Cannot re-parent here: %1").arg(drag.reason));
    }
}

void ReviewUi::endDrag()
{
    m_dragFrom = core::kNone;
    m_dragTarget = core::kNone;
    m_timeline->unsetCursor();
    m_timeline->clearLinkDrag();
}

void ReviewUi::frame(core::EventIndex event, core::EventIndex suggestedParent)
{
    const DocumentPtr &doc = m_controller->document();
    if (!doc || !event.in(doc->eventCount()))
        return;
    std::vector<core::EventIndex> events{event};
    if (const core::GpuLink *link = doc->gpuLink(event); link && link->parent.valid())
        events.push_back(link->parent);
    if (suggestedParent.in(doc->eventCount()))
        events.push_back(suggestedParent);
    core::Nanos lo = doc->event(event).ts;
    core::Nanos hi = doc->event(event).end();
    for (core::EventIndex e : events) {
        lo = std::min(lo, doc->event(e).ts);
        hi = std::max(hi, doc->event(e).end());
    }
    // All of them with a margin of an eighth of their extent on each side (as F does), so that a
    // 2 ms kernel at 711 ms is not a sliver; the selection already scrolled its lane into view.
    const core::Nanos span = std::max<core::Nanos>(hi - lo, TimelineViewport::kMinSpan);
    m_timeline->state().setVisibleRange(lo - span / 8, hi + span / 8);
}

void ReviewUi::showChangedLinks(const std::vector<core::EventIndex> &events)
{
    const QString title = tr("the links the relink changed");
    m_findings->showEvents(title, events);
    m_findings->show();
    m_findings->raise();
    emit listEventsRequested(title, events);
}

core::EventIndex ReviewUi::selected() const { return m_selection->current(); }

bool ReviewUi::selectedIsGpuOp() const
{
    const DocumentPtr &doc = m_controller->document();
    return doc && m_controller->ready() && doc->gpuLink(selected()) != nullptr;
}

void ReviewUi::say(const QString &text) { emit message(text, 6000); }

void ReviewUi::buildMenus()
{
    auto *edit = new QMenu(tr("&Edit"), m_window);
    m_editMenu = edit;
    QAction *undo = m_controller->undoStack()->createUndoAction(edit, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_controller->undoStack()->createRedoAction(edit, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);

    m_menu = new QMenu(tr("&Review"), m_window);
    QAction *next = m_menu->addAction(tr("Next finding"), m_findings, &FindingsDock::next);
    next->setShortcuts({QKeySequence(Qt::Key_N), QKeySequence(Qt::Key_F8)});
    QAction *previous = m_menu->addAction(tr("Previous finding"), m_findings, &FindingsDock::previous);
    previous->setShortcuts({QKeySequence(Qt::SHIFT | Qt::Key_N), QKeySequence(Qt::SHIFT | Qt::Key_F8)});
    QAction *reviewed = m_menu->addAction(tr("Mark finding reviewed"), m_findings, &FindingsDock::markReviewed);
    reviewed->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_menu->addAction(tr("Apply the finding's suggestion"), m_findings, &FindingsDock::applySuggestion);
    m_menu->addAction(tr("Apply the suggestion to every finding of this kind"), m_findings, &FindingsDock::applySuggestionToKind);
    m_menu->addSeparator();

    QAction *reparent = m_menu->addAction(tr("Re-parent GPU op…"), this, &ReviewUi::reparentSelected);
    reparent->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    QAction *mark = m_menu->addAction(tr("Pick a new parent on the timeline"), this, &ReviewUi::markForReparent);
    mark->setShortcut(QKeySequence(Qt::Key_P));
    mark->setToolTip(tr("Remember the selected GPU op; then select its new parent CPU op and use \"Re-parent here\""));
    m_reparentHere = m_menu->addAction(tr("Re-parent the picked GPU op here"), this, &ReviewUi::reparentMarkedHere);
    m_reparentHere->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_P));
    QAction *detach = m_menu->addAction(tr("Detach GPU op"), this, [this] {
        if (!m_controller->detach(selected()))
            say(tr("Select a GPU op to detach"));
    });
    detach->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    QAction *restore = m_menu->addAction(tr("Restore the linker's parent"), this, [this] {
        if (!m_controller->restore(selected()))
            say(tr("The selected op's link was not changed"));
    });
    m_needGpuOp << reparent << mark << detach << restore;
    m_menu->addSeparator();

    QAction *flag = m_menu->addAction(tr("Flag link as wrong…"), this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(m_window, tr("Flag the link as wrong"), tr("Note:"), QLineEdit::Normal,
                                                   QString(), &ok);
        if (ok)
            m_controller->flag(selected(), text);
    });
    QAction *accept = m_menu->addAction(tr("Accept link"), this, [this] { m_controller->accept(selected()); });
    QAction *note = m_menu->addAction(tr("Note…"), this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(m_window, tr("Note"), tr("Note on the selected op:"), QLineEdit::Normal,
                                                   QString(), &ok);
        if (ok)
            m_controller->note(selected(), text);
    });
    m_needEvent << flag << accept << note;
    m_menu->addSeparator();

    QAction *source = m_menu->addAction(tr("Pick edge source"), this, &ReviewUi::markEdgeSource);
    m_addSync = m_menu->addAction(tr("Add sync edge from the picked GPU op to the selection"), this,
                                  [this] { addEdgeToSelected(core::EdgeKind::Sync); });
    m_addInterThread = m_menu->addAction(tr("Add inter-thread edge from the picked op to the selection"), this,
                                         [this] { addEdgeToSelected(core::EdgeKind::InterThread); });
    QAction *removeEdge = m_menu->addAction(tr("Remove a sync / inter-thread edge of the selection…"), this,
                                            &ReviewUi::removeEdgeOfSelected);
    m_needEvent << source << removeEdge;
    m_menu->addSeparator();
    m_export = m_menu->addAction(tr("Export corrected traces…"), this, &ReviewUi::exportCorrected);
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));

    for (QAction *a : m_menu->actions())
        a->setShortcutContext(Qt::WindowShortcut);
}

void ReviewUi::updateActions()
{
    const bool gpu = selectedIsGpuOp();
    const bool event = m_controller->ready() && selected().valid();
    for (QAction *a : m_needGpuOp)
        a->setEnabled(gpu);
    for (QAction *a : m_needEvent)
        a->setEnabled(event);
    const DocumentPtr &doc = m_controller->document();
    const bool cpuSelected = event && doc && core::isCpuOpCategory(doc->event(selected()).category);
    m_reparentHere->setEnabled(cpuSelected && m_markedGpuOp.valid());
    m_addSync->setEnabled(event && m_markedEdgeSource.valid());
    m_addInterThread->setEnabled(event && m_markedEdgeSource.valid());
    m_export->setEnabled(m_controller->ready() && !m_controller->exporting());
}

void ReviewUi::reparentSelected()
{
    const core::EventIndex gpu = selected();
    const DocumentPtr &doc = m_controller->document();
    if (!selectedIsGpuOp())
        return;
    const std::vector<core::EventIndex> candidates = m_controller->parentCandidates(gpu);
    QStringList items;
    for (core::EventIndex c : candidates) {
        const core::DeviceEvent &e = doc->event(c);
        items << tr("%1  (%2, rf_id %3, Ev Idx %4)")
                     .arg(doc->eventName(c), fromStd(core::categoryName(e.category)))
                     .arg(e.rfId)
                     .arg(e.evIdx);
    }
    const QString byId = tr("Another CPU op, by rf_id / Ev Idx / #index…");
    items << byId;
    bool ok = false;
    const QString choice = QInputDialog::getItem(m_window, tr("Re-parent %1").arg(doc->eventName(gpu)),
                                                 tr("New parent (CPU ops enclosing the launch first):"), items, 0, false, &ok);
    if (!ok)
        return;
    core::EventIndex parent = core::kNone;
    if (choice == byId) {
        const QString text = QInputDialog::getText(m_window, tr("Re-parent by id"),
                                                   tr("rf_id N, ev_idx N, #event, or a number (rf_id first):"), QLineEdit::Normal,
                                                   QString(), &ok);
        if (!ok)
            return;
        parent = m_controller->findCpuOp(text);
        if (parent.isNone()) {
            say(tr("No CPU op matches \"%1\"").arg(text));
            return;
        }
    } else {
        parent = candidates.at(static_cast<std::size_t>(items.indexOf(choice)));
    }
    if (!m_controller->reparent(gpu, parent))
        say(tr("Cannot re-parent onto that op"));
}

void ReviewUi::markForReparent()
{
    if (!selectedIsGpuOp())
        return;
    m_markedGpuOp = selected();
    say(tr("Picked %1: now select its new parent CPU op and press Shift+P")
            .arg(m_controller->document()->eventName(m_markedGpuOp)));
    updateActions();
}

void ReviewUi::reparentMarkedHere()
{
    if (m_markedGpuOp.isNone())
        return;
    if (m_controller->reparent(m_markedGpuOp, selected())) {
        const core::EventIndex gpu = m_markedGpuOp;
        m_markedGpuOp = core::kNone;
        m_selection->select(gpu);
    } else {
        say(tr("Select a CPU op (cpu_op or user_annotation) as the new parent"));
    }
    updateActions();
}

void ReviewUi::markEdgeSource()
{
    if (selected().isNone())
        return;
    m_markedEdgeSource = selected();
    say(tr("Edge source: %1 — select the target and add the edge").arg(m_controller->document()->eventName(selected())));
    updateActions();
}

void ReviewUi::addEdgeToSelected(core::EdgeKind kind)
{
    if (m_markedEdgeSource.isNone() || !m_controller->addEdge(m_markedEdgeSource, selected(), kind))
        say(tr("Cannot add that edge"));
    m_markedEdgeSource = core::kNone;
    updateActions();
}

void ReviewUi::removeEdgeOfSelected()
{
    const core::CorrectionSession *session = m_controller->session();
    const DocumentPtr &doc = m_controller->document();
    if (!session || !doc || selected().isNone())
        return;
    std::vector<core::Edge> edges;
    QStringList items;
    for (const core::Edge &e : session->working().edges) {
        if ((e.kind != core::EdgeKind::Sync && e.kind != core::EdgeKind::InterThread)
            || (e.from != selected() && e.to != selected()))
            continue;
        edges.push_back(e);
        items << tr("%1: %2 → %3").arg(fromStd(core::edgeKindName(e.kind)), doc->eventName(e.from), doc->eventName(e.to));
    }
    if (items.isEmpty()) {
        say(tr("The selection has no sync or inter-thread edge"));
        return;
    }
    bool ok = false;
    const QString choice = QInputDialog::getItem(m_window, tr("Remove edge"), tr("Edge:"), items, 0, false, &ok);
    if (!ok)
        return;
    const core::Edge &e = edges.at(static_cast<std::size_t>(items.indexOf(choice)));
    m_controller->removeEdge(e.from, e.to, e.kind);
}

void ReviewUi::addContextActions(QMenu *menu, core::EventIndex event, DrawEdgeIndex edge)
{
    const DocumentPtr &doc = m_controller->document();
    const core::CorrectionSession *session = m_controller->session();
    if (!doc || !m_controller->ready() || !session)
        return;
    auto named = [menu](QAction *action, const char *name) {
        action->setObjectName(QString::fromLatin1(name));
        return action;
    };
    auto elided = [&](core::EventIndex e) { return menu->fontMetrics().elidedText(doc->eventName(e), Qt::ElideMiddle, 360); };
    if (edge.valid()) {
        if (!edge.in(doc->edges().size()))
            return;
        const DrawEdge drawn = doc->edges()[edge];
        const auto &edges = session->working().edges;
        const bool removable = (drawn.kind == core::EdgeKind::Sync || drawn.kind == core::EdgeKind::InterThread)
                               && std::any_of(edges.begin(), edges.end(), [&](const core::Edge &e) {
                                      return e.from == drawn.from && e.to == drawn.to && e.kind == drawn.kind;
                                  });
        QAction *remove = named(menu->addAction(tr("Remove edge"), this,
                                                [this, drawn] {
                                                    if (m_controller->removeEdge(drawn.from, drawn.to, drawn.kind))
                                                        say(tr("Edge removed (Ctrl+Z undoes)"));
                                                }),
                                "removeEdge");
        remove->setEnabled(removable);
        if (!removable)
            remove->setToolTip(tr("Only sync and inter-thread edges can be removed; a parent edge changes by re-parenting"));
        menu->setToolTipsVisible(true);
        return;
    }
    if (!event.in(doc->eventCount()))
        return;
    if (const core::GpuLink *link = doc->gpuLink(event)) {
        QMenu *to = menu->addMenu(tr("Re-parent to"));
        to->setObjectName(QStringLiteral("reparentTo"));
        for (core::EventIndex c : m_controller->parentCandidates(event)) {
            const core::DeviceEvent &e = doc->event(c);
            QAction *a = to->addAction(
                tr("%1  (%2, rf_id %3)").arg(elided(c), fromStd(core::categoryName(e.category))).arg(e.rfId), this,
                [this, event, c] {
                    if (m_controller->reparent(event, c))
                        say(tr("Re-parented (Ctrl+Z undoes)"));
                });
            a->setData(c.value);
            if (c == link->parent) {
                a->setCheckable(true);
                a->setChecked(true);
                a->setEnabled(false); // already its parent
            }
        }
        to->addSeparator();
        to->addAction(tr("Another CPU op, by rf_id / Ev Idx / #index…"), this, [this, event] {
            bool ok = false;
            const QString text = QInputDialog::getText(m_window, tr("Re-parent by id"),
                                                       tr("rf_id N, ev_idx N, #event, or a number (rf_id first):"),
                                                       QLineEdit::Normal, QString(), &ok);
            if (!ok)
                return;
            const core::EventIndex parent = m_controller->findCpuOp(text);
            if (parent.isNone() || !m_controller->reparent(event, parent))
                say(tr("Cannot re-parent onto \"%1\"").arg(text));
        });
        named(menu->addAction(tr("Detach"), this, [this, event] { m_controller->detach(event); }), "detach")
            ->setEnabled(link->parent.valid());
        named(menu->addAction(tr("Restore the linker's parent"), this,
                              [this, event] {
                                  if (!m_controller->restore(event))
                                      say(tr("The op's link was not changed"));
                              }),
              "restore")
            ->setEnabled(event.in(session->working().gpuLinkOf.size()) && session->working().gpuLinkOf[event].valid()
                         && session->editor().isCorrected(session->working().gpuLinkOf[event]));
        menu->addSeparator();
    }
    named(menu->addAction(tr("Flag link as wrong…"), this,
                          [this, event] {
                              bool ok = false;
                              const QString text = QInputDialog::getText(m_window, tr("Flag the link as wrong"), tr("Note:"),
                                                                         QLineEdit::Normal, QString(), &ok);
                              if (ok)
                                  m_controller->flag(event, text);
                          }),
          "flag");
    named(menu->addAction(tr("Note…"), this,
                          [this, event] {
                              bool ok = false;
                              const QString text = QInputDialog::getText(m_window, tr("Note"), tr("Note on the op:"),
                                                                         QLineEdit::Normal, QString(), &ok);
                              if (ok)
                                  m_controller->note(event, text);
                          }),
          "note");
    named(menu->addAction(tr("Accept link"), this, [this, event] { m_controller->accept(event); }), "accept");
}

ExportDialog *ReviewUi::exportDialog() const { return m_exportDialog.data(); }

void ReviewUi::exportCorrected()
{
    const DocumentPtr &doc = m_controller->document();
    if (!doc || !m_controller->ready())
        return;
    if (m_exportDialog) {
        m_exportDialog->raise();
        m_exportDialog->activateWindow();
        return;
    }
    auto *dialog = new ExportDialog(doc, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (m_lastExportDevice == doc->devicePath())
        dialog->setRequest(m_lastExport);
    m_exportDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] { startExport(dialog->request()); });
    dialog->open(); // window-modal, without a nested event loop
}

void ReviewUi::startExport(const core::ExportRequest &request)
{
    const DocumentPtr &doc = m_controller->document();
    if (!doc || !m_controller->ready() || m_controller->exporting())
        return;
    m_lastExportDevice = doc->devicePath();
    m_lastExport = request;
    m_lastExport.progress = {};
    m_exportStarted = QDateTime::currentDateTime().addSecs(-1); // file times may have a second's resolution

    // One step per export stage (graph, check, each file); Cancel stops before the next stage.
    auto *progress = new QProgressDialog(tr("Exporting the corrected traces…"), tr("Cancel"), 0, 0, m_window);
    progress->setWindowModality(Qt::WindowModal);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setMinimumDuration(300);
    connect(m_controller, &CorrectionController::exportProgress, progress, [progress](const QString &stage, int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
        progress->setLabelText(tr("Exporting the corrected traces: %1…").arg(stage));
    });
    m_exportCancelled = false;
    connect(progress, &QProgressDialog::canceled, this, [this] {
        m_exportCancelled = true;
        m_controller->cancelExport();
    });
    connect(
        m_controller, &CorrectionController::exportFinished, this,
        [this, progress = QPointer<QProgressDialog>(progress), request](bool ok, const QString &message) {
            if (progress) {
                // Closing a QProgressDialog emits canceled(): that is not the user's Cancel.
                QObject::disconnect(progress, &QProgressDialog::canceled, this, nullptr);
                progress->close();
            }
            exportDone(request, ok, message);
        },
        Qt::SingleShotConnection);
    m_controller->exportCorrected(request);
    updateActions();
}

void ReviewUi::exportDone(const core::ExportRequest &request, bool ok, const QString &message)
{
    updateActions();
    QStringList paths;
    for (const core::ExportTarget &target : core::exportTargets())
        if (request.requests(target.name))
            paths << QString::fromStdString(request.path(target.name));
    auto again = [this] { exportCorrected(); };
    if (!ok && m_exportCancelled) {
        // Each output is whole or absent (atomic writes): name the ones finished before the cancel.
        QStringList kept;
        for (const QString &p : paths)
            if (QFileInfo(p).isFile() && QFileInfo(p).lastModified() >= m_exportStarted)
                kept << QFileInfo(p).fileName();
        m_notice->showNotice(kept.isEmpty()
                                 ? tr("Export cancelled: nothing was written")
                                 : tr("Export cancelled; kept what was finished: %1").arg(kept.join(QStringLiteral(", "))),
                             paths.join(QLatin1Char('\n')), tr("Export again…"), again);
        say(tr("Export cancelled"));
        return;
    }
    if (!ok) {
        // Everything stays loaded; the message names the file when a write failed (WriteError), else
        // the outputs asked for are named here.
        QStringList named;
        for (const QString &p : paths)
            if (!message.contains(p))
                named << QFileInfo(p).fileName();
        const QString what = named.size() == paths.size() ? tr(" (writing %1)").arg(named.join(QStringLiteral(", "))) : QString();
        m_notice->showNotice(tr("Export failed%1: %2").arg(what, message), paths.join(QLatin1Char('\n')), tr("Export again…"),
                             again);
        say(tr("Export failed"));
        return;
    }
    // Where the files went: their names and sizes, in one folder if they share one.
    QStringList written, details;
    QString folder;
    bool oneFolder = true;
    for (const QString &p : paths) {
        const QFileInfo info(p);
        if (!info.isFile())
            continue;
        if (folder.isEmpty())
            folder = info.absolutePath();
        oneFolder = oneFolder && info.absolutePath() == folder;
        written << tr("%1 (%2)").arg(info.fileName(), QLocale().formattedDataSize(info.size()));
        details << QDir::toNativeSeparators(info.absoluteFilePath());
    }
    if (written.isEmpty()) {
        m_notice->showNotice(tr("Export finished but wrote no file: %1").arg(message), QString(), tr("Export again…"), again);
        return;
    }
    const QString files = written.size() == 1 ? tr("1 file") : tr("%L1 files").arg(written.size());
    const QString text =
        oneFolder ? tr("Exported %1 to %2: %3").arg(files, QDir::toNativeSeparators(folder), written.join(QStringLiteral(", ")))
                  : tr("Exported %1: %2").arg(files, details.join(QStringLiteral(", ")));
    m_notice->showNotice(text, details.join(QLatin1Char('\n')), tr("Open folder"),
                         [folder] { QDesktopServices::openUrl(QUrl::fromLocalFile(folder)); });
    say(tr("Exported %1").arg(files));
}

} // namespace linkscope::ui
