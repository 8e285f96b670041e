// Issue 42, N7 and N9, on the bundled sample: a sidecar whose bookmark name is megabytes long opens
// with the name cut (and the cut said in the Edits dock's line), the flag and the menu elided; with
// a hundred thousand bookmarks, adding one is one step that neither copies the list nor asks every
// name, the menu lists a bounded window of them, and undo/redo keep the file and the list equal.

#include "edit/sidecar.h"
#include "review/bookmarkui.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QElapsedTimer>
#include <QMenu>
#include <QSignalSpy>
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
    window->openPair(host, device);
    if (!changed.wait(30000) || !window->review()->controller()->waitUntilSettled())
        return nullptr;
    return window;
}

BookmarkUi *bookmarkUi(MainWindow *window) { return window->findChild<BookmarkUi *>(QStringLiteral("BookmarkUi")); }

// The sample's sidecar with `change` applied to what a first bookmark (added in the GUI, so that
// the fingerprints are the real ones) wrote.
template <typename Change>
void writeSidecar(const QString &host, const QString &device, Change change)
{
    const std::string path = core::defaultSidecarPath(device.toStdString());
    std::filesystem::remove(path);
    {
        auto window = openWindow(host, device);
        QVERIFY(window);
        QVERIFY(bookmarkUi(window.get())->addBookmark(window->timeline()->state().viewStart() + 1000));
    }
    core::Sidecar sidecar = core::loadSidecar(path);
    change(sidecar);
    core::saveSidecar(sidecar, path);
}

} // namespace

class TestBookmarkBounds : public QObject {
    Q_OBJECT
private slots:
    void aLongNameIsCutOnReadingAndElidedWhereShown()
    {
        const QString host = test::sampleCopy("sample_host_et.json");
        const QString device = test::sampleCopy("sample_kineto.json");
        const std::size_t length = 8u << 20;
        core::Nanos ts = 0;
        writeSidecar(host, device, [&](core::Sidecar &s) {
            ts = s.bookmarks.at(0).ts;
            // A name of 8 MiB ending in a character of two bytes across the cut (é).
            s.bookmarks.at(0).name = std::string(core::kSidecarTextLimit - 1, 'x') + "\xc3\xa9" + std::string(length, 'y');
        });
        const std::string path = core::defaultSidecarPath(device.toStdString());
        const core::Sidecar read = core::loadSidecar(path);
        QCOMPARE(read.bookmarks.at(0).name, std::string(core::kSidecarTextLimit - 1, 'x'));
        QCOMPARE(read.warnings.size(), std::size_t(1));
        QVERIFY2(read.warnings[0].find(path + ": /bookmarks/0/name: bookmark name (at ts_ns " + std::to_string(ts) + ")") == 0,
                 read.warnings[0].c_str());
        QVERIFY(read.warnings[0].find("4096") != std::string::npos);

        QElapsedTimer timer;
        timer.start();
        auto window = openWindow(host, device);
        QVERIFY(window);
        BookmarkUi *bookmarks = bookmarkUi(window.get());
        QCOMPARE(bookmarks->bookmarks().at(0).name.size(), core::kSidecarTextLimit - 1);
        CorrectionController *controller = window->review()->controller();
        QCOMPARE(controller->session()->sidecar().warnings.size(), std::size_t(1));
        QVERIFY2(controller->sidecarSummary().contains(QStringLiteral("cut on reading")),
                 qPrintable(controller->sidecarSummary()));
        // Drawn with the flag's label elided (its text is a few dozen characters wide).
        TimelineView *timeline = window->timeline();
        timeline->state().setVisibleRange(ts - 100000, ts + 100000);
        timeline->repaint();
        QCOMPARE(timeline->bookmarkOverlay().painted().size(), std::size_t(1));
        QVERIFY(timeline->bookmarkOverlay().painted()[0].flag.width() < 400);
        // The menu's line is elided too.
        emit bookmarks->menu()->aboutToShow();
        const QList<QMenu *> subs = bookmarks->menu()->findChildren<QMenu *>(QString(), Qt::FindDirectChildrenOnly);
        QVERIFY(!subs.isEmpty());
        for (QMenu *sub : subs)
            QVERIFY(sub->title().size() < 400);
        // Far below the minutes a whole 8 MiB name took to lay out (the bound is for slow machines).
        QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
        // A name typed in is cut the same way.
        QVERIFY(bookmarks->renameBookmark(0, QString(100000, QLatin1Char('z'))));
        QCOMPARE(bookmarks->bookmarks().at(0).name, std::string(core::kSidecarTextLimit, 'z'));
        QCOMPARE(core::loadSidecar(path).bookmarks.at(0).name, std::string(core::kSidecarTextLimit, 'z'));
    }

    void addingToAHundredThousandIsOneStep()
    {
        const QString host = test::sampleCopy("sample_host_et.json");
        const QString device = test::sampleCopy("sample_kineto.json");
        constexpr std::size_t kCount = 100000;
        writeSidecar(host, device, [&](core::Sidecar &s) {
            const core::Nanos start = s.bookmarks.at(0).ts;
            s.bookmarks.clear();
            for (std::size_t i = 0; i < kCount; ++i)
                s.bookmarks.push_back({start + static_cast<core::Nanos>(i) * 10, "Bookmark " + std::to_string(i + 1)});
        });
        const std::string path = core::defaultSidecarPath(device.toStdString());
        auto window = openWindow(host, device);
        QVERIFY(window);
        BookmarkUi *bookmarks = bookmarkUi(window.get());
        QCOMPARE(bookmarks->bookmarks().size(), kCount);
        TimelineView *timeline = window->timeline();
        const core::Nanos at = timeline->state().viewStart() + (timeline->state().viewEnd() - timeline->state().viewStart()) / 3;
        QElapsedTimer timer;
        timer.start();
        QVERIFY(bookmarks->addBookmark(at));
        timeline->repaint();
        const qint64 added = timer.elapsed();
        QCOMPARE(bookmarks->bookmarks().size(), kCount + 1);
        const auto found = std::find_if(bookmarks->bookmarks().begin(), bookmarks->bookmarks().end(),
                                        [&](const core::Bookmark &b) { return b.ts == at; });
        QVERIFY(found != bookmarks->bookmarks().end());
        QCOMPARE(found->name, "Bookmark " + std::to_string(kCount + 1));
        QCOMPARE(core::loadSidecar(path).bookmarks, bookmarks->bookmarks());
        // Seconds before (every name asked against the whole list); the bound is for slow machines.
        QVERIFY2(added < 3000, qPrintable(QString::number(added)));
        // A frame draws at most one flag per pixel column.
        QVERIFY(timeline->bookmarkOverlay().painted().size() <= static_cast<std::size_t>(timeline->width()));
        // The menu lists a window of them and says how many it leaves out.
        emit bookmarks->menu()->aboutToShow();
        const auto subs = bookmarks->menu()->findChildren<QMenu *>(QString(), Qt::FindDirectChildrenOnly);
        QVERIFY(subs.size() <= 100);
        bool saysMore = false;
        for (QAction *action : bookmarks->menu()->actions())
            saysMore = saysMore || action->text().contains(QStringLiteral("more bookmark"));
        QVERIFY(saysMore);
        // Undo and redo: one bookmark out and back, the file following.
        QUndoStack *stack = window->review()->controller()->undoStack();
        stack->undo();
        QCOMPARE(bookmarks->bookmarks().size(), kCount);
        QCOMPARE(core::loadSidecar(path).bookmarks.size(), kCount);
        stack->redo();
        QCOMPARE(bookmarks->bookmarks().size(), kCount + 1);
        // Remove and rename are single steps that undo to the same list.
        const core::BookmarkList before = bookmarks->bookmarks();
        QVERIFY(bookmarks->removeBookmark(5));
        QVERIFY(bookmarks->renameBookmark(7, QStringLiteral("renamed")));
        QCOMPARE(bookmarks->bookmarks().size(), kCount);
        stack->undo();
        stack->undo();
        QCOMPARE(bookmarks->bookmarks(), before);
        QCOMPARE(core::loadSidecar(path).bookmarks, before);
    }
};

QTEST_MAIN(TestBookmarkBounds)
#include "test_bookmarkbounds.moc"
