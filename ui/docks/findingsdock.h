#pragma once
// The Findings dock: every finding in a tree by severity (errors, warnings, then info, folded away
// by default), findings of one cause folded into one expandable row (report/findinggroups.h decides
// which and what the row says), times relative to the trace start; filterable with counts per kind,
// kept in step with the timeline selection both ways, next/previous from the keyboard, and the
// review actions (apply the suggestion — to one finding or a folded group's open ones —, to all of
// a kind, mark reviewed, flag). Esc or Enter hands the keyboard back to the timeline.

#include "edit/correction.h"
#include "jobview/jobfindingslist.h"
#include "link/finding.h"
#include "report/findinggroups.h"
#include "shell/tracedocument.h"

#include <QAbstractTableModel>
#include <QDockWidget>
#include <QPointer>
#include <QSet>
#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeView;

namespace linkscope::ui {

class CorrectionController;
class EventSelection;
class StoryPanel;

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

class FindingsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setKind(int kind); // -1: all
    void setOpenOnly(bool on);
    void setText(const QString &text);
    // Only findings whose subject is one of `events` (sorted); nullopt: any.
    void setEvents(std::optional<std::vector<core::EventIndex>> events);
    bool hasEventFilter() const { return m_events.has_value(); }

signals:
    void filterChanged(); // after each setter (once, whatever rows it hid or showed)

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_kind = -1;
    bool m_openOnly = false;
    QString m_text;
    std::optional<std::vector<core::EventIndex>> m_events;
};

// The filtered findings as a tree: severity → folded group (two or more findings of one cause) →
// finding; a cause with one finding is a finding row directly under its severity. Rebuilt whenever
// the filter or the findings change.
class FindingsTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Finding, Status, Suggestion, ColumnCount };
    enum NodeType { SeverityNode, GroupNode, FindingNode };
    enum Role { NodeTypeRole = FindingsModel::SortRole + 1 }; // also FindingsModel's Finding/SubjectEvent/Kind roles

    FindingsTreeModel(FindingsModel *findings, FindingsFilterModel *filter, QObject *parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    NodeType nodeType(const QModelIndex &index) const;
    int findingRow(const QModelIndex &index) const;                    // FindingsModel row of a finding node, else -1
    QModelIndex indexOfFinding(int findingRow) const;                  // invalid when filtered out
    std::vector<int> findingRowsUnder(const QModelIndex &index) const; // a group's (or severity's) findings
    core::FindingSeverity severityOf(const QModelIndex &index) const;
    const core::FindingCause *causeOf(const QModelIndex &index) const; // groups and findings
    // Every finding node, in tree order (next / previous step through these).
    std::vector<QModelIndex> findingIndexes() const;

private:
    struct Node {
        NodeType type = FindingNode;
        int parent = -1; // node index
        int row = 0;     // in the parent
        std::vector<int> children;
        int finding = -1; // FindingsModel row (finding nodes)
        core::FindingSeverity severity = core::FindingSeverity::Info;
        core::FindingCause cause;
        int open = 0;  // open findings under it
        int total = 0; // findings under it
    };
public slots:
    void rebuild();

private:
    const Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOfNode(int node, int column = 0) const;

    FindingsModel *m_findings;
    FindingsFilterModel *m_filter;
    std::vector<Node> m_nodes;
    std::vector<int> m_top;           // severity nodes
    std::vector<int> m_nodeOfFinding; // FindingsModel row → node, -1
};

class FindingsDock : public QDockWidget {
    Q_OBJECT
public:
    FindingsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent = nullptr);

    FindingsModel *model() const { return m_model; }
    FindingsFilterModel *filter() const { return m_filter; }
    FindingsTreeModel *tree() const { return m_tree; }
    QTreeView *view() const { return m_view; }
    QLineEdit *searchEdit() const { return m_search; }
    QComboBox *kindBox() const { return m_kindBox; }
    StoryPanel *storyPanel() const { return m_story; }
    QPushButton *applyButton() const { return m_applyButton; }
    QPushButton *applyAllButton() const { return m_applyAllButton; }
    QLabel *eventFilterLabel() const { return m_eventFilterLabel; }
    // A job's cross-rank findings ("Across ranks", above this rank's own; hidden without a job).
    JobFindingsList *jobFindings() const { return m_jobFindings; }
    void setJob(const JobPtr &job);
    // The job's rank whose traces are open (-1: none, or not part of the job): named above its findings.
    void setOpenRank(qint64 rank);

    // The finding of the current row (a FindingsModel row), or -1 (none, or a severity or group row).
    int currentFinding() const;
    // Makes the finding of FindingsModel row `row` current (unfolding what hides it); false when
    // the filter hides it.
    bool setCurrentFinding(int row);
    // Where Esc and Enter send the keyboard focus (the timeline). Not owned.
    void setFocusHome(QWidget *home) { m_focusHome = home; }
    void returnFocus();

public slots:
    void next();
    void previous();
    void applySuggestion();
    void applySuggestionToKind();
    void markReviewed();
    void flag();
    // Shows only the findings of these GPU ops (sorted event indices), under `title`, until cleared.
    void showEvents(const QString &title, const std::vector<core::EventIndex> &events);
    void clearEventFilter();

signals:
    // The user made a finding current (not the timeline): show its GPU op with its current and
    // suggested parents.
    void frameRequested(core::EventIndex gpuEvent, core::EventIndex suggestedParent);
    // The user made cross-rank finding `row` (a JobReport::findings index) current.
    void jobFindingActivated(int row);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void step(int delta);
    void onCurrentChanged(const QModelIndex &current);
    void onSelectionChanged(core::EventIndex event);
    void updateKinds();
    void updateButtons();
    void restoreExpansion();
    QString expansionKey(const QModelIndex &index) const;
    std::vector<core::Finding> openFindingsUnder(const QModelIndex &index) const;

    CorrectionController *m_controller;
    EventSelection *m_selection;
    FindingsModel *m_model;
    FindingsFilterModel *m_filter;
    FindingsTreeModel *m_tree;
    QTreeView *m_view;
    QComboBox *m_kindBox;
    QLineEdit *m_search;
    QCheckBox *m_openOnly;
    StoryPanel *m_story;
    QWidget *m_eventFilterBar;
    QLabel *m_eventFilterLabel;
    QString m_eventFilterTitle;
    std::size_t m_eventFilterCount = 0;
    QLabel *m_countLabel;
    QPushButton *m_applyButton;
    QPushButton *m_applyAllButton;
    QPushButton *m_reviewedButton;
    QPushButton *m_flagButton;
    bool m_syncing = false;
    std::optional<core::FindingRef> m_keepCurrent; // the current finding across a model reset
    QString m_keepCurrentKey;                      // or the current group / severity row
    bool m_keepTaken = false;                      // taken before the findings' reset
    QSet<QString> m_expanded;                      // severity and group rows the user unfolded ("s<severity>", "g<cause>")
    QSet<QString> m_collapsed;                     // severity rows the user folded (errors and warnings start unfolded)
    bool m_restoring = false;
    QPointer<QWidget> m_focusHome;
    QWidget *m_jobPanel;
    QLabel *m_jobLabel;
    QLabel *m_rankLabel;
    JobFindingsList *m_jobFindings;
    qint64 m_openRank = -1;
};

} // namespace linkscope::ui
