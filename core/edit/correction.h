#pragma once
// Corrections as data: what the user changed about the links, named by keys that survive a
// reload, applied to a LinkSet in order and undone in reverse.

#include "edit/subjectkey.h"
#include "link/linkset.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace linkscope::core {

enum class EditKind : std::uint8_t {
    Reparent,     // GPU op → another CPU op
    Detach,       // GPU op → no parent (orphan, reason Detached)
    Restore,      // GPU op → back to the linker's choice
    AddEdge,      // a Sync or InterThread edge
    RemoveEdge,   //   "
    Flag,         // "this link is wrong", with a note
    Accept,       // "this link is right"
    MarkReviewed, // a finding has been looked at
    Note,         // free text on an event
};
inline constexpr int kEditKindCount = static_cast<int>(EditKind::Note) + 1;
std::string_view editKindName(EditKind kind); // stable: these are the sidecar's spellings
std::optional<EditKind> editKindFromName(std::string_view name);

struct Edit {
    EditKind kind = EditKind::Reparent;
    SubjectKey subject;                                    // the GPU op; an edge's source; a finding's subject
    SubjectKey target;                                     // Reparent: the new parent; edges: the edge's target
    EdgeKind edge = EdgeKind::Sync;                        // AddEdge / RemoveEdge
    FindingKind finding = FindingKind::PolicyDisagreement; // MarkReviewed
    std::string note;                                      // Flag, Note, MarkReviewed (optional)

    std::string describe() const;
    friend bool operator==(const Edit &, const Edit &) = default;
};

// One user action: a single edit, or a bulk edit (many edits undone as one step).
struct LogEntry {
    std::string label; // shown in the Edits dock and the undo menu
    std::vector<Edit> edits;
    friend bool operator==(const LogEntry &, const LogEntry &) = default;
};

struct CorrectionLog {
    std::vector<LogEntry> entries;
    std::size_t editCount() const;
    friend bool operator==(const CorrectionLog &, const CorrectionLog &) = default;
};

enum class EditStatus : std::uint8_t {
    Applied,
    Unchanged, // valid, but nothing to do (e.g. restoring a link that was never changed)
    Stale,     // its subject (or target) is not in these traces any more
    Rejected,  // the subject exists but the edit does not apply to it (e.g. re-parenting onto a kernel)
};
std::string_view editStatusName(EditStatus status);

struct EditOutcome {
    std::size_t entry = 0; // position in the log
    std::size_t edit = 0;  // position in the entry
    EditStatus status = EditStatus::Applied;
    std::string reason; // why it is stale / rejected / unchanged
};

struct ApplyResult {
    std::vector<EditOutcome> outcomes; // one per edit, in log order
    std::size_t count(EditStatus status) const;
    std::vector<EditOutcome> problems() const; // the stale and rejected ones
};

// What the user said about events and findings (flags, notes, accepts, reviews): no effect on
// the links, shown in the UI and carried into reports.
struct FindingRef {
    FindingKind kind = FindingKind::PolicyDisagreement;
    SubjectKind subjectKind = SubjectKind::DeviceEvent;
    EventIndex event{}; // as Finding::event / Finding::hostNode
    HostNodeIndex hostNode{};
    auto operator<=>(const FindingRef &) const = default;
};
inline FindingRef refOf(const Finding &f) { return {f.kind, f.subjectKind, f.event, f.hostNode}; }

struct ReviewState {
    std::unordered_map<EventIndex, std::string> flags; // event → note
    std::unordered_map<EventIndex, std::string> notes; // event → note
    std::unordered_set<EventIndex> accepted;           // events
    std::map<FindingRef, std::string> reviewed;        // finding → note
    bool isReviewed(const Finding &f) const { return reviewed.count(refOf(f)) > 0; }
};

// Applies log entries to a LinkSet one at a time and undoes them last-first. While it lives it is
// the only thing that changes the LinkSet's gpuLinks, edges and findings: every changed GPU link's
// findings are derived again (link/diagnose.h), so they describe the corrected links. A re-parent
// is refused, with the reason, when link/rules.h checkReparent refuses it (another process, not a
// CPU op), whoever asks: the GUI, a sidecar, `export --corrections`, `link --corrections`. Key lookups are O(log n); edge
// removal is O(1) (the removed edge's slot is refilled from the end of LinkSet::edges, so edge
// order is not preserved, but it is deterministic for a given log).
class LinkEditor {
public:
    LinkEditor(LinkSet &links, const DeviceTrace &device, const HostTrace *host);
    LinkEditor(const LinkEditor &) = delete;
    LinkEditor &operator=(const LinkEditor &) = delete;
    ~LinkEditor();

    // Applies every edit of the entry; `entryIndex` only labels the outcomes.
    std::vector<EditOutcome> apply(const LogEntry &entry, std::size_t entryIndex = 0);
    // Reverts the most recently applied entry that has not been undone. False if there is none.
    bool undoLast();
    std::size_t appliedEntries() const { return undo_.size(); }

    const ReviewState &review() const { return review_; }
    const SubjectResolver &resolver() const { return resolver_; }
    const LinkSet &links() const { return links_; }
    // The link as the linker made it (before any correction), for GPU link `linkIndex`.
    const GpuLink &linkerChoice(GpuLinkIndex linkIndex) const;
    bool isCorrected(GpuLinkIndex linkIndex) const;

    // Edits built from event indices (the GUI's and the bulk actions' way in).
    Edit reparent(EventIndex gpuEvent, EventIndex newParent) const;
    Edit detach(EventIndex gpuEvent) const;
    Edit restore(EventIndex gpuEvent) const;
    Edit addEdge(EventIndex from, EventIndex to, EdgeKind kind) const;
    Edit removeEdge(EventIndex from, EventIndex to, EdgeKind kind) const;
    Edit flag(EventIndex event, std::string note) const;
    Edit accept(EventIndex event) const;
    Edit note(EventIndex event, std::string text) const;
    Edit markReviewed(const Finding &finding, std::string note = {}) const;

    // One entry re-parenting every finding of `kind` that has a suggested parent to it.
    LogEntry applySuggestions(FindingKind kind) const;

private:
    struct Change;
    struct EdgeKey {
        EventIndex from, to;
        EdgeKind kind;
        bool operator==(const EdgeKey &) const = default;
    };
    struct EdgeKeyHash {
        std::size_t operator()(const EdgeKey &k) const
        {
            return (std::uint64_t(k.from.value) * 0x9E3779B97F4A7C15ULL) ^ (std::uint64_t(k.to.value) << 3)
                   ^ std::uint64_t(k.kind);
        }
    };

    EditOutcome applyOne(const Edit &edit, std::vector<Change> &changes);
    // One edit of each kind, its subject resolved.
    EditOutcome applyLinkEdit(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes);
    EditOutcome addEdge(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes);
    EditOutcome removeEdge(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes);
    EditOutcome annotate(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes);
    EditOutcome markReviewed(const Edit &edit, const SubjectResolver::Resolution &subject, std::vector<Change> &changes);
    // Why an edge edit cannot be made, or nothing: then the edge's key is in `key` and the index of
    // editable edges is built.
    std::optional<EditOutcome> checkEdgeEdit(const Edit &edit, const SubjectResolver::Resolution &subject, EdgeKey &key);
    void revert(const Change &change);
    void setLink(GpuLinkIndex linkIndex, const GpuLink &value, std::vector<Change> &changes);
    // Where an editable edge's position is recorded: a row of indexedEdges_, or addedEdges_.
    static constexpr std::uint32_t kAddedEdge = std::numeric_limits<std::uint32_t>::max();
    struct IndexedEdge {
        std::uint64_t fromTo;
        EdgeKind kind;
        EdgeIndex position; // in LinkSet::edges; none while removed
    };
    void buildEdgeIndex();
    std::pair<IndexedEdge *, IndexedEdge *> indexedRange(const EdgeKey &key);
    bool edgePresent(const EdgeKey &key);
    void edgeMoved(EdgeIndex from, EdgeIndex to);

    LinkSet &links_;
    const DeviceTrace &device_;
    SubjectResolver resolver_;
    ReviewState review_;
    std::unordered_map<GpuLinkIndex, GpuLink> linkerChoice_; // recorded on first change
    // Sync / InterThread edges, sorted once on the first edge edit: O(log n) lookups without a
    // hash node per edge (traces have millions). Edges added by edits live in addedEdges_.
    std::vector<IndexedEdge> indexedEdges_;
    std::unordered_map<EdgeKey, std::vector<EdgeIndex>, EdgeKeyHash> addedEdges_;
    bool edgeIndexBuilt_ = false;
    std::vector<std::vector<Change>> undo_;
};

// Applies a whole log (or its first `entryLimit` entries) to `links`: what reopening the pair,
// relinking, changing the policy and `linkscope export --corrections` do.
ApplyResult applyCorrections(const CorrectionLog &log, LinkSet &links, const DeviceTrace &device, const HostTrace *host,
                             std::size_t entryLimit = SIZE_MAX);

// How two link sets of the same device trace differ in the parents of their GPU ops (a policy
// change, a relink, corrections).
struct ParentChange {
    EventIndex gpuEvent{};
    EventIndex before{}; // parent event, none when orphaned
    EventIndex after{};
    OrphanReason orphanBefore = OrphanReason::None;
    OrphanReason orphanAfter = OrphanReason::None;
};
struct ParentDiff {
    std::size_t compared = 0;
    std::vector<ParentChange> changes; // in event order
};
// Throws std::invalid_argument when the two sets do not describe the same GPU ops.
ParentDiff diffParents(const LinkSet &before, const LinkSet &after);

} // namespace linkscope::core
