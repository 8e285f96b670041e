#pragma once
// The Findings dock: every finding of the linker in a sortable, filterable table with counts per
// kind, kept in step with the timeline selection both ways, next/previous from the keyboard, and
// the review actions (apply the suggestion, to all of a kind, mark reviewed, flag).

#include "edit/correction.h"
#include "link/finding.h"
#include "tracedocument.h"

#include <QAbstractTableModel>
#include <QDockWidget>
#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

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
    bool isResolved(int row) const;
    // The row of the finding with this kind and subject, preferring a current one; -1 if none.
    int rowOf(const core::FindingRef &ref) const;
    std::uint32_t subjectEvent(int row) const; // kNoIndex when the subject is not a device event
    const core::Finding &finding(int row) const;
    std::array<int, core::kFindingKindCount> countsByKind() const;

private:
    void refresh();

    CorrectionController *m_controller;
    DocumentPtr m_doc;    // the document shown: its findings describe the corrected links
    DocumentPtr m_linked; // the linker's document: its findings the corrections resolved are kept
    std::vector<std::uint32_t> m_resolved; // indices into m_linked's findings, absent from m_doc's
    std::vector<core::FindingRef> m_linkedRefs; // m_linked's findings, sorted: which ones the linker made
};

class FindingsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setKind(int kind); // -1: all
    void setOpenOnly(bool on);
    void setText(const QString &text);
    // Only findings whose subject is one of `events` (sorted); nullopt: any.
    void setEvents(std::optional<std::vector<std::uint32_t>> events);
    bool hasEventFilter() const { return m_events.has_value(); }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_kind = -1;
    bool m_openOnly = false;
    QString m_text;
    std::optional<std::vector<std::uint32_t>> m_events;
};

class FindingsDock : public QDockWidget {
    Q_OBJECT
public:
    FindingsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent = nullptr);

    FindingsModel *model() const { return m_model; }
    FindingsFilterModel *filter() const { return m_filter; }
    QTableView *view() const { return m_view; }
    QComboBox *kindBox() const { return m_kindBox; }
    StoryPanel *storyPanel() const { return m_story; }
    QPushButton *applyButton() const { return m_applyButton; }
    QPushButton *applyAllButton() const { return m_applyAllButton; }
    QLabel *eventFilterLabel() const { return m_eventFilterLabel; }

    // The finding of the current row (index into LinkSet::findings), or -1.
    int currentFinding() const;

public slots:
    void next();
    void previous();
    void applySuggestion();
    void applySuggestionToKind();
    void markReviewed();
    void flag();
    // Shows only the findings of these GPU ops (sorted event indices), under `title`, until cleared.
    void showEvents(const QString &title, const std::vector<std::uint32_t> &events);
    void clearEventFilter();

private:
    void step(int delta);
    void onCurrentChanged(const QModelIndex &current);
    void onSelectionChanged(std::uint32_t event);
    void updateKinds();
    void updateButtons();

    CorrectionController *m_controller;
    EventSelection *m_selection;
    FindingsModel *m_model;
    FindingsFilterModel *m_filter;
    QTableView *m_view;
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
};

} // namespace linkscope::ui
