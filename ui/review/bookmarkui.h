#pragma once
// Bookmarks in the main window: `M` on the timeline (TimelineView::bookmarkRequested) adds one, the
// Bookmarks menu lists them with Go to / Rename… / Remove, and the timeline draws them
// (timelinebookmarks.h). Each change is one step on the corrections' undo stack and is saved in the
// corrections sidecar (core/edit/bookmarks.h, docs/sidecar-format.md) by the CorrectionController.

#include "edit/bookmarks.h"

#include <QObject>
#include <QString>

class QMenu;
class QUndoCommand;

namespace linkscope::ui {

class CorrectionController;
class MainWindow;

class BookmarkUi : public QObject {
    Q_OBJECT
public:
    BookmarkUi(MainWindow *window, CorrectionController *controller);

    QMenu *menu() const { return m_menu; }
    const core::BookmarkList &bookmarks() const;

    // Each is one undoable step; false when there is no trace (or no such bookmark).
    bool addBookmark(core::Nanos ts, const QString &name = {});
    bool renameBookmark(std::size_t index, const QString &name);
    bool removeBookmark(std::size_t index);
    // Centres the timeline on the bookmark, keeping the zoom.
    void goTo(std::size_t index);

private:
    void push(QUndoCommand *command); // onto the corrections' undo stack, then says if the save failed
    void refresh();                   // the timeline and the menu, from the session
    void rebuildMenu();
    QString timeText(core::Nanos ts) const;

    MainWindow *m_window;
    CorrectionController *m_controller;
    QMenu *m_menu;
};

} // namespace linkscope::ui
