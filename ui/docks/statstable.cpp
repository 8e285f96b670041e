#include "docks/statstable.h"

#include <QHeaderView>
#include <QLocale>
#include <QTableWidget>

namespace linkscope::ui {

namespace {

class SortItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem &other) const override
    {
        const QVariant a = data(kStatsSortRole), b = other.data(kStatsSortRole);
        if (a.isValid() && b.isValid())
            return a.toDouble() < b.toDouble();
        return text().localeAwareCompare(other.text()) < 0;
    }
};

} // namespace

QTableWidgetItem *statsTextItem(const QString &text, const QString &tooltip)
{
    auto *item = new SortItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (!tooltip.isEmpty())
        item->setToolTip(tooltip);
    return item;
}

QTableWidgetItem *statsNumberItem(const QString &text, double sortKey)
{
    QTableWidgetItem *item = statsTextItem(text);
    item->setData(kStatsSortRole, sortKey);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString statsPercentText(double p) { return QLocale().toString(p, 'f', 1) + QStringLiteral(" %"); }

QTableWidget *makeStatsTable(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < headers.size(); ++c)
        table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    return table;
}

} // namespace linkscope::ui
