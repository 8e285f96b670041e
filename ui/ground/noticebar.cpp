#include "ground/noticebar.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace linkscope::ui {

NoticeBar::NoticeBar(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("NoticeBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    followPalette();
    setFocusPolicy(Qt::NoFocus);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 3, 4, 3);
    auto *icon = new QLabel(QStringLiteral("ℹ"), this);
    m_label = new QLabel(this);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long text never widens the window
    m_action = new QPushButton(this);
    m_action->setFocusPolicy(Qt::NoFocus);
    m_close = new QToolButton(this);
    m_close->setText(QStringLiteral("✕"));
    m_close->setToolTip(tr("Dismiss"));
    m_close->setAutoRaise(true);
    m_close->setFocusPolicy(Qt::NoFocus);
    layout->addWidget(icon);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_action);
    layout->addWidget(m_close);
    connect(m_close, &QToolButton::clicked, this, &NoticeBar::dismiss);
    connect(m_action, &QPushButton::clicked, this, [this] {
        if (m_run)
            m_run();
    });
    hide();
}

void NoticeBar::showNotice(const QString &text, const QString &detail, const QString &actionText, std::function<void()> action)
{
    m_label->setText(text);
    m_label->setToolTip(detail.isEmpty() ? text : text + QStringLiteral("\n\n") + detail);
    m_run = std::move(action);
    m_action->setText(actionText);
    m_action->setVisible(!actionText.isEmpty() && m_run);
    show();
}

void NoticeBar::dismiss()
{
    if (isHidden())
        return;
    hide();
    m_run = {};
    emit dismissed();
}

QString NoticeBar::text() const { return m_label->text(); }

void NoticeBar::followPalette()
{
    // Information, not a warning: the application palette's tooltip colours (light yellow on most
    // styles, dark grey in the dark theme).
    QPalette p = QApplication::palette(this);
    p.setColor(QPalette::Window, p.color(QPalette::ToolTipBase));
    p.setColor(QPalette::WindowText, p.color(QPalette::ToolTipText));
    setPalette(p);
}

void NoticeBar::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    // A theme switched at run time (View ▸ Theme) reaches a child as the palette its window passes
    // on; the two colours set above would otherwise stay the old theme's.
    if (event->type() == QEvent::PaletteChange && !m_following) {
        m_following = true;
        followPalette();
        m_following = false;
    }
}

} // namespace linkscope::ui
