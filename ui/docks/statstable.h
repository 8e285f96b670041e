#pragma once
// Sortable read-only tables of statistics, shared by the Time range and Summary docks: a row-selecting
// QTableWidget whose first column stretches, and items that sort numbers as numbers.

#include <QString>
#include <QStringList>

class QTableWidget;
class QTableWidgetItem;
class QWidget;

namespace linkscope::ui {

// Items sort by this role's value (as a number) when both have it, by their text otherwise.
inline constexpr int kStatsSortRole = 0x0100 + 1; // Qt::UserRole + 1

QTableWidgetItem *statsTextItem(const QString &text, const QString &tooltip = QString());
QTableWidgetItem *statsNumberItem(const QString &text, double sortKey);
QString statsPercentText(double percent); // "12.3 %"
QTableWidget *makeStatsTable(const QStringList &headers, QWidget *parent);

} // namespace linkscope::ui
