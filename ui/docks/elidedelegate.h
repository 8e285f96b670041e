#pragma once
// A column whose text reads from its start (a suggestion, a sentence): elided at its end, whatever
// the view's elide mode (views of kernel names elide in the middle to keep both ends).

#include <QStyledItemDelegate>

namespace linkscope::ui {

class ElideRightDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideRight;
    }
};

} // namespace linkscope::ui
