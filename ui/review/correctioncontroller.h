#pragma once
// Corrections in the GUI: owns the CorrectionSession (log, corrected links, sidecar) and the undo
// stack of one open trace pair. Each user action becomes a core LogEntry pushed as a QUndoCommand;
// after every change the corrected links are shown (a new TraceDocument built off the GUI thread)
// and the sidecar is saved. A relink and a policy change re-apply the whole log.
//
// A pair arrives opened (pairOpened): its sidecar already found, checked and applied by the pair
// pipeline, under its policy (traceloader.h); the session adopts it. The controller knows no
// window: it asks for what it needs with signals (showDocument, policyRequested, message), and the
// main window wires them (and its documentChanged to documentChanged()).

#include "edit/correctionsession.h"
#include "export/exportrequest.h"
#include "ground/backgroundjob.h"
#include "ground/tracedocument.h"
#include "ground/traceloader.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QAction;
class QUndoStack;

namespace linkscope::ui {

class CorrectionController : public QObject {
    Q_OBJECT
public:
    // `loader`: the window's (waitUntilSettled waits for its loads too); may be null.
    explicit CorrectionController(const TraceLoader *loader, QObject *parent = nullptr);
    ~CorrectionController() override;

    QUndoStack *undoStack() const { return m_undo; }
    // Null before a trace is open.
    const core::CorrectionSession *session() const { return m_session.get(); }
    bool ready() const { return m_ready; } // a pair is open, its sidecar applied
    // The document shown: the corrected links (or the linker's, without corrections).
    const DocumentPtr &document() const { return m_published; }
    // The linker's document the corrections apply to (its findings are the Findings dock's rows).
    const DocumentPtr &linkedDocument() const { return m_linked; }
    // A corrected document is being built: published() (or publishFailed()) follows.
    bool publishing() const { return m_publishing; }
    QString sidecarPath() const;
    QString sidecarSummary() const; // one line for the Edits dock

    // Why `newParent` cannot become the parent of `gpuEvent` (one short sentence), or empty when it
    // can: the new parent must be a CPU op (cpu_op / user_annotation, as the LinkEditor requires)
    // in the process that launched the GPU op (known from its launch call, else its current
    // parent; unknown: any process). The Ctrl+drag overlay and reparent() share this check.
    QString reparentProblem(core::EventIndex gpuEvent, core::EventIndex newParent) const;

    // Edits on events (DeviceTrace indices). Each is one undoable step; false if not applicable.
    bool reparent(core::EventIndex gpuEvent, core::EventIndex newParent);
    bool detach(core::EventIndex gpuEvent);
    bool restore(core::EventIndex gpuEvent);
    bool addEdge(core::EventIndex from, core::EventIndex to, core::EdgeKind kind);
    bool removeEdge(core::EventIndex from, core::EventIndex to, core::EdgeKind kind);
    bool flag(core::EventIndex event, const QString &note);
    bool accept(core::EventIndex event);
    bool note(core::EventIndex event, const QString &text);
    // `finding` is one shown in the Findings dock (of linkedDocument()); it is taken by value, not by
    // index, because the working link set's findings are derived again after every edit.
    bool markReviewed(const core::Finding &finding, const QString &note = {});
    bool applySuggestion(const core::Finding &finding);
    // Every finding of that kind with a suggested parent, re-parented as one step.
    bool applySuggestionToKind(core::FindingKind kind);
    // These findings' suggestions (current ones, e.g. a folded group's open members), as one step;
    // those already applied or without a suggested parent are skipped.
    bool applySuggestions(const std::vector<core::Finding> &findings);
    // Removes a log entry (any, not only the last): undoable.
    bool removeEntry(std::size_t index);
    // Applies a sidecar that was made from other inputs (the user asked for it).
    bool forceSidecar();

    // Candidate parents for a GPU op: each policy's choice, the innermost enclosing op and the CPU
    // ops enclosing its launch, without duplicates, innermost first.
    std::vector<core::EventIndex> parentCandidates(core::EventIndex gpuEvent) const;
    // A CPU op named by "rf_id N", "ev_idx N", "#N" (event index) or a bare number (rf_id, then Ev Idx).
    core::EventIndex findCpuOp(const QString &text) const;

    // Writes the corrected links (off the GUI thread). Empty paths are skipped. Emits
    // exportProgress(stage, done, total) before each stage and exportFinished(ok, message) at the end.
    void exportCorrected(const core::ExportRequest &request);
    bool exporting() const { return m_exporting; }
    // Stops the running export before its next stage (outputs already written are kept).
    void cancelExport() { m_exportCancel->store(true); }

    // Tests: blocks (processing events) until the sidecar is applied and the shown document is
    // current. False on timeout.
    bool waitUntilSettled(int timeoutMs = 30000);

    // Called by the undo commands only.
    void applyEntryNow(const core::LogEntry &entry);
    void undoEntryNow();
    void removeEntryNow(std::size_t index);
    void insertEntryNow(std::size_t index, const core::LogEntry &entry);
    // Bookmarks (BookmarkUi's undo commands change one through the session): saved in the sidecar at once.
    void changeBookmarksNow(const std::function<void(core::CorrectionSession &)> &change);

    // A pair was opened (a load, Edit here): a new session starts from its sidecar as found.
    void pairOpened(linkscope::ui::OpenedPtr opened);
    // The window shows `doc`: another trace (a session without a sidecar found), a relink of this
    // one (the log is re-applied), or the document published last.
    void documentChanged(linkscope::ui::DocumentPtr doc);

signals:
    // The corrected links' document (or the linker's, when nothing is corrected): to be shown.
    void showDocument(linkscope::ui::DocumentPtr doc);
    // A forced sidecar was made under another policy: the traces are to be relinked under it.
    void policyRequested(linkscope::core::Policy policy);
    // A line for the status bar, for `timeoutMs`.
    void message(const QString &text, int timeoutMs);
    void changed();          // log, outcomes or review state changed
    void sidecarChanged();   // the sidecar's state or location changed
    void bookmarksChanged(); // session()->bookmarks() changed (an edit, undo, or a sidecar read)
    void published(linkscope::ui::DocumentPtr doc);
    // A correction was applied but its document could not be built (the message says why).
    void publishFailed(const QString &message);
    // After a relink or policy change: how many GPU ops got another parent, and which (`details`:
    // the first 500 described; `events`: every one, sorted DeviceTrace indices).
    void linksChanged(const QString &summary, const QStringList &details, const std::vector<core::EventIndex> &events);
    void exportProgress(const QString &stage, int done, int total);
    void exportFinished(bool ok, const QString &message);

private:
    void sayWhatOpened(const OpenedDocuments &opened, const core::ApplyResult &applied);
    void sidecarFound(core::SidecarFound found);
    void relinked(DocumentPtr doc);
    void publish();
    bool push(core::LogEntry entry);
    QString describeEvent(core::EventIndex event) const;

    const TraceLoader *m_loader;
    QUndoStack *m_undo;
    std::unique_ptr<core::CorrectionSession> m_session;
    DocumentPtr m_linked;    // the linker's document the session is attached to
    DocumentPtr m_published; // the document to show
    DocumentPtr m_shown;     // the document the window shows
    bool m_ready = false;
    bool m_publishing = false;
    bool m_exporting = false;
    std::shared_ptr<std::atomic_bool> m_exportCancel = std::make_shared<std::atomic_bool>(false);
    quint64 m_generation = 0;   // publish requests
    BackgroundJob m_publishJob; // last: destroyed (and waited for) first
    BackgroundJob m_exportJob;
    BackgroundJob m_sidecarJob; // finds the sidecar of documents read before (Edit here)
};

} // namespace linkscope::ui
