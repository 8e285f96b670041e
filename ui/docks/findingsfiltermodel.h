#pragma once
// Which findings the Findings dock shows: by kind, open only, text, and the events of a selection.

#include "base/indices.h"

#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

namespace linkscope::ui {

class FindingsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setKind(int kind); // -1: all
    void setOpenOnly(bool on);
    void setText(const QString &text);
    // Only findings whose subject is one of `events` (sorted); nullopt: any.
    void setEvents(std::optional<std::vector<core::EventIndex>> events);
    bool hasEventFilter() const { return m_events.has_value(); }

signals:
    void filterChanged(); // after each setter (once, whatever rows it hid or showed)

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_kind = -1;
    bool m_openOnly = false;
    QString m_text;
    std::optional<std::vector<core::EventIndex>> m_events;
};

} // namespace linkscope::ui
