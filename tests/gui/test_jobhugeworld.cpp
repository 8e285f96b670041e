// Issue 29, D9: a job whose traces declare a world size of 1,000,000 took 57 s to draw (3,000,000:
// 190 s and 1.47 GB) because the missing-rank finding listed every missing rank and the findings list
// laid that text out again on every repaint. The ranks are ranges now, made once; the window opens
// the job and repaints it well within a bound that the old behaviour fails by far.

#include "gen/tracegenerator.h"
#include "jobview/jobdock.h"
#include "jobview/jobfindingslist.h"
#include "shell/mainwindow.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

class TestJobHugeWorld : public QObject {
    Q_OBJECT

private slots:
    void millionRankWorldDrawsAtOnce()
    {
        QTemporaryDir dir;
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 1;
        o.layers = 2;
        o.worldSize = 2;
        const std::string job = (fs::path(dir.path().toStdString()) / "job").string();
        gen::generateJob(o, job, false, 2);
        for (int r = 0; r < 2; ++r) {
            const std::string path = job + "/kineto_" + std::to_string(r) + ".json";
            const std::string text = test::readFile(path);
            const std::string changed = std::regex_replace(text, std::regex("\"world_size\": 2"), "\"world_size\": 1000000",
                                                           std::regex_constants::format_first_only);
            QVERIFY(changed != text);
            std::ofstream(path, std::ios::binary) << changed;
        }

        QElapsedTimer timer;
        timer.start();
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy opened(window.jobDock(), &JobDock::jobOpened);
        window.openJob(QString::fromStdString(job));
        QVERIFY(opened.wait(60000));
        JobFindingsList *list = window.jobDock()->findingsList();
        QVERIFY(list->topLevelItemCount() >= 1);
        QTreeWidgetItem *item = list->topLevelItem(0);
        QCOMPARE(item->text(1), QStringLiteral("missing_rank"));
        QCOMPARE(item->text(4), QStringLiteral("2-999999"));
        QVERIFY2(item->text(5).size() < 200, qPrintable(item->text(5)));
        // Draw it: the whole window, five times, and the finding selected.
        for (int k = 0; k < 5; ++k) {
            const QPixmap shot = window.grab();
            QVERIFY(!shot.isNull());
        }
        window.jobDock()->selectFinding(0);
        QVERIFY(!window.grab().isNull());
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
    }
};

QTEST_MAIN(TestJobHugeWorld)
#include "test_jobhugeworld.moc"
