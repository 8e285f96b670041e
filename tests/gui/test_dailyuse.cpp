// Issue 28's "hard to use" items on the bundled sample: the window's layout kept across launches
// with sensible defaults at 1400x900 (a temporary settings location: QStandardPaths test mode);
// the dark theme's links in the dark palette after a switch at run time, and the shortcut sheet that
// fits the screen and scrolls; the Chakra counts raising the Search tab without the old query, and
// their filter dropped after a policy switch; counts said the same way; Open pair taking a Kineto
// trace picked first as the device trace.

#include "docks/detailsdock.h"
#include "docks/findingsdock.h"
#include "docks/rangedock.h"
#include "docks/searchdock.h"
#include "docks/warningsdock.h"
#include "ground/noticebar.h"
#include "ground/timeformat.h"
#include "review/correctioncontroller.h"
#include "review/storypanel.h"
#include "shell/mainwindow.h"
#include "shell/openpair.h"
#include "shell/reviewui.h"
#include "shell/theme.h"
#include "shell/windowlayout.h"
#include "testsupport.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QTimer>
#include <QTreeWidget>

using namespace linkscope;
using namespace linkscope::ui;

namespace {
QString sample(const char *name) { return test::sampleCopy(name); }
} // namespace

class TestDailyUse : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_dailyuse"));
        QSettings().clear();
    }

    // `linkscope-gui --screenshot F --settled` with nothing to open saves the window as it first
    // shows and exits, instead of waiting for a document forever.
    void screenshotOfNothingDoesNotWait()
    {
        QTemporaryDir dir;
        const QString shot = dir.filePath(QStringLiteral("empty.png"));
        QProcess gui;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.start(linkscope::test::buildPath("/app/linkscope-gui"),
                  {QStringLiteral("--screenshot"), shot, QStringLiteral("--size"), QStringLiteral("800x600"),
                   QStringLiteral("--settled")});
        QVERIFY(gui.waitForStarted(30000));
        const bool ended = gui.waitForFinished(60000);
        if (!ended)
            gui.kill();
        QVERIFY2(ended, "linkscope-gui --screenshot with nothing to open did not exit");
        QCOMPARE(gui.exitCode(), 0);
        QVERIFY(!QImage(shot).isNull());
    }

    void theLayoutIsSensibleAndRememberedAcrossLaunches()
    {
        WindowLayout::forget();
        auto first = std::make_unique<MainWindow>();
        first->resize(1400, 900);
        first->show();
        QVERIFY(QTest::qWaitForWindowExposed(first.get()));
        auto *findings = first->findChild<QDockWidget *>(QStringLiteral("FindingsDock"));
        QVERIFY(findings);
        // Defaults at 1400x900: the Findings under the lanes, Details above the taller Search /
        // Warnings / Prediction tabs (the Prediction dock's what-if without scrolling, issue 40).
        QTRY_VERIFY2(findings->height() >= 900 * 18 / 100, qPrintable(QString::number(findings->height())));
        QTRY_VERIFY2(
            first->detailsDock()->height() < first->searchDock()->height(),
            qPrintable(
                QStringLiteral("details %1, search %2").arg(first->detailsDock()->height()).arg(first->searchDock()->height())));
        QTRY_VERIFY2(first->detailsDock()->width() >= 360, qPrintable(QString::number(first->detailsDock()->width())));
        // The user's own layout: another size, a taller Findings, Details moved to the left.
        first->resize(1200, 800);
        QTest::qWait(20);
        first->addDockWidget(Qt::LeftDockWidgetArea, first->detailsDock());
        first->resizeDocks({findings}, {420}, Qt::Vertical);
        QTest::qWait(20);
        const int findingsHeight = findings->height();
        first->close(); // saved as the window closes
        first.reset();

        auto second = std::make_unique<MainWindow>();
        second->show();
        QVERIFY(QTest::qWaitForWindowExposed(second.get()));
        QTest::qWait(20);
        QCOMPARE(second->size(), QSize(1200, 800));
        QCOMPARE(second->dockWidgetArea(second->detailsDock()), Qt::LeftDockWidgetArea);
        auto *restored = second->findChild<QDockWidget *>(QStringLiteral("FindingsDock"));
        QVERIFY2(std::abs(restored->height() - findingsHeight) <= 4,
                 qPrintable(QStringLiteral("restored %1 px, saved %2 px").arg(restored->height()).arg(findingsHeight)));
        second.reset();
        WindowLayout::forget();
        QVERIFY(!QSettings().contains(QStringLiteral("layout/state")));
    }

    void darkLinksAfterASwitchAndAShortcutSheetThatFits()
    {
        openSample();
        applyTheme(ThemeChoice::Light);
        QTest::qWait(20);
        applyTheme(ThemeChoice::Dark); // at run time: labels made under the light palette
        QTest::qWait(20);
        const QColor link = QApplication::palette().color(QPalette::Link);
        QVERIFY(link.lightness() > 128);
        StoryPanel *story = m_window->review()->findingsDock()->storyPanel();
        QVERIFY(story->label()->text().contains(QStringLiteral("<a ")));
        const QImage shot = story->label()->grab().toImage();
        int pureBlue = 0, lightBlue = 0;
        for (int y = 0; y < shot.height(); ++y)
            for (int x = 0; x < shot.width(); ++x) {
                const QColor c = shot.pixelColor(x, y);
                pureBlue += c.blue() > 200 && c.red() < 40 && c.green() < 40 ? 1 : 0;
                lightBlue += std::abs(c.red() - link.red()) < 24 && std::abs(c.green() - link.green()) < 24
                                     && std::abs(c.blue() - link.blue()) < 24
                                 ? 1
                                 : 0;
            }
        QVERIFY2(pureBlue == 0, qPrintable(QStringLiteral("%1 pixels of #0000ff-like links").arg(pureBlue)));
        QVERIFY2(lightBlue > 10, qPrintable(QStringLiteral("%1 pixels in the dark theme's link colour").arg(lightBlue)));
        QVERIFY(!m_window->warningsLabel()->text().contains(QStringLiteral("#0000ff")));
        // The notices above the timeline follow the theme too (their tooltip colours).
        QCOMPARE(m_window->readNotice()->palette().color(QPalette::Window), QApplication::palette().color(QPalette::ToolTipBase));
        // The shortcut sheet: a dialog no taller than the screen, which scrolls.
        for (QAction *action : m_window->findChildren<QAction *>())
            if (action->text() == QStringLiteral("Keyboard shortcuts"))
                action->trigger();
        auto *sheet = m_window->findChild<QDialog *>(QStringLiteral("ShortcutSheet"));
        QVERIFY(sheet && sheet->isVisible());
        const QRect screen = m_window->screen()->availableGeometry();
        QVERIFY2(sheet->height() <= screen.height(),
                 qPrintable(QStringLiteral("%1 > %2").arg(sheet->height()).arg(screen.height())));
        auto *text = sheet->findChild<QTextBrowser *>();
        QVERIFY(text && text->toPlainText().contains(QStringLiteral("Ctrl+drag")));
        // No blank line above the first section: its title is on the first line in view.
        const QTextCursor first = text->document()->find(QStringLiteral("Timeline (while"));
        QVERIFY(!first.isNull());
        QVERIFY2(text->cursorRect(first).top() < text->fontMetrics().height(),
                 qPrintable(QString::number(text->cursorRect(first).top())));
        // Sized to its content (it opened as 720×122, two shortcuts in view): every row in view, or
        // as tall as the screen allows with the rest a scroll away; never a horizontal scroll bar.
        QTest::qWait(20);
        const QSize room = screen.size() * 85 / 100;
        QVERIFY2(text->verticalScrollBar()->maximum() == 0 || sheet->height() >= room.height() - 2,
                 qPrintable(QStringLiteral("%1×%2 in %3×%4, scrolls %5 px")
                                .arg(sheet->width())
                                .arg(sheet->height())
                                .arg(room.width())
                                .arg(room.height())
                                .arg(text->verticalScrollBar()->maximum())));
        QVERIFY2(
            text->horizontalScrollBar()->maximum() == 0 || sheet->width() >= room.width() - 2,
            qPrintable(
                QStringLiteral("%1 px wide, scrolls %2 px").arg(sheet->width()).arg(text->horizontalScrollBar()->maximum())));
        QVERIFY(sheet->height() > 300);
        QDir().mkpath(linkscope::test::buildPath("/screens"));
        sheet->grab().save(linkscope::test::buildPath("/screens/shortcut_sheet.png"));
        sheet->close();
        applyTheme(ThemeChoice::Light);
    }

    void chakraCountsRaiseSearchAndGoStaleWithThePolicy()
    {
        openSample();
        SearchDock *search = m_window->searchDock();
        FindingsDock *findings = m_window->review()->findingsDock();
        search->findChild<QLineEdit *>()->setText(QStringLiteral("gemm"));
        m_window->warningsDock()->show();
        m_window->warningsDock()->raise(); // Warnings in front of the Search tab
        QTest::qWait(20);
        QVERIFY(search->visibleRegion().isEmpty());
        findings->storyPanel()->activate(QStringLiteral("chakra10:parent"));
        QTest::qWait(20);
        QVERIFY2(!search->visibleRegion().isEmpty(), "the Search tab was not raised");
        QVERIFY(search->findChild<QLineEdit *>()->text().isEmpty());
        QVERIFY(findings->filter()->hasEventFilter());
        // Another policy: the counts are of other links; the filter goes.
        QSignalSpy changed(m_window.get(), &MainWindow::documentChanged);
        m_window->setPolicy(core::Policy::EvIdx);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->document() && m_window->document()->links().policy == core::Policy::EvIdx, 30000);
        QVERIFY(!findings->filter()->hasEventFilter());
        m_window->setPolicy(core::Policy::Nesting);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->document()->links().policy == core::Policy::Nesting, 30000);
        // The time range's tabs lose their counts with the range.
        RangeDock *range = m_window->rangeDock();
        range->setRange(m_window->document()->startTime(), m_window->document()->endTime());
        QVERIFY(range->tabs()->tabText(0).contains(QLatin1Char('(')));
        range->setRange(0, 0);
        QCOMPARE(range->tabs()->tabText(0), QStringLiteral("GPU ops"));
        QCOMPARE(ranksText(1), QStringLiteral("1 rank"));
        QCOMPARE(ranksText(8), QStringLiteral("8 ranks"));
    }

    void openPairTakesEitherFileFirst()
    {
        const QString host = sample("sample_host_et.json"), kineto = sample("sample_kineto.json");
        QStringList titles, asked;
        auto asker = [&titles, &asked](QStringList answers) {
            return [&titles, &asked, answers](const QString &title, const QString &prompt, const QString &, bool) mutable {
                titles << title;
                asked << title << prompt;
                return answers.isEmpty() ? QStringList() : QStringList{answers.takeFirst()};
            };
        };
        // The Kineto trace first: it is the device trace, and its host ET is asked for.
        PairChoice c = choosePair(asker({kineto, host}));
        QVERIFY(c.error.isEmpty() && !c.cancelled);
        QCOMPARE(c.host, host);
        QCOMPARE(c.device, kineto);
        QVERIFY2(titles.last().startsWith(QStringLiteral("Host ET for")), qPrintable(titles.last()));
        // The host ET first: its Kineto trace next.
        titles.clear();
        c = choosePair(asker({host, kineto}));
        QCOMPARE(c.host, host);
        QCOMPARE(c.device, kineto);
        QVERIFY(titles.last().startsWith(QStringLiteral("Kineto trace for")));
        // A Kineto trace alone when its host ET is not given.
        c = choosePair(asker({kineto}));
        QVERIFY(!c.cancelled);
        QVERIFY(c.host.isEmpty());
        QCOMPARE(c.device, kineto);
        // Not a trace: said at once, no second question.
        titles.clear();
        const QString other = QString::fromStdString(test::sourcePath("README.md"));
        c = choosePair(asker({other, kineto}));
        QVERIFY2(c.error.contains(QStringLiteral("not a host ET or a Kineto trace")), qPrintable(c.error));
        QCOMPARE(titles.size(), 1);
        // Both at once, in either order: the loader sniffs them.
        c = choosePair([&](const QString &, const QString &, const QString &, bool several) {
            return several ? QStringList{kineto, host} : QStringList();
        });
        QCOMPARE(c.host, kineto);
        QCOMPARE(c.device, host);
        // Each title is short enough for a window's title bar; the question is the prompt, a sentence.
        for (qsizetype i = 0; i + 1 < asked.size(); i += 2) {
            QVERIFY2(asked[i].size() <= 60, qPrintable(asked[i]));
            QVERIFY2(asked[i + 1].endsWith(QLatin1Char('.')), qPrintable(asked[i + 1]));
        }
    }

    void openPairDialogShowsItsQuestion()
    {
        // The real dialog: a title that fits its width, and the question as a label inside it.
        QString title, prompt;
        int width = 0, titleWidth = 0;
        QTimer::singleShot(200, [&] {
            auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            title = dialog->windowTitle();
            width = dialog->width();
            titleWidth = dialog->fontMetrics().horizontalAdvance(title);
            if (auto *label = dialog->findChild<QLabel *>(QStringLiteral("OpenPairPrompt")))
                prompt = label->isVisible() ? label->text() : QString();
            QDir().mkpath(linkscope::test::buildPath("/screens"));
            dialog->grab().save(linkscope::test::buildPath("/screens/open_pair_dialog.png"));
            dialog->reject();
        });
        const QStringList picked = fileDialogAsker(nullptr)(
            QStringLiteral("Open trace pair"), QStringLiteral("Pick the host ET and its Kineto trace."), QString(), true);
        QVERIFY(picked.isEmpty());
        QCOMPARE(title, QStringLiteral("Open trace pair"));
        QVERIFY2(titleWidth < width - 120,
                 qPrintable(QStringLiteral("title %1 px in a %2 px dialog").arg(titleWidth).arg(width)));
        QCOMPARE(prompt, QStringLiteral("Pick the host ET and its Kineto trace."));
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    void openSample()
    {
        if (m_window)
            return;
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QSignalSpy changed(m_window.get(), &MainWindow::documentChanged);
        m_window->openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(changed.wait(30000));
        QVERIFY(m_window->review()->controller()->waitUntilSettled());
    }

    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestDailyUse)
#include "test_dailyuse.moc"
