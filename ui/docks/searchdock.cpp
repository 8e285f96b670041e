#include "docks/searchdock.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace linkscope::ui {

SearchDock::SearchDock(EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Search"), parent), m_selection(selection), m_model(new SearchResultsModel(this))
{
    setObjectName(QStringLiteral("SearchDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    m_mode = new QComboBox(body);
    for (SearchMode mode : {SearchMode::NameContains, SearchMode::NameRegex, SearchMode::RecordFunctionId, SearchMode::ExternalId,
                            SearchMode::Correlation, SearchMode::EvIdx})
        m_mode->addItem(searchModeName(mode), static_cast<int>(mode));
    m_query = new QLineEdit(body);
    m_query->setPlaceholderText(tr("Search events (Enter: next, Shift+Enter: previous)"));
    m_query->setClearButtonEnabled(true);
    m_query->installEventFilter(this);
    auto *previousButton = new QToolButton(body);
    previousButton->setText(QStringLiteral("▲"));
    previousButton->setToolTip(tr("Previous hit (Shift+Enter)"));
    auto *nextButton = new QToolButton(body);
    nextButton->setText(QStringLiteral("▼"));
    nextButton->setToolTip(tr("Next hit (Enter)"));
    // The query gets the dock's whole width (beside the mode it was squeezed to a few letters in a
    // docked column); the mode and the hit buttons go below it.
    layout->addWidget(m_query);
    row->addWidget(m_mode, 1);
    row->addWidget(previousButton);
    row->addWidget(nextButton);
    layout->addLayout(row);
    m_status = new QLabel(body);
    layout->addWidget(m_status);
    m_table = new QTableView(body);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(SearchResultsModel::NameColumn, QHeaderView::Interactive);
    m_table->setColumnWidth(SearchResultsModel::NameColumn, 260);
    m_table->setWordWrap(false);
    m_table->installEventFilter(this);
    layout->addWidget(m_table, 1);
    setWidget(body);

    connect(nextButton, &QToolButton::clicked, this, &SearchDock::next);
    connect(previousButton, &QToolButton::clicked, this, &SearchDock::previous);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) { goTo(index.row()); });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) { goTo(index.row()); });
}

void SearchDock::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    m_doc = std::move(doc);
    if (sameTrace && !m_lastQuery.isEmpty()) {
        // Relinked: the hits are the same events; keep them but refer to the new document.
        m_model->setResults(m_doc, m_model->events());
        return;
    }
    m_model->clear();
    m_lastQuery.clear();
    m_current = -1;
    m_status->clear();
    emit resultsChanged({});
}

void SearchDock::activate()
{
    show();
    raise();
    m_query->setFocus(Qt::ShortcutFocusReason);
    m_query->selectAll();
}

bool SearchDock::eventFilter(QObject *watched, QEvent *event)
{
    if ((watched == m_query || watched == m_table) && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape) {
            returnFocus();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() & Qt::ShiftModifier)
                previous();
            else if (watched == m_query)
                runQuery();
            else if (m_table->currentIndex().isValid())
                goTo(m_table->currentIndex().row());
            returnFocus();
            return true;
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

void SearchDock::returnFocus()
{
    if (m_focusHome)
        m_focusHome->setFocus(Qt::OtherFocusReason);
}

void SearchDock::runQuery()
{
    const int mode = m_mode->currentData().toInt();
    if (m_query->text() == m_lastQuery && mode == m_lastMode && m_model->rowCount() > 0) {
        next();
        return;
    }
    search(static_cast<SearchMode>(mode), m_query->text());
}

void SearchDock::showEvents(const QString &title, std::vector<core::EventIndex> events)
{
    // A list of its own, not a query's hits: the old query does not stay over it.
    if (!m_query->text().isEmpty())
        m_query->clear();
    m_lastQuery.clear();
    m_lastMode = -1;
    m_current = -1;
    if (!m_doc) {
        m_model->clear();
        return;
    }
    std::sort(events.begin(), events.end(), [this](core::EventIndex a, core::EventIndex b) {
        return m_doc->event(a).ts != m_doc->event(b).ts ? m_doc->event(a).ts < m_doc->event(b).ts : a < b;
    });
    const std::size_t count = events.size();
    m_model->setResults(m_doc, std::move(events));
    emit resultsChanged(m_model->events());
    m_status->setText(tr("%1: %L2 events").arg(title).arg(count));
}

void SearchDock::search(SearchMode mode, const QString &query)
{
    const int modeIndex = m_mode->findData(static_cast<int>(mode));
    if (modeIndex >= 0 && modeIndex != m_mode->currentIndex())
        m_mode->setCurrentIndex(modeIndex);
    if (m_query->text() != query)
        m_query->setText(query);
    m_lastQuery = query;
    m_lastMode = static_cast<int>(mode);
    m_current = -1;
    if (!m_doc) {
        m_model->clear();
        m_status->setText(tr("No trace loaded"));
        return;
    }
    SearchResult result = searchEvents(*m_doc, mode, query);
    if (!result.error.isEmpty()) {
        m_model->clear();
        emit resultsChanged({});
        m_status->setText(result.error);
        return;
    }
    const std::size_t count = result.events.size();
    m_model->setResults(m_doc, std::move(result.events));
    emit resultsChanged(m_model->events());
    if (count == 0) {
        m_status->setText(tr("No match"));
        return;
    }
    goTo(0);
}

void SearchDock::goTo(int row)
{
    const int count = m_model->rowCount();
    if (count == 0 || row < 0 || row >= count)
        return;
    m_current = row;
    m_status->setText(tr("%L1 of %L2").arg(row + 1).arg(count));
    const QModelIndex index = m_model->index(row, 0);
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    if (m_selection)
        m_selection->select(m_model->eventAt(row));
    emit frameRequested(m_model->eventAt(row));
}

void SearchDock::next()
{
    const int count = m_model->rowCount();
    if (count > 0)
        goTo((m_current + 1) % count);
}

void SearchDock::previous()
{
    const int count = m_model->rowCount();
    if (count > 0)
        goTo((m_current - 1 + count) % count);
}

} // namespace linkscope::ui
