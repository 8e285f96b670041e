#include "docks/findingsdock.h"

#include "ground/fromstd.h"

#include "docks/elidedelegate.h"
#include "ground/eventselection.h"
#include "ground/timeformat.h"
#include "review/correctioncontroller.h"
#include "review/storypanel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace linkscope::ui {

FindingsDock::FindingsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Findings"), parent), m_controller(controller), m_selection(selection),
      m_model(new FindingsModel(controller, this)), m_filter(new FindingsFilterModel(this))
{
    setObjectName(QStringLiteral("FindingsDock"));
    m_filter->setSourceModel(m_model);
    m_tree = new FindingsTreeModel(m_model, m_filter, this);

    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    // Created in this order (the story panel after the filters), laid out top to bottom.
    QHBoxLayout *filters = buildFilterRow(body);
    m_story = new StoryPanel(body);
    layout->addWidget(m_story);
    layout->addLayout(filters);
    layout->addWidget(buildEventFilterBar(body));
    buildFindingsView(body);
    layout->addWidget(buildJobSplit(body), 1);
    layout->addLayout(buildButtonRow(body));
    setWidget(body);

    wireFilters();
    wireSelection();
    wireExpansion();
    wireModelResets();
    updateKinds();
    restoreExpansion();
}

// The kind box, the text filter, "Open only" and the count shown.
QHBoxLayout *FindingsDock::buildFilterRow(QWidget *body)
{
    auto *filters = new QHBoxLayout;
    m_kindBox = new QComboBox(body);
    m_kindBox->setToolTip(tr("Show one kind of finding (the count of each is in brackets)"));
    m_search = new QLineEdit(body);
    m_search->setPlaceholderText(tr("Filter by name or message"));
    m_search->setClearButtonEnabled(true);
    m_search->installEventFilter(this);
    m_openOnly = new QCheckBox(tr("Open only"), body);
    m_openOnly->setToolTip(tr("Hide findings resolved by the corrections, reviewed or corrected"));
    m_countLabel = new QLabel(body);
    filters->addWidget(m_kindBox, 2);
    filters->addWidget(m_search, 3);
    filters->addWidget(m_openOnly);
    filters->addWidget(m_countLabel);
    return filters;
}

// "Showing only the findings of …" and Show all, while showEvents() filters (hidden until then).
QWidget *FindingsDock::buildEventFilterBar(QWidget *body)
{
    m_eventFilter.bar = new QWidget(body);
    auto *eventFilter = new QHBoxLayout(m_eventFilter.bar);
    eventFilter->setContentsMargins(0, 0, 0, 0);
    m_eventFilter.label = new QLabel(m_eventFilter.bar);
    auto *clearEvents = new QPushButton(tr("Show all"), m_eventFilter.bar);
    clearEvents->setToolTip(tr("Show the findings of every event again"));
    eventFilter->addWidget(m_eventFilter.label, 1);
    eventFilter->addWidget(clearEvents);
    m_eventFilter.bar->hide();
    connect(clearEvents, &QPushButton::clicked, this, &FindingsDock::clearEventFilter);
    return m_eventFilter.bar;
}

// The findings' tree: whole rows, one at a time, columns that fit.
void FindingsDock::buildFindingsView(QWidget *body)
{
    m_view = new QTreeView(body);
    m_view->setModel(m_tree);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setUniformRowHeights(true); // thousands of rows under one group stay cheap
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle); // kernel names are long: keep both ends
    m_view->installEventFilter(this);
    // Columns that fit: the finding takes what the status does not, the suggestion a third.
    QHeaderView *header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(FindingsTreeModel::Finding, QHeaderView::Stretch);
    header->setSectionResizeMode(FindingsTreeModel::Status, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(FindingsTreeModel::Suggestion, QHeaderView::Interactive);
    header->resizeSection(FindingsTreeModel::Suggestion, 460);
    // A suggestion is a sentence ("Re-parent to … under …"): cut at its end, not in its middle.
    m_view->setItemDelegateForColumn(FindingsTreeModel::Suggestion, new ElideRightDelegate(m_view));
}

// A job's cross-rank findings above the open rank's own (hidden until a job is open), over the tree.
QSplitter *FindingsDock::buildJobSplit(QWidget *body)
{
    auto *split = new QSplitter(Qt::Vertical, body);
    m_jobSection.panel = new QWidget(split);
    auto *jobLayout = new QVBoxLayout(m_jobSection.panel);
    jobLayout->setContentsMargins(0, 0, 0, 0);
    m_jobSection.label = new QLabel(m_jobSection.panel);
    m_jobSection.label->setWordWrap(true);
    m_jobSection.findings = new JobFindingsList(m_jobSection.panel);
    jobLayout->addWidget(m_jobSection.label);
    jobLayout->addWidget(m_jobSection.findings, 1);
    m_jobSection.rankLabel = new QLabel(m_jobSection.panel);
    jobLayout->addWidget(m_jobSection.rankLabel);
    m_jobSection.panel->hide();
    split->addWidget(m_jobSection.panel);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    connect(m_jobSection.findings, &JobFindingsList::findingActivated, this, &FindingsDock::jobFindingActivated);
    return split;
}

// Previous, next and the review actions.
QHBoxLayout *FindingsDock::buildButtonRow(QWidget *body)
{
    auto *buttons = new QHBoxLayout;
    auto *prev = new QPushButton(tr("◀ Previous"), body);
    auto *next = new QPushButton(tr("Next ▶"), body);
    prev->setToolTip(tr("Previous finding (Shift+N, Shift+F8)"));
    next->setToolTip(tr("Next finding (N, F8)"));
    m_applyButton = new QPushButton(tr("Apply suggestion"), body);
    m_applyAllButton = new QPushButton(tr("Apply to all of this kind"), body);
    m_reviewedButton = new QPushButton(tr("Mark reviewed"), body);
    m_flagButton = new QPushButton(tr("Flag…"), body);
    m_applyAllButton->setToolTip(tr("Re-parent every finding of this kind to its suggested parent, as one undoable step"));
    for (QPushButton *b : {prev, next, m_applyButton, m_applyAllButton, m_reviewedButton, m_flagButton})
        buttons->addWidget(b);
    buttons->addStretch(1);
    connect(prev, &QPushButton::clicked, this, &FindingsDock::previous);
    connect(next, &QPushButton::clicked, this, &FindingsDock::next);
    connect(m_applyButton, &QPushButton::clicked, this, &FindingsDock::applySuggestion);
    connect(m_applyAllButton, &QPushButton::clicked, this, &FindingsDock::applySuggestionToKind);
    connect(m_reviewedButton, &QPushButton::clicked, this, &FindingsDock::markReviewed);
    connect(m_flagButton, &QPushButton::clicked, this, &FindingsDock::flag);
    return buttons;
}

void FindingsDock::wireFilters()
{
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
        updateButtons();
    });
    connect(m_search, &QLineEdit::textChanged, m_filter, &FindingsFilterModel::setText);
    connect(m_openOnly, &QCheckBox::toggled, m_filter, &FindingsFilterModel::setOpenOnly);
}

// The current row and the timeline's selection, kept in step both ways.
void FindingsDock::wireSelection()
{
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { onCurrentChanged(current); });
    connect(m_selection, &EventSelection::changed, this, &FindingsDock::onSelectionChanged);
}

void FindingsDock::wireExpansion()
{
    // The user's folding survives every rebuild (each edit, each filter).
    connect(m_view, &QTreeView::expanded, this, [this](const QModelIndex &index) {
        if (m_restoring)
            return;
        m_expanded.insert(expansionKey(index));
        m_collapsed.remove(expansionKey(index));
    });
    connect(m_view, &QTreeView::collapsed, this, [this](const QModelIndex &index) {
        if (m_restoring)
            return;
        m_expanded.remove(expansionKey(index));
        m_collapsed.insert(expansionKey(index));
    });
}

void FindingsDock::wireModelResets()
{
    // Every edit publishes new findings: the current row stays on the same finding (kind, subject),
    // or the same group. Taken before the findings reset (after it, the tree's rows are stale).
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const int f = currentFinding();
        m_kept.finding = f >= 0 ? std::optional<core::FindingRef>(core::refOf(m_model->finding(f))) : std::nullopt;
        m_kept.key = f < 0 && m_view->currentIndex().isValid() ? expansionKey(m_view->currentIndex()) : QString();
        m_kept.taken = true;
    });
    connect(m_tree, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        if (m_kept.taken)
            return;
        const int f = currentFinding();
        m_kept.finding = f >= 0 ? std::optional<core::FindingRef>(core::refOf(m_model->finding(f))) : std::nullopt;
        m_kept.key = f < 0 && m_view->currentIndex().isValid() ? expansionKey(m_view->currentIndex()) : QString();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &FindingsDock::updateKinds);
    connect(m_tree, &QAbstractItemModel::modelReset, this, [this] {
        restoreExpansion();
        QModelIndex at;
        if (m_kept.finding) {
            const int row = m_model->rowOf(*m_kept.finding);
            at = row >= 0 ? m_tree->indexOfFinding(row) : QModelIndex();
        } else if (!m_kept.key.isEmpty()) {
            for (int s = 0; s < m_tree->rowCount() && !at.isValid(); ++s) {
                const QModelIndex severity = m_tree->index(s, 0);
                if (expansionKey(severity) == m_kept.key)
                    at = severity;
                for (int g = 0; g < m_tree->rowCount(severity) && !at.isValid(); ++g)
                    if (expansionKey(m_tree->index(g, 0, severity)) == m_kept.key)
                        at = m_tree->index(g, 0, severity);
            }
        }
        m_kept.finding.reset();
        m_kept.key.clear();
        m_kept.taken = false;
        if (at.isValid()) {
            m_syncing = true;
            m_view->setCurrentIndex(at);
            m_syncing = false;
        }
        updateButtons();
    });
    connect(m_controller, &CorrectionController::changed, this, &FindingsDock::updateButtons);
}

QString FindingsDock::expansionKey(const QModelIndex &index) const
{
    const core::FindingCause *cause = m_tree->causeOf(index);
    if (m_tree->nodeType(index) == FindingsTreeModel::SeverityNode || !cause)
        return QStringLiteral("s%1").arg(int(m_tree->severityOf(index)));
    return QStringLiteral("g%1/%2/%3/%4/%5")
        .arg(int(cause->severity))
        .arg(int(cause->kind))
        .arg(int(cause->detail))
        .arg(cause->name)
        .arg(cause->otherName);
}

void FindingsDock::restoreExpansion()
{
    // Errors and warnings unfolded, info folded away, groups folded: unless the user chose otherwise.
    m_restoring = true;
    for (int s = 0; s < m_tree->rowCount(); ++s) {
        const QModelIndex severity = m_tree->index(s, 0);
        const QString key = expansionKey(severity);
        const bool byDefault = m_tree->severityOf(severity) != core::FindingSeverity::Info;
        m_view->setExpanded(severity, m_expanded.contains(key) || (byDefault && !m_collapsed.contains(key)));
        for (int g = 0; g < m_tree->rowCount(severity); ++g) {
            const QModelIndex group = m_tree->index(g, 0, severity);
            if (m_tree->nodeType(group) == FindingsTreeModel::GroupNode)
                m_view->setExpanded(group, m_expanded.contains(expansionKey(group)));
        }
    }
    m_restoring = false;
}

int FindingsDock::currentFinding() const { return m_tree->findingRow(m_view->currentIndex()); }

bool FindingsDock::setCurrentFinding(int row)
{
    const QModelIndex at = m_tree->indexOfFinding(row);
    if (!at.isValid())
        return false;
    for (QModelIndex p = at.parent(); p.isValid(); p = p.parent())
        m_view->expand(p);
    m_view->setCurrentIndex(at);
    m_view->scrollTo(at);
    return true;
}

void FindingsDock::returnFocus()
{
    if (m_focusHome)
        m_focusHome->setFocus(Qt::OtherFocusReason);
}

bool FindingsDock::eventFilter(QObject *watched, QEvent *event)
{
    if ((watched == m_view || watched == m_search) && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape) {
            returnFocus();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            // On a severity or group row Enter folds or unfolds it, and the keyboard stays here.
            const QModelIndex current = m_view->currentIndex();
            if (watched == m_view && current.isValid() && m_tree->nodeType(current) != FindingsTreeModel::FindingNode) {
                m_view->setExpanded(current.siblingAtColumn(0), !m_view->isExpanded(current.siblingAtColumn(0)));
                return true;
            }
            returnFocus();
            return true;
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

void FindingsDock::updateKinds()
{
    const QVariant keep = m_kindBox->currentData();
    const auto counts = m_model->countsByKind();
    QSignalBlocker block(m_kindBox);
    m_kindBox->clear();
    // As the status line counts them (the open findings of the links shown), plus those your
    // corrections resolved, which the list keeps.
    int resolved = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        resolved += m_model->isResolved(row) ? 1 : 0;
    m_kindBox->addItem(resolved ? tr("All kinds (%L1 + %L2 resolved)").arg(m_model->rowCount() - resolved).arg(resolved)
                                : tr("All kinds (%L1)").arg(m_model->rowCount()));
    for (int k = 0; k < core::kFindingKindCount; ++k)
        if (counts[static_cast<std::size_t>(k)] > 0)
            m_kindBox->addItem(tr("%1 (%L2)")
                                   .arg(fromStd(core::findingKindName(static_cast<core::FindingKind>(k))))
                                   .arg(counts[static_cast<std::size_t>(k)]),
                               k);
    const int at = keep.isValid() ? m_kindBox->findData(keep) : 0;
    m_kindBox->setCurrentIndex(at < 0 ? 0 : at);
    m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
    updateButtons();
}

void FindingsDock::showEvents(const QString &title, const std::vector<core::EventIndex> &events)
{
    m_eventFilter.title = title;
    m_eventFilter.count = events.size();
    std::vector<core::EventIndex> sorted = events;
    std::sort(sorted.begin(), sorted.end());
    m_kindBox->setCurrentIndex(0); // every kind: the GPU ops are the filter
    m_filter->setEvents(std::move(sorted));
    m_eventFilter.bar->show();
    updateButtons();
}

void FindingsDock::clearEventFilter()
{
    m_filter->setEvents(std::nullopt);
    m_eventFilter.bar->hide();
    updateButtons();
}

std::vector<core::Finding> FindingsDock::openFindingsUnder(const QModelIndex &index) const
{
    std::vector<core::Finding> out;
    for (int row : m_tree->findingRowsUnder(index))
        if (!m_model->isResolved(row) && m_model->statusOf(row) == tr("open"))
            out.push_back(m_model->finding(row));
    return out;
}

void FindingsDock::updateButtons()
{
    m_countLabel->setText(tr("%L1 shown").arg(m_filter->rowCount()));
    if (m_filter->hasEventFilter())
        m_eventFilter.label->setText(tr("Showing only the findings of %1 (%L2 GPU ops; all of them are in the search results)")
                                         .arg(m_eventFilter.title)
                                         .arg(m_eventFilter.count));
    const QModelIndex current = m_view->currentIndex();
    const bool group = current.isValid() && m_tree->nodeType(current) == FindingsTreeModel::GroupNode;
    const int f = currentFinding();
    const bool has = f >= 0 && m_controller->ready();
    const bool resolved = has && m_model->isResolved(f);
    const core::Finding *finding = has ? &m_model->finding(f) : nullptr;
    if (group) {
        // A folded group: its open findings with a suggested parent, as one step.
        const std::vector<core::Finding> open = openFindingsUnder(current);
        const auto withSuggestion = std::count_if(open.begin(), open.end(), [](const core::Finding &g) {
            return g.suggestedParent.valid() && g.subjectKind == core::SubjectKind::DeviceEvent;
        });
        m_applyButton->setEnabled(m_controller->ready() && withSuggestion > 0);
        m_applyButton->setText(withSuggestion > 0 ? tr("Apply %L1 suggestions").arg(withSuggestion) : tr("Apply suggestion"));
        m_applyButton->setToolTip(withSuggestion > 0
                                      ? tr("Re-parent the group's open findings to their suggested parents, as one undoable step")
                                      : tr("No open finding of this group has a suggested parent"));
        const core::FindingCause *cause = m_tree->causeOf(current);
        const bool kindHasSuggestions = cause && withSuggestion > 0;
        m_applyAllButton->setEnabled(kindHasSuggestions);
        m_reviewedButton->setEnabled(false);
        m_flagButton->setEnabled(false);
        return;
    }
    m_applyButton->setText(tr("Apply suggestion"));
    // A resolved finding's suggestion is of the linker's links, not the corrected ones: nothing to apply.
    m_applyButton->setEnabled(finding && !resolved && finding->suggestedParent.valid()
                              && finding->subjectKind == core::SubjectKind::DeviceEvent);
    m_applyAllButton->setEnabled(m_applyButton->isEnabled());
    m_applyButton->setToolTip(resolved ? tr("The corrections resolved this finding") : QString());
    m_reviewedButton->setEnabled(has && !resolved);
    m_flagButton->setEnabled(has && m_model->subjectEvent(f).valid());
}

void FindingsDock::onCurrentChanged(const QModelIndex &current)
{
    updateButtons();
    if (m_syncing || !current.isValid())
        return;
    const int f = m_tree->findingRow(current);
    if (f < 0)
        return;
    const core::EventIndex event = m_model->subjectEvent(f);
    if (event.isNone())
        return;
    m_syncing = true;
    m_selection->select(event);
    m_syncing = false;
    emit frameRequested(event, m_model->finding(f).suggestedParent);
}

void FindingsDock::onSelectionChanged(core::EventIndex event)
{
    if (m_syncing || event.isNone())
        return;
    // The current row follows the timeline when the event has a finding; otherwise it stays.
    if (currentFinding() >= 0 && m_model->subjectEvent(currentFinding()) == event)
        return;
    for (int row = 0; row < m_filter->rowCount(); ++row) {
        const QModelIndex index = m_filter->index(row, 0);
        if (core::EventIndex(static_cast<std::uint32_t>(m_filter->data(index, FindingsModel::SubjectEventRole).toULongLong()))
            == event) {
            m_syncing = true;
            setCurrentFinding(m_filter->mapToSource(index).row());
            m_syncing = false;
            return;
        }
    }
}

void FindingsDock::step(int delta)
{
    // Through every finding in tree order, folded ones included (landing on one unfolds it).
    const std::vector<QModelIndex> all = m_tree->findingIndexes();
    if (all.empty())
        return;
    const int rows = static_cast<int>(all.size());
    const int current = currentFinding();
    int at = -1;
    for (int i = 0; i < rows && at < 0; ++i)
        if (m_tree->findingRow(all[static_cast<std::size_t>(i)]) == current)
            at = i;
    int row = at >= 0 ? at + delta : (delta > 0 ? 0 : rows - 1);
    row = (row + rows) % rows; // wraps around, as "next problem" does in editors
    setCurrentFinding(m_tree->findingRow(all[static_cast<std::size_t>(row)]));
}

void FindingsDock::next() { step(1); }
void FindingsDock::previous() { step(-1); }

void FindingsDock::applySuggestion()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid() && m_tree->nodeType(current) == FindingsTreeModel::GroupNode) {
        m_controller->applySuggestions(openFindingsUnder(current));
        return;
    }
    const int f = currentFinding();
    if (f >= 0 && !m_model->isResolved(f))
        m_controller->applySuggestion(m_model->finding(f));
}

void FindingsDock::applySuggestionToKind()
{
    const int f = currentFinding();
    if (f >= 0) {
        m_controller->applySuggestionToKind(m_model->finding(f).kind);
        return;
    }
    if (const core::FindingCause *cause = m_tree->causeOf(m_view->currentIndex()))
        m_controller->applySuggestionToKind(cause->kind);
}

void FindingsDock::markReviewed()
{
    const int f = currentFinding();
    if (f >= 0)
        m_controller->markReviewed(m_model->finding(f));
}

void FindingsDock::flag()
{
    const int f = currentFinding();
    if (f < 0 || m_model->subjectEvent(f).isNone())
        return;
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Flag the link as wrong"), tr("Note:"), QLineEdit::Normal,
                                               QString::fromStdString(m_model->finding(f).message), &ok);
    if (ok)
        m_controller->flag(m_model->subjectEvent(f), text);
}

void FindingsDock::setJob(const JobPtr &job)
{
    m_jobSection.findings->setJob(job);
    m_jobSection.panel->setVisible(job != nullptr);
    // A job without findings needs only the line saying so; a list takes at most about five rows.
    m_jobSection.findings->setVisible(m_jobSection.findings->findingCount() > 0);
    m_jobSection.findings->setMaximumHeight(
        m_jobSection.findings->header()->sizeHint().height()
        + m_jobSection.findings->fontMetrics().height() * 7 / 5 * std::min(m_jobSection.findings->findingCount(), 5) + 8);
    if (job)
        m_jobSection.label->setText(
            tr("<b>Across ranks</b> — %1 in %2 (%3)")
                .arg(m_jobSection.findings->summary(), job->folder.toHtmlEscaped(), ranksText(job->report.ranks.size())));
    setOpenRank(m_jobSection.openRank);
}

void FindingsDock::setOpenRank(qint64 rank)
{
    m_jobSection.openRank = rank;
    m_jobSection.rankLabel->setVisible(rank >= 0);
    m_jobSection.rankLabel->setText(tr("<b>Rank %1</b> — the findings of its links, below").arg(rank));
}

} // namespace linkscope::ui
