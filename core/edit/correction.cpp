#include "edit/correction.h"

#include "link/diagnose.h"
#include "link/rules.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace linkscope::core {

namespace {
constexpr std::array<std::string_view, kEditKindCount> kEditKindNames = {
    "reparent", "detach", "restore", "add_edge", "remove_edge", "flag", "accept", "mark_reviewed", "note",
};

bool isEditableEdge(EdgeKind kind) { return kind == EdgeKind::Sync || kind == EdgeKind::InterThread; }

std::string_view edgeWord(EdgeKind kind)
{
    switch (kind) {
    case EdgeKind::Sync:
        return "sync";
    case EdgeKind::InterThread:
        return "inter-thread";
    case EdgeKind::Parent:
        return "parent";
    case EdgeKind::Launch:
        return "launch";
    case EdgeKind::StreamOrder:
        return "stream-order";
    }
    return "edge";
}
} // namespace

std::string_view editKindName(EditKind kind) { return kEditKindNames[static_cast<std::size_t>(kind)]; }

std::optional<EditKind> editKindFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kEditKindNames.size(); ++i)
        if (kEditKindNames[i] == name)
            return static_cast<EditKind>(i);
    return std::nullopt;
}

std::string_view editStatusName(EditStatus status)
{
    switch (status) {
    case EditStatus::Applied:
        return "applied";
    case EditStatus::Unchanged:
        return "unchanged";
    case EditStatus::Stale:
        return "stale";
    case EditStatus::Rejected:
        return "rejected";
    }
    return "?";
}

std::string Edit::describe() const
{
    switch (kind) {
    case EditKind::Reparent:
        return "Re-parent " + subject.describe() + " to " + target.describe();
    case EditKind::Detach:
        return "Detach " + subject.describe();
    case EditKind::Restore:
        return "Restore the linker's parent of " + subject.describe();
    case EditKind::AddEdge:
        return "Add " + std::string(edgeWord(edge)) + " edge " + subject.describe() + " → " + target.describe();
    case EditKind::RemoveEdge:
        return "Remove " + std::string(edgeWord(edge)) + " edge " + subject.describe() + " → " + target.describe();
    case EditKind::Flag:
        return "Flag " + subject.describe() + (note.empty() ? std::string() : ": " + note);
    case EditKind::Accept:
        return "Accept " + subject.describe();
    case EditKind::MarkReviewed:
        return "Reviewed finding on " + subject.describe();
    case EditKind::Note:
        return "Note on " + subject.describe() + ": " + note;
    }
    return "?";
}

std::size_t CorrectionLog::editCount() const
{
    std::size_t total = 0;
    for (const LogEntry &entry : entries)
        total += entry.edits.size();
    return total;
}

std::size_t ApplyResult::count(EditStatus status) const
{
    return static_cast<std::size_t>(
        std::count_if(outcomes.begin(), outcomes.end(), [&](const EditOutcome &o) { return o.status == status; }));
}

std::vector<EditOutcome> ApplyResult::problems() const
{
    std::vector<EditOutcome> out;
    for (const EditOutcome &o : outcomes)
        if (o.status == EditStatus::Stale || o.status == EditStatus::Rejected)
            out.push_back(o);
    return out;
}

// ---------------------------------------------------------------------------------------------

struct LinkEditor::Change {
    struct LinkChanged {
        GpuLinkIndex linkIndex;
        GpuLink before;
    };
    struct EdgeAdded {
        Edge edge;
    };
    struct EdgeRemoved {
        EdgeIndex position;
        Edge edge;
        std::uint32_t indexRow; // row of indexedEdges_, or kAddedEdge
    };
    enum class Annotation : std::uint8_t { Flag, Note, Accept };
    struct AnnotationChanged {
        Annotation which;
        EventIndex event;
        std::optional<std::string> before;
    };
    struct ReviewChanged {
        FindingRef finding;
        std::optional<std::string> before;
    };
    std::variant<LinkChanged, EdgeAdded, EdgeRemoved, AnnotationChanged, ReviewChanged> what;
};

LinkEditor::LinkEditor(LinkSet &links, const DeviceTrace &device, const HostTrace *host)
    : links_(links), device_(device), resolver_(device, host)
{
}

LinkEditor::~LinkEditor() = default;

const GpuLink &LinkEditor::linkerChoice(GpuLinkIndex linkIndex) const
{
    if (auto it = linkerChoice_.find(linkIndex); it != linkerChoice_.end())
        return it->second;
    return links_.gpuLinks.at(linkIndex);
}

bool LinkEditor::isCorrected(GpuLinkIndex linkIndex) const { return links_.gpuLinks.at(linkIndex).rule == ParentRule::Manual; }

void LinkEditor::setLink(GpuLinkIndex linkIndex, const GpuLink &value, std::vector<Change> &changes)
{
    const GpuLink link = links_.gpuLinks[linkIndex];
    linkerChoice_.try_emplace(linkIndex, link);
    changes.push_back({Change::LinkChanged{linkIndex, link}});
    links_.gpuLinks.set(linkIndex, value);
    // The diagnosis stage follows the link: what this parent raises or resolves.
    rediagnoseGpuOp(device_, links_, linkIndex);
}

namespace {
std::uint64_t packFromTo(EventIndex from, EventIndex to) { return (std::uint64_t(from.value) << 32) | to.value; }
} // namespace

void LinkEditor::buildEdgeIndex()
{
    if (edgeIndexBuilt_)
        return;
    for (std::size_t i = 0; i < links_.edges.size(); ++i) {
        const Edge &e = links_.edges[i];
        if (isEditableEdge(e.kind))
            indexedEdges_.push_back({packFromTo(e.from, e.to), e.kind, EdgeIndex::at(i)});
    }
    std::sort(indexedEdges_.begin(), indexedEdges_.end(), [](const IndexedEdge &l, const IndexedEdge &r) {
        return l.fromTo != r.fromTo ? l.fromTo < r.fromTo : l.kind < r.kind;
    });
    edgeIndexBuilt_ = true;
}

std::pair<LinkEditor::IndexedEdge *, LinkEditor::IndexedEdge *> LinkEditor::indexedRange(const EdgeKey &key)
{
    const std::uint64_t fromTo = packFromTo(key.from, key.to);
    auto lower = std::partition_point(indexedEdges_.begin(), indexedEdges_.end(), [&](const IndexedEdge &e) {
        return e.fromTo != fromTo ? e.fromTo < fromTo : e.kind < key.kind;
    });
    auto upper = lower;
    while (upper != indexedEdges_.end() && upper->fromTo == fromTo && upper->kind == key.kind)
        ++upper;
    return {indexedEdges_.data() + (lower - indexedEdges_.begin()), indexedEdges_.data() + (upper - indexedEdges_.begin())};
}

bool LinkEditor::edgePresent(const EdgeKey &key)
{
    if (auto it = addedEdges_.find(key); it != addedEdges_.end() && !it->second.empty())
        return true;
    const auto [first, last] = indexedRange(key);
    return std::any_of(first, last, [](const IndexedEdge &e) { return e.position.valid(); });
}

void LinkEditor::edgeMoved(EdgeIndex from, EdgeIndex to)
{
    const Edge &e = links_.edges[from];
    if (!isEditableEdge(e.kind))
        return;
    const EdgeKey key{e.from, e.to, e.kind};
    if (auto it = addedEdges_.find(key); it != addedEdges_.end()) {
        auto found = std::find(it->second.begin(), it->second.end(), from);
        if (found != it->second.end()) {
            *found = to;
            return;
        }
    }
    auto [first, last] = indexedRange(key);
    for (IndexedEdge *row = first; row != last; ++row)
        if (row->position == from) {
            row->position = to;
            return;
        }
}

std::vector<EditOutcome> LinkEditor::apply(const LogEntry &entry, std::size_t entryIndex)
{
    std::vector<EditOutcome> outcomes;
    outcomes.reserve(entry.edits.size());
    std::vector<Change> changes;
    for (std::size_t i = 0; i < entry.edits.size(); ++i) {
        EditOutcome outcome = applyOne(entry.edits[i], changes);
        outcome.entry = entryIndex;
        outcome.edit = i;
        outcomes.push_back(std::move(outcome));
    }
    undo_.push_back(std::move(changes));
    return outcomes;
}

bool LinkEditor::undoLast()
{
    if (undo_.empty())
        return false;
    std::vector<Change> changes = std::move(undo_.back());
    undo_.pop_back();
    for (auto it = changes.rbegin(); it != changes.rend(); ++it)
        revert(*it);
    return true;
}

namespace {

EditOutcome outcome(EditStatus status, std::string why)
{
    EditOutcome out;
    out.status = status;
    out.reason = std::move(why);
    return out;
}

EditOutcome stale(std::string why) { return outcome(EditStatus::Stale, std::move(why)); }
EditOutcome rejected(std::string why) { return outcome(EditStatus::Rejected, std::move(why)); }
EditOutcome unchanged(std::string why) { return outcome(EditStatus::Unchanged, std::move(why)); }

} // namespace

EditOutcome LinkEditor::applyOne(const Edit &edit, std::vector<Change> &changes)
{
    const SubjectResolver::Resolution subject = resolver_.resolve(edit.subject);
    if (!subject.ok())
        return stale(subject.problem);
    switch (edit.kind) {
    case EditKind::Reparent:
    case EditKind::Detach:
    case EditKind::Restore:
        return applyLinkEdit(edit, subject, changes);
    case EditKind::AddEdge:
        return addEdge(edit, subject, changes);
    case EditKind::RemoveEdge:
        return removeEdge(edit, subject, changes);
    case EditKind::Flag:
    case EditKind::Note:
    case EditKind::Accept:
        return annotate(edit, subject, changes);
    case EditKind::MarkReviewed:
        return markReviewed(edit, subject, changes);
    }
    return rejected("unknown edit kind");
}

EditOutcome LinkEditor::applyLinkEdit(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes)
{
    const GpuLinkIndex linkIndex = edit.subject.kind == KeyKind::GpuOp && subject.event.in(links_.gpuLinkOf.size())
                                       ? links_.gpuLinkOf[subject.event]
                                       : GpuLinkIndex(kNone);
    if (linkIndex.isNone())
        return rejected(edit.subject.describe() + " is not a linked GPU op");
    GpuLink link = links_.gpuLinks[linkIndex];
    if (edit.kind == EditKind::Restore) {
        auto it = linkerChoice_.find(linkIndex);
        if (it == linkerChoice_.end()
            || (link.parent == it->second.parent && link.rule == it->second.rule && link.orphan == it->second.orphan))
            return unchanged("already the linker's choice");
        setLink(linkIndex, it->second, changes);
        return {};
    }
    if (edit.kind == EditKind::Detach) {
        link.parent = kNone;
        link.hostNode = kNone;
        link.orphan = OrphanReason::Detached;
    } else {
        const SubjectResolver::Resolution target = resolver_.resolve(edit.target);
        if (!target.ok())
            return stale("new parent: " + target.problem);
        if (edit.target.kind != KeyKind::CpuOp || !isCpuOpCategory(device_.event(target.event).category))
            return rejected(edit.target.describe() + " is not a CPU op (cpu_op or user_annotation)");
        // The rule every caller shares (link/rules.h): e.g. never a parent in another process.
        if (const ReparentCheck check = checkReparent(device_, links_, subject.event, target.event); !check.allowed())
            return rejected(check.reason);
        link.parent = target.event;
        link.hostNode = target.event.in(links_.hostOfEvent.size()) ? links_.hostOfEvent[target.event] : HostNodeIndex(kNone);
        link.orphan = OrphanReason::None;
    }
    link.rule = ParentRule::Manual;
    link.confidence = 1.0f;
    setLink(linkIndex, link, changes);
    return {};
}

std::optional<EditOutcome> LinkEditor::checkEdgeEdit(const Edit &edit, const SubjectResolver::Resolution &subject, EdgeKey &key)
{
    if (!isEditableEdge(edit.edge))
        return rejected("only sync and inter-thread edges can be edited");
    if (edit.subject.kind == KeyKind::HostNode || edit.subject.kind == KeyKind::Trace || edit.target.kind == KeyKind::HostNode
        || edit.target.kind == KeyKind::Trace)
        return rejected("edges join trace events");
    const SubjectResolver::Resolution resolved = resolver_.resolve(edit.target);
    if (!resolved.ok())
        return stale("edge target: " + resolved.problem);
    if (subject.event == resolved.event)
        return rejected("an edge needs two different events");
    if (edit.edge == EdgeKind::InterThread && (edit.subject.kind == KeyKind::GpuOp || edit.target.kind == KeyKind::GpuOp))
        return rejected("inter-thread edges join CPU events");
    if (edit.edge == EdgeKind::Sync && edit.subject.kind != KeyKind::GpuOp)
        return rejected("a sync edge starts at the GPU op waited for");
    buildEdgeIndex();
    key = EdgeKey{subject.event, resolved.event, edit.edge};
    return std::nullopt;
}

EditOutcome LinkEditor::addEdge(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes)
{
    EdgeKey key;
    if (std::optional<EditOutcome> refused = checkEdgeEdit(edit, subject, key))
        return std::move(*refused);
    if (edgePresent(key))
        return unchanged("the edge is already there");
    const Edge edge{key.from, key.to, key.kind};
    addedEdges_[key].push_back(EdgeIndex::at(links_.edges.size()));
    links_.edges.push_back(edge);
    // Emplaced, not pushed: GCC 12 warns (wrongly) that a moved-in Change's optional may be uninitialised.
    changes.emplace_back().what.emplace<Change::EdgeAdded>(Change::EdgeAdded{edge});
    return {};
}

EditOutcome LinkEditor::removeEdge(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes)
{
    EdgeKey key;
    if (std::optional<EditOutcome> refused = checkEdgeEdit(edit, subject, key))
        return std::move(*refused);
    EdgeIndex position;
    std::uint32_t indexRow = kAddedEdge;
    if (auto it = addedEdges_.find(key); it != addedEdges_.end() && !it->second.empty()) {
        position = it->second.back();
        it->second.pop_back();
    } else {
        auto [first, last] = indexedRange(key);
        for (IndexedEdge *row = first; row != last; ++row)
            if (row->position.valid()) {
                position = row->position;
                row->position = kNone;
                indexRow = static_cast<std::uint32_t>(row - indexedEdges_.data());
                break;
            }
    }
    if (position.isNone())
        return stale("the edge is not there any more");
    const Edge removed = links_.edges[position];
    const auto last = EdgeIndex::at(links_.edges.size() - 1);
    if (position != last) {
        edgeMoved(last, position);
        links_.edges.set(position, links_.edges[last]);
    }
    links_.edges.pop_back();
    changes.emplace_back().what.emplace<Change::EdgeRemoved>(Change::EdgeRemoved{position, removed, indexRow}); // as above
    return {};
}

EditOutcome LinkEditor::annotate(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes)
{
    if (edit.subject.kind == KeyKind::HostNode || edit.subject.kind == KeyKind::Trace)
        return rejected("flags, notes and accepts concern trace events");
    using A = Change::Annotation;
    const A which = edit.kind == EditKind::Flag ? A::Flag : edit.kind == EditKind::Note ? A::Note : A::Accept;
    std::optional<std::string> before;
    if (which == A::Accept) {
        if (review_.accepted.count(subject.event))
            return unchanged("already accepted");
        review_.accepted.insert(subject.event);
    } else {
        auto &map = which == A::Flag ? review_.flags : review_.notes;
        if (auto it = map.find(subject.event); it != map.end())
            before = it->second;
        map[subject.event] = edit.note;
    }
    changes.push_back({Change::AnnotationChanged{which, subject.event, std::move(before)}});
    return {};
}

EditOutcome LinkEditor::markReviewed(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes)
{
    FindingRef ref;
    ref.kind = edit.finding;
    ref.event = subject.event;
    ref.hostNode = subject.hostNode;
    ref.subjectKind = edit.subject.kind == KeyKind::HostNode ? SubjectKind::HostNode
                      : edit.subject.kind == KeyKind::Trace  ? SubjectKind::Trace
                                                             : SubjectKind::DeviceEvent;
    std::optional<std::string> before;
    if (auto it = review_.reviewed.find(ref); it != review_.reviewed.end())
        before = it->second;
    review_.reviewed[ref] = edit.note;
    changes.push_back({Change::ReviewChanged{ref, std::move(before)}});
    return {};
}

void LinkEditor::revert(const Change &change)
{
    std::visit(
        [&](const auto &c) {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, Change::LinkChanged>) {
                links_.gpuLinks.set(c.linkIndex, c.before);
                rediagnoseGpuOp(device_, links_, c.linkIndex);
            } else if constexpr (std::is_same_v<T, Change::EdgeAdded>) {
                const auto last = EdgeIndex::at(links_.edges.size() - 1);
                auto &positions = addedEdges_[{c.edge.from, c.edge.to, c.edge.kind}];
                positions.erase(std::remove(positions.begin(), positions.end(), last), positions.end());
                links_.edges.pop_back();
            } else if constexpr (std::is_same_v<T, Change::EdgeRemoved>) {
                const auto end = EdgeIndex::at(links_.edges.size());
                if (c.position == end) {
                    links_.edges.push_back(c.edge);
                } else {
                    links_.edges.push_back(links_.edges[c.position]);
                    edgeMoved(c.position, end);
                    links_.edges.set(c.position, c.edge);
                }
                if (c.indexRow == kAddedEdge)
                    addedEdges_[{c.edge.from, c.edge.to, c.edge.kind}].push_back(c.position);
                else
                    indexedEdges_[c.indexRow].position = c.position;
            } else if constexpr (std::is_same_v<T, Change::AnnotationChanged>) {
                if (c.which == Change::Annotation::Accept) {
                    review_.accepted.erase(c.event);
                } else {
                    auto &map = c.which == Change::Annotation::Flag ? review_.flags : review_.notes;
                    if (c.before)
                        map[c.event] = *c.before;
                    else
                        map.erase(c.event);
                }
            } else if constexpr (std::is_same_v<T, Change::ReviewChanged>) {
                if (c.before)
                    review_.reviewed[c.finding] = *c.before;
                else
                    review_.reviewed.erase(c.finding);
            }
        },
        change.what);
}

// ---------------------------------------------------------------------------------------------

Edit LinkEditor::reparent(EventIndex gpuEvent, EventIndex newParent) const
{
    Edit e;
    e.kind = EditKind::Reparent;
    e.subject = resolver_.keyOfEvent(gpuEvent);
    e.target = resolver_.keyOfEvent(newParent);
    return e;
}

Edit LinkEditor::detach(EventIndex gpuEvent) const
{
    Edit e;
    e.kind = EditKind::Detach;
    e.subject = resolver_.keyOfEvent(gpuEvent);
    return e;
}

Edit LinkEditor::restore(EventIndex gpuEvent) const
{
    Edit e;
    e.kind = EditKind::Restore;
    e.subject = resolver_.keyOfEvent(gpuEvent);
    return e;
}

Edit LinkEditor::addEdge(EventIndex from, EventIndex to, EdgeKind kind) const
{
    Edit e;
    e.kind = EditKind::AddEdge;
    e.subject = resolver_.keyOfEvent(from);
    e.target = resolver_.keyOfEvent(to);
    e.edge = kind;
    return e;
}

Edit LinkEditor::removeEdge(EventIndex from, EventIndex to, EdgeKind kind) const
{
    Edit e = addEdge(from, to, kind);
    e.kind = EditKind::RemoveEdge;
    return e;
}

Edit LinkEditor::flag(EventIndex event, std::string text) const
{
    Edit e;
    e.kind = EditKind::Flag;
    e.subject = resolver_.keyOfEvent(event);
    e.note = std::move(text);
    return e;
}

Edit LinkEditor::accept(EventIndex event) const
{
    Edit e;
    e.kind = EditKind::Accept;
    e.subject = resolver_.keyOfEvent(event);
    return e;
}

Edit LinkEditor::note(EventIndex event, std::string text) const
{
    Edit e;
    e.kind = EditKind::Note;
    e.subject = resolver_.keyOfEvent(event);
    e.note = std::move(text);
    return e;
}

Edit LinkEditor::markReviewed(const Finding &finding, std::string text) const
{
    Edit e;
    e.kind = EditKind::MarkReviewed;
    e.finding = finding.kind;
    e.note = std::move(text);
    switch (finding.subjectKind) {
    case SubjectKind::DeviceEvent:
        e.subject = resolver_.keyOfEvent(finding.event);
        break;
    case SubjectKind::HostNode:
        e.subject = resolver_.keyOfHostNode(finding.hostNode);
        break;
    case SubjectKind::Trace:
        e.subject = SubjectResolver::traceKey();
        break;
    }
    return e;
}

LogEntry LinkEditor::applySuggestions(FindingKind kind) const
{
    LogEntry entry;
    for (const Finding &f : links_.findings) {
        if (f.kind != kind || f.subjectKind != SubjectKind::DeviceEvent || f.suggestedParent.isNone())
            continue;
        if (!f.event.in(links_.gpuLinkOf.size()) || links_.gpuLinkOf[f.event].isNone())
            continue;
        if (links_.gpuLinks[links_.gpuLinkOf[f.event]].parent == f.suggestedParent)
            continue; // already there: no no-op edit
        entry.edits.push_back(reparent(f.event, f.suggestedParent));
    }
    entry.label = "Apply the suggestion to " + std::to_string(entry.edits.size()) + " finding(s) of this kind";
    return entry;
}

ApplyResult applyCorrections(const CorrectionLog &log, LinkSet &links, const DeviceTrace &device, const HostTrace *host,
                             std::size_t entryLimit)
{
    ApplyResult result;
    LinkEditor editor(links, device, host);
    const std::size_t count = std::min(entryLimit, log.entries.size());
    for (std::size_t i = 0; i < count; ++i) {
        auto outcomes = editor.apply(log.entries[i], i);
        result.outcomes.insert(result.outcomes.end(), std::make_move_iterator(outcomes.begin()),
                               std::make_move_iterator(outcomes.end()));
    }
    return result;
}

ParentDiff diffParents(const LinkSet &before, const LinkSet &after)
{
    if (before.gpuLinks.size() != after.gpuLinks.size())
        throw std::invalid_argument("diffParents: the link sets have different GPU ops (" + std::to_string(before.gpuLinks.size())
                                    + " vs " + std::to_string(after.gpuLinks.size()) + ")");
    ParentDiff diff;
    diff.compared = before.gpuLinks.size();
    for (std::size_t i = 0; i < before.gpuLinks.size(); ++i) {
        const GpuLink &b = before.gpuLinks[i];
        const GpuLink &a = after.gpuLinks[i];
        if (b.gpuEvent != a.gpuEvent)
            throw std::invalid_argument("diffParents: GPU link " + std::to_string(i) + " is a different event");
        if (b.parent != a.parent || b.orphan != a.orphan)
            diff.changes.push_back({b.gpuEvent, b.parent, a.parent, b.orphan, a.orphan});
    }
    return diff;
}

} // namespace linkscope::core
