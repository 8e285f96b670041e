#include "docks/editsdock.h"

#include "ground/fromstd.h"

#include "docks/elidedelegate.h"

#include "ground/eventselection.h"
#include "review/correctioncontroller.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace linkscope::ui {

EditsModel::EditsModel(CorrectionController *controller, QObject *parent) : QAbstractTableModel(parent), m_controller(controller)
{
    connect(controller, &CorrectionController::changed, this, &EditsModel::refresh);
    connect(controller, &CorrectionController::sidecarChanged, this, &EditsModel::refresh);
    refresh();
}

void EditsModel::refresh()
{
    beginResetModel();
    m_rows.clear();
    if (const core::CorrectionSession *session = m_controller->session()) {
        const auto &entries = session->log().entries;
        for (std::uint32_t e = 0; e < entries.size(); ++e)
            for (std::uint32_t i = 0; i < entries[e].edits.size(); ++i)
                m_rows.emplace_back(e, i);
    }
    endResetModel();
}

int EditsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int EditsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EditsModel::data(const QModelIndex &index, int role) const
{
    const core::CorrectionSession *session = m_controller->session();
    if (!session || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto [entryIndex, editIndex] = m_rows[static_cast<std::size_t>(index.row())];
    const core::LogEntry &entry = session->log().entries.at(entryIndex);
    const core::Edit &edit = entry.edits.at(editIndex);
    const std::vector<core::EditOutcome> &outcomes = session->outcomes(entryIndex);
    const core::EditOutcome *outcome = editIndex < outcomes.size() ? &outcomes[editIndex] : nullptr;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Step:
            return entry.edits.size() > 1 ? QStringLiteral("%1.%2").arg(entryIndex + 1).arg(editIndex + 1)
                                          : QString::number(entryIndex + 1);
        case Edit:
            return QString::fromStdString(edit.describe());
        case Status:
            return outcome ? fromStd(core::editStatusName(outcome->status)) : QString();
        case Reason:
            return outcome ? QString::fromStdString(outcome->reason) : QString();
        }
        break;
    case Qt::ToolTipRole:
        return tr("%1\nStep: %2").arg(QString::fromStdString(edit.describe()), QString::fromStdString(entry.label))
               + (outcome && !outcome->reason.empty() ? QStringLiteral("\n") + QString::fromStdString(outcome->reason)
                                                      : QString());
    case Qt::ForegroundRole:
        if (outcome && (outcome->status == core::EditStatus::Stale || outcome->status == core::EditStatus::Rejected))
            return QColor(0xb0, 0x30, 0x20);
        break;
    case EntryRole:
        return entryIndex;
    case EditRole:
        return editIndex;
    case StatusRole:
        return outcome ? static_cast<int>(outcome->status) : -1;
    }
    return {};
}

QVariant EditsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Step:
        return tr("#");
    case Edit:
        return tr("Edit");
    case Status:
        return tr("Status");
    case Reason:
        return tr("Why");
    }
    return {};
}

EditsDock::EditsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Edits"), parent), m_controller(controller), m_selection(selection),
      m_model(new EditsModel(controller, this))
{
    setObjectName(QStringLiteral("EditsDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_sidecar = new QLabel(body);
    m_sidecar->setWordWrap(true);
    m_sidecar->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_sidecar);

    m_view = new QTableView(body);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    // The edit (what moved where) takes the width; the reason, often empty, a fixed share.
    QHeaderView *header = m_view->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(EditsModel::Step, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(EditsModel::Edit, QHeaderView::Stretch);
    header->setSectionResizeMode(EditsModel::Status, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(EditsModel::Reason, QHeaderView::Interactive);
    header->resizeSection(EditsModel::Reason, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 24);
    m_view->setItemDelegateForColumn(EditsModel::Edit, new ElideRightDelegate(m_view));
    layout->addWidget(m_view, 1);

    auto *buttons = new QHBoxLayout;
    auto *undo = new QToolButton(body);
    auto *redo = new QToolButton(body);
    undo->setDefaultAction(controller->undoStack()->createUndoAction(undo, tr("Undo")));
    redo->setDefaultAction(controller->undoStack()->createRedoAction(redo, tr("Redo")));
    m_remove = new QPushButton(tr("Remove step"), body);
    m_remove->setToolTip(tr("Drop this step (all its edits) from the log; undoable"));
    m_force = new QPushButton(tr("Apply anyway"), body);
    m_force->setToolTip(tr("Apply the corrections of a sidecar made from other traces"));
    buttons->addWidget(undo);
    buttons->addWidget(redo);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    buttons->addWidget(m_force);
    layout->addLayout(buttons);
    setWidget(body);

    connect(m_remove, &QPushButton::clicked, this, &EditsDock::removeCurrentEntry);
    connect(m_force, &QPushButton::clicked, this, [this] {
        const auto answer = QMessageBox::question(
            this, tr("Apply corrections made for other traces?"),
            tr("%1\n\nIts edits are matched by keys (correlation, rf_id, …); some may land on other ops or be stale. "
               "The sidecar will then be rewritten for the traces now open.")
                .arg(m_sidecar->toolTip()));
        if (answer == QMessageBox::Yes)
            m_controller->forceSidecar();
    });
    connect(m_view, &QTableView::activated, this, &EditsDock::showSubject);
    connect(m_controller, &CorrectionController::changed, this, &EditsDock::updateState);
    connect(m_controller, &CorrectionController::sidecarChanged, this, &EditsDock::updateState);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &EditsDock::updateState);
    updateState();
}

void EditsDock::updateState()
{
    m_sidecar->setText(m_controller->sidecarSummary());
    QString details = m_controller->sidecarPath();
    if (const core::CorrectionSession *session = m_controller->session())
        for (const auto *lines : {&session->sidecar().problems, &session->sidecar().warnings})
            for (const std::string &line : *lines)
                details += QStringLiteral("\n") + QString::fromStdString(line);
    m_sidecar->setToolTip(details);
    const core::CorrectionSession *session = m_controller->session();
    m_force->setVisible(session && session->sidecar().state == core::SidecarState::Mismatch);
    m_remove->setEnabled(m_view->currentIndex().isValid() && m_controller->ready());
}

void EditsDock::removeCurrentEntry()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_controller->removeEntry(m_model->data(current, EditsModel::EntryRole).toUInt());
}

void EditsDock::showSubject(const QModelIndex &index)
{
    const core::CorrectionSession *session = m_controller->session();
    if (!session || !session->attached() || !index.isValid())
        return;
    const auto entry = m_model->data(index, EditsModel::EntryRole).toUInt();
    const auto edit = m_model->data(index, EditsModel::EditRole).toUInt();
    const core::SubjectKey &key = session->log().entries.at(entry).edits.at(edit).subject;
    if (key.kind == core::KeyKind::HostNode || key.kind == core::KeyKind::Trace)
        return;
    const auto resolved = session->editor().resolver().resolve(key);
    if (resolved.ok())
        m_selection->select(resolved.event);
}

} // namespace linkscope::ui
