#include "shell/lanefilterbox.h"

#include <QAction>
#include <QKeyEvent>

namespace linkscope::ui {

LaneFilterBox::LaneFilterBox(QWidget *focusHome, QWidget *parent)
    : QLineEdit(parent), m_home(focusHome), m_focus(new QAction(tr("Filter lanes…"), this))
{
    setObjectName(QStringLiteral("LaneFilter"));
    setPlaceholderText(tr("Filter lanes (Ctrl+L)"));
    setToolTip(tr("Show only the lanes whose name (thread, stream, process, rank) contains this text; Esc clears it"));
    setClearButtonEnabled(true);
    setMaximumWidth(220);
    m_focus->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_focus->setShortcutContext(Qt::WindowShortcut);
    m_focus->setToolTip(toolTip());
    connect(m_focus, &QAction::triggered, this, [this] {
        setFocus(Qt::ShortcutFocusReason);
        selectAll();
    });
}

void LaneFilterBox::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape || event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        if (event->key() == Qt::Key_Escape)
            clear();
        if (m_home)
            m_home->setFocus(Qt::OtherFocusReason);
        event->accept();
        return;
    }
    QLineEdit::keyPressEvent(event);
}

} // namespace linkscope::ui
