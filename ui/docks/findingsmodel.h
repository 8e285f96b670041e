#pragma once
// The Findings dock's table model: one row per finding of the links shown, then the linker's findings
// the corrections resolved, each with its status (open, reviewed, corrected, resolved) and cause.

#include "edit/correction.h"
#include "ground/tracedocument.h"
#include "link/finding.h"
#include "report/findinggroups.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <array>
#include <vector>

namespace linkscope::ui {

class CorrectionController;

// One row per finding of the links shown (the corrected ones: diagnosis runs on every edit), in
// LinkSet::findings order, then one per finding of the linker's links that the corrections
// resolved (kept visible with the status "resolved").
class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, Severity, Subject, Status, Message, Suggestion, ColumnCount };
    enum Role { FindingRole = Qt::UserRole, SubjectEventRole, KindRole, OpenRole, SortRole };

    explicit FindingsModel(CorrectionController *controller, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "resolved" (the corrections made it go away), "reviewed", "corrected" (the linker's finding is
    // still there, but its GPU op's link was changed by hand), "open" (including a finding an edit
    // created, e.g. a kernel dragged onto record_param_comms).
    QString statusOf(int row) const;
    enum class RowStatus : std::uint8_t { Open, Reviewed, Corrected, Resolved };
    RowStatus status(int row) const; // statusOf() without the words
    bool isOpen(int row) const { return status(row) == RowStatus::Open; }
    bool isResolved(int row) const;
    // The row of the finding with this kind and subject, preferring a current one; -1 if none.
    int rowOf(const core::FindingRef &ref) const;
    core::EventIndex subjectEvent(int row) const; // none when the subject is not a device event
    const core::Finding &finding(int row) const;
    std::array<int, core::kFindingKindCount> countsByKind() const;
    // What the finding is folded by, and its message with times relative to the trace start.
    const core::FindingCause &causeOf(int row) const { return m_causes.at(static_cast<std::size_t>(row)); }
    QString messageOf(int row) const;
    // The text of a folded row of `count` findings of `cause`.
    QString groupTitle(const core::FindingCause &cause, std::size_t count) const;
    const DocumentPtr &document() const { return m_doc; }

private:
    void refresh();
    // The linker's findings (indices) that `now` no longer has: found where the two lists' chunks differ.
    static std::vector<core::FindingIndex> resolvedFindings(const core::FindingList &linked, const core::FindingList &now);
    // Each of doc's findings' cause; copied from `previousCauses` (of `previous`) where shared.
    static std::vector<core::FindingCause> causesOf(const TraceDocument &doc, const TraceDocument *previous,
                                                    const std::vector<core::FindingCause> &previousCauses);

    CorrectionController *m_controller;
    DocumentPtr m_doc;                          // the document shown: its findings describe the corrected links
    DocumentPtr m_linked;                       // the linker's document: its findings the corrections resolved are kept
    std::vector<core::FindingIndex> m_resolved; // indices into m_linked's findings, absent from m_doc's
    std::vector<core::FindingRef> m_linkedRefs; // m_linked's findings, sorted: which ones the linker made
    std::vector<core::FindingCause> m_causes;   // per row
};

} // namespace linkscope::ui
