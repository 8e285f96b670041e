#pragma once
// Search hits as a table: name, kind, lane, start, duration. Holds event indices only; the text
// is produced on demand from the document, so millions of hits cost 4 bytes each.

#include "ground/tracedocument.h"

#include <QAbstractTableModel>

#include <vector>

namespace linkscope::ui {

class SearchResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, LaneColumn, StartColumn, DurationColumn, ColumnCount };
    static constexpr int EventRole = Qt::UserRole + 1; // the DeviceTrace event index (uint, EventIndex::value)

    explicit SearchResultsModel(QObject *parent = nullptr);

    void setResults(DocumentPtr doc, std::vector<core::EventIndex> events);
    void clear();
    core::EventIndex eventAt(int row) const { return m_events.at(static_cast<std::size_t>(row)); }
    int rowOfEvent(core::EventIndex event) const; // -1 if absent
    const std::vector<core::EventIndex> &events() const { return m_events; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    DocumentPtr m_doc;
    std::vector<core::EventIndex> m_events;
};

} // namespace linkscope::ui
