#pragma once
// The Edits dock: the correction log, one row per edit with its outcome as last applied
// (applied, unchanged, stale with the reason, rejected), the sidecar's state, undo/redo, removing
// an entry, and "apply anyway" for a sidecar made from other traces.

#include <QAbstractTableModel>
#include <QDockWidget>

#include <cstdint>
#include <utility>
#include <vector>

class QLabel;
class QPushButton;
class QTableView;

namespace linkscope::ui {

class CorrectionController;
class EventSelection;

class EditsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Step, Edit, Status, Reason, ColumnCount };
    enum Role { EntryRole = Qt::UserRole, EditRole, StatusRole };

    explicit EditsModel(CorrectionController *controller, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void refresh();

    CorrectionController *m_controller;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_rows; // (entry, edit)
};

class EditsDock : public QDockWidget {
    Q_OBJECT
public:
    EditsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent = nullptr);

    EditsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *sidecarLabel() const { return m_sidecar; }

public slots:
    void removeCurrentEntry();

private:
    void updateState();
    void showSubject(const QModelIndex &index);

    CorrectionController *m_controller;
    EventSelection *m_selection;
    EditsModel *m_model;
    QTableView *m_view;
    QLabel *m_sidecar;
    QPushButton *m_remove;
    QPushButton *m_force;
};

} // namespace linkscope::ui
