#include "docks/findingsfiltermodel.h"

#include "docks/findingsmodel.h"

#include <algorithm>

namespace linkscope::ui {

void FindingsFilterModel::setKind(int kind)
{
    m_kind = kind;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setOpenOnly(bool on)
{
    m_openOnly = on;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setEvents(std::optional<std::vector<core::EventIndex>> events)
{
    m_events = std::move(events);
    invalidateFilter();
    emit filterChanged();
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *source = sourceModel();
    const QModelIndex first = source->index(sourceRow, 0, sourceParent);
    if (m_events) {
        const core::EventIndex event(
            static_cast<std::uint32_t>(source->data(first, FindingsModel::SubjectEventRole).toULongLong()));
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

} // namespace linkscope::ui
