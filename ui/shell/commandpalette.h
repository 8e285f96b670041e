#pragma once
// The command palette (Ctrl+Shift+P): a small frameless popup over the main window with a filter
// line and a list of every action the window has — its menus (walked at open time, submenus
// included, so an action added to a menu appears without registration), the docks' toggle actions
// (they are in the View menu) and the timeline's key bindings. Each row shows the action's text, its
// menu path ("View ▸ Theme ▸ Dark") and its shortcut. Typing filters: each word a substring of the
// text (word starts first), else of the menu path, else an in-order (fuzzy) match of the text; Up / Down move, Enter runs the action, Esc closes.
// Either way the keyboard goes back to the timeline. A disabled action is listed greyed out and is
// not run.

#include <QFrame>
#include <QList>
#include <QPointer>
#include <QString>

class QAction;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace linkscope::ui {

class MainWindow;

class CommandPalette : public QFrame {
    Q_OBJECT
public:
    struct Entry {
        QPointer<QAction> action;
        QString text;     // without the mnemonic '&'
        QString path;     // "View ▸ Theme", "Timeline" for a key binding that is in no menu
        QString shortcut; // native text of every shortcut, ", " between
    };

    explicit CommandPalette(MainWindow *window);

    // Collects the actions, clears the filter and shows the palette at the top of the window.
    void popup();

    // Every action of `window` the palette offers, menus first in menu-bar order, then the timeline's
    // key bindings that no menu holds. Each action once; no separators, submenus or hidden actions.
    static QList<Entry> collect(MainWindow *window);
    // How well `query` matches `text` (case-insensitive): -1 when it does not; higher is better. A
    // substring beats an in-order (fuzzy) match; a match at the start or at a word start beats one
    // inside a word; a fuzzy match with fewer gaps beats one with more.
    static int matchScore(const QString &query, const QString &text);

    QLineEdit *filterEdit() const { return m_filter; }
    QTreeWidget *list() const { return m_list; }
    QLabel *hint() const { return m_hint; } // the line below the list: counts, the current action's tip
    // The entries listed, in list order (after the filter).
    const QList<Entry> &shown() const { return m_shown; }
    // Runs the current row's action (closing the palette first). False when there is none or it is
    // disabled; the palette then stays open and says why.
    bool runCurrent();

signals:
    void actionRun(QAction *action);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void refilter();
    void moveCurrent(int delta);
    void updateHint();

    MainWindow *m_window;
    QLineEdit *m_filter;
    QTreeWidget *m_list;
    QLabel *m_hint;
    QList<Entry> m_all;
    QList<Entry> m_shown;
};

} // namespace linkscope::ui
