#include "review/correctioncontroller.h"

#include "ground/fromstd.h"

#include "link/rules.h"

#include "ground/traceloader.h"
#include "review/undocommands.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>
#include <QThread>
#include <QUndoStack>

#include <algorithm>

namespace linkscope::ui {

namespace {

} // namespace

CorrectionController::CorrectionController(const TraceLoader *loader, QObject *parent)
    : QObject(parent), m_loader(loader), m_undo(new QUndoStack(this))
{
}

CorrectionController::~CorrectionController()
{
    // Background jobs hold their own copies (shared pointers), so nothing waits here.
    m_undo->clear();
}

QString CorrectionController::sidecarPath() const
{
    return m_session ? QString::fromStdString(m_session->sidecar().path) : QString();
}

QString CorrectionController::sidecarSummary() const
{
    if (!m_session)
        return tr("No trace open");
    if (!m_ready)
        return tr("Looking for corrections beside %1…").arg(QFileInfo(m_linked->devicePath()).fileName());
    const core::SidecarStatus &status = m_session->sidecar();
    const QString file = QFileInfo(QString::fromStdString(status.path)).fileName();
    if (status.path.empty())
        return tr("Corrections are not saved: %1").arg(QString::fromStdString(m_session->lastSaveError()));
    QString text;
    switch (status.state) {
    case core::SidecarState::None:
        text = tr("Corrections will be saved to %1").arg(file);
        break;
    case core::SidecarState::Loaded:
        text = tr("Saved to %1").arg(file);
        break;
    case core::SidecarState::Forced:
        text = tr("%1 applied anyway; saved for these traces").arg(file);
        break;
    case core::SidecarState::Mismatch:
        text = tr("%1 belongs to other traces: not applied, left untouched").arg(file);
        break;
    case core::SidecarState::Invalid:
        text = tr("%1 cannot be read: left untouched").arg(file);
        break;
    }
    if (!m_session->lastSaveError().empty() && status.state != core::SidecarState::Mismatch
        && status.state != core::SidecarState::Invalid)
        text += tr(" — last save failed: %1").arg(QString::fromStdString(m_session->lastSaveError()));
    if (const std::size_t stale = m_session->staleCount(); stale > 0)
        text += tr(" · %n stale edit(s)", nullptr, static_cast<int>(stale));
    if (!status.warnings.empty())
        text += tr(" · %n overlong text(s) cut on reading (kept cut)", nullptr, static_cast<int>(status.warnings.size()));
    return text;
}

// ---- documents ------------------------------------------------------------------------------

void CorrectionController::documentChanged(DocumentPtr doc)
{
    m_shown = doc;
    if (!doc || doc == m_published)
        return;
    if (m_session && m_linked && doc->deviceShared() == m_linked->deviceShared()) {
        relinked(std::move(doc));
        return;
    }
    // Every load comes through pairOpened() first; a document of other traces without it has no
    // sidecar found for it: corrections are applied but not saved.
    auto opened = std::make_shared<OpenedDocuments>();
    opened->linked = doc;
    opened->shown = doc;
    pairOpened(std::move(opened));
}

void CorrectionController::pairOpened(OpenedPtr opened)
{
    const DocumentPtr &doc = opened->linked;
    m_undo->clear();
    m_session = std::make_unique<core::CorrectionSession>();
    m_session->generator = "linkscope " + QCoreApplication::applicationVersion().toStdString();
    m_session->setLinkOptions(doc->links().policy, false);
    // The sidecar as openPair found, checked and applied it (traceloader.h): adopted, not read again.
    if (opened->sidecar)
        m_session->adopt(*opened->sidecar);
    const core::ApplyResult applied = m_session->attach(doc->linksShared(), doc->device(), doc->host());
    m_linked = doc;
    m_published = opened->shown;
    ++m_generation; // a publish still running is of the old trace: dropped when it ends
    m_publishing = false;
    m_publishJob.cancel();
    m_sidecarJob.cancel();
    m_ready = opened->sidecar != nullptr;
    if (!m_ready) {
        // Documents read before (a rank's pane made the main rank): its sidecar may have changed
        // since, so it is found and checked again (fingerprinting takes seconds: off this thread).
        const std::string path = core::defaultSidecarPath(doc->devicePath().toStdString());
        const core::LoadedInputs inputs{doc->devicePath().toStdString(), doc->device().sourceIdentity,
                                        doc->hostPath().toStdString(),
                                        doc->host() ? doc->host()->sourceIdentity : core::FileIdentity{}};
        m_sidecarJob.run(
            [path, inputs](const JobToken &) {
                core::SidecarFound found = core::readSidecarAt(path);
                try {
                    core::checkSidecar(found, inputs);
                } catch (const std::exception &e) {
                    found.inputsError = e.what();
                    found.sidecar.reset();
                    found.status.state = found.status.state == core::SidecarState::None ? core::SidecarState::None
                                                                                        : core::SidecarState::Invalid;
                }
                return found;
            },
            [this](core::SidecarFound found) { sidecarFound(std::move(found)); });
    } else {
        sayWhatOpened(*opened, applied);
    }
    emit sidecarChanged();
    emit changed();
    emit published(m_published);
}

void CorrectionController::sayWhatOpened(const OpenedDocuments &opened, const core::ApplyResult &applied)
{
    if (!opened.sidecar->inputsError.empty())
        emit message(tr("Corrections disabled: %1").arg(QString::fromStdString(opened.sidecar->inputsError)), 8000);
    else if (const std::size_t stale = applied.count(core::EditStatus::Stale); stale > 0)
        emit message(tr("%n correction(s) no longer apply: see the Edits dock", nullptr, static_cast<int>(stale)), 8000);
    const core::Policy policy = opened.linked->links().policy;
    if (m_session->sidecar().state == core::SidecarState::Loaded && policy != opened.askedPolicy)
        emit linksChanged(tr("The corrections were made under policy %1: opened under it (the window's policy was %2)")
                              .arg(fromStd(core::policyName(policy)), fromStd(core::policyName(opened.askedPolicy))),
                          {}, {});
}

void CorrectionController::sidecarFound(core::SidecarFound found)
{
    if (!found.inputsError.empty())
        emit message(tr("Corrections disabled: %1").arg(QString::fromStdString(found.inputsError)), 8000);
    const core::SidecarStatus &status = m_session->adopt(std::move(found));
    if (status.state == core::SidecarState::Loaded && m_session->policy() != m_linked->links().policy) {
        // The corrections were made under another policy: relinked under it; relinked() finishes.
        emit sidecarChanged();
        emit policyRequested(m_session->policy());
        return;
    }
    m_ready = true;
    if (!m_session->log().entries.empty())
        publish();
    emit sidecarChanged();
    emit changed();
}

void CorrectionController::relinked(DocumentPtr doc)
{
    const std::shared_ptr<const core::LinkSet> before = m_published ? m_published->linksShared()
                                                                    : std::shared_ptr<const core::LinkSet>();
    m_linked = doc;
    m_published = doc; // what the window shows until the corrected one is ready
    ++m_generation;
    m_publishing = false; // until publish() below: the one running is of the old links
    m_session->setLinkOptions(doc->links().policy, false);
    const core::ApplyResult applied = m_session->attach(doc->linksShared(), doc->device(), doc->host());
    const bool wasWaiting = !m_ready; // the sidecar found asked for its policy
    m_ready = true;
    if (before && before->gpuLinks.size() == m_session->working().gpuLinks.size()) {
        const core::ParentDiff diff = core::diffParents(*before, m_session->working());
        QStringList details;
        std::vector<core::EventIndex> changed;
        changed.reserve(diff.changes.size());
        for (const core::ParentChange &c : diff.changes)
            changed.push_back(c.gpuEvent);
        const std::size_t shown = std::min<std::size_t>(diff.changes.size(), 500);
        for (std::size_t i = 0; i < shown; ++i) {
            const core::ParentChange &c = diff.changes[i];
            details << tr("%1: %2 → %3").arg(describeEvent(c.gpuEvent), describeEvent(c.before), describeEvent(c.after));
        }
        if (diff.changes.size() > shown)
            details << tr("… and %L1 more").arg(diff.changes.size() - shown);
        const QString summary = tr("Policy %1 → %2: %L3 of %L4 GPU op links changed")
                                    .arg(fromStd(core::policyName(before->policy)),
                                         fromStd(core::policyName(doc->links().policy)))
                                    .arg(diff.changes.size())
                                    .arg(diff.compared);
        emit linksChanged(summary, details, changed);
    }
    if (!m_session->log().entries.empty())
        publish();
    if (const std::size_t stale = applied.count(core::EditStatus::Stale); stale > 0)
        emit message(tr("%n correction(s) no longer apply: see the Edits dock", nullptr, static_cast<int>(stale)), 8000);
    if (wasWaiting)
        emit sidecarChanged();
    emit changed();
}

void CorrectionController::publish()
{
    if (!m_session || !m_session->attached() || !m_linked)
        return;
    const quint64 generation = ++m_generation;
    if (m_session->log().entries.empty()) {
        // Nothing corrected: the linker's document is the one to show.
        m_publishing = false;
        if (m_published != m_linked) {
            m_published = m_linked;
            emit showDocument(m_linked);
        }
        emit published(m_published);
        return;
    }
    m_publishing = true;
    auto links = std::make_shared<const core::LinkSet>(m_session->working());
    // The document shown now is the closest to the new links (usually one edit away): patching
    // from it touches only what the edit changed; the lane rows are shared either way.
    const DocumentPtr base = m_published && m_published->deviceShared() == m_linked->deviceShared() ? m_published : m_linked;
    struct Built {
        DocumentPtr doc;
        QString error;
    };
    m_publishJob.run(
        [base, links](const JobToken &token) -> Built {
            try {
                return {TraceDocument::createWithLinks(base, links, token.flag()), {}};
            } catch (const core::Cancelled &) {
                throw; // superseded by a newer change
            } catch (const std::exception &e) {
                return {{}, QString::fromUtf8(e.what())};
            }
        },
        [this, generation](const Built &built) {
            if (generation != m_generation)
                return; // a newer change or trace superseded it
            m_publishing = false;
            if (!built.doc) {
                // The correction is applied and saved, but it cannot be shown: say so, keep the old view.
                const QString text = tr("The corrected links could not be shown: %1").arg(built.error);
                emit message(text, 15000);
                emit publishFailed(text);
                return;
            }
            m_published = built.doc;
            emit showDocument(built.doc);
            emit published(built.doc);
        });
}

// ---- edits ----------------------------------------------------------------------------------

bool CorrectionController::push(core::LogEntry entry)
{
    if (!m_session || !m_ready || !m_session->attached() || entry.edits.empty())
        return false;
    if (entry.label.empty())
        entry.label = entry.edits.size() == 1 ? entry.edits.front().describe()
                                              : std::to_string(entry.edits.size()) + " corrections";
    m_undo->push(new CorrectionCommand(this, std::move(entry)));
    return true;
}

void CorrectionController::applyEntryNow(const core::LogEntry &entry)
{
    m_session->push(entry);
    publish();
    emit changed();
}

void CorrectionController::undoEntryNow()
{
    m_session->undo();
    publish();
    emit changed();
}

void CorrectionController::removeEntryNow(std::size_t index)
{
    m_session->removeEntry(index);
    publish();
    emit changed();
}

void CorrectionController::insertEntryNow(std::size_t index, const core::LogEntry &entry)
{
    m_session->insertEntry(index, entry);
    publish();
    emit changed();
}

namespace {
bool isGpuOp(const core::LinkSet &links, core::EventIndex event)
{
    return event.in(links.gpuLinkOf.size()) && links.gpuLinkOf[event].valid();
}
} // namespace

QString CorrectionController::reparentProblem(core::EventIndex gpuEvent, core::EventIndex newParent) const
{
    if (!m_session || !m_linked)
        return tr("No trace open");
    // The rule is core's (link/rules.h), the same one LinkEditor applies to sidecars and the CLI;
    // the GUI only words it: the problem first, then the name (shortened), as the overlay shows it.
    const core::LinkSet &links = m_session->working();
    const core::DeviceTrace &trace = m_linked->device();
    const core::ReparentCheck check = core::checkReparent(trace, links, gpuEvent, newParent);
    auto shortName = [&](core::EventIndex e) {
        const QString name = m_linked->eventName(e);
        return name.size() > 48 ? name.left(47) + QStringLiteral("…") : name;
    };
    switch (check.refusal) {
    case core::ReparentRefusal::None:
        return {};
    case core::ReparentRefusal::NotAGpuOp:
        return tr("%1 is not a linked GPU op").arg(describeEvent(gpuEvent));
    case core::ReparentRefusal::NoSuchEvent:
        return tr("Release on a CPU op (cpu_op or user_annotation)");
    case core::ReparentRefusal::NotACpuOp:
        return tr("Not a CPU op (cpu_op or user_annotation): %1 is a %2")
            .arg(shortName(newParent), fromStd(core::categoryName(trace.event(newParent).category)));
    case core::ReparentRefusal::OtherProcess:
        return tr("Another process: %1").arg(fromStd(check.reason));
    }
    return fromStd(check.reason);
}

bool CorrectionController::reparent(core::EventIndex gpuEvent, core::EventIndex newParent)
{
    if (!m_session || !m_ready || !reparentProblem(gpuEvent, newParent).isEmpty())
        return false;
    core::LogEntry entry;
    entry.edits.push_back(m_session->editor().reparent(gpuEvent, newParent));
    return push(std::move(entry));
}

bool CorrectionController::detach(core::EventIndex gpuEvent)
{
    if (!m_session || !isGpuOp(m_session->working(), gpuEvent))
        return false;
    return push({{}, {m_session->editor().detach(gpuEvent)}});
}

bool CorrectionController::restore(core::EventIndex gpuEvent)
{
    if (!m_session || !isGpuOp(m_session->working(), gpuEvent))
        return false;
    const core::GpuLinkIndex link = m_session->working().gpuLinkOf[gpuEvent];
    if (!m_session->editor().isCorrected(link))
        return false;
    return push({{}, {m_session->editor().restore(gpuEvent)}});
}

bool CorrectionController::addEdge(core::EventIndex from, core::EventIndex to, core::EdgeKind kind)
{
    if (!m_session || from == to || !from.in(m_linked->eventCount()) || !to.in(m_linked->eventCount()))
        return false;
    if (kind != core::EdgeKind::Sync && kind != core::EdgeKind::InterThread)
        return false;
    return push({{}, {m_session->editor().addEdge(from, to, kind)}});
}

bool CorrectionController::removeEdge(core::EventIndex from, core::EventIndex to, core::EdgeKind kind)
{
    if (!m_session)
        return false;
    const auto &edges = m_session->working().edges;
    const bool present = std::any_of(edges.begin(), edges.end(),
                                     [&](const core::Edge &e) { return e.from == from && e.to == to && e.kind == kind; });
    if (!present || (kind != core::EdgeKind::Sync && kind != core::EdgeKind::InterThread))
        return false;
    return push({{}, {m_session->editor().removeEdge(from, to, kind)}});
}

bool CorrectionController::flag(core::EventIndex event, const QString &noteText)
{
    if (!m_session || !event.in(m_linked->eventCount()))
        return false;
    return push({{}, {m_session->editor().flag(event, noteText.toStdString())}});
}

bool CorrectionController::accept(core::EventIndex event)
{
    if (!m_session || !event.in(m_linked->eventCount()))
        return false;
    return push({{}, {m_session->editor().accept(event)}});
}

bool CorrectionController::note(core::EventIndex event, const QString &text)
{
    if (!m_session || !event.in(m_linked->eventCount()) || text.isEmpty())
        return false;
    return push({{}, {m_session->editor().note(event, text.toStdString())}});
}

bool CorrectionController::markReviewed(const core::Finding &f, const QString &noteText)
{
    if (!m_session)
        return false;
    core::LogEntry entry{"Reviewed: " + std::string(core::findingKindName(f.kind)),
                         {m_session->editor().markReviewed(f, noteText.toStdString())}};
    return push(std::move(entry));
}

bool CorrectionController::applySuggestion(const core::Finding &f)
{
    if (!m_session || f.subjectKind != core::SubjectKind::DeviceEvent || f.suggestedParent.isNone())
        return false;
    return reparent(f.event, f.suggestedParent);
}

bool CorrectionController::applySuggestionToKind(core::FindingKind kind)
{
    if (!m_session)
        return false;
    core::LogEntry entry = m_session->editor().applySuggestions(kind);
    if (entry.edits.empty())
        return false;
    entry.label = "Apply the suggestion to " + std::to_string(entry.edits.size()) + " " + std::string(core::findingKindName(kind))
                  + " finding(s)";
    return push(std::move(entry));
}

bool CorrectionController::applySuggestions(const std::vector<core::Finding> &findings)
{
    if (!m_session || !m_ready)
        return false;
    const core::LinkSet &links = m_session->working();
    core::LogEntry entry;
    for (const core::Finding &f : findings) {
        if (f.subjectKind != core::SubjectKind::DeviceEvent || f.suggestedParent.isNone())
            continue;
        if (!f.event.in(links.gpuLinkOf.size()) || links.gpuLinkOf[f.event].isNone())
            continue;
        if (links.gpuLinks[links.gpuLinkOf[f.event]].parent == f.suggestedParent)
            continue; // already there: no no-op edit
        if (!reparentProblem(f.event, f.suggestedParent).isEmpty())
            continue;
        entry.edits.push_back(m_session->editor().reparent(f.event, f.suggestedParent));
    }
    if (entry.edits.empty())
        return false;
    entry.label = "Apply the suggestion to " + std::to_string(entry.edits.size()) + " finding(s) of one cause";
    return push(std::move(entry));
}

bool CorrectionController::removeEntry(std::size_t index)
{
    if (!m_session || !m_ready || index >= m_session->log().entries.size())
        return false;
    m_undo->push(new RemoveEntryCommand(this, index, m_session->log().entries[index]));
    return true;
}

bool CorrectionController::forceSidecar()
{
    if (!m_session || !m_session->forcePendingSidecar())
        return false;
    m_undo->clear();
    if (m_session->policy() != m_linked->links().policy) {
        emit policyRequested(m_session->policy()); // relinked under it: relinked() re-applies the log
    } else {
        publish();
    }
    m_session->save();
    emit sidecarChanged();
    emit changed();
    return true;
}

// ---- lookups --------------------------------------------------------------------------------

std::vector<core::EventIndex> CorrectionController::parentCandidates(core::EventIndex gpuEvent) const
{
    if (!m_session || !isGpuOp(m_session->working(), gpuEvent))
        return {};
    const core::LinkSet &links = m_session->working();
    return core::reparentCandidates(m_linked->device(), links, gpuEvent,
                                    m_session->editor().linkerChoice(links.gpuLinkOf[gpuEvent]).parent);
}

core::EventIndex CorrectionController::findCpuOp(const QString &text) const
{
    if (!m_linked)
        return core::kNone;
    QString t = text.trimmed().toLower();
    enum { Any, Rf, Ev, Index } by = Any;
    if (t.startsWith(QLatin1String("rf_id"))) {
        by = Rf;
        t = t.mid(5);
    } else if (t.startsWith(QLatin1String("ev_idx")) || t.startsWith(QLatin1String("ev idx"))) {
        by = Ev;
        t = t.mid(6);
    } else if (t.startsWith(QLatin1Char('#'))) {
        by = Index;
        t = t.mid(1);
    }
    t.remove(QLatin1Char(':')).remove(QLatin1Char('=')).remove(QLatin1Char(' '));
    bool ok = false;
    const qint64 value = t.toLongLong(&ok);
    if (!ok || value < 0)
        return core::kNone;
    const core::DeviceTrace &trace = m_linked->device();
    const auto &events = trace.events;
    if (by == Index)
        return value < static_cast<qint64>(events.size()) && core::isCpuOpCategory(events[value].category)
                   ? core::EventIndex::at(static_cast<std::size_t>(value))
                   : core::EventIndex(core::kNone);
    if (by == Rf || by == Ev)
        return core::findCpuOp(trace, by == Rf ? core::EventKey::RecordFunctionId : core::EventKey::EvIdx, value);
    // A bare number: rf_id first (what the ET shows), then Ev Idx.
    const core::EventIndex byRfId = core::findCpuOp(trace, core::EventKey::RecordFunctionId, value);
    return byRfId.valid() ? byRfId : core::findCpuOp(trace, core::EventKey::EvIdx, value);
}

QString CorrectionController::describeEvent(core::EventIndex event) const
{
    if (event.isNone() || !m_linked || !event.in(m_linked->eventCount()))
        return tr("(none)");
    return m_linked->eventName(event);
}

// ---- export ---------------------------------------------------------------------------------

void CorrectionController::exportCorrected(const core::ExportRequest &request)
{
    if (!m_session || !m_session->attached() || m_exporting) {
        emit exportFinished(false, tr("Nothing to export"));
        return;
    }
    m_exporting = true;
    m_exportCancel->store(false);
    auto links = std::make_shared<const core::LinkSet>(m_session->working());
    const DocumentPtr base = m_linked;
    struct Outcome {
        bool ok = false;
        QString message;
    };
    core::ExportRequest staged = request;
    // Progress crosses to the GUI thread as a queued call; the context object guards its lifetime.
    QPointer<CorrectionController> self(this);
    staged.progress = [self, cancel = m_exportCancel](std::string_view stage, std::size_t done, std::size_t total) {
        const QString text = fromStd(stage);
        QMetaObject::invokeMethod(
            self.data(),
            [self, text, done, total] {
                if (self)
                    emit self->exportProgress(text, static_cast<int>(done), static_cast<int>(total));
            },
            Qt::QueuedConnection);
        return !cancel->load();
    };
    m_exportJob.run(
        [base, links, request = std::move(staged)](const JobToken &) {
            Outcome out;
            try {
                // A Kineto trace alone (no host) writes the targets that do not need the host ET.
                const core::ExportReport report = core::exportLinkedPair(base->host(), base->device(), *links, request);
                out.message = QObject::tr("Exported %L1 bytes").arg(report.totalBytes());
                out.ok = true;
            } catch (const core::Cancelled &) {
                out.message = QObject::tr("Export cancelled; outputs finished before the cancel were kept");
            } catch (const std::exception &e) {
                out.message = QString::fromUtf8(e.what());
            }
            return out;
        },
        [this](const Outcome &out) {
            m_exporting = false;
            emit exportFinished(out.ok, out.message);
        });
}

void CorrectionController::changeBookmarksNow(const std::function<void(core::CorrectionSession &)> &change)
{
    if (!m_session)
        return;
    change(*m_session);
    emit bookmarksChanged();
    emit sidecarChanged(); // a save may have created the file, or failed
}

bool CorrectionController::waitUntilSettled(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        const bool loading = m_loader && m_loader->isBusy();
        if (m_session && m_ready && !m_publishing && !m_exporting && !loading && m_shown == m_published)
            return true;
        QThread::msleep(5);
    }
    return false;
}

} // namespace linkscope::ui
