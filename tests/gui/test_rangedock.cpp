// The time-range dock on the bundled sample pair: a Shift+drag over the timeline fills its three
// tables (GPU ops by name, stream busy time, CPU time per thread), checked against a brute-force
// pass over the document's events; Ctrl+C copies TSV (the selected rows or all); Export writes CSV
// atomically and reports a failure in the dock. Saves build/screens/range_aggregate.png.

#include "docks/rangedock.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

using namespace linkscope;

namespace {

QString sample(const char *name) { return test::sampleCopy(name); }

// Union length of [s, e) intervals clipped to [lo, hi).
core::Nanos unionLength(std::vector<std::pair<core::Nanos, core::Nanos>> spans, core::Nanos lo, core::Nanos hi)
{
    for (auto &[s, e] : spans) {
        s = std::clamp(s, lo, hi);
        e = std::clamp(e, lo, hi);
    }
    std::sort(spans.begin(), spans.end());
    core::Nanos total = 0, runStart = 0, runEnd = 0;
    bool open = false;
    for (const auto &[s, e] : spans) {
        if (open && s <= runEnd) {
            runEnd = std::max(runEnd, e);
            continue;
        }
        if (open)
            total += runEnd - runStart;
        runStart = s;
        runEnd = e;
        open = true;
    }
    return total + (open ? runEnd - runStart : 0);
}

} // namespace

class TestRangeDock : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_rangedock"));
        QSettings().clear();
    }

    void init()
    {
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        QSignalSpy loaded(m_window.get(), &ui::MainWindow::documentChanged);
        m_window->openPair(sample("sample_host_et.json"), sample("sample_kineto.json"));
        QVERIFY(loaded.wait(60000));
        QVERIFY(m_window->document());
    }
    void cleanup() { m_window.reset(); }

    void shiftDragFillsTheTables()
    {
        ui::TimelineView *view = m_window->timeline();
        ui::RangeDock *dock = m_window->rangeDock();
        QVERIFY(!dock->stats());
        view->state().fitAll();
        const QRect content = view->contentRect();
        const int y = content.top() + 4;
        const QPoint from(content.left() + content.width() / 5, y);
        const QPoint to(content.left() + content.width() * 4 / 5, y);
        QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, from);
        QTest::mouseMove(view, to);
        QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, to);
        QVERIFY(view->state().timeRange().has());
        QVERIFY(dock->stats());
        QVERIFY(dock->isVisible());
        const core::Nanos lo = view->state().timeRange().start(), hi = view->state().timeRange().end();
        QCOMPARE(dock->stats()->start, lo);
        QCOMPARE(dock->stats()->end, hi);

        // Brute force over every event: GPU ops per name, busy per stream, CPU time per thread.
        const ui::TraceDocument &doc = *m_window->document();
        const core::TraceIndex &index = doc.index();
        std::map<QString, std::pair<std::uint64_t, core::Nanos>> perName;
        std::map<core::LaneIndex, std::vector<std::pair<core::Nanos, core::Nanos>>> perLane;
        std::uint64_t gpuOps = 0;
        for (core::EventIndex e{0}; e.get() < doc.eventCount(); ++e) {
            const core::DeviceEvent &event = doc.event(e);
            const core::LaneIndex lane = index.laneOf[e.get()];
            if (lane.isNone() || event.end() <= lo || event.ts >= hi)
                continue;
            const bool stream = index.lane(lane).kind == core::LaneKind::GpuStream;
            if (stream && !core::isGpuOpCategory(event.category))
                continue;
            perLane[lane].push_back({event.ts, event.end()});
            if (stream) {
                ++gpuOps;
                auto &[count, total] = perName[doc.eventName(e)];
                ++count;
                total += std::min(event.end(), hi) - std::max(event.ts, lo);
            }
        }
        QVERIFY2(gpuOps > 5, "the range holds GPU ops");

        QTableWidget *ops = dock->table(ui::RangeDock::GpuOps);
        QCOMPARE(ops->rowCount(), static_cast<int>(perName.size()));
        std::uint64_t shownOps = 0;
        for (int r = 0; r < ops->rowCount(); ++r) {
            const QString name = ops->item(r, 0)->text();
            QVERIFY2(perName.count(name), qPrintable(name));
            const std::uint64_t count = ops->item(r, 2)->data(Qt::UserRole + 1).toULongLong();
            QCOMPARE(count, perName[name].first);
            QCOMPARE(static_cast<core::Nanos>(ops->item(r, 3)->data(Qt::UserRole + 1).toDouble()), perName[name].second);
            shownOps += count;
        }
        QCOMPARE(shownOps, gpuOps);
        // Sorted by total, longest first.
        for (int r = 1; r < ops->rowCount(); ++r)
            QVERIFY(ops->item(r - 1, 3)->data(Qt::UserRole + 1).toDouble() >= ops->item(r, 3)->data(Qt::UserRole + 1).toDouble());

        QTableWidget *streams = dock->table(ui::RangeDock::Streams);
        QTableWidget *threads = dock->table(ui::RangeDock::Threads);
        int streamLanes = 0, threadLanes = 0;
        for (const core::Lane &lane : index.lanes) {
            streamLanes += lane.kind == core::LaneKind::GpuStream;
            threadLanes += lane.kind == core::LaneKind::CpuThread;
        }
        QCOMPARE(streams->rowCount(), streamLanes);
        QCOMPARE(threads->rowCount(), threadLanes);
        auto checkLanes = [&](QTableWidget *table, int timeColumn) {
            for (int r = 0; r < table->rowCount(); ++r) {
                const QString label = table->item(r, 0)->text();
                core::LaneIndex lane{};
                for (core::LaneIndex l{0}; l.get() < index.lanes.size(); ++l)
                    if (QString::fromStdString(index.lane(l).label) == label)
                        lane = l;
                QVERIFY2(lane.valid(), qPrintable(label));
                const core::Nanos expected = unionLength(perLane[lane], lo, hi);
                QCOMPARE(static_cast<core::Nanos>(table->item(r, timeColumn)->data(Qt::UserRole + 1).toDouble()), expected);
                const double percent = table->item(r, timeColumn + 1)->data(Qt::UserRole + 1).toDouble();
                QVERIFY(std::abs(percent - 100.0 * double(expected) / double(hi - lo)) < 1e-9);
                QVERIFY(percent >= 0 && percent <= 100);
            }
        };
        checkLanes(streams, 2);
        checkLanes(threads, 3);

        QDir().mkpath(linkscope::test::buildPath("/screens"));
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/range_aggregate.png"));
        // The same at 1920x1080 (the done-when screenshot); the range stays.
        m_window->resize(1920, 1080);
        QCoreApplication::processEvents();
        QVERIFY(view->state().timeRange().has());
        m_window->grab().toImage().save(linkscope::test::buildPath("/screens/range_aggregate_1920.png"));
        m_window->resize(1600, 1000);
        QCoreApplication::processEvents();

        // A click (no Shift) clears the range, and with it the tables.
        view->state().timeRange().clear();
        QVERIFY(!dock->stats());
        QCOMPARE(ops->rowCount(), 0);
    }

    void ctrlCCopiesTsv()
    {
        ui::TimelineView *view = m_window->timeline();
        ui::RangeDock *dock = m_window->rangeDock();
        view->state().timeRange().set(m_window->document()->startTime(), m_window->document()->endTime());
        const core::RangeStats &stats = *dock->stats();
        QTableWidget *ops = dock->table(ui::RangeDock::GpuOps);
        dock->tabs()->setCurrentIndex(ui::RangeDock::GpuOps);
        ops->setFocus();
        QApplication::clipboard()->clear();
        // Nothing selected: every row of the three tables, under one header.
        ops->clearSelection();
        QTest::keySequence(ops, QKeySequence::Copy);
        QString text = QApplication::clipboard()->text();
        QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + int(stats.ops.size() + stats.streams.size() + stats.threads.size()));
        QCOMPARE(lines.front(), QStringLiteral("section\tname\tcategory\tcount\ttotal_ns\tmean_ns\tmax_ns\tpercent_of_range"));
        for (const QString &line : lines)
            QCOMPARE(line.count(QLatin1Char('\t')), 7);
        // The whole trace: all 37 GPU ops of the sample (SOURCE.md) are counted.
        std::uint64_t counted = 0;
        for (const QString &line : lines)
            if (line.startsWith(QStringLiteral("gpu_op\t")))
                counted += line.split(QLatin1Char('\t')).at(3).toULongLong();
        QCOMPARE(counted, std::uint64_t(37));

        // Two rows selected: those two, in display order.
        ops->selectionModel()->select(ops->model()->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        ops->selectionModel()->select(ops->model()->index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTest::keySequence(ops, QKeySequence::Copy);
        lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[1].startsWith(QStringLiteral("gpu_op\t") + ops->item(0, 0)->text() + QLatin1Char('\t')));
        QVERIFY(lines[2].startsWith(QStringLiteral("gpu_op\t") + ops->item(1, 0)->text() + QLatin1Char('\t')));

        // Sorted by count instead, the copy follows the display order.
        ops->sortByColumn(2, Qt::AscendingOrder);
        ops->selectionModel()->select(ops->model()->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QTest::keySequence(ops, QKeySequence::Copy);
        lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[1].startsWith(QStringLiteral("gpu_op\t") + ops->item(0, 0)->text() + QLatin1Char('\t')));
        QCOMPARE(lines[1].split(QLatin1Char('\t')).at(3), ops->item(0, 2)->text().remove(QLatin1Char(',')));
    }

    void exportWritesCsvOrSaysWhyNot()
    {
        ui::RangeDock *dock = m_window->rangeDock();
        QCOMPARE(dock->exportCsv(QStringLiteral("/nonexistent/x.csv")).isEmpty(), false); // no range yet
        m_window->timeline()->state().timeRange().set(m_window->document()->startTime(), m_window->document()->endTime());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("range.csv"));
        QCOMPARE(dock->exportCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString csv = QString::fromUtf8(file.readAll());
        const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QStringLiteral("section,name,category,count,total_ns,mean_ns,max_ns,percent_of_range"));
        const core::RangeStats &stats = *dock->stats();
        QCOMPARE(lines.size(), 1 + int(stats.ops.size() + stats.streams.size() + stats.threads.size()));
        QVERIFY(lines.filter(QStringLiteral("stream,GPU 0 stream 7,GPU 0,")).size() == 1);
        // Kernel names with commas are quoted.
        for (const QString &line : lines.filter(QStringLiteral("gpu_op,\"")))
            QVERIFY(line.indexOf(QLatin1Char('"'), 8) > 8);
        // A folder that does not exist: the error names the path, nothing is written, no dialog.
        const QString bad = dir.filePath(QStringLiteral("missing/range.csv"));
        const QString error = dock->exportCsv(bad);
        QVERIFY2(error.contains(bad), qPrintable(error));
        QVERIFY(!QFileInfo::exists(bad));
        QVERIFY(QApplication::activeModalWidget() == nullptr);
    }

private:
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestRangeDock)
#include "test_rangedock.moc"
