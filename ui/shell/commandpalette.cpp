#include "shell/commandpalette.h"

#include "shell/mainwindow.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace linkscope::ui {

namespace {

constexpr int kEntryRole = Qt::UserRole + 1;               // index into m_shown
const QString kPathSeparator = QStringLiteral(" \u25B8 "); // " ▸ "

// An action's or a menu's text without its mnemonic: "&Open" → "Open", "A && B" → "A & B".
QString plainText(QString text)
{
    const QChar placeholder(0xE000); // private use: never in a label
    text.replace(QStringLiteral("&&"), QString(placeholder));
    text.remove(QLatin1Char('&'));
    text.replace(placeholder, QLatin1Char('&'));
    return text;
}

QString shortcutText(const QAction *action)
{
    QStringList keys;
    for (const QKeySequence &key : action->shortcuts())
        keys << key.toString(QKeySequence::NativeText);
    return keys.join(QStringLiteral(", "));
}

bool isWordStart(const QString &text, qsizetype i)
{
    return i == 0 || !text.at(i - 1).isLetterOrNumber() || (text.at(i).isUpper() && text.at(i - 1).isLower());
}

void collectMenu(QMenu *menu, const QString &path, QList<CommandPalette::Entry> &out, QList<const QAction *> &seen)
{
    // A menu filled when it is about to show (Open recent) is filled now, as if the user opened it.
    emit menu->aboutToShow();
    for (QAction *action : menu->actions()) {
        if (action->isSeparator() || !action->isVisible())
            continue;
        if (QMenu *sub = action->menu()) {
            collectMenu(sub, path + kPathSeparator + plainText(action->text()), out, seen);
            continue;
        }
        if (action->text().isEmpty() || seen.contains(action))
            continue;
        seen << action;
        out.push_back({action, plainText(action->text()), path, shortcutText(action)});
    }
}

} // namespace

CommandPalette::CommandPalette(MainWindow *window)
    : QFrame(window, Qt::Popup | Qt::FramelessWindowHint), m_window(window), m_filter(new QLineEdit(this)),
      m_list(new QTreeWidget(this)), m_hint(new QLabel(this))
{
    setObjectName(QStringLiteral("CommandPalette"));
    setFrameShape(QFrame::StyledPanel);
    setAttribute(Qt::WA_WindowPropagation);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    m_filter->setPlaceholderText(tr("Type a command (Enter runs it, Esc closes)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this);
    m_list->setColumnCount(3);
    m_list->setHeaderHidden(true);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAllColumnsShowFocus(true);
    m_list->setFocusPolicy(Qt::NoFocus); // the filter keeps the keyboard; Up / Down reach the list through it
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_hint->setTextFormat(Qt::PlainText);
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QPalette hintPalette = m_hint->palette();
    hintPalette.setColor(QPalette::WindowText, hintPalette.color(QPalette::Disabled, QPalette::WindowText));
    m_hint->setPalette(hintPalette);
    layout->addWidget(m_filter);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_hint);
    connect(m_filter, &QLineEdit::textChanged, this, &CommandPalette::refilter);
    connect(m_list, &QTreeWidget::currentItemChanged, this, &CommandPalette::updateHint);
    connect(m_list, &QTreeWidget::itemActivated, this, [this] { runCurrent(); });
    hide();
}

QList<CommandPalette::Entry> CommandPalette::collect(MainWindow *window)
{
    QList<Entry> out;
    QList<const QAction *> seen;
    for (QAction *top : window->menuBar()->actions())
        if (QMenu *menu = top->menu(); menu && top->isVisible())
            collectMenu(menu, plainText(top->text()), out, seen);
    // The timeline's key bindings work while it has the focus; those that are in no menu.
    for (QAction *action : window->timeline()->keyActions()) {
        if (seen.contains(action) || !action->isVisible())
            continue;
        seen << action;
        out.push_back({action, plainText(action->text()), tr("Timeline"), shortcutText(action)});
    }
    return out;
}

namespace {

// One query word against one text: see CommandPalette::matchScore.
int wordScore(const QString &word, const QString &text, bool fuzzy)
{
    int best = -1;
    for (qsizetype at = text.indexOf(word, 0, Qt::CaseInsensitive); at >= 0;
         at = text.indexOf(word, at + 1, Qt::CaseInsensitive)) {
        int score = 10000 - static_cast<int>(std::min<qsizetype>(at, 500));
        if (at == 0)
            score += 3000;
        else if (isWordStart(text, at))
            score += 2000;
        best = std::max(best, score);
    }
    if (best >= 0 || !fuzzy)
        return best;
    // In order, each character as early as possible; word starts and adjacent characters score.
    int score = 4000;
    qsizetype from = 0, previous = -1;
    for (const QChar c : word) {
        const qsizetype at = text.indexOf(c, from, Qt::CaseInsensitive);
        if (at < 0)
            return -1;
        if (previous >= 0)
            score -= at == previous + 1 ? 0 : 40 + static_cast<int>(std::min<qsizetype>(at - previous, 50));
        if (isWordStart(text, at))
            score += 60;
        previous = at;
        from = at + 1;
    }
    return std::clamp(score, 1, 4500); // below any substring match, in the text or the path
}

// All words of `query` must match the text (substring or fuzzy) or the menu path (substring). Ranks:
// a substring of the text, then of the path, then a fuzzy match of the text.
int entryScore(const QStringList &words, const CommandPalette::Entry &entry)
{
    int total = 0;
    for (const QString &word : words) {
        int score = wordScore(word, entry.text, true);
        if (score < 0) {
            score = wordScore(word, entry.path, false); // "theme" finds View ▸ Theme ▸ Dark
            if (score < 0)
                return -1;
            score /= 2; // below a substring of the text, above a fuzzy match
        }
        total += score;
    }
    return total;
}

QStringList queryWords(const QString &query) { return query.split(QLatin1Char(' '), Qt::SkipEmptyParts); }

} // namespace

int CommandPalette::matchScore(const QString &query, const QString &text)
{
    const QStringList words = queryWords(query.trimmed());
    int total = 0;
    for (const QString &word : words) {
        const int score = wordScore(word, text, true);
        if (score < 0)
            return -1;
        total += score;
    }
    return total;
}

void CommandPalette::popup()
{
    m_all = collect(m_window);
    m_filter->blockSignals(true);
    m_filter->clear();
    m_filter->blockSignals(false);
    refilter();
    // Across the top of the window, below the menu bar: wide enough for a menu path and a shortcut.
    const QRect area = m_window->rect();
    const int width = std::clamp(area.width() * 2 / 3, std::min(area.width(), 480), 760);
    const int rows = 14;
    const int height = m_filter->sizeHint().height() + m_hint->sizeHint().height()
                       + rows * std::max(m_list->sizeHintForRow(0), fontMetrics().height() + 4) + 28;
    const QPoint topLeft = m_window->mapToGlobal(QPoint((area.width() - width) / 2, m_window->menuBar()->height() + 8));
    setGeometry(QRect(topLeft, QSize(width, std::min(height, std::max(area.height() - 40, 200)))));
    show();
    raise();
    activateWindow();
    m_filter->setFocus(Qt::PopupFocusReason);
}

void CommandPalette::refilter()
{
    const QStringList words = queryWords(m_filter->text().trimmed());
    struct Scored {
        int score;
        int order;
    };
    std::vector<Scored> matches;
    for (int i = 0; i < m_all.size(); ++i) {
        if (!m_all[i].action)
            continue;
        const int score = words.isEmpty() ? 0 : entryScore(words, m_all[i]);
        if (score >= 0)
            matches.push_back({score, i});
    }
    std::stable_sort(matches.begin(), matches.end(), [](const Scored &a, const Scored &b) { return a.score > b.score; });

    m_list->clear();
    m_shown.clear();
    // The path and the shortcut in a quieter colour than the name; a disabled action all greyed out.
    const QColor quiet = palette().color(QPalette::PlaceholderText);
    const QColor dim = palette().color(QPalette::Disabled, QPalette::Text);
    QList<QTreeWidgetItem *> items;
    for (const Scored &m : matches) {
        const Entry &entry = m_all[m.order];
        auto *item = new QTreeWidgetItem({entry.text, entry.path, entry.shortcut});
        item->setData(0, kEntryRole, static_cast<int>(m_shown.size()));
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(0, entry.action->toolTip());
        item->setIcon(0, entry.action->icon());
        if (entry.action->isCheckable())
            item->setCheckState(0, entry.action->isChecked() ? Qt::Checked : Qt::Unchecked);
        const bool enabled = entry.action->isEnabled();
        for (int c = 0; c < 3; ++c)
            item->setForeground(c, enabled ? (c == 0 ? palette().color(QPalette::Text) : quiet) : dim);
        if (!enabled) {
            QFont font = item->font(0);
            font.setItalic(true);
            item->setFont(0, font);
        }
        // Selectable even when disabled (the hint says so), never user-checkable.
        item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
        items << item;
        m_shown.push_back(entry);
    }
    m_list->addTopLevelItems(items);
    // The best match is current even when disabled: Enter then says why it does not run.
    QTreeWidgetItem *current = m_list->topLevelItem(0);
    m_list->setCurrentItem(current);
    if (current)
        m_list->scrollToItem(current);
    updateHint();
}

void CommandPalette::moveCurrent(int delta)
{
    const int count = m_list->topLevelItemCount();
    if (count == 0)
        return;
    const QTreeWidgetItem *current = m_list->currentItem();
    int row = current ? m_list->indexOfTopLevelItem(const_cast<QTreeWidgetItem *>(current)) : -1;
    if (std::abs(delta) == 1)
        row = (row + delta + count) % count; // wraps around
    else
        row = std::clamp(row + delta, 0, count - 1);
    m_list->setCurrentItem(m_list->topLevelItem(row));
    m_list->scrollToItem(m_list->topLevelItem(row));
}

void CommandPalette::updateHint()
{
    const QTreeWidgetItem *item = m_list->currentItem();
    if (!item) {
        m_hint->setText(m_all.isEmpty() ? tr("No commands") : tr("No command matches \u201C%1\u201D").arg(m_filter->text()));
        return;
    }
    const Entry &entry = m_shown.at(item->data(0, kEntryRole).toInt());
    const QString count = tr("%L1 of %L2").arg(m_shown.size()).arg(m_all.size());
    if (entry.action && !entry.action->isEnabled())
        m_hint->setText(tr("%1 · \u201C%2\u201D is not available now").arg(count, entry.text));
    else if (entry.action && !entry.action->toolTip().isEmpty() && entry.action->toolTip() != entry.text)
        m_hint->setText(tr("%1 · %2").arg(count, entry.action->toolTip()));
    else
        m_hint->setText(count);
}

bool CommandPalette::runCurrent()
{
    const QTreeWidgetItem *item = m_list->currentItem();
    if (!item)
        return false;
    const QPointer<QAction> action = m_shown.at(item->data(0, kEntryRole).toInt()).action;
    if (!action || !action->isEnabled()) {
        updateHint();
        return false;
    }
    hide(); // the keyboard goes back to the timeline first; the action may move it (Find…)
    // Queued: an action that opens a dialog runs after the popup is gone, not inside its key event.
    QMetaObject::invokeMethod(
        this,
        [this, action] {
            if (action && action->isEnabled()) {
                action->trigger();
                emit actionRun(action);
            }
        },
        Qt::QueuedConnection);
    return true;
}

bool CommandPalette::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_filter || event->type() != QEvent::KeyPress)
        return QFrame::eventFilter(watched, event);
    auto *key = static_cast<QKeyEvent *>(event);
    switch (key->key()) {
    case Qt::Key_Up:
        moveCurrent(-1);
        return true;
    case Qt::Key_Down:
        moveCurrent(1);
        return true;
    case Qt::Key_PageUp:
        moveCurrent(-10);
        return true;
    case Qt::Key_PageDown:
        moveCurrent(10);
        return true;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        runCurrent();
        return true;
    case Qt::Key_Escape:
        hide();
        return true;
    default:
        return QFrame::eventFilter(watched, event);
    }
}

void CommandPalette::hideEvent(QHideEvent *event)
{
    QFrame::hideEvent(event);
    // However it closes (Esc, Enter, a click outside): the keyboard goes back to the timeline.
    m_window->activateWindow();
    m_window->timeline()->setFocus(Qt::PopupFocusReason);
}

} // namespace linkscope::ui
