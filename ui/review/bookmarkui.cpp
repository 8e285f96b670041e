#include "review/bookmarkui.h"

#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"

#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QUndoCommand>
#include <QUndoStack>

namespace linkscope::ui {

namespace {

// Swaps the whole list: bookmarks are few, and a swap undoes an add, a rename and a remove alike.
class BookmarkCommand : public QUndoCommand {
public:
    BookmarkCommand(CorrectionController *controller, core::BookmarkList before, core::BookmarkList after, const QString &text)
        : QUndoCommand(text), m_controller(controller), m_before(std::move(before)), m_after(std::move(after))
    {
    }
    void redo() override { m_controller->setBookmarksNow(m_after); }
    void undo() override { m_controller->setBookmarksNow(m_before); }

private:
    CorrectionController *m_controller;
    core::BookmarkList m_before, m_after;
};

const core::BookmarkList kNoBookmarks;

} // namespace

BookmarkUi::BookmarkUi(MainWindow *window, CorrectionController *controller)
    : QObject(window), m_window(window), m_controller(controller), m_menu(new QMenu(tr("&Bookmarks"), window))
{
    setObjectName(QStringLiteral("BookmarkUi"));
    m_menu->setObjectName(QStringLiteral("BookmarksMenu"));
    // Before Help, the last menu.
    const QList<QAction *> menus = window->menuBar()->actions();
    window->menuBar()->insertMenu(menus.isEmpty() ? nullptr : menus.last(), m_menu);
    connect(window->timeline(), &TimelineView::bookmarkRequested, this, [this](core::Nanos ts) { addBookmark(ts); });
    connect(m_controller, &CorrectionController::bookmarksChanged, this, &BookmarkUi::refresh);
    connect(m_controller, &CorrectionController::sidecarChanged, this, &BookmarkUi::refresh);
    connect(m_menu, &QMenu::aboutToShow, this, &BookmarkUi::rebuildMenu);
    refresh();
    rebuildMenu();
}

const core::BookmarkList &BookmarkUi::bookmarks() const
{
    const core::CorrectionSession *session = m_controller->session();
    return session ? session->bookmarks() : kNoBookmarks;
}

bool BookmarkUi::addBookmark(core::Nanos ts, const QString &name)
{
    if (!m_controller->session() || !m_controller->ready()) {
        m_window->statusBar()->showMessage(tr("Bookmarks need an open trace (its corrections file is still being looked for)"),
                                           4000);
        return false;
    }
    core::BookmarkList after = bookmarks();
    const std::string text = name.isEmpty() ? core::nextBookmarkName(after) : name.toStdString();
    core::insertBookmark(after, {ts, text});
    change(std::move(after), tr("Add bookmark %1").arg(QString::fromStdString(text)));
    m_window->statusBar()->showMessage(tr("Bookmarked %1 at %2 (Bookmarks menu)").arg(QString::fromStdString(text), timeText(ts)),
                                       4000);
    return true;
}

bool BookmarkUi::renameBookmark(std::size_t index, const QString &name)
{
    if (index >= bookmarks().size())
        return false;
    core::BookmarkList after = bookmarks();
    const QString old = QString::fromStdString(after[index].name);
    after[index].name = name.toStdString();
    change(std::move(after), tr("Rename bookmark %1 to %2").arg(old, name));
    return true;
}

bool BookmarkUi::removeBookmark(std::size_t index)
{
    if (index >= bookmarks().size())
        return false;
    core::BookmarkList after = bookmarks();
    const QString old = QString::fromStdString(after[index].name);
    after.erase(after.begin() + static_cast<std::ptrdiff_t>(index));
    change(std::move(after), tr("Remove bookmark %1").arg(old));
    return true;
}

void BookmarkUi::goTo(std::size_t index)
{
    if (index >= bookmarks().size())
        return;
    TimelineView *view = m_window->timeline();
    const core::Nanos ts = bookmarks()[index].ts;
    const core::Nanos half = std::max<core::Nanos>(1, (view->viewEnd() - view->viewStart()) / 2);
    view->setVisibleRange(ts - half, ts + half);
}

void BookmarkUi::change(core::BookmarkList after, const QString &what)
{
    m_controller->undoStack()->push(new BookmarkCommand(m_controller, bookmarks(), std::move(after), what));
    if (const std::string &error = m_controller->session()->lastSaveError(); !error.empty())
        m_window->statusBar()->showMessage(tr("Bookmark not saved: %1").arg(QString::fromStdString(error)), 8000);
}

void BookmarkUi::refresh()
{
    // The menu is rebuilt when it opens (aboutToShow), never under an action of it that is running.
    m_window->timeline()->setBookmarks(bookmarks());
}

QString BookmarkUi::timeText(core::Nanos ts) const { return formatDuration(ts - m_window->timeline()->rulerOrigin()); }

void BookmarkUi::rebuildMenu()
{
    for (QMenu *sub : m_menu->findChildren<QMenu *>(QString(), Qt::FindDirectChildrenOnly))
        sub->deleteLater();
    m_menu->clear();
    m_menu->addAction(m_window->timeline()->keyAction(TimelineKey::AddBookmark));
    m_menu->addSeparator();
    const core::BookmarkList &list = bookmarks();
    if (list.empty()) {
        m_menu->addAction(tr("No bookmarks: press M on the timeline"))->setEnabled(false);
        return;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        const QString name = list[i].name.empty() ? tr("(unnamed)") : QString::fromStdString(list[i].name);
        QMenu *sub = m_menu->addMenu(tr("%1 — %2").arg(name, timeText(list[i].ts)));
        sub->addAction(tr("Go to"), this, [this, i] { goTo(i); });
        sub->addAction(tr("Rename…"), this, [this, i, name] {
            bool ok = false;
            const QString text = QInputDialog::getText(m_window, tr("Rename bookmark"), tr("Name:"), QLineEdit::Normal, name,
                                                       &ok);
            if (ok)
                renameBookmark(i, text);
        });
        sub->addAction(tr("Remove"), this, [this, i] { removeBookmark(i); });
    }
}

} // namespace linkscope::ui
