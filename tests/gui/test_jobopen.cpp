// Issue 28's job items in the GUI, on a generated 4-rank job whose rank 3 skips a collective:
// opening says what it does (no "0 of 0" / "No job open" while looking for the ranks) and shows rows
// as ranks finish; a click on a rank's label picks the rank that Show beside and Open rank act on;
// the panes' rulers count from the job's aligned origin and the overview follows their zoom; the
// overview has a legend of its own and marks the skipping rank's row without a selection; a
// folder without traces leaves the open job whole.

#include "docks/findingsdock.h"
#include "gen/tracegenerator.h"
#include "jobview/jobdock.h"
#include "jobview/joboverview.h"
#include "jobview/joboverviewmarks.h"
#include "jobview/rankpanes.h"
#include "prediction/jobpredictor.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "skippingjob.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

class TestJobOpen : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // no saved layout of the user's is read or written
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_jobopen"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_job = test::writeSkippingJob(m_dir.path().toStdString());
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("empty"))));
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void openingSaysWhatItDoesAndShowsRanksAsTheyFinish()
    {
        JobDock *dock = m_window->jobDock();
        QSignalSpy opened(dock, &JobDock::jobOpened);
        QSignalSpy rankLoaded(dock->loader(), &JobLoader::rankLoaded);
        QElapsedTimer clock;
        clock.start();
        m_window->openJob(QString::fromStdString(m_job));
        // Looking for the ranks: said so, nowhere "0 of 0" or "No job open".
        QVERIFY(dock->discovering());
        QVERIFY2(dock->overview()->placeholder().contains(QStringLiteral("Looking for the ranks")),
                 qPrintable(dock->overview()->placeholder()));
        const auto labels = dock->findChildren<QLabel *>();
        for (const QLabel *label : labels)
            QVERIFY2(!label->text().contains(QStringLiteral("0 of 0")), qPrintable(label->text()));
        // Every row appears as its rank finishes: the overview has rows before the report is built
        // whenever a progress tick falls between (always with rankLoaded before jobOpened).
        qint64 firstRow = -1;
        while (opened.isEmpty() && clock.elapsed() < 60000) {
            QTest::qWait(10);
            if (firstRow < 0 && dock->overview()->rowCount() > 0)
                firstRow = clock.elapsed();
            if (!dock->discovering() && dock->overview()->rowCount() == 0)
                QVERIFY2(dock->overview()->placeholder().contains(QStringLiteral("Reading 4 ranks")),
                         qPrintable(dock->overview()->placeholder()));
        }
        QCOMPARE(opened.count(), 1);
        QCOMPARE(rankLoaded.count(), 4);
        QCOMPARE(dock->overview()->rowCount(), 4);
        qInfo("job of 4 ranks: first row %lld ms, open %lld ms", firstRow, clock.elapsed());
        // Progress bars wide enough for their text.
        for (const QProgressBar *bar : dock->findChildren<QProgressBar *>())
            QVERIFY(bar->minimumWidth() >= bar->fontMetrics().horizontalAdvance(QStringLiteral("rank 0000 export 100%")));
        // With no rank open, the main timeline says how to open one.
        QVERIFY(!m_window->document());
    }

    void aClickedRankIsTheOneShowBesideAndOpenRankActOn()
    {
        JobDock *dock = m_window->jobDock();
        JobOverview *overview = dock->overview();
        overview->frameAll();
        // Rank 1 opened by a double-click on its label.
        QSignalSpy loaded(m_window.get(), &MainWindow::documentChanged);
        QTest::mouseDClick(overview, Qt::LeftButton, {}, QPoint(20, overview->rowRect(1).center().y()));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(m_window->rankPanes()->mainRank(), qint64(1));
        // A click on rank 3's label picks rank 3 (it used to leave the open rank selected).
        QSignalSpy clicked(overview, &JobOverview::rankClicked);
        QTest::mouseClick(overview, Qt::LeftButton, {}, QPoint(20, overview->rowRect(3).center().y()));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(dock->selectedRank(), qint64(3));
        QCOMPARE(overview->selectedRank(), qint64(3));
        QVERIFY(dock->besideButton()->isEnabled());
        QTest::mouseClick(dock->besideButton(), Qt::LeftButton);
        RankPane *pane = m_window->rankPanes()->pane(3);
        QVERIFY2(pane, "Show beside did not open the clicked rank");
        if (!pane->isLoaded()) {
            QSignalSpy paneLoaded(pane, &RankPane::loaded);
            QVERIFY(paneLoaded.wait(60000));
        }
        QCOMPARE(m_window->rankPanes()->mainRank(), qint64(1));
        // Show beside on the open rank itself says why nothing happens.
        QTest::mouseClick(overview, Qt::LeftButton, {}, QPoint(20, overview->rowRect(1).center().y()));
        QCOMPARE(dock->selectedRank(), qint64(1));
        QTest::mouseClick(dock->besideButton(), Qt::LeftButton);
        QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("Rank 1 is the rank open above")),
                 qPrintable(m_window->statusBar()->currentMessage()));
    }

    void panesCountFromTheJobsClockAndTheOverviewFollowsThem()
    {
        RankPanes *panes = m_window->rankPanes();
        TimelineView *main = m_window->timeline();
        RankPane *pane = panes->pane(3);
        QVERIFY(pane && pane->isLoaded());
        TimelineView *beside = pane->view();
        // The two rulers count from one instant: the job's aligned origin, mapped to each clock.
        QCOMPARE(panes->mapTime(1, *main->document(), 3, *beside->document(), main->rulerOrigin()), beside->rulerOrigin());
        const core::Nanos origin = alignedJobStart(m_window->jobDock()->job()->report);
        QCOMPARE(main->rulerOrigin(), origin - main->document()->device().baseTimeNs.value_or(0)
                                          + m_window->jobDock()->job()->report.timing.offsetOf(1));
        QVERIFY(panes->mainTitle()->text().contains(QStringLiteral("aligned clock")));
        // The overview zooms and pans with the panes.
        main->zoomAt(0.5, main->contentRect().center().x());
        main->panByPixels(-80);
        const auto view = panes->referenceView();
        QVERIFY(view);
        JobOverview *overview = m_window->jobDock()->overview();
        QCOMPARE(overview->viewState()->viewStart(), view->first);
        QCOMPARE(overview->viewState()->viewEnd(), view->second);
        // And the panes with the overview: one window, so panning the overview moves every rank's lanes.
        const core::Nanos shift = (view->second - view->first) / 10;
        const core::Nanos mainStart = main->state().viewStart(), besideStart = beside->state().viewStart();
        overview->viewState()->setVisibleRange(view->first + shift, view->second + shift);
        QCOMPARE(main->state().viewStart(), mainStart + shift);
        QCOMPARE(beside->state().viewStart(), besideStart + shift);
        QCOMPARE(*panes->referenceView(), std::make_pair(view->first + shift, view->second + shift));
        overview->viewState()->setVisibleRange(view->first, view->second);
        QCOMPARE(main->state().viewStart(), mainStart);
        m_window->grab().toImage().save(linkscope::test::buildPath("/test_jobopen_beside.png"));
    }

    void theOverviewHasItsLegendAndMarksTheSkippingRank()
    {
        JobDock *dock = m_window->jobDock();
        JobOverview *overview = dock->overview();
        overview->clearSelection();
        overview->frameAll();
        const QStringList legend = dock->legend()->entries();
        QVERIFY2(legend.contains(QStringLiteral("all_reduce")), qPrintable(legend.join(QLatin1Char('|'))));
        QVERIFY(legend.contains(QStringLiteral("launch (arrival)")));
        QVERIFY(legend.contains(QStringLiteral("not issued by this rank")));
        QVERIFY(dock->legend()->isVisible());
        // Rank 3 skipped group 2's collective 0: marked on its row, nothing selected.
        QVERIFY(!overview->selection());
        const auto &marks = overview->missingMarks();
        QCOMPARE(int(marks.size()), 1);
        QCOMPARE(marks.front().rank, std::int64_t(3));
        QVERIFY(marks.front().end >= marks.front().start);
        overview->frameRange(marks.front().start, marks.front().end);
        const QImage image = overview->grab().toImage();
        const QRect row = overview->rowRect(3);
        int red = 0;
        for (int y = row.top(); y <= row.bottom(); ++y)
            for (int x = JobOverview::kHeaderWidth; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 180 && c.green() < 80 && c.blue() < 80 ? 1 : 0;
            }
        QVERIFY2(red > 20, qPrintable(QStringLiteral("%1 red pixels on rank 3's row").arg(red)));
    }

    void aFolderWithoutTracesKeepsTheOpenJob()
    {
        JobDock *dock = m_window->jobDock();
        const JobPtr before = dock->job();
        const DocumentPtr doc = m_window->document();
        QVERIFY(before);
        QSignalSpy failed(dock, &JobDock::failed);
        dock->open(m_dir.filePath(QStringLiteral("empty")));
        QVERIFY(failed.wait(30000));
        QCOMPARE(dock->job(), before);
        QCOMPARE(dock->overview()->rowCount(), 4);
        QVERIFY(!dock->discovering());
        QCOMPARE(m_window->document(), doc);
        QVERIFY(m_window->rankPanes()->pane(3));
        QCOMPARE(m_window->rankPanes()->job(), before);
        QVERIFY(m_window->review()->findingsDock()->jobFindings()->findingCount() > 0);
        const QString summary = dock->summaryText();
        const auto labels = dock->findChildren<QLabel *>();
        bool said = false;
        for (const QLabel *label : labels)
            said = said
                   || (label->text().contains(QStringLiteral("Not opened"))
                       && label->text().contains(QStringLiteral("no rank traces")));
        QVERIFY2(said, "the job dock does not say why the folder was not opened");
        QVERIFY(!summary.isEmpty());
        // The kept job is predicted again (opening dropped its prediction).
        QVERIFY(dock->predictor()->waitUntilPredicted());
        QVERIFY(dock->predictor()->prediction());
        QCOMPARE(dock->predictor()->prediction()->folder, before->folder);
    }

    // Issue 41 item 4: a pair that is not one of the job's ranks closes the job (its overview, panes
    // and cross-rank findings), not left above lanes it does not describe. A rank of the job, opened
    // by its path however spelled, keeps it.
    void anUnrelatedPairClosesTheJob()
    {
        JobDock *dock = m_window->jobDock();
        QVERIFY(dock->job());
        const core::job::RankFiles &rank0 = dock->job()->layout.ranks.front();
        QSignalSpy shown(m_window.get(), &MainWindow::documentChanged);
        const QString rankDevice = QString::fromStdString(rank0.device);
        const QString dotted = QFileInfo(rankDevice).absolutePath() + QStringLiteral("/./") + QFileInfo(rankDevice).fileName();
        m_window->openPair(QString::fromStdString(rank0.host), dotted);
        QVERIFY(shown.wait(60000));
        QVERIFY2(dock->job(), "a rank of the job, opened by another spelling of its path, closed the job");
        QVERIFY(dock->isVisible());

        const QString host = test::sampleCopy("sample_host_et.json"), kineto = test::sampleCopy("sample_kineto.json");
        QSignalSpy closed(dock, &JobDock::jobClosed);
        m_window->openPair(host, kineto);
        QCOMPARE(closed.count(), 1);
        QVERIFY(!dock->job());
        QVERIFY(!dock->isVisible());
        QVERIFY(!m_window->rankPanes()->job());
        QVERIFY(m_window->rankPanes()->panes().empty());
        QCOMPARE(m_window->review()->findingsDock()->jobFindings()->findingCount(), 0);
        QVERIFY(shown.wait(60000));
        QCOMPARE(m_window->document()->devicePath(), kineto);
        QCOMPARE(m_window->rankPanes()->mainRank(), qint64(-1));
        m_window->grab().save(linkscope::test::buildPath("/screens/job_closed_by_pair.png"));
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    QTemporaryDir m_dir;
    std::string m_job;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestJobOpen)
#include "test_jobopen.moc"
