#pragma once
// Bookmarks in the main window: `M` on the timeline (TimelineView::bookmarkRequested) adds one, the
// Bookmarks menu lists them with Go to / Rename… / Remove, and the timeline draws them
// (timelinebookmarks.h). It knows no window: the window places menu() in its menu bar and shows
// message() in its status bar. Each change is one step on the corrections' undo stack and is saved in the
// corrections sidecar (core/edit/bookmarks.h, docs/sidecar-format.md) by the CorrectionController.

#include "edit/bookmarks.h"

#include <QObject>
#include <QString>

class QMenu;
class QUndoCommand;
class QWidget;

namespace linkscope::ui {

class CorrectionController;
class TimelineView;

class BookmarkUi : public QObject {
    Q_OBJECT
public:
    // `parent`: of the menu and the rename dialog; `timeline`: the one M is pressed on, drawing the bookmarks.
    BookmarkUi(QWidget *parent, TimelineView *timeline, CorrectionController *controller);

    QMenu *menu() const { return m_menu; }
    const core::BookmarkList &bookmarks() const;

    // Each is one undoable step; false when there is no trace (or no such bookmark).
    bool addBookmark(core::Nanos ts, const QString &name = {});
    bool renameBookmark(std::size_t index, const QString &name);
    bool removeBookmark(std::size_t index);
    // Centres the timeline on the bookmark, keeping the zoom.
    void goTo(std::size_t index);

signals:
    // A line for the status bar, for `timeoutMs`.
    void message(const QString &text, int timeoutMs);

private:
    void push(QUndoCommand *command); // onto the corrections' undo stack, then says if the save failed
    void refresh();                   // the timeline and the menu, from the session
    void rebuildMenu();
    QString timeText(core::Nanos ts) const;

    QWidget *m_parent;
    TimelineView *m_timeline;
    CorrectionController *m_controller;
    QMenu *m_menu;
};

} // namespace linkscope::ui
