#include "prediction/predicttext.h"

#include <QLocale>
#include <QTableWidgetItem>

namespace linkscope::ui {

QString msText(std::int64_t ns) { return QLocale().toString(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

QTableWidgetItem *readOnlyCell(const QString &text, bool number)
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setToolTip(text);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace linkscope::ui
