// Issue 28 item 13's remainder: the window with nothing open shows a start page (Open pair…, Open
// job folder…, the bundled sample, the recent pairs and jobs most recent first, those no longer
// there greyed), reachable with the keyboard, that goes away once something opens and comes back
// when nothing is open; and tooltips (the status bar's list of warnings, a warning's message) stay
// inside the screen's available geometry.

#include "shell/mainwindow.h"
#include "shell/recentfiles.h"
#include "shell/startpage.h"
#include "testsupport.h"
#include "timeline/timelineview.h"
#include "timeline/tooltipfit.h"

#include <QApplication>
#include <QHelpEvent>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace linkscope;
using namespace linkscope::ui;

class TestStartPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_startpage"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    void theSampleIsFound()
    {
        const auto [host, device] = StartPage::samplePair();
        QVERIFY2(QFileInfo(host).isFile() && host.endsWith(QStringLiteral("sample_host_et.json")), qPrintable(host));
        QVERIFY(QFileInfo(device).isFile() && device.endsWith(QStringLiteral("sample_kineto.json")));
    }

    void recentEntriesAreListedMostRecentFirstWithTheMissingGreyed()
    {
        const auto [host, device] = StartPage::samplePair();
        const QString gone = m_dir.filePath(QStringLiteral("gone_kineto.json"));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("job"))));
        // Oldest first: the missing pair, the sample, then a job folder.
        recent::rememberPair(QString(), gone);
        recent::rememberPair(host, device);
        recent::rememberJob(m_dir.filePath(QStringLiteral("job")));
        QCOMPARE(recent::pairs().size(), 2);
        QCOMPARE(recent::pairs().front().device, device); // most recent first
        QCOMPARE(recent::jobs().size(), 1);
        // Remembering again moves it to the front, once.
        recent::rememberPair(QString(), gone);
        recent::rememberPair(host, device);
        QCOMPARE(recent::pairs().size(), 2);
        QCOMPARE(recent::pairs().front().device, device);

        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        StartPage *page = window.startPage();
        QVERIFY(page && page->isVisible());
        QCOMPARE(page->geometry(), window.timeline()->rect());
        QVERIFY(page->sampleButton()->isEnabled());
        QListWidget *list = page->recentList();
        QCOMPARE(list->count(), 3);
        QVERIFY(list->item(0)->text().contains(QStringLiteral("sample_host_et.json")));
        QVERIFY(list->item(0)->flags() & Qt::ItemIsEnabled);
        QVERIFY(list->item(1)->text().contains(QStringLiteral("no longer there")));
        QVERIFY(!(list->item(1)->flags() & Qt::ItemIsEnabled));
        QVERIFY(list->item(2)->text().startsWith(QStringLiteral("Job job")));
        QVERIFY(list->item(2)->flags() & Qt::ItemIsEnabled);

        // The keyboard: Open pair has the focus, Tab goes to Open job folder, the sample, the list.
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(page->openPairButton()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(page->openJobButton()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(page->sampleButton()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(list));
        QCOMPARE(list->currentRow(), 0);
        // Down skips the greyed entry.
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(list->currentRow(), 2);
        QTest::keyClick(list, Qt::Key_Up);
        QCOMPARE(list->currentRow(), 0);
        // Enter opens it: the page goes, the trace is shown.
        QSignalSpy changed(&window, &MainWindow::documentChanged);
        QTest::keyClick(list, Qt::Key_Return);
        QVERIFY(!page->isVisible()); // as soon as the load starts
        QVERIFY(changed.wait(30000));
        QVERIFY(window.document());
        QCOMPARE(window.document()->devicePath(), device);
        QVERIFY(!page->isVisible());
    }

    void theSampleButtonOpensTheSampleAndAFailedOpenBringsThePageBack()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        StartPage *page = window.startPage();
        QVERIFY(page->isVisible());
        // A file that is not a trace: the load fails, nothing is open, the page is back.
        const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ not json");
        file.close();
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.openDevice(bad);
        QVERIFY(!page->isVisible());
        QVERIFY(failed.wait(30000));
        QTRY_VERIFY(page->isVisible());
        for (QWidget *w : QApplication::topLevelWidgets()) // the failure's message box
            if (w != &window && w->isVisible() && w->inherits("QMessageBox"))
                w->close();
        QSignalSpy changed(&window, &MainWindow::documentChanged);
        QTest::mouseClick(page->sampleButton(), Qt::LeftButton);
        QVERIFY(changed.wait(30000));
        QVERIFY(window.document()->devicePath().endsWith(QStringLiteral("sample_kineto.json")));
        QVERIFY(!page->isVisible());
    }

    void aJobBeingOpenedHidesThePage()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.startPage()->isVisible());
        // A folder without traces: looked into (no page), then nothing open (the page again).
        window.openJob(m_dir.filePath(QStringLiteral("job")));
        QVERIFY(!window.startPage()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(window.startPage()->isVisible(), 30000);
    }

    // A window given its trace before it is first shown (as `linkscope A B` and the tests do): the
    // page is not shown over the timeline once the window is.
    void aTraceOpenedBeforeTheWindowIsShownHasNoPage()
    {
        const auto [host, device] = StartPage::samplePair();
        MainWindow window;
        window.resize(1200, 800);
        QSignalSpy changed(&window, &MainWindow::documentChanged);
        window.openPair(host, device);
        QVERIFY(changed.wait(30000));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.startPage()->isVisible());
    }

    void longTooltipsStayInsideTheAvailableScreen()
    {
        MainWindow window;
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRect available = window.screen()->availableGeometry();
        // 200 warnings, some wider than the screen, near its bottom right corner.
        QStringList lines;
        for (int i = 0; i < 200; ++i)
            lines << QStringLiteral("warning %1: ").arg(i) + QString(i % 7 == 0 ? 400 : 60, QLatin1Char('w'));
        const QString text = lines.join(QLatin1Char('\n'));
        const QString fitted = toolTipTextWithin(text, available, &window);
        QVERIFY(fitted.count(QLatin1Char('\n')) < lines.size());
        QVERIFY(fitted.contains(QStringLiteral("more line")));
        QLabel *label = window.warningsLabel();
        label->setToolTip(text);
        label->show();
        const QPoint corner = available.bottomRight() - QPoint(3, 3);
        QHelpEvent help(QEvent::ToolTip, label->mapFromGlobal(corner), corner);
        QApplication::sendEvent(label, &help);
        QWidget *tip = shownToolTip();
        QVERIFY2(tip, "no tooltip shown");
        QVERIFY2(available.contains(tip->geometry()), qPrintable(QStringLiteral("tip %1,%2 %3x%4 outside %5,%6 %7x%8")
                                                                     .arg(tip->x())
                                                                     .arg(tip->y())
                                                                     .arg(tip->width())
                                                                     .arg(tip->height())
                                                                     .arg(available.x())
                                                                     .arg(available.y())
                                                                     .arg(available.width())
                                                                     .arg(available.height())));
        // At the top left too.
        const QPoint origin = available.topLeft() + QPoint(2, 2);
        QHelpEvent help2(QEvent::ToolTip, label->mapFromGlobal(origin), origin);
        QApplication::sendEvent(label, &help2);
        tip = shownToolTip();
        QVERIFY(tip && available.contains(tip->geometry()));
        QToolTip::hideText();
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestStartPage)
#include "test_startpage.moc"
