#include "review/bookmarkui.h"

#include "ground/timeformat.h"
#include "review/correctioncontroller.h"
#include "timeline/timelineview.h"

#include <QInputDialog>
#include <QMenu>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>

namespace linkscope::ui {

namespace {

// One bookmark added, renamed or removed: the command holds that bookmark only, so a step costs
// the same with a hundred thousand bookmarks as with one (a copy of the list per step did not).
class BookmarkCommand : public QUndoCommand {
public:
    enum class Kind { Add, Rename, Remove };
    BookmarkCommand(CorrectionController *controller, Kind kind, std::size_t index, core::Bookmark bookmark, const QString &text)
        : QUndoCommand(text), m_controller(controller), m_kind(kind), m_index(index), m_bookmark(std::move(bookmark))
    {
    }
    void redo() override
    {
        m_controller->changeBookmarksNow([this](core::CorrectionSession &session) {
            switch (m_kind) {
            case Kind::Add:
                m_index = session.insertBookmark(m_bookmark);
                break;
            case Kind::Rename: // m_bookmark.name: the name to set; the old one is kept for undo
                m_bookmark.name = session.renameBookmark(m_index, std::move(m_bookmark.name));
                break;
            case Kind::Remove:
                m_bookmark = session.eraseBookmark(m_index);
                break;
            }
        });
    }
    void undo() override
    {
        m_controller->changeBookmarksNow([this](core::CorrectionSession &session) {
            switch (m_kind) {
            case Kind::Add:
                m_bookmark = session.eraseBookmark(m_index);
                break;
            case Kind::Rename:
                m_bookmark.name = session.renameBookmark(m_index, std::move(m_bookmark.name));
                break;
            case Kind::Remove:
                session.insertBookmarkAt(m_index, m_bookmark);
                break;
            }
        });
    }

private:
    CorrectionController *m_controller;
    Kind m_kind;
    std::size_t m_index;
    core::Bookmark m_bookmark;
};

// A name as menus and undo texts show it: its head, elided (a sidecar's names are cut on reading
// to core::kSidecarTextLimit bytes, still far more than a menu line holds).
QString shownName(const std::string &name)
{
    constexpr std::size_t kShownBytes = 160;
    if (name.size() <= kShownBytes)
        return QString::fromStdString(name);
    return QString::fromStdString(core::cutText(name.substr(0, kShownBytes), kShownBytes - 4)) + QChar(0x2026);
}

const core::BookmarkList kNoBookmarks;

} // namespace

BookmarkUi::BookmarkUi(QWidget *parent, TimelineView *timeline, CorrectionController *controller)
    : QObject(parent), m_parent(parent), m_timeline(timeline), m_controller(controller),
      m_menu(new QMenu(tr("&Bookmarks"), parent))
{
    setObjectName(QStringLiteral("BookmarkUi"));
    m_menu->setObjectName(QStringLiteral("BookmarksMenu"));
    connect(timeline, &TimelineView::bookmarkRequested, this, [this](core::Nanos ts) { addBookmark(ts); });
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
        emit message(tr("Bookmarks need an open trace (its corrections file is still being looked for)"), 4000);
        return false;
    }
    const std::string text = name.isEmpty() ? core::nextBookmarkName(bookmarks()) : core::cutText(name.toStdString());
    push(
        new BookmarkCommand(m_controller, BookmarkCommand::Kind::Add, 0, {ts, text}, tr("Add bookmark %1").arg(shownName(text))));
    emit message(tr("Bookmarked %1 at %2 (Bookmarks menu)").arg(shownName(text), timeText(ts)), 4000);
    return true;
}

bool BookmarkUi::renameBookmark(std::size_t index, const QString &name)
{
    if (index >= bookmarks().size())
        return false;
    const core::Bookmark &old = bookmarks()[index];
    const std::string text = core::cutText(name.toStdString());
    push(new BookmarkCommand(m_controller, BookmarkCommand::Kind::Rename, index, {old.ts, text},
                             tr("Rename bookmark %1 to %2").arg(shownName(old.name), shownName(text))));
    return true;
}

bool BookmarkUi::removeBookmark(std::size_t index)
{
    if (index >= bookmarks().size())
        return false;
    const core::Bookmark &old = bookmarks()[index];
    push(new BookmarkCommand(m_controller, BookmarkCommand::Kind::Remove, index, old,
                             tr("Remove bookmark %1").arg(shownName(old.name))));
    return true;
}

void BookmarkUi::goTo(std::size_t index)
{
    if (index >= bookmarks().size())
        return;
    TimelineView *view = m_timeline;
    const core::Nanos ts = bookmarks()[index].ts;
    const core::Nanos half = std::max<core::Nanos>(1, (view->state().viewEnd() - view->state().viewStart()) / 2);
    view->state().setVisibleRange(ts - half, ts + half);
}

void BookmarkUi::push(QUndoCommand *command)
{
    m_controller->undoStack()->push(command);
    if (const std::string &error = m_controller->session()->lastSaveError(); !error.empty())
        emit message(tr("Bookmark not saved: %1").arg(QString::fromStdString(error)), 8000);
}

void BookmarkUi::refresh()
{
    // The menu is rebuilt when it opens (aboutToShow), never under an action of it that is running.
    m_timeline->setBookmarks(bookmarks());
}

QString BookmarkUi::timeText(core::Nanos ts) const { return formatDuration(ts - m_timeline->rulerOrigin()); }

void BookmarkUi::rebuildMenu()
{
    for (QMenu *sub : m_menu->findChildren<QMenu *>(QString(), Qt::FindDirectChildrenOnly))
        sub->deleteLater();
    m_menu->clear();
    m_menu->addAction(m_timeline->keyAction(TimelineKey::AddBookmark));
    m_menu->addSeparator();
    const core::BookmarkList &list = bookmarks();
    if (list.empty()) {
        m_menu->addAction(tr("No bookmarks: press M on the timeline"))->setEnabled(false);
        return;
    }
    // A menu of a hundred thousand submenus takes minutes to build: past kMenuLimit, the list
    // starts at the first bookmark in view and says how many it leaves out.
    constexpr std::size_t kMenuLimit = 100;
    std::size_t begin = 0;
    if (list.size() > kMenuLimit) {
        const core::Nanos viewStart = m_timeline->state().viewStart();
        begin = static_cast<std::size_t>(std::lower_bound(list.begin(), list.end(), viewStart,
                                                          [](const core::Bookmark &b, core::Nanos ts) { return b.ts < ts; })
                                         - list.begin());
        begin = std::min(begin, list.size() - kMenuLimit);
    }
    const std::size_t end = std::min(list.size(), begin + kMenuLimit);
    for (std::size_t i = begin; i < end; ++i) {
        const QString name = list[i].name.empty() ? tr("(unnamed)") : shownName(list[i].name);
        QMenu *sub = m_menu->addMenu(tr("%1 — %2").arg(name, timeText(list[i].ts)));
        sub->addAction(tr("Go to"), this, [this, i] { goTo(i); });
        sub->addAction(tr("Rename…"), this, [this, i] {
            if (i >= bookmarks().size())
                return;
            bool ok = false;
            const QString text = QInputDialog::getText(m_parent, tr("Rename bookmark"), tr("Name:"), QLineEdit::Normal,
                                                       QString::fromStdString(bookmarks()[i].name), &ok);
            if (ok)
                renameBookmark(i, text);
        });
        sub->addAction(tr("Remove"), this, [this, i] { removeBookmark(i); });
    }
    if (const std::size_t left = list.size() - (end - begin); left > 0)
        m_menu
            ->addAction(
                tr("%n more bookmark(s) not listed: the list starts at the first one in view", nullptr, static_cast<int>(left)))
            ->setEnabled(false);
}

} // namespace linkscope::ui
