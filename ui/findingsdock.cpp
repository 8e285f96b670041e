#include "findingsdock.h"

#include "correctioncontroller.h"
#include "eventselection.h"
#include "storypanel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {
QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
} // namespace

// ---- model ----------------------------------------------------------------------------------

FindingsModel::FindingsModel(CorrectionController *controller, QObject *parent)
    : QAbstractTableModel(parent), m_controller(controller)
{
    connect(controller, &CorrectionController::changed, this, &FindingsModel::refresh);
    connect(controller, &CorrectionController::published, this, &FindingsModel::refresh);
    refresh();
}

void FindingsModel::refresh()
{
    DocumentPtr linked = m_controller->linkedDocument();
    DocumentPtr doc = m_controller->document();
    if (!doc || !linked || doc->deviceShared() != linked->deviceShared())
        doc = linked; // a new trace, before its corrections are shown
    if (doc != m_doc || linked != m_linked) {
        beginResetModel();
        m_doc = std::move(doc);
        m_linked = std::move(linked);
        m_resolved.clear();
        m_linkedRefs.clear();
        if (m_linked) {
            m_linkedRefs.reserve(m_linked->links().findings.size());
            for (const core::Finding &f : m_linked->links().findings)
                m_linkedRefs.push_back(core::refOf(f));
            std::sort(m_linkedRefs.begin(), m_linkedRefs.end());
        }
        if (m_doc && m_linked && m_doc != m_linked) {
            // The linker's findings the corrections made go away: same kind and subject no longer found.
            std::vector<core::FindingRef> current;
            current.reserve(m_doc->links().findings.size());
            for (const core::Finding &f : m_doc->links().findings)
                current.push_back(core::refOf(f));
            std::sort(current.begin(), current.end());
            std::uint32_t i = 0;
            for (const core::Finding &f : m_linked->links().findings) {
                if (!std::binary_search(current.begin(), current.end(), core::refOf(f)))
                    m_resolved.push_back(i);
                ++i;
            }
        }
        endResetModel();
    } else if (rowCount() > 0) {
        // Review state changes only the status column.
        emit dataChanged(index(0, Status), index(rowCount() - 1, Status));
    }
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_doc ? 0 : static_cast<int>(m_doc->links().findings.size() + m_resolved.size());
}

int FindingsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

bool FindingsModel::isResolved(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) >= m_doc->links().findings.size();
}

const core::Finding &FindingsModel::finding(int row) const
{
    const std::size_t current = m_doc->links().findings.size();
    const auto r = static_cast<std::size_t>(row);
    return r < current ? m_doc->links().findings.at(r) : m_linked->links().findings.at(m_resolved.at(r - current));
}

int FindingsModel::rowOf(const core::FindingRef &ref) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (core::refOf(finding(row)) == ref)
            return row;
    return -1;
}

std::uint32_t FindingsModel::subjectEvent(int row) const
{
    const core::Finding &f = finding(row);
    return f.subjectKind == core::SubjectKind::DeviceEvent && f.subject < m_doc->eventCount() ? f.subject : core::kNoIndex;
}

QString FindingsModel::statusOf(int row) const
{
    if (isResolved(row))
        return tr("resolved");
    const core::CorrectionSession *session = m_controller->session();
    if (!session || !session->attached())
        return tr("open");
    const core::Finding &f = finding(row);
    if (session->editor().review().isReviewed(f))
        return tr("reviewed");
    const core::LinkSet &working = session->working();
    if (f.subjectKind == core::SubjectKind::DeviceEvent && f.subject < working.gpuLinkOf.size()) {
        const std::uint32_t link = working.gpuLinkOf[f.subject];
        if (link != core::kNoIndex && working.gpuLinks[link].rule == core::ParentRule::Manual
            && std::binary_search(m_linkedRefs.begin(), m_linkedRefs.end(), core::refOf(f)))
            return tr("corrected");
    }
    return tr("open");
}

std::array<int, core::kFindingKindCount> FindingsModel::countsByKind() const
{
    std::array<int, core::kFindingKindCount> counts{};
    for (int row = 0; row < rowCount(); ++row)
        ++counts[static_cast<std::size_t>(finding(row).kind)];
    return counts;
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::Finding &f = finding(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind: return fromStd(core::findingKindName(f.kind));
        case Severity: return fromStd(core::findingSeverityName(f.severity));
        case Subject: {
            const std::uint32_t e = subjectEvent(index.row());
            if (e != core::kNoIndex)
                return m_doc->eventName(e);
            if (f.subjectKind == core::SubjectKind::HostNode && m_doc->host() && f.subject < m_doc->host()->nodes.size())
                return tr("ET node %1").arg(m_doc->host()->nodes[f.subject].id);
            return tr("trace");
        }
        case Status: return statusOf(index.row());
        case Message: return QString::fromStdString(f.message);
        case Suggestion: return QString::fromStdString(f.suggestion);
        }
        break;
    case Qt::ToolTipRole:
        return QString::fromStdString(f.message) +
               (f.suggestion.empty() ? QString() : QStringLiteral("\n→ ") + QString::fromStdString(f.suggestion));
    case SortRole:
        if (index.column() == Severity)
            return static_cast<int>(f.severity);
        return data(index, Qt::DisplayRole);
    case FindingRole: return index.row();
    case SubjectEventRole: return static_cast<qulonglong>(subjectEvent(index.row()));
    case KindRole: return static_cast<int>(f.kind);
    case OpenRole: return statusOf(index.row()) == tr("open");
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind: return tr("Kind");
    case Severity: return tr("Severity");
    case Subject: return tr("Subject");
    case Status: return tr("Status");
    case Message: return tr("Message");
    case Suggestion: return tr("Suggestion");
    }
    return {};
}

void FindingsFilterModel::setKind(int kind)
{
    m_kind = kind;
    invalidateFilter();
}

void FindingsFilterModel::setOpenOnly(bool on)
{
    m_openOnly = on;
    invalidateFilter();
}

void FindingsFilterModel::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void FindingsFilterModel::setEvents(std::optional<std::vector<std::uint32_t>> events)
{
    m_events = std::move(events);
    invalidateFilter();
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *source = sourceModel();
    const QModelIndex first = source->index(sourceRow, 0, sourceParent);
    if (m_events) {
        const auto event = static_cast<std::uint32_t>(source->data(first, FindingsModel::SubjectEventRole).toULongLong());
        if (!std::binary_search(m_events->begin(), m_events->end(), event))
            return false;
    }
    if (m_kind >= 0 && source->data(first, FindingsModel::KindRole).toInt() != m_kind)
        return false;
    if (m_openOnly && !source->data(first, FindingsModel::OpenRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    for (int column : {FindingsModel::Subject, FindingsModel::Message, FindingsModel::Kind})
        if (source->data(source->index(sourceRow, column, sourceParent)).toString().contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

// ---- dock -----------------------------------------------------------------------------------

FindingsDock::FindingsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Findings"), parent)
    , m_controller(controller)
    , m_selection(selection)
    , m_model(new FindingsModel(controller, this))
    , m_filter(new FindingsFilterModel(this))
{
    setObjectName(QStringLiteral("FindingsDock"));
    m_filter->setSourceModel(m_model);
    m_filter->setSortRole(FindingsModel::SortRole);

    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *filters = new QHBoxLayout;
    m_kindBox = new QComboBox(body);
    m_kindBox->setToolTip(tr("Show one kind of finding (the count of each is in brackets)"));
    m_search = new QLineEdit(body);
    m_search->setPlaceholderText(tr("Filter by name or message"));
    m_search->setClearButtonEnabled(true);
    m_openOnly = new QCheckBox(tr("Open only"), body);
    m_openOnly->setToolTip(tr("Hide findings resolved by the corrections, reviewed or corrected"));
    m_countLabel = new QLabel(body);
    filters->addWidget(m_kindBox, 2);
    filters->addWidget(m_search, 3);
    filters->addWidget(m_openOnly);
    filters->addWidget(m_countLabel);
    m_story = new StoryPanel(body);
    layout->addWidget(m_story);
    layout->addLayout(filters);
    m_eventFilterBar = new QWidget(body);
    auto *eventFilter = new QHBoxLayout(m_eventFilterBar);
    eventFilter->setContentsMargins(0, 0, 0, 0);
    m_eventFilterLabel = new QLabel(m_eventFilterBar);
    auto *clearEvents = new QPushButton(tr("Show all"), m_eventFilterBar);
    clearEvents->setToolTip(tr("Show the findings of every event again"));
    eventFilter->addWidget(m_eventFilterLabel, 1);
    eventFilter->addWidget(clearEvents);
    m_eventFilterBar->hide();
    layout->addWidget(m_eventFilterBar);
    connect(clearEvents, &QPushButton::clicked, this, &FindingsDock::clearEventFilter);

    m_view = new QTableView(body);
    m_view->setModel(m_filter);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // linker order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(FindingsModel::Message, QHeaderView::Interactive);
    layout->addWidget(m_view, 1);

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
    layout->addLayout(buttons);
    setWidget(body);

    connect(prev, &QPushButton::clicked, this, &FindingsDock::previous);
    connect(next, &QPushButton::clicked, this, &FindingsDock::next);
    connect(m_applyButton, &QPushButton::clicked, this, &FindingsDock::applySuggestion);
    connect(m_applyAllButton, &QPushButton::clicked, this, &FindingsDock::applySuggestionToKind);
    connect(m_reviewedButton, &QPushButton::clicked, this, &FindingsDock::markReviewed);
    connect(m_flagButton, &QPushButton::clicked, this, &FindingsDock::flag);
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
        updateButtons();
    });
    connect(m_search, &QLineEdit::textChanged, m_filter, &FindingsFilterModel::setText);
    connect(m_openOnly, &QCheckBox::toggled, m_filter, &FindingsFilterModel::setOpenOnly);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { onCurrentChanged(current); });
    connect(m_selection, &EventSelection::changed, this, &FindingsDock::onSelectionChanged);
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const int f = currentFinding();
        m_keepCurrent = f >= 0 ? std::optional<core::FindingRef>(core::refOf(m_model->finding(f))) : std::nullopt;
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &FindingsDock::updateKinds);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // Every edit publishes new findings: the current row stays on the same finding (kind, subject).
        if (!m_keepCurrent)
            return;
        const int row = m_model->rowOf(*m_keepCurrent);
        m_keepCurrent.reset();
        const QModelIndex at = row >= 0 ? m_filter->mapFromSource(m_model->index(row, 0)) : QModelIndex();
        if (!at.isValid())
            return;
        m_syncing = true;
        m_view->setCurrentIndex(at);
        m_syncing = false;
        updateButtons();
    });
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &FindingsDock::updateButtons);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &FindingsDock::updateButtons);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &FindingsDock::updateButtons);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &FindingsDock::updateButtons);
    connect(m_controller, &CorrectionController::changed, this, &FindingsDock::updateButtons);
    updateKinds();
}

int FindingsDock::currentFinding() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_filter->data(current, FindingsModel::FindingRole).toInt() : -1;
}

void FindingsDock::updateKinds()
{
    const QVariant keep = m_kindBox->currentData();
    const auto counts = m_model->countsByKind();
    QSignalBlocker block(m_kindBox);
    m_kindBox->clear();
    m_kindBox->addItem(tr("All kinds (%L1)").arg(m_model->rowCount()));
    for (int k = 0; k < core::kFindingKindCount; ++k)
        if (counts[static_cast<std::size_t>(k)] > 0)
            m_kindBox->addItem(tr("%1 (%L2)").arg(fromStd(core::findingKindName(static_cast<core::FindingKind>(k))))
                                   .arg(counts[static_cast<std::size_t>(k)]),
                               k);
    const int at = keep.isValid() ? m_kindBox->findData(keep) : 0;
    m_kindBox->setCurrentIndex(at < 0 ? 0 : at);
    m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
    updateButtons();
}

void FindingsDock::showEvents(const QString &title, const std::vector<std::uint32_t> &events)
{
    m_eventFilterTitle = title;
    m_eventFilterCount = events.size();
    std::vector<std::uint32_t> sorted = events;
    std::sort(sorted.begin(), sorted.end());
    m_kindBox->setCurrentIndex(0); // every kind: the GPU ops are the filter
    m_filter->setEvents(std::move(sorted));
    m_eventFilterBar->show();
    updateButtons();
}

void FindingsDock::clearEventFilter()
{
    m_filter->setEvents(std::nullopt);
    m_eventFilterBar->hide();
    updateButtons();
}

void FindingsDock::updateButtons()
{
    m_countLabel->setText(tr("%L1 shown").arg(m_filter->rowCount()));
    if (m_filter->hasEventFilter())
        m_eventFilterLabel->setText(tr("Showing only the findings of %1 (%L2 GPU ops; all of them are in the search results)")
                                        .arg(m_eventFilterTitle)
                                        .arg(m_eventFilterCount));
    const int f = currentFinding();
    const bool has = f >= 0 && m_controller->ready();
    const bool resolved = has && m_model->isResolved(f);
    const core::Finding *finding = has ? &m_model->finding(f) : nullptr;
    // A resolved finding's suggestion is of the linker's links, not the corrected ones: nothing to apply.
    m_applyButton->setEnabled(finding && !resolved && finding->suggestedParent != core::kNoIndex &&
                              finding->subjectKind == core::SubjectKind::DeviceEvent);
    m_applyAllButton->setEnabled(m_applyButton->isEnabled());
    m_applyButton->setToolTip(resolved ? tr("The corrections resolved this finding") : QString());
    m_reviewedButton->setEnabled(has && !resolved);
    m_flagButton->setEnabled(has && m_model->subjectEvent(f) != core::kNoIndex);
}

void FindingsDock::onCurrentChanged(const QModelIndex &current)
{
    updateButtons();
    if (m_syncing || !current.isValid())
        return;
    const auto event = static_cast<std::uint32_t>(m_filter->data(current, FindingsModel::SubjectEventRole).toULongLong());
    if (event == core::kNoIndex)
        return;
    m_syncing = true;
    m_selection->select(event);
    m_syncing = false;
}

void FindingsDock::onSelectionChanged(std::uint32_t event)
{
    if (m_syncing || event == core::kNoIndex)
        return;
    // The current row follows the timeline when the event has a finding; otherwise it stays.
    if (currentFinding() >= 0 && m_model->subjectEvent(currentFinding()) == event)
        return;
    for (int row = 0; row < m_filter->rowCount(); ++row) {
        const QModelIndex index = m_filter->index(row, 0);
        if (static_cast<std::uint32_t>(m_filter->data(index, FindingsModel::SubjectEventRole).toULongLong()) == event) {
            m_syncing = true;
            m_view->setCurrentIndex(index);
            m_view->scrollTo(index);
            m_syncing = false;
            return;
        }
    }
}

void FindingsDock::step(int delta)
{
    const int rows = m_filter->rowCount();
    if (rows == 0)
        return;
    const QModelIndex current = m_view->currentIndex();
    int row = current.isValid() ? current.row() + delta : (delta > 0 ? 0 : rows - 1);
    row = (row + rows) % rows; // wraps around, as "next problem" does in editors
    m_view->setCurrentIndex(m_filter->index(row, current.isValid() ? current.column() : 0));
    m_view->scrollTo(m_view->currentIndex());
}

void FindingsDock::next() { step(1); }
void FindingsDock::previous() { step(-1); }

void FindingsDock::applySuggestion()
{
    const int f = currentFinding();
    if (f >= 0 && !m_model->isResolved(f))
        m_controller->applySuggestion(m_model->finding(f));
}

void FindingsDock::applySuggestionToKind()
{
    const int f = currentFinding();
    if (f >= 0)
        m_controller->applySuggestionToKind(m_model->finding(f).kind);
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
    if (f < 0 || m_model->subjectEvent(f) == core::kNoIndex)
        return;
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Flag the link as wrong"), tr("Note:"), QLineEdit::Normal,
                                               QString::fromStdString(m_model->finding(f).message), &ok);
    if (ok)
        m_controller->flag(m_model->subjectEvent(f), text);
}

} // namespace linkscope::ui
