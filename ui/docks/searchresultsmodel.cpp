#include "docks/searchresultsmodel.h"

#include "ground/timeformat.h"

#include <algorithm>

namespace linkscope::ui {

SearchResultsModel::SearchResultsModel(QObject *parent) : QAbstractTableModel(parent) { }

void SearchResultsModel::setResults(DocumentPtr doc, std::vector<core::EventIndex> events)
{
    beginResetModel();
    m_doc = std::move(doc);
    m_events = std::move(events);
    if (!m_doc)
        m_events.clear();
    endResetModel();
}

void SearchResultsModel::clear() { setResults(nullptr, {}); }

int SearchResultsModel::rowOfEvent(core::EventIndex event) const
{
    const auto it = std::find(m_events.begin(), m_events.end(), event);
    return it == m_events.end() ? -1 : static_cast<int>(it - m_events.begin());
}

int SearchResultsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_events.size());
}

int SearchResultsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SearchResultsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_doc || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::EventIndex e = m_events[static_cast<std::size_t>(index.row())];
    if (role == EventRole)
        return QVariant::fromValue(static_cast<uint>(e.value));
    const core::DeviceEvent &event = m_doc->event(e);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return m_doc->eventName(e);
        case KindColumn:
            return eventStyleName(m_doc->style(e));
        case LaneColumn: {
            const auto &index = m_doc->index();
            if (e.in(index.laneOf.size()) && index.laneOf[e.get()].valid())
                return QString::fromStdString(index.lane(index.laneOf[e.get()]).label);
            return QString();
        }
        case StartColumn:
            return formatDuration(event.ts - m_doc->startTime());
        case DurationColumn:
            return formatDuration(event.dur);
        }
    } else if (role == Qt::DecorationRole && index.column() == NameColumn) {
        return eventColor(m_doc->style(e));
    } else if (role == Qt::TextAlignmentRole && (index.column() == StartColumn || index.column() == DurationColumn)) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case KindColumn:
        return tr("Kind");
    case LaneColumn:
        return tr("Lane");
    case StartColumn:
        return tr("Start");
    case DurationColumn:
        return tr("Duration");
    }
    return {};
}

} // namespace linkscope::ui
