#include "timeline/tooltipfit.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QScreen>
#include <QStringList>
#include <QToolTip>
#include <QWidget>

#include <algorithm>

namespace linkscope::ui {

namespace {

constexpr int kWrapChars = 100;

QScreen *screenAt(const QPoint &globalPos, const QWidget *widget)
{
    if (QScreen *s = QGuiApplication::screenAt(globalPos))
        return s;
    if (widget && widget->screen())
        return widget->screen();
    return QGuiApplication::primaryScreen();
}

// Word-wraps one line at about `chars` characters (a word longer than that is cut).
QStringList wrapped(const QString &line, int chars)
{
    QStringList out;
    QString rest = line;
    while (rest.size() > chars) {
        int cut = rest.lastIndexOf(QLatin1Char(' '), chars);
        if (cut <= chars / 3)
            cut = chars;
        out << rest.left(cut);
        rest = rest.mid(cut).trimmed();
    }
    out << rest;
    return out;
}

class ToolTipKeeper : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::ToolTip)
            return false;
        auto *widget = qobject_cast<QWidget *>(watched);
        if (!widget)
            return false;
        const auto *help = static_cast<QHelpEvent *>(event);
        QString text = widget->toolTip();
        if (auto *view = qobject_cast<QAbstractItemView *>(widget->parentWidget()); view && view->viewport() == widget) {
            const QModelIndex index = view->indexAt(help->pos());
            text = index.isValid() ? index.data(Qt::ToolTipRole).toString() : QString();
        }
        showToolTipWithin(help->globalPos(), text, widget);
        return true;
    }
};

} // namespace

QString toolTipTextWithin(const QString &text, const QRect &available, const QWidget *widget)
{
    const QFontMetrics metrics(QToolTip::font());
    // Room for the tip's frame and margins, and a line that says what was left out.
    const int room = std::max(3, (available.height() - 24) / std::max(1, metrics.lineSpacing()) - 1);
    const int chars = std::clamp((available.width() - 24) / std::max(1, metrics.averageCharWidth()), 20, kWrapChars);
    QStringList lines;
    for (const QString &line : text.split(QLatin1Char('\n')))
        lines << wrapped(line, chars);
    if (lines.size() <= room)
        return lines.join(QLatin1Char('\n'));
    const int kept = room - 1;
    const int left = static_cast<int>(lines.size()) - kept;
    return lines.mid(0, kept).join(QLatin1Char('\n')) + QLatin1Char('\n')
           + (widget ? widget->tr("… %n more line(s)", nullptr, left) : QStringLiteral("… %1 more lines").arg(left));
}

QWidget *shownToolTip()
{
    for (QWidget *w : QApplication::topLevelWidgets())
        if (w->inherits("QTipLabel") && w->isVisible())
            return w;
    return nullptr;
}

void showToolTipWithin(const QPoint &globalPos, const QString &text, QWidget *widget)
{
    if (text.isEmpty()) {
        QToolTip::hideText();
        return;
    }
    const QRect available = screenAt(globalPos, widget)->availableGeometry();
    QToolTip::showText(globalPos, toolTipTextWithin(text, available, widget), widget);
    // Qt keeps the tip inside the screen's full geometry, not the part panels leave; and a tip it
    // placed below the pointer near the bottom may still cross it. Moved in, keeping its size.
    if (QWidget *tip = shownToolTip()) {
        QRect placed = tip->geometry();
        placed.setSize(placed.size().boundedTo(available.size()));
        placed.moveLeft(std::clamp(placed.left(), available.left(), available.right() - placed.width() + 1));
        placed.moveTop(std::clamp(placed.top(), available.top(), available.bottom() - placed.height() + 1));
        if (placed != tip->geometry())
            tip->setGeometry(placed);
    }
}

void keepToolTipsOnScreen(QWidget *widget) { widget->installEventFilter(new ToolTipKeeper(widget)); }

} // namespace linkscope::ui
