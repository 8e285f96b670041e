// File ▸ Compare with… and the Diff dock (ui/compare/, docs/diff.md "In the GUI"): two generated runs,
// B = A with its vectorized_layer_norm kernel family ×2. With A's rank-0 trace open, comparing with
// B's shows the step and the family ranked first as the core's diff (job/runread.h,
// report/rundiff.h) computed directly; two job folders compare rank by rank; a job against a trace
// is refused in the status line, the last tables kept. Saves build/screens/comparegui_*.png.

#include "compare/compareui.h"
#include "compare/diffdock.h"
#include "docks/statstable.h"
#include "gen/tracegenerator.h"
#include "job/runread.h"
#include "jobview/jobdock.h"
#include "shell/mainwindow.h"
#include "testsupport.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace linkscope;

namespace {

constexpr const char *kFamily = "at::native::vectorized_layer_norm_kernel";

void generate(const std::string &dir, double factor)
{
    gen::GeneratorOptions o;
    o.seed = 7;
    o.steps = 2;
    o.worldSize = 2;
    if (factor != 1.0)
        o.kernelScales.push_back({"vectorized_layer_norm", factor});
    gen::generateJob(o, dir);
}

double sortKey(QTableWidget *t, int row, int column) { return t->item(row, column)->data(ui::kStatsSortRole).toDouble(); }

void saveShot(QWidget *w, const char *name)
{
    QDir().mkpath(QStringLiteral(LINKSCOPE_BINARY_DIR "/screens"));
    w->grab().toImage().save(QStringLiteral(LINKSCOPE_BINARY_DIR "/screens/") + QLatin1String(name));
}

} // namespace

class TestCompareGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_comparegui"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_a = m_dir.filePath(QStringLiteral("a")).toStdString();
        m_b = m_dir.filePath(QStringLiteral("b")).toStdString();
        generate(m_a, 1.0);
        generate(m_b, 2.0);
    }

    void traceAgainstTrace()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        ui::CompareUi *compare = window.findChild<ui::CompareUi *>();
        QVERIFY(compare);
        // Nothing open: nothing to compare, and no dock yet (it is made on first use).
        QVERIFY(compare->currentRun().isEmpty());
        QVERIFY(!compare->compareWith({QString::fromStdString(m_b + "/kineto_0.json")}));
        QVERIFY(!window.findChild<ui::DiffDock *>());

        QSignalSpy loaded(&window, &ui::MainWindow::documentChanged);
        const QString hostA = QString::fromStdString(m_a + "/host_0.json"),
                      kinetoA = QString::fromStdString(m_a + "/kineto_0.json");
        window.openPair(hostA, kinetoA);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(compare->currentRun(), (QStringList{hostA, kinetoA}));

        QSignalSpy compared(compare, &ui::CompareUi::compared);
        const QString kinetoB = QString::fromStdString(m_b + "/kineto_0.json");
        QVERIFY(compare->compareWith({kinetoB}));
        QVERIFY(compared.wait(60000));
        ui::DiffDock *dock = compare->dock();
        QCOMPARE(window.findChildren<ui::DiffDock *>().size(), 1);
        QVERIFY(dock->isVisible());
        // Tabbed with the Summary dock.
        QVERIFY(window.tabifiedDockWidgets(dock).contains(window.findChild<QDockWidget *>(QStringLiteral("SummaryDock"))));

        // The core's diff of the same runs, computed directly.
        const core::job::RunPair runs = core::job::readRunPair({hostA.toStdString(), kinetoA.toStdString()},
                                                               {m_b + "/kineto_0.json"});
        QVERIFY(core::job::unreadableRun(runs).empty());
        const core::RunDiff expected = core::diffRuns(runs.a, runs.b);
        QVERIFY(!expected.moved.empty());
        QCOMPARE(expected.movedOp(0).name, std::string(kFamily));

        QTableWidget *ranks = dock->table(ui::DiffDock::Ranks);
        QCOMPARE(ranks->rowCount(), 1);
        QCOMPARE(ranks->item(0, 0)->text(), QStringLiteral("trace"));
        QCOMPARE(sortKey(ranks, 0, 1), double(expected.ranks[0].step.a));
        QCOMPARE(sortKey(ranks, 0, 2), double(expected.ranks[0].step.b));
        QCOMPARE(sortKey(ranks, 0, 3), double(expected.ranks[0].step.change()));
        QVERIFY(expected.ranks[0].step.change() > 0);

        QTableWidget *moved = dock->table(ui::DiffDock::Moved);
        QCOMPARE(moved->rowCount(), static_cast<int>(expected.moved.size()));
        QCOMPARE(moved->item(0, 0)->text(), QStringLiteral("1"));
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(moved->item(0, 1)->toolTip().split(QLatin1Char('\n')).front(), QString::fromLatin1(kFamily));
        const core::DiffFigure &top = expected.movedOp(0).moved();
        QCOMPARE(sortKey(moved, 0, 4), double(top.a));
        QCOMPARE(sortKey(moved, 0, 5), double(top.b));
        QCOMPARE(sortKey(moved, 0, 6), double(top.change()));
        // ×2: the change is A's total again.
        QCOMPARE(top.change(), top.a);
        QVERIFY(moved->item(0, 7)->text().startsWith(QStringLiteral("+100.0")));
        QVERIFY(moved->item(0, 6)->textAlignment() & Qt::AlignRight);

        // The GPU ops: the family first, its counts the same on both sides.
        QTableWidget *gpu = dock->table(ui::DiffDock::GpuOps);
        QCOMPARE(gpu->rowCount(), static_cast<int>(expected.gpuOps.size()));
        QCOMPARE(gpu->item(0, 0)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(gpu->item(0, 2)->text(), gpu->item(0, 3)->text());
        QCOMPARE(dock->table(ui::DiffDock::CpuOps)->rowCount(), static_cast<int>(expected.cpuOps.size()));
        QCOMPARE(dock->table(ui::DiffDock::Streams)->rowCount(), static_cast<int>(expected.streams.size()));

        // Sortable: by the change, ascending, the family (the largest change) goes last.
        moved->sortItems(6, Qt::AscendingOrder);
        QCOMPARE(moved->item(moved->rowCount() - 1, 1)->text(), QString::fromLatin1(kFamily));
        moved->sortItems(0, Qt::AscendingOrder);
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));

        // The status line names both runs and how long it took.
        const QString status = dock->statusText();
        QVERIFY2(status.contains(QStringLiteral("host_0.json + kineto_0.json"))
                     && status.contains(QStringLiteral("B: kineto_0.json")) && status.contains(QStringLiteral(" s")),
                 qPrintable(status));
        saveShot(&window, "comparegui_trace.png");

        // A job folder against the trace: refused, said in the status line; the tables stay.
        QSignalSpy failed(compare, &ui::CompareUi::failed);
        QVERIFY(compare->compareWith({QString::fromStdString(m_b)}));
        QVERIFY(failed.wait(60000));
        QVERIFY2(dock->statusText().startsWith(QStringLiteral("The runs could not be compared")), qPrintable(dock->statusText()));
        QCOMPARE(moved->rowCount(), static_cast<int>(expected.moved.size()));
    }

    void jobAgainstJob()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy opened(window.jobDock(), &ui::JobDock::jobOpened);
        window.openJob(QString::fromStdString(m_a));
        QVERIFY(opened.wait(60000));
        ui::CompareUi *compare = window.findChild<ui::CompareUi *>();
        QCOMPARE(compare->currentRun(), QStringList{QString::fromStdString(m_a)});
        // File ▸ Compare with… is enabled while something is open.
        QMenu *file = qobject_cast<QMenu *>(compare->compareAction()->associatedObjects().value(0));
        QVERIFY(file);
        emit file->aboutToShow();
        QVERIFY(compare->compareAction()->isEnabled());

        QSignalSpy compared(compare, &ui::CompareUi::compared);
        QVERIFY(compare->compareWith({QString::fromStdString(m_b)}));
        QVERIFY(compared.wait(60000));
        const core::job::RunPair runs = core::job::readRunPair({m_a}, {m_b});
        const core::RunDiff expected = core::diffRuns(runs.a, runs.b);
        QTableWidget *ranks = compare->dock()->table(ui::DiffDock::Ranks);
        QCOMPARE(ranks->rowCount(), 2);
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(ranks->item(r, 0)->text(), QStringLiteral("rank %1").arg(r));
            QCOMPARE(sortKey(ranks, r, 1), double(expected.ranks[static_cast<std::size_t>(r)].step.a));
            QCOMPARE(sortKey(ranks, r, 2), double(expected.ranks[static_cast<std::size_t>(r)].step.b));
        }
        QTableWidget *moved = compare->dock()->table(ui::DiffDock::Moved);
        QCOMPARE(moved->item(0, 1)->text(), QString::fromLatin1(kFamily));
        QCOMPARE(sortKey(moved, 0, 6), double(expected.movedOp(0).moved().change()));
        QVERIFY(compare->dock()->statusText().contains(QStringLiteral("2 ranks")));
        saveShot(&window, "comparegui_job.png");
        // Each tab of the dock on its own.
        ui::DiffDock *dock = compare->dock();
        for (int t = 0; t < ui::DiffDock::TableCount; ++t) {
            dock->tabs()->setCurrentIndex(t);
            saveShot(dock, qPrintable(QStringLiteral("comparegui_tab%1.png").arg(t)));
        }
    }

private:
    QTemporaryDir m_dir;
    std::string m_a, m_b;
};

QTEST_MAIN(TestCompareGui)
#include "test_comparegui.moc"
