// The Summary dock (ui/summarydock.h) offscreen: on the bundled sample its tables hold the hand-
// counted numbers (tests/test_summary.cpp) without any selection; View ▸ Trace summary raises it;
// a generated job fills a row per rank; a truncated Kineto trace opens with the events before the
// cut and a warning naming the byte. Saves build/screens/summary_*.png.

#include "docks/summarydock.h"
#include "docks/warningsdock.h"
#include "gen/tracegenerator.h"
#include "ground/noticebar.h"
#include "ground/tracedocument.h"
#include "jobview/jobdock.h"
#include "shell/mainwindow.h"
#include "shell/readnotice.h"
#include "testsupport.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <filesystem>
#include <fstream>

using namespace linkscope;

namespace {

QString sample(const char *name) { return test::sampleCopy(name); }

void saveShot(QWidget *w, const char *name)
{
    QDir().mkpath(linkscope::test::buildPath("/screens"));
    w->grab().toImage().save(linkscope::test::buildPath("/screens/") + QLatin1String(name));
}

QAction *menuAction(QWidget *window, const QString &text)
{
    for (QAction *a : window->findChildren<QAction *>())
        if (a->text() == text)
            return a;
    return nullptr;
}

} // namespace

class TestSummaryDock : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_summarydock"));
        QSettings().clear();
    }

    void sampleNumbersWithoutASelection()
    {
        ui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy loaded(&window, &ui::MainWindow::documentChanged);
        window.openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(loaded.wait(60000));
        auto *dock = window.findChild<ui::SummaryDock *>();
        QVERIFY(dock);
        QAction *show = menuAction(&window, QStringLiteral("Trace &summary"));
        QVERIFY(show);
        show->trigger();
        QTRY_VERIFY(dock->isVisible());
        QVERIFY(dock->stats());
        QTableWidget *gpu = dock->table(ui::SummaryDock::GpuOps);
        QCOMPARE(gpu->rowCount(), 22);
        QVERIFY(gpu->item(0, 0)->text().startsWith(QStringLiteral("ncclDevKernel_AllReduce_Sum_f32")));
        QCOMPARE(gpu->item(0, 2)->text(), QStringLiteral("2"));
        QCOMPARE(gpu->item(0, 3)->data(Qt::UserRole + 1).toDouble(), 4085747.0);
        QTableWidget *cpu = dock->table(ui::SummaryDock::CpuOps);
        QCOMPARE(cpu->rowCount(), 36);
        QCOMPARE(cpu->item(0, 0)->text(), QStringLiteral("aten::item"));
        QCOMPARE(cpu->item(0, 4)->data(Qt::UserRole + 1).toDouble(), double(724038 - 721053));
        QTableWidget *streams = dock->table(ui::SummaryDock::Streams);
        QCOMPARE(streams->rowCount(), 5 + 2); // 5 streams, 2 GPUs
        bool gpu0 = false;
        for (int r = 0; r < streams->rowCount(); ++r)
            if (streams->item(r, 0)->text().startsWith(QStringLiteral("GPU 0 (all"))) {
                gpu0 = true;
                QCOMPARE(streams->item(r, 6)->data(Qt::UserRole + 1).toDouble(), 2638290.0);
            }
        QVERIFY(gpu0);
        QCOMPARE(dock->table(ui::SummaryDock::Steps)->rowCount(), 1);
        QCOMPARE(dock->table(ui::SummaryDock::Steps)->item(0, 0)->text(), QStringLiteral("ProfilerStep#3"));
        QVERIFY2(dock->headerText().contains(QStringLiteral("Steps: 1")), qPrintable(dock->headerText()));
        QCOMPARE(dock->tabs()->indexOf(dock->table(ui::SummaryDock::Ranks)), -1); // no job, no Ranks tab
        // Nothing covers the tab bar or the current table: the widget under each tab's centre is the
        // bar, and under the table's top-left cell its viewport (an empty Ranks table, a child of the
        // tab widget in no layout, was painted over both).
        QVERIFY(!dock->table(ui::SummaryDock::Ranks)->isVisible());
        QTabBar *bar = dock->tabs()->tabBar();
        QCOMPARE(bar->count(), 4);
        for (int i = 0; i < bar->count(); ++i) {
            const QPoint centre = bar->mapTo(dock, bar->tabRect(i).center());
            QCOMPARE(dock->childAt(centre), static_cast<QWidget *>(bar));
        }
        QWidget *viewport = gpu->viewport();
        QVERIFY(viewport->isVisible());
        QVERIFY(viewport->width() > 0 && viewport->height() > 0);
        QCOMPARE(dock->childAt(viewport->mapTo(dock, QPoint(4, 4))), viewport);
        QVERIFY(bar->mapTo(dock, QPoint(0, 0)).x() < 20); // the first tab starts at the dock's left
        saveShot(&window, "summary_sample.png");
    }

    void generatedJobHasARowPerRank()
    {
        QTemporaryDir dir;
        const std::string job = (std::filesystem::path(dir.path().toStdString()) / "job").string();
        gen::GeneratorOptions o;
        o.seed = 3;
        o.steps = 2;
        o.layers = 2;
        o.worldSize = 4;
        gen::generateJob(o, job, false, 2);
        ui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        auto *dock = window.findChild<ui::SummaryDock *>();
        dock->show();
        dock->raise();
        QSignalSpy opened(window.jobDock(), &ui::JobDock::jobOpened);
        window.openJob(QString::fromStdString(job));
        QVERIFY(opened.wait(60000));
        QTableWidget *ranks = dock->table(ui::SummaryDock::Ranks);
        QCOMPARE(dock->tabs()->indexOf(ranks), 0);
        QCOMPARE(ranks->rowCount(), 4);
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(ranks->item(r, 0)->text(), QString::number(r));
            QCOMPARE(ranks->item(r, 6)->text(), QStringLiteral("2"));          // steps
            QVERIFY(ranks->item(r, 4)->data(Qt::UserRole + 1).toDouble() > 0); // communication
        }
        QVERIFY(dock->headerText().contains(QStringLiteral("4 ranks")));
        saveShot(&window, "summary_job.png");
    }

    // Issue 42, N8: a trace of many distinct kernel names lists the kMaxOpRows with the most total
    // time (a million names made a table of eight million items: gigabytes, most of a minute), and
    // the tab says how many names there are.
    void manyDistinctNamesListTheTopOnes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("many_names.json"));
        const std::size_t names = ui::SummaryDock::kMaxOpRows + 700;
        {
            std::ofstream out(path.toStdString());
            out << "{\"schemaVersion\":1,\"traceEvents\":[";
            for (std::size_t i = 0; i < names; ++i)
                // Kernel i lasts i + 1 us: the longest is the last one written.
                out << (i ? "," : "") << "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_" << i
                    << "\",\"pid\":0,\"tid\":7,\"ts\":" << 1000 + 10000 * i << ",\"dur\":" << i + 1
                    << ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":" << i + 1 << "}}";
            out << "]}";
        }
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy loaded(&window, &ui::MainWindow::documentChanged);
        window.openDevice(path);
        QVERIFY(loaded.wait(60000));
        auto *dock = window.findChild<ui::SummaryDock *>();
        QVERIFY(dock);
        menuAction(&window, QStringLiteral("Trace &summary"))->trigger();
        QTRY_VERIFY(dock->isVisible());
        QVERIFY(dock->stats());
        QCOMPARE(dock->stats()->gpuOps.size(), names);
        QTableWidget *gpu = dock->table(ui::SummaryDock::GpuOps);
        QCOMPARE(gpu->rowCount(), int(ui::SummaryDock::kMaxOpRows));
        QCOMPARE(gpu->item(0, 0)->text(), QStringLiteral("kernel_%1").arg(names - 1));
        const QString tab = dock->tabs()->tabText(dock->tabs()->indexOf(gpu));
        QVERIFY2(tab.contains(QLocale().toString(qulonglong(names))) && tab.contains(QStringLiteral("top")), qPrintable(tab));
        // Few names: every one, and the tab says nothing more.
        QSignalSpy again(&window, &ui::MainWindow::documentChanged);
        window.openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(again.wait(60000));
        QTRY_COMPARE(gpu->rowCount(), 22);
        QCOMPARE(dock->tabs()->tabText(dock->tabs()->indexOf(gpu)), QStringLiteral("GPU ops"));
    }

    void truncatedTraceOpensWithAWarning()
    {
        QTemporaryDir dir;
        QFile in(sample("sample_kineto.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray whole = in.readAll();
        const qsizetype size = whole.size() * 3 / 5;
        const QString cut = dir.filePath(QStringLiteral("cut_kineto.json"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(whole.left(size));
        out.close();

        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy loaded(&window, &ui::MainWindow::documentChanged);
        QSignalSpy failed(&window, &ui::MainWindow::loadFailed);
        window.openPair(sample("sample_host_et.json"), cut);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(failed.count(), 0);
        QVERIFY(window.document());
        QVERIFY(window.document()->eventCount() > 0);
        const QString byte = QString::number(size);
        bool named = false;
        QTreeWidget *list = window.warningsDock()->list();
        for (int r = 0; r < list->topLevelItemCount(); ++r)
            for (int c = 0; c < list->columnCount(); ++c)
                if (list->topLevelItem(r)->text(c).contains(QStringLiteral("truncated"))
                    && list->topLevelItem(r)->text(c).contains(byte))
                    named = true;
        QVERIFY2(named, "no warning names the byte of the cut");
        QVERIFY(window.warningsLabel()->isVisible() || !window.warningsLabel()->text().isEmpty());
        // Issue 41: not only a count. The notice above the timeline says so in one sentence: which
        // file, where it is cut, and what that means for what is shown; its button lists the warnings.
        ui::NoticeBar *notice = window.readNotice();
        QVERIFY(notice->isVisible());
        const QString sentence = notice->text();
        QVERIFY2(sentence.contains(QStringLiteral("cut_kineto.json")) && sentence.contains(QStringLiteral("cut short"))
                     && sentence.contains(QLocale().toString(qulonglong(size))),
                 qPrintable(sentence));
        QCOMPARE(sentence.count(QLatin1Char('.')), 1 + sentence.count(QStringLiteral(".json")));
        QVERIFY(notice->label()->height() >= notice->label()->heightForWidth(notice->label()->width()));
        notice->actionButton()->click();
        QVERIFY(window.warningsDock()->isVisible());
        saveShot(&window, "summary_truncated.png");
        // Whole traces opened next: the notice goes.
        QSignalSpy again(&window, &ui::MainWindow::documentChanged);
        window.openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(again.wait(60000));
        QVERIFY(!notice->isVisible());
    }

    void aJobWithMissingRanksSaysSo()
    {
        ui::JobDocument job;
        QVERIFY(ui::incompleteJobSentence(job).isEmpty());
        core::job::JobFinding none;
        none.kind = "missing_rank"; // no ranks: the finding that says none is missing
        job.report.findings.push_back(none);
        QVERIFY(ui::incompleteJobSentence(job).isEmpty());
        core::job::JobFinding missing;
        missing.kind = "missing_rank";
        missing.ranks = {3};
        missing.message = "rank 3 has no trace files (the ranks present run to 7)";
        job.report.findings.push_back(missing);
        QCOMPARE(ui::incompleteJobSentence(job),
                 QStringLiteral("This job cannot be read whole: rank 3 has no trace files (the ranks present run to 7)."));
        core::job::JobFinding unreadable;
        unreadable.kind = "unreadable_rank";
        unreadable.message = "rank 5: the file is truncated";
        job.report.findings.push_back(unreadable);
        QVERIFY2(ui::incompleteJobSentence(job).endsWith(QStringLiteral("; and rank 5: the file is truncated.")),
                 qPrintable(ui::incompleteJobSentence(job)));
        core::job::RankSummary cut;
        cut.rank = 6;
        cut.device = "/jobs/a/kineto_6.json";
        cut.deviceCutAt = 1234567;
        job.report.ranks.push_back(cut);
        QVERIFY(ui::incompleteJobSentence(job).contains(QStringLiteral("; and 2 more (")));
        const QStringList problems = ui::incompleteJobProblems(job);
        QCOMPARE(problems.size(), 3);
        QCOMPARE(problems.back(), QStringLiteral("rank 6's Kineto trace kineto_6.json is cut short at byte %1, and "
                                                 "whatever followed the cut is missing")
                                      .arg(QLocale().toString(1234567)));
    }

    // A crashed job's last rank is read up to its cut: the notice above the timeline names the rank,
    // the file and the byte (it was silent: the rank's row of the overview just stopped early). A pair
    // opened next closes the job, its notice and its Ranks tab.
    void aJobWithACutRankSaysWhere()
    {
        QTemporaryDir dir;
        const std::string job = (std::filesystem::path(dir.path().toStdString()) / "job").string();
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        o.layers = 2;
        o.worldSize = 4;
        gen::generateJob(o, job, false, 2);
        const QString kineto = QString::fromStdString(job) + QStringLiteral("/kineto_3.json");
        QFile in(kineto);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray whole = in.readAll();
        in.close();
        const qsizetype size = whole.size() * 2 / 3;
        QVERIFY(in.open(QIODevice::WriteOnly | QIODevice::Truncate));
        in.write(whole.left(size));
        in.close();

        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        auto *dock = window.findChild<ui::SummaryDock *>();
        dock->show();
        QSignalSpy opened(window.jobDock(), &ui::JobDock::jobOpened);
        window.openJob(QString::fromStdString(job));
        QVERIFY(opened.wait(60000));
        ui::NoticeBar *notice = window.readNotice();
        QTRY_VERIFY(notice->isVisible());
        QCOMPARE(notice->text(), QStringLiteral("This job cannot be read whole: rank 3's Kineto trace kineto_3.json is cut "
                                                "short at byte %1, and whatever followed the cut is missing.")
                                     .arg(QLocale().toString(qulonglong(size))));
        QCOMPARE(dock->table(ui::SummaryDock::Ranks)->rowCount(), 4); // the cut rank keeps its row
        // The status bar speaks of the job (it said "No trace loaded" with the job on screen).
        QVERIFY2(window.statusText().startsWith(QStringLiteral("Job of 4 ranks open")), qPrintable(window.statusText()));
        saveShot(&window, "job_cut_rank.png");

        QSignalSpy pair(&window, &ui::MainWindow::documentChanged);
        window.openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(pair.wait(60000));
        QTRY_VERIFY(!notice->isVisible());
        QCOMPARE(dock->tabs()->indexOf(dock->table(ui::SummaryDock::Ranks)), -1);
        QVERIFY(!dock->table(ui::SummaryDock::Ranks)->isVisible());
        QCOMPARE(dock->tabs()->tabBar()->tabText(0), QStringLiteral("GPU ops"));
        QVERIFY2(window.statusText().contains(QStringLiteral("37 GPU ops")), qPrintable(window.statusText()));
    }
};

QTEST_MAIN(TestSummaryDock)
#include "test_summarydock.moc"
