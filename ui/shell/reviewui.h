#pragma once
// Everything the main window gets for reviewing and correcting links: the CorrectionController,
// the Findings and Edits docks, the notice bar, the Edit menu (undo / redo) and the Review menu
// (corrections on the selected event, next / previous finding, export of the corrected traces).
// It acts on the timeline and the selection it is given and knows no window: the main window
// places its docks, menus and notice, and wires its signals (listEventsRequested,
// eventNotesChanged, message) and its documentChanged() slot.

#include "ground/eventnotes.h"
#include "ground/tracedocument.h"
#include "link/linkset.h"

#include "export/exportrequest.h"

#include <QDateTime>
#include <QObject>
#include <QPoint>
#include <QPointer>
#include <QString>

#include <memory>
#include <vector>

class QAction;
class QMenu;

namespace linkscope::ui {

class CorrectionController;
class EditsDock;
class EventSelection;
class ExportDialog;
class FindingsDock;
class NoticeBar;
class TimelineView;
class TraceLoader;

class ReviewUi : public QObject {
    Q_OBJECT
public:
    // `window`: the parent of the docks, menus and dialogs; `loader`: the window's (see
    // CorrectionController).
    ReviewUi(QWidget *window, EventSelection *selection, TimelineView *timeline, const TraceLoader *loader);

    // Ctrl+drag on the timeline from a GPU op to a CPU op re-parents it; the timeline draws the drag
    // (curve, valid / invalid target, reason) and Esc cancels it.
    bool eventFilter(QObject *watched, QEvent *event) override;

    CorrectionController *controller() const { return m_controller; }
    FindingsDock *findingsDock() const { return m_findings; }
    EditsDock *editsDock() const { return m_edits; }
    QMenu *reviewMenu() const { return m_menu; }
    QMenu *editMenu() const { return m_editMenu; }
    // The notice above the timeline (what a relink changed, with a "Show changed links" action).
    NoticeBar *noticeBar() const { return m_notice; }
    // The export dialog while it is open (exportCorrected() opens it), else null.
    ExportDialog *exportDialog() const;

    // Two-step actions started on one event and finished on another (the timeline selection).
    core::EventIndex markedGpuOp() const { return m_markedGpuOp; }
    core::EventIndex markedEdgeSource() const { return m_markedEdgeSource; }

public slots:
    void reparentSelected();   // asks: candidates, or an id
    void markForReparent();    // remembers the selected GPU op
    void reparentMarkedHere(); // the selected CPU op becomes its parent
    void markEdgeSource();
    void addEdgeToSelected(core::EdgeKind kind);
    void removeEdgeOfSelected(); // asks which
    // Opens the export dialog (exportdialog.h) for the trace shown, with the paths of the last
    // export of the same trace if there was one; Export writes in the background and the notice
    // above the timeline says where the files went (with "Open folder"), or why not.
    void exportCorrected();
    // Zooms the timeline to `event` with its current parent and `suggestedParent` (none: no suggestion).
    void frame(core::EventIndex event, core::EventIndex suggestedParent);
    // frame() with the GPU op's first suggested parent (a search hit).
    void frameGpuOp(core::EventIndex event);
    // The window shows `doc` (the story panel follows; a notice about other traces goes).
    void documentChanged(const DocumentPtr &doc);
    // Filters the Findings to these GPU ops (sorted) and lists them in the search results.
    void showChangedLinks(const std::vector<core::EventIndex> &events);

    // The review actions of the timeline's context menu on `event` or `edge` (the other is
    // none): Re-parent to ▸ (the parent candidates), Detach, Restore, Flag…, Note…, Accept;
    // on a sync / inter-thread edge the corrections allow removing, Remove edge.
    void addContextActions(QMenu *menu, core::EventIndex event, DrawEdgeIndex edge);

signals:
    // These events are to be listed in the search results, brought to the front.
    void listEventsRequested(const QString &title, const std::vector<core::EventIndex> &events);
    // The flags and notes of the open pair changed (null: none): the timeline and Details show them.
    void eventNotesChanged(linkscope::ui::EventNotesPtr notes);
    // A line for the status bar, for `timeoutMs`.
    void message(const QString &text, int timeoutMs);

private:
    void buildMenus();
    void updateActions();
    core::EventIndex selected() const;
    bool selectedIsGpuOp() const;
    void say(const QString &message);
    void updateDrag(const QPoint &pos); // re-evaluates the target under `pos`, updates the overlay
    void endDrag();
    void startExport(const core::ExportRequest &request);
    void exportDone(const core::ExportRequest &request, bool ok, const QString &message);

    QWidget *m_window;
    EventSelection *m_selection;
    TimelineView *m_timeline;
    CorrectionController *m_controller;
    FindingsDock *m_findings;
    const core::DeviceTrace *m_storyDevice = nullptr; // the trace the story panel shows
    int m_storyPolicy = -1;                           // and the policy of its links
    EditsDock *m_edits;
    NoticeBar *m_notice;
    std::shared_ptr<const core::DeviceTrace> m_noticeDevice; // the trace the notice is about
    QMenu *m_menu = nullptr;
    QMenu *m_editMenu = nullptr;
    core::EventIndex m_markedGpuOp{};
    core::EventIndex m_markedEdgeSource{};
    core::EventIndex m_dragFrom{};   // GPU op a Ctrl+drag started on
    core::EventIndex m_dragTarget{}; // event under the cursor during that drag
    QPoint m_dragCursor;
    QList<QAction *> m_needGpuOp;
    QList<QAction *> m_needEvent;
    QAction *m_reparentHere = nullptr;
    QAction *m_addSync = nullptr;
    QAction *m_addInterThread = nullptr;
    QAction *m_export = nullptr;
    QPointer<ExportDialog> m_exportDialog;
    QString m_lastExportDevice; // the Kineto trace m_lastExport was for
    core::ExportRequest m_lastExport;
    QDateTime m_exportStarted;
    bool m_exportCancelled = false; // the running export's Cancel was pressed
};

} // namespace linkscope::ui
