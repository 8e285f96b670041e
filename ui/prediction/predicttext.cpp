#include "prediction/predicttext.h"

#include <cmath>

#include <QLocale>
#include <QTableWidgetItem>

namespace linkscope::ui {

QString msText(std::int64_t ns) { return QLocale().toString(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

QString changePctText(double pct)
{
    const QString sign = pct > 0 ? QStringLiteral("+") : pct < 0 ? QStringLiteral("−") : QString();
    return sign + QLocale().toString(std::abs(pct), 'f', 1) + QStringLiteral(" %");
}

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
