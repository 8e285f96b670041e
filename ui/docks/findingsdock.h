#pragma once
// The Findings dock: every finding in a tree by severity (errors, warnings, then info, folded away
// by default), findings of one cause folded into one expandable row (report/findinggroups.h decides
// which and what the row says), times relative to the trace start; filterable with counts per kind,
// kept in step with the timeline selection both ways, next/previous from the keyboard, and the
// review actions (apply the suggestion — to one finding or a folded group's open ones —, to all of
// a kind, mark reviewed, flag). Esc or Enter hands the keyboard back to the timeline.

#include "docks/findingstreemodel.h"
#include "edit/correction.h"
#include "ground/tracedocument.h"
#include "jobview/jobfindingslist.h"

#include <QDockWidget>
#include <QPointer>
#include <QSet>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTreeView;

namespace linkscope::ui {

class CorrectionController;
class EventSelection;
class StoryPanel;

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
    QLabel *eventFilterLabel() const { return m_eventFilter.label; }
    // A job's cross-rank findings ("Across ranks", above this rank's own; hidden without a job).
    JobFindingsList *jobFindings() const { return m_jobSection.findings; }
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
    // The constructor's sections, top to bottom, then their wiring.
    QHBoxLayout *buildFilterRow(QWidget *body);
    QWidget *buildEventFilterBar(QWidget *body);
    void buildFindingsView(QWidget *body);
    QSplitter *buildJobSplit(QWidget *body);
    QHBoxLayout *buildButtonRow(QWidget *body);
    void wireFilters();
    void wireSelection();
    void wireExpansion();
    void wireModelResets();
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
    // While showEvents() filters: the bar saying so, with its title and how many GPU ops.
    struct EventFilterBar {
        QWidget *bar = nullptr;
        QLabel *label = nullptr;
        QString title;
        std::size_t count = 0;
    } m_eventFilter;
    QLabel *m_countLabel;
    QPushButton *m_applyButton;
    QPushButton *m_applyAllButton;
    QPushButton *m_reviewedButton;
    QPushButton *m_flagButton;
    bool m_syncing = false;
    // The current row across a model reset.
    struct KeptCurrent {
        std::optional<core::FindingRef> finding; // the current finding
        QString key;                             // or the current group / severity row
        bool taken = false;                      // taken before the findings' reset
    } m_kept;
    QSet<QString> m_expanded;  // severity and group rows the user unfolded ("s<severity>", "g<cause>")
    QSet<QString> m_collapsed; // severity rows the user folded (errors and warnings start unfolded)
    bool m_restoring = false;
    QPointer<QWidget> m_focusHome;
    // A job's cross-rank findings above this rank's own (hidden without a job).
    struct JobSection {
        QWidget *panel = nullptr;
        QLabel *label = nullptr;
        QLabel *rankLabel = nullptr; // names the open rank above its findings
        JobFindingsList *findings = nullptr;
        qint64 openRank = -1;
    } m_jobSection;
};

} // namespace linkscope::ui
