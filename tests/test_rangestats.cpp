// Range aggregates (core/analysis/rangestats) over DeviceTraces built in code: clipping to the range,
// nested GPU ops and CPU events counted once, ops grouped by name and category, the table formats,
// and the deep-stack path (more than a few hundred events before the range on one lane).
#include "analysis/rangestats.h"
#include "index/traceindex.h"
#include "tracebuilder.h"

#include <QTest>

#include <random>

using namespace linkscope::core;
using linkscope::test::TraceBuilder;

class TestRangeStats : public QObject {
    Q_OBJECT

private slots:
    void kernelsAreClippedToTheRange();
    void nestedGpuOpsAreNotDoubleCountedForBusy();
    void cpuTimeIsTheUnionOfNestedEvents();
    void annotationsOnAStreamAreNotBusyTime();
    void emptyAndBackwardsRanges();
    void tableFormatsQuoteAndEscapeNames();
    void deepStackBeforeTheRangeMatchesBruteForce();
};

namespace {

const RangeOpStat *opNamed(const RangeStats &stats, const DeviceTrace &trace, std::string_view name)
{
    for (const RangeOpStat &op : stats.ops)
        if (trace.strings.at(op.name) == name)
            return &op;
    return nullptr;
}

const RangeLaneStat *laneLabelled(const std::vector<RangeLaneStat> &lanes, const TraceIndex &index, std::string_view label)
{
    for (const RangeLaneStat &lane : lanes)
        if (index.lane(lane.lane).label == label)
            return &lane;
    return nullptr;
}

} // namespace

void TestRangeStats::kernelsAreClippedToTheRange()
{
    TraceBuilder b;
    // GPU 0 stream 7: gemm [0,100) [150,250) [300,340); relu [260,280). Range [50, 320).
    b.gpu("gemm", 0, 7, 0, 100, 1);
    b.gpu("gemm", 0, 7, 150, 100, 2);
    b.gpu("relu", 0, 7, 260, 20, 3);
    b.gpu("gemm", 0, 7, 300, 40, 4);
    b.gpu("gemm", 0, 7, 400, 40, 5);                                       // after the range
    b.gpu("Memcpy HtoD", 0, 7, 10, 5, 6, kNoId, EventCategory::GpuMemcpy); // ends before the range
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats stats = computeRangeStats(b.trace, index, 50, 320);
    QCOMPARE(stats.span(), Nanos(270));
    QCOMPARE(stats.ops.size(), std::size_t(2));
    const RangeOpStat *gemm = opNamed(stats, b.trace, "gemm");
    QVERIFY(gemm);
    QCOMPARE(gemm->count, std::uint64_t(3));
    QCOMPARE(gemm->total, Nanos(50 + 100 + 20)); // [50,100) + [150,250) + [300,320)
    QCOMPARE(gemm->max, Nanos(100));
    QCOMPARE(gemm->mean(), Nanos(170 / 3));
    const RangeOpStat *relu = opNamed(stats, b.trace, "relu");
    QVERIFY(relu);
    QCOMPARE(relu->count, std::uint64_t(1));
    QCOMPARE(relu->total, Nanos(20));
    QCOMPARE(stats.ops.front().name, gemm->name); // longest total first
    QCOMPARE(stats.streams.size(), std::size_t(1));
    QCOMPARE(stats.streams[0].events, std::uint64_t(4));
    QCOMPARE(stats.streams[0].time, Nanos(190));
    QCOMPARE(stats.percentOf(stats.streams[0].time), 100.0 * 190 / 270);
}

void TestRangeStats::nestedGpuOpsAreNotDoubleCountedForBusy()
{
    TraceBuilder b;
    // A memcpy [100,200) with a kernel [120,150) inside it (nested on the lane), and an exact tie
    // [300,350) twice; plus a second stream that is idle in the range.
    b.gpu("Memcpy DtoD", 0, 7, 100, 100, 1, kNoId, EventCategory::GpuMemcpy);
    b.gpu("inner", 0, 7, 120, 30, 2);
    b.gpu("tie", 0, 7, 300, 50, 3);
    b.gpu("tie", 0, 7, 300, 50, 4);
    b.gpu("later", 0, 20, 900, 10, 5);
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats stats = computeRangeStats(b.trace, index, 0, 400);
    QCOMPARE(stats.streams.size(), std::size_t(2));
    const RangeLaneStat *s7 = laneLabelled(stats.streams, index, "GPU 0 stream 7");
    QVERIFY(s7);
    QCOMPARE(s7->events, std::uint64_t(4));
    QCOMPARE(s7->time, Nanos(100 + 50)); // not 100 + 30 + 50 + 50
    QCOMPARE(stats.percentOf(s7->time), 37.5);
    const RangeLaneStat *s20 = laneLabelled(stats.streams, index, "GPU 0 stream 20");
    QVERIFY(s20);
    QCOMPARE(s20->events, std::uint64_t(0));
    QCOMPARE(s20->time, Nanos(0));
    // Per op, each op counts its own time.
    QCOMPARE(opNamed(stats, b.trace, "tie")->total, Nanos(100));
    QCOMPARE(opNamed(stats, b.trace, "inner")->total, Nanos(30));
    QCOMPARE(opNamed(stats, b.trace, "Memcpy DtoD")->category, EventCategory::GpuMemcpy);
}

void TestRangeStats::cpuTimeIsTheUnionOfNestedEvents()
{
    TraceBuilder b;
    // Thread 1: a step [0,1000) containing aten::mm [100,300) containing a launch [150,160); a second
    // top-level op [1200,1300). Thread 2: one op [500,700). Range [200, 1250).
    b.cpu(EventCategory::UserAnnotation, "ProfilerStep#1", 10, 1, 0, 1000);
    b.cpu(EventCategory::CpuOp, "aten::mm", 10, 1, 100, 200);
    b.runtime("cudaLaunchKernel", 10, 1, 150, 10, 1);
    b.cpu(EventCategory::CpuOp, "aten::add", 10, 1, 1200, 100);
    b.cpu(EventCategory::CpuOp, "aten::relu", 10, 2, 500, 200);
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats stats = computeRangeStats(b.trace, index, 200, 1250);
    QCOMPARE(stats.threads.size(), std::size_t(2));
    const RangeLaneStat *t1 = laneLabelled(stats.threads, index, "thread 1");
    QVERIFY(t1);
    QCOMPARE(t1->events, std::uint64_t(3)); // the step, aten::mm (open at 200), aten::add; not the launch
    QCOMPARE(t1->time, Nanos(800 + 50));    // [200,1000) + [1200,1250)
    const RangeLaneStat *t2 = laneLabelled(stats.threads, index, "thread 2");
    QVERIFY(t2);
    QCOMPARE(t2->time, Nanos(200));
    QVERIFY(stats.ops.empty()); // CPU events are not GPU ops
}

void TestRangeStats::annotationsOnAStreamAreNotBusyTime()
{
    TraceBuilder b;
    b.add(EventCategory::GpuUserAnnotation, "forward", 0, 7, 0, 1000);
    b.gpu("k", 0, 7, 100, 100, 1);
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats stats = computeRangeStats(b.trace, index, 0, 1000);
    QCOMPARE(stats.streams.size(), std::size_t(1));
    QCOMPARE(stats.streams[0].events, std::uint64_t(1));
    QCOMPARE(stats.streams[0].time, Nanos(100));
    QCOMPARE(stats.ops.size(), std::size_t(1));
}

void TestRangeStats::emptyAndBackwardsRanges()
{
    TraceBuilder b;
    b.gpu("k", 0, 7, 100, 100, 1);
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats empty = computeRangeStats(b.trace, index, 150, 150);
    QVERIFY(empty.ops.empty());
    QCOMPARE(empty.streams.size(), std::size_t(1));
    QCOMPARE(empty.streams[0].time, Nanos(0));
    QCOMPARE(empty.percentOf(10), 0.0);
    const RangeStats backwards = computeRangeStats(b.trace, index, 180, 120);
    QCOMPARE(backwards.start, Nanos(120));
    QCOMPARE(backwards.end, Nanos(180));
    QCOMPARE(backwards.streams[0].time, Nanos(60));
    // A range touching the kernel's end only: it ended at 200, so [200, 300) holds nothing.
    const RangeStats after = computeRangeStats(b.trace, index, 200, 300);
    QVERIFY(after.ops.empty());
    QCOMPARE(after.streams[0].events, std::uint64_t(0));
}

void TestRangeStats::tableFormatsQuoteAndEscapeNames()
{
    TraceBuilder b;
    b.gpu("void gemm<float, 128>(\"x\")", 0, 7, 0, 100, 1);
    b.gpu("tab\tname", 0, 7, 200, 50, 2);
    b.cpu(EventCategory::CpuOp, "aten::mm", 10, 1, 0, 40);
    const TraceIndex index = buildTraceIndex(b.trace);
    const RangeStats stats = computeRangeStats(b.trace, index, 0, 400);
    const std::string csv = rangeStatsTable(stats, b.trace, index, TableFormat::Csv);
    const std::string expectedCsv = "section,name,category,count,total_ns,mean_ns,max_ns,percent_of_range\n"
                                    "gpu_op,\"void gemm<float, 128>(\"\"x\"\")\",kernel,1,100,100,100,25.00\n"
                                    "gpu_op,tab\tname,kernel,1,50,50,50,12.50\n"
                                    "stream,GPU 0 stream 7,GPU 0,2,150,,,37.50\n"
                                    "thread,thread 1,pid 10,1,40,,,10.00\n";
    QCOMPARE(QString::fromStdString(csv), QString::fromStdString(expectedCsv));
    const std::string tsv = rangeStatsTable(stats, b.trace, index, TableFormat::Tsv);
    QVERIFY(tsv.find("gpu_op\tvoid gemm<float, 128>(\"x\")\tkernel\t1\t100\t100\t100\t25.00\n") != std::string::npos);
    QVERIFY(tsv.find("gpu_op\ttab name\tkernel") != std::string::npos);
    // Every TSV line has the header's 8 columns.
    std::size_t lineStart = 0;
    while (lineStart < tsv.size()) {
        const std::size_t lineEnd = tsv.find('\n', lineStart);
        QCOMPARE(std::count(tsv.begin() + lineStart, tsv.begin() + lineEnd, '\t'), std::ptrdiff_t(7));
        lineStart = lineEnd + 1;
    }
}

void TestRangeStats::deepStackBeforeTheRangeMatchesBruteForce()
{
    // One CPU thread with a long step, 2,000 short ops before the range (so the ancestor walk is
    // used, not the scan) nested under an op that stays open into the range; random GPU kernels on
    // two streams, some nested. Compared with a brute-force union over a per-nanosecond bitmap.
    TraceBuilder b;
    b.cpu(EventCategory::UserAnnotation, "step", 10, 1, 0, 100000);
    b.cpu(EventCategory::CpuOp, "outer", 10, 1, 10, 60000);
    for (int i = 0; i < 2000; ++i)
        b.cpu(EventCategory::CpuOp, "short", 10, 1, 20 + i * 20, 10);
    b.cpu(EventCategory::CpuOp, "open", 10, 1, 45000, 10000); // inside outer, open at the range start
    std::mt19937 random(7);
    for (int s : {7, 20}) {
        Nanos t = 0;
        for (int i = 0; i < 3000; ++i) {
            t += random() % 40;
            const Nanos dur = 1 + random() % 60;
            b.gpu(i % 5 ? "k" : "m", 0, s, t, dur, i);
            if (i % 7 == 0)
                b.gpu("nested", 0, s, t + dur / 3, 1 + dur / 3, i);
            t += dur;
        }
    }
    const TraceIndex index = buildTraceIndex(b.trace);
    const Nanos start = 50000, end = 90000;
    const RangeStats stats = computeRangeStats(b.trace, index, start, end);
    for (LaneIndex l{0}; l.in(index.lanes.size()); ++l) {
        std::vector<bool> covered(end - start, false);
        std::uint64_t events = 0;
        const bool stream = index.lane(l).kind == LaneKind::GpuStream;
        for (EventIndex e : index.lane(l).events) {
            const DeviceEvent &event = b.trace.event(e);
            if (event.end() <= start || event.ts >= end)
                continue;
            ++events;
            for (Nanos t = std::max(event.ts, start); t < std::min(event.end(), end); ++t)
                covered[t - start] = true;
        }
        const Nanos time = std::count(covered.begin(), covered.end(), true);
        const auto &lanes = stream ? stats.streams : stats.threads;
        const auto it = std::find_if(lanes.begin(), lanes.end(), [&](const RangeLaneStat &s) { return s.lane == l; });
        QVERIFY(it != lanes.end());
        QCOMPARE(it->events, events);
        QCOMPARE(it->time, time);
    }
    const RangeLaneStat *thread = laneLabelled(stats.threads, index, "thread 1");
    QCOMPARE(thread->events, std::uint64_t(3)); // step, outer, open
}

QTEST_GUILESS_MAIN(TestRangeStats)
#include "test_rangestats.moc"
