// Issue 28 item 16, hand-off, on the bundled sample: bookmarks (`M` on the timeline at the time
// range's or the selection's start, drawn as lines with flags, listed in the Bookmarks menu,
// undoable, saved in the sidecar and back after a reopen) and Open in Perfetto (a Perfetto JSON in
// the cache folder that stays, the notice naming it and how to open it; Kineto-only too).

#include "edit/sidecar.h"
#include "ground/noticebar.h"
#include "review/bookmarkui.h"
#include "review/correctioncontroller.h"
#include "review/perfettohandoff.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <filesystem>

using namespace linkscope;
using namespace linkscope::ui;

namespace {

std::unique_ptr<MainWindow> openWindow(const QString &host, const QString &device)
{
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    QSignalSpy changed(window.get(), &MainWindow::documentChanged);
    host.isEmpty() ? window->openDevice(device) : window->openPair(host, device);
    if (!changed.wait(30000) || !window->review()->controller()->waitUntilSettled())
        return nullptr;
    return window;
}

// The Perfetto hand-off of `window`: its file, checked as JSON with trace events.
void checkPerfetto(MainWindow *window)
{
    auto *handoff = window->findChild<PerfettoHandoff *>(QStringLiteral("PerfettoHandoff"));
    QVERIFY(handoff);
    QVERIFY(handoff->action()->isEnabled());
    const QString path = handoff->outputPath();
    QFile::remove(path);
    QSignalSpy finished(handoff, &PerfettoHandoff::finished);
    handoff->action()->trigger();
    QVERIFY(finished.wait(30000));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(2).toString()));
    QCOMPARE(finished.at(0).at(1).toString(), path);
    // It stays after the action, where the message says.
    QVERIFY(QFileInfo(path).isFile());
    QVERIFY(path.startsWith(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonArray events = json.object().value(QStringLiteral("traceEvents")).toArray();
    QVERIFY(events.size() > 10);
    // The notice names the file and says how to open it, with a button that copies the path.
    NoticeBar *notice = window->review()->noticeBar();
    QVERIFY(notice->isVisible());
    QVERIFY2(notice->text().contains(path), qPrintable(notice->text()));
    QVERIFY(notice->text().contains(QStringLiteral("ui.perfetto.dev")));
    QVERIFY(notice->text().contains(QStringLiteral("Open trace file")));
    QCOMPARE(notice->actionButton()->text(), QStringLiteral("Copy path"));
    QApplication::clipboard()->clear();
    notice->actionButton()->click();
    QCOMPARE(QApplication::clipboard()->text(), path);
    QFile::remove(path);
}

} // namespace

class TestHandoff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the cache folder is a test one
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_handoff"));
    }

    void bookmarksByKeyUndoableAndSavedInTheSidecar()
    {
        const QString host = test::sampleCopy("sample_host_et.json");
        const QString device = test::sampleCopy("sample_kineto.json");
        const std::string sidecar = core::defaultSidecarPath(device.toStdString());
        std::filesystem::remove(sidecar);
        core::BookmarkList expected;
        {
            auto window = openWindow(host, device);
            QVERIFY(window);
            TimelineView *timeline = window->timeline();
            auto *bookmarks = window->findChild<BookmarkUi *>(QStringLiteral("BookmarkUi"));
            QVERIFY(bookmarks);
            QVERIFY(bookmarks->bookmarks().empty());
            const core::Nanos span = timeline->state().viewEnd() - timeline->state().viewStart();
            // M with a time range: its start.
            const core::Nanos rangeStart = timeline->state().viewStart() + span / 4;
            timeline->state().timeRange().set(rangeStart, rangeStart + span / 10);
            timeline->setFocus();
            QTest::keyClick(timeline, Qt::Key_M);
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(1));
            QCOMPARE(bookmarks->bookmarks()[0].ts, rangeStart);
            QCOMPARE(bookmarks->bookmarks()[0].name, std::string("Bookmark 1"));
            // M with a selected event (no range): the event's start.
            timeline->state().timeRange().clear();
            const core::EventIndex event = core::EventIndex(window->document()->eventCount() / 2);
            window->selection()->select(event);
            const core::Nanos eventStart = window->document()->event(event).ts;
            QTest::keyClick(timeline, Qt::Key_M);
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(2));
            QVERIFY(std::any_of(bookmarks->bookmarks().begin(), bookmarks->bookmarks().end(),
                                [&](const core::Bookmark &b) { return b.ts == eventStart && b.name == "Bookmark 2"; }));
            // Undo / redo through the corrections' stack.
            QUndoStack *undo = window->review()->controller()->undoStack();
            undo->undo();
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(1));
            QCOMPARE(core::loadSidecar(sidecar).bookmarks.size(), std::size_t(1));
            undo->redo();
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(2));
            // Rename and remove from the list; the timeline shows what the session holds.
            const std::size_t first = bookmarks->bookmarks()[0].ts == rangeStart ? 0 : 1;
            QVERIFY(bookmarks->renameBookmark(first, QStringLiteral("warm-up ends")));
            QVERIFY(bookmarks->addBookmark(timeline->state().viewStart() + span / 2, QStringLiteral("doomed")));
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(3));
            const auto doomed = std::find_if(bookmarks->bookmarks().begin(), bookmarks->bookmarks().end(),
                                             [](const core::Bookmark &b) { return b.name == "doomed"; });
            QVERIFY(bookmarks->removeBookmark(static_cast<std::size_t>(doomed - bookmarks->bookmarks().begin())));
            QCOMPARE(bookmarks->bookmarks().size(), std::size_t(2));
            QCOMPARE(timeline->bookmarkOverlay().bookmarks(), bookmarks->bookmarks());
            // Drawn: a line and a flag for each one in view, the flags on the ruler.
            timeline->state().fitAll();
            timeline->renderToImage(timeline->size());
            QCOMPARE(timeline->bookmarkOverlay().painted().size(), std::size_t(2));
            for (const auto &painted : timeline->bookmarkOverlay().painted()) {
                QVERIFY(painted.flag.top() >= timeline->overviewHeight());
                QVERIFY(painted.flag.bottom() <= timeline->overviewHeight() + TimelineView::kRulerHeight);
                QVERIFY(painted.x >= timeline->contentRect().left() && painted.x <= timeline->contentRect().right());
            }
            // The Bookmarks menu lists them with Go to / Rename / Remove.
            QMenu *menu = bookmarks->menu();
            emit menu->aboutToShow();
            QStringList titles;
            for (QAction *action : menu->actions())
                if (action->menu())
                    titles << action->text();
            QCOMPARE(titles.size(), 2);
            QVERIFY2(titles.join(QLatin1Char('|')).contains(QStringLiteral("warm-up ends")),
                     qPrintable(titles.join(QLatin1Char('|'))));
            QMenu *sub = menu->actions().at(2)->menu();
            QVERIFY(sub);
            QStringList subItems;
            for (QAction *action : sub->actions())
                subItems << action->text();
            QCOMPARE(subItems, (QStringList{QStringLiteral("Go to"), QStringLiteral("Rename…"), QStringLiteral("Remove")}));
            timeline->state().setVisibleRange(timeline->state().viewStart(), timeline->state().viewStart() + span / 100);
            sub->actions().at(0)->trigger(); // Go to: centred, the zoom kept
            const core::Bookmark &target = bookmarks->bookmarks()[0];
            QVERIFY(timeline->state().viewStart() <= target.ts && target.ts <= timeline->state().viewEnd());
            QVERIFY(std::llabs((timeline->state().viewStart() + timeline->state().viewEnd()) / 2 - target.ts) <= span / 100);
            expected = bookmarks->bookmarks();
            QCOMPARE(core::loadSidecar(sidecar).bookmarks, expected);
            window->close();
        }
        // Reopened: the same bookmarks, from the sidecar, on the timeline.
        auto reopened = openWindow(host, device);
        QVERIFY(reopened);
        auto *bookmarks = reopened->findChild<BookmarkUi *>(QStringLiteral("BookmarkUi"));
        QCOMPARE(bookmarks->bookmarks(), expected);
        QCOMPARE(reopened->timeline()->bookmarkOverlay().bookmarks(), expected);
        QVERIFY(std::any_of(expected.begin(), expected.end(), [](const core::Bookmark &b) { return b.name == "warm-up ends"; }));
        reopened->close();
        std::filesystem::remove(sidecar);
    }

    void openInPerfettoWritesAFileThatStays()
    {
        auto window = openWindow(test::sampleCopy("sample_host_et.json"), test::sampleCopy("sample_kineto.json"));
        QVERIFY(window);
        // In the File menu and beside Export corrected traces….
        auto *handoff = window->findChild<PerfettoHandoff *>(QStringLiteral("PerfettoHandoff"));
        QVERIFY(handoff);
        QVERIFY(window->review()->reviewMenu()->actions().contains(handoff->action()));
        checkPerfetto(window.get());
    }

    void openInPerfettoWorksForKinetoOnly()
    {
        QTemporaryDir dir;
        const QString device = dir.filePath(QStringLiteral("kineto_only.json"));
        QVERIFY(QFile::copy(QString::fromStdString(test::sourcePath("resources/samples/sample_kineto.json")), device));
        auto window = openWindow(QString(), device);
        QVERIFY(window);
        QVERIFY(!window->document()->host());
        checkPerfetto(window.get());
    }
};

QTEST_MAIN(TestHandoff)
#include "test_handoff.moc"
