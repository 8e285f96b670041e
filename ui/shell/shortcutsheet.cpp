// The keyboard-shortcut sheet (Help ▸ Keyboard shortcuts, F1): generated from the actions, shown
// in a scrolling dialog no taller than the screen.

#include "shell/mainwindow.h"

#include "timeline/timelineinput.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QStyle>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>

namespace linkscope::ui {

namespace {

// The sheet's size for its content: as wide as its widest row and as tall as all its rows, within
// 85 % of the screen (beyond that it scrolls). The document is laid out here at that width: before
// the browser is shown its document has no width of its own and reports the height of a line or two.
QSize shortcutSheetSize(QDialog *sheet, QTextBrowser *text)
{
    // Measured on a copy: the browser's own document is laid out for the browser's viewport.
    const std::unique_ptr<QTextDocument> doc(text->document()->clone());
    const QScreen *screen = sheet->parentWidget() ? sheet->parentWidget()->screen() : sheet->screen();
    const QSize room = screen ? screen->availableGeometry().size() * 85 / 100 : QSize(900, 700);
    const QMargins margins = sheet->layout()->contentsMargins();
    const int scrollBar = text->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, text);
    const int chromeWidth = margins.left() + margins.right() + 2 * text->frameWidth() + scrollBar + 4;
    doc->setTextWidth(-1);
    const int width = std::min(static_cast<int>(std::ceil(doc->idealWidth())) + chromeWidth, room.width());
    doc->setTextWidth(width - chromeWidth);
    int below = 0;
    for (int i = 1; i < sheet->layout()->count(); ++i)
        if (QWidget *w = sheet->layout()->itemAt(i)->widget())
            below += w->sizeHint().height() + sheet->layout()->spacing();
    const int height = static_cast<int>(std::ceil(doc->size().height())) + 2 * text->frameWidth() + margins.top()
                       + margins.bottom() + below + 4;
    return {width, std::min(height, room.height())};
}

} // namespace

QString MainWindow::shortcutSheetHtml() const
{
    // Generated from the actions themselves: the timeline's key bindings, then every menu action that
    // has a key (search, review, export, ...), then the mouse gestures.
    auto keysOf = [](const QAction *action) {
        QStringList keys;
        for (const QKeySequence &key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText).toHtmlEscaped();
        return keys.join(QStringLiteral(", "));
    };
    auto row = [](const QString &keys, const QString &what) {
        return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys, what.toHtmlEscaped());
    };
    // A blank line between sections, none above the first (it opened on an empty line).
    auto section = [](const QString &title, bool first = false) {
        return QStringLiteral("<tr><td colspan=\"2\">%1<i>%2</i></td></tr>")
            .arg(first ? QString() : QStringLiteral("<br>"), title.toHtmlEscaped());
    };
    QString html = QStringLiteral("<table>") + section(tr("Timeline (while it has the focus)"), true);
    for (const QAction *action : m_timeline->keyActions())
        html += row(keysOf(action), action->toolTip());
    const QList<QAction *> &timelineKeys = m_timeline->keyActions();
    for (const QAction *menu : menuBar()->actions()) {
        if (!menu->menu())
            continue;
        QString rows;
        for (const QAction *action : menu->menu()->actions())
            if (!action->shortcuts().isEmpty() && !timelineKeys.contains(action))
                rows += row(keysOf(action), action->text().remove(QLatin1Char('&')));
        if (!rows.isEmpty())
            html += section(menu->text().remove(QLatin1Char('&'))) + rows;
    }
    html += section(tr("Mouse"));
    for (const auto &[gesture, what] : TimelineInput::mouseGestures())
        html += row(gesture.toHtmlEscaped(), what);
    html += row(tr("Ctrl+drag"), tr("from a GPU op onto a CPU op: re-parent it (Esc cancels)"));
    return html + QStringLiteral("</table>");
}

void MainWindow::showShortcuts()
{
    // A dialog of its own, not a message box: the sheet is taller than a 1080-px screen, so it
    // scrolls, and it is sized to fit the screen the window is on.
    auto *sheet = findChild<QDialog *>(QStringLiteral("ShortcutSheet"));
    if (!sheet) {
        sheet = new QDialog(this);
        sheet->setObjectName(QStringLiteral("ShortcutSheet"));
        sheet->setWindowTitle(tr("Keyboard shortcuts"));
        auto *layout = new QVBoxLayout(sheet);
        auto *text = new QTextBrowser(sheet);
        text->setObjectName(QStringLiteral("ShortcutSheetText"));
        text->setOpenLinks(false);
        layout->addWidget(text, 1);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, sheet);
        connect(buttons, &QDialogButtonBox::rejected, sheet, &QDialog::reject);
        layout->addWidget(buttons);
    }
    auto *text = sheet->findChild<QTextBrowser *>(QStringLiteral("ShortcutSheetText"));
    text->setHtml(shortcutSheetHtml());
    sheet->resize(shortcutSheetSize(sheet, text));
    sheet->show();
    sheet->raise();
}

} // namespace linkscope::ui
