// Lanes, nesting and range queries of buildTraceIndex over DeviceTraces built in code.
#include "index/traceindex.h"
#include "testsupport.h"
#include "tracebuilder.h"

#include <QTest>

#include <random>

using namespace linkscope::core;
using linkscope::test::TraceBuilder;

namespace {
// The nesting parent and depth of an event (TraceIndex keeps both in std::vectors by event).
EventIndex nestParentOf(const TraceIndex &index, EventIndex event) { return index.nestParent[event.get()]; }
std::uint16_t depthOf(const TraceIndex &index, EventIndex event) { return index.depth[event.get()]; }
} // namespace

class TestTraceIndex : public QObject {
    Q_OBJECT

private slots:
    void lanesAreGroupedByProcessCpuThenGpu();
    void nonLaneEventsHaveNoLane();
    void nestingFollowsTheStackSweep();
    void equalStartsNestLongerFirst();
    void gpuOpIsALeafAtAnExactTie();
    void partialOverlapBecomesSiblingWithWarning();
    void partialOverlapWarningsAreBounded();
    void maxEndPrefixAndTimeBounds();
    void visibleRangeContainsEveryOverlappingEvent();
    void emptyTrace();
};

void TestTraceIndex::lanesAreGroupedByProcessCpuThenGpu()
{
    TraceBuilder b;
    // Two CPU threads of pid 100 (the second with a bare thread name), a CPU thread of pid 50,
    // GPU 0 streams 20 and 7, GPU 1 stream 7 (same stream id on another device: a separate lane).
    b.add(EventCategory::Kernel, "k0", 0, 20, 10, 5);
    b.add(EventCategory::CpuOp, "aten::mm", 100, 1332, 0, 10);
    b.add(EventCategory::Kernel, "k1", 0, 7, 10, 5);
    b.add(EventCategory::CudaRuntime, "cudaLaunchKernel", 100, 1331, 1, 2);
    b.add(EventCategory::GpuMemset, "Memset", 1, 7, 10, 5);
    b.add(EventCategory::PythonFunction, "fn", 50, 51, 0, 1);
    b.trace.threadNames[{TraceBuilder::num(100), TraceBuilder::num(1331)}] = "thread 1331 (python)";
    b.trace.threadNames[{TraceBuilder::num(100), TraceBuilder::num(1332)}] = "pt_autograd_0";

    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(index.lanes.size(), std::size_t(6));
    QStringList labels;
    for (const Lane &lane : index.lanes)
        labels << QString::fromStdString(lane.label);
    // CPU processes first by pid (50, then 100 with threads by tid), then GPU processes by device,
    // streams by id.
    QCOMPARE(labels, QStringList({"thread 51", "thread 1331 (python)", "thread 1332 (pt_autograd_0)", "GPU 0 stream 7",
                                  "GPU 0 stream 20", "GPU 1 stream 7"}));
    QCOMPARE(index.lanes[0].kind, LaneKind::CpuThread);
    QCOMPARE(index.lanes[3].kind, LaneKind::GpuStream);
    QCOMPARE(index.lanes[5].device, 1);
    QCOMPARE(index.lanes[5].stream, std::int64_t(7));
    QCOMPARE(index.laneOfEvent(EventIndex(4)), LaneIndex(5)); // the memset
    QCOMPARE(index.laneOfEvent(EventIndex(0)), LaneIndex(4)); // kernel on GPU 0 stream 20
}

void TestTraceIndex::nonLaneEventsHaveNoLane()
{
    TraceBuilder b;
    const auto op = b.add(EventCategory::CpuOp, "aten::add", 100, 1, 0, 10);
    const auto flow = b.flow(Phase::FlowStart, 5, 100, 1, 2);
    const auto instant = b.add(EventCategory::CpuInstant, "[memory]", 100, 1, 3, 0);
    b.at(instant).phase = Phase::Instant;
    const auto span = b.add(EventCategory::Trace, "ProfilerStep#1", 0, 0, 0, 100);
    const auto sync = b.add(EventCategory::CudaSync, "Stream Sync", 0, 7, 0, 100);

    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(index.lanes.size(), std::size_t(1));
    QCOMPARE(index.laneOfEvent(op), LaneIndex(0));
    for (auto ev : {flow, instant, span, sync})
        QCOMPARE(index.laneOfEvent(ev), kNone);
}

void TestTraceIndex::nestingFollowsTheStackSweep()
{
    TraceBuilder b;
    // The worked example of docs/linking.md plus a finished sibling before the launch and a later top-level op.
    //   record_param_comms [100,150) ⊃ aten::empty [102,104) , nccl:_all_gather_base [110,140) ⊃ cuLaunchKernelEx [120,125)
    //   aten::add [200,210)
    const auto launch = b.runtime("cuLaunchKernelEx", 1, 1331, 120, 5, 5000, 17, EventCategory::CudaDriver);
    const auto rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", 1, 1331, 100, 50, 17);
    const auto empty = b.cpu(EventCategory::CpuOp, "aten::empty", 1, 1331, 102, 2);
    const auto nccl = b.cpu(EventCategory::UserAnnotation, "nccl:_all_gather_base", 1, 1331, 110, 30, 18);
    const auto add = b.cpu(EventCategory::CpuOp, "aten::add", 1, 1331, 200, 10);

    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(nestParentOf(index, rpc), kNone);
    QCOMPARE(nestParentOf(index, empty), rpc);
    QCOMPARE(nestParentOf(index, nccl), rpc);
    QCOMPARE(nestParentOf(index, launch), nccl);
    QCOMPARE(nestParentOf(index, add), kNone);
    QCOMPARE(depthOf(index, rpc), std::uint16_t(0));
    QCOMPARE(depthOf(index, empty), std::uint16_t(1));
    QCOMPARE(depthOf(index, nccl), std::uint16_t(1));
    QCOMPARE(depthOf(index, launch), std::uint16_t(2));
    QCOMPARE(index.lanes[0].rowCount, std::uint16_t(3));
    const std::vector<EventIndex> order{rpc, empty, nccl, launch, add};
    QCOMPARE(index.lanes[0].events, order);
}

void TestTraceIndex::equalStartsNestLongerFirst()
{
    TraceBuilder b;
    // Same start: the longer one encloses (sort by dur desc); an exact duplicate interval nests by file order.
    const auto inner = b.cpu(EventCategory::CpuOp, "inner", 1, 1, 100, 10);
    const auto outer = b.cpu(EventCategory::CpuOp, "outer", 1, 1, 100, 50);
    const auto twin = b.cpu(EventCategory::CpuOp, "twin", 1, 1, 100, 10);
    const auto point = b.cpu(EventCategory::CpuOp, "zero", 1, 1, 110, 0); // ends where inner ends: not inside
    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(nestParentOf(index, outer), kNone);
    QCOMPARE(nestParentOf(index, inner), outer);
    QCOMPARE(nestParentOf(index, twin), inner);
    QCOMPARE(nestParentOf(index, point), outer);
}

void TestTraceIndex::gpuOpIsALeafAtAnExactTie()
{
    TraceBuilder b;
    // The kernel comes first in the file, its annotation has exactly its extent: the annotation
    // encloses the kernel, whatever the file order (a GPU op never has children).
    const auto kernel = b.gpu("ncclDevKernel_AllReduce", 0, 7, 1000, 500, 11);
    const auto annotation = b.gpu("nccl:all_reduce", 0, 7, 1000, 500, 11, kNoId, EventCategory::GpuUserAnnotation);
    const auto later = b.gpu("gemm", 0, 7, 2000, 100, 12);
    const auto laterAnnotation = b.gpu("forward", 0, 7, 2000, 100, 12, kNoId, EventCategory::GpuUserAnnotation);
    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(nestParentOf(index, annotation), kNone);
    QCOMPARE(nestParentOf(index, kernel), annotation);
    QCOMPARE(depthOf(index, kernel), std::uint16_t(depthOf(index, annotation) + 1));
    QCOMPARE(nestParentOf(index, later), laterAnnotation);
    QCOMPARE(nestParentOf(index, laterAnnotation), kNone);
}

void TestTraceIndex::partialOverlapBecomesSiblingWithWarning()
{
    TraceBuilder b;
    const auto top = b.cpu(EventCategory::CpuOp, "top", 1, 1, 0, 100);
    const auto a = b.cpu(EventCategory::CpuOp, "a", 1, 1, 10, 20);     // [10,30)
    const auto bb = b.cpu(EventCategory::CpuOp, "b", 1, 1, 20, 20);    // [20,40) overlaps a's end
    const auto inB = b.cpu(EventCategory::CpuOp, "in_b", 1, 1, 32, 2); // [32,34) inside b only
    std::vector<Diagnostic> warnings;
    const TraceIndex index = buildTraceIndex(b.trace, &warnings);
    QCOMPARE(nestParentOf(index, a), top);
    QCOMPARE(nestParentOf(index, bb), top); // sibling of a, not its child
    QCOMPARE(depthOf(index, bb), std::uint16_t(1));
    QCOMPARE(nestParentOf(index, inB), bb);
    QCOMPARE(warnings.size(), std::size_t(1));
    QVERIFY(warnings[0].message.find("'b'") != std::string::npos);
}

void TestTraceIndex::partialOverlapWarningsAreBounded()
{
    TraceBuilder b;
    for (int i = 0; i < 30; ++i)
        b.cpu(EventCategory::CpuOp, "step", 1, 1, i * 10, 15); // each overlaps the next
    std::vector<Diagnostic> warnings;
    buildTraceIndex(b.trace, &warnings);
    QCOMPARE(warnings.size(), std::size_t(21)); // 20 listed + 1 total
    QVERIFY(warnings.back().message.find("29 events") != std::string::npos);
}

void TestTraceIndex::maxEndPrefixAndTimeBounds()
{
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "long", 1, 1, 0, 100);
    b.cpu(EventCategory::CpuOp, "short", 1, 1, 10, 5);
    b.cpu(EventCategory::CpuOp, "late", 1, 1, 150, 10);
    b.gpu("k", 0, 7, -5, 20, 1);
    const TraceIndex index = buildTraceIndex(b.trace);
    QCOMPARE(index.lanes[0].maxEndPrefix, std::vector<Nanos>({100, 100, 160}));
    QCOMPARE(index.lanes[0].startTs, std::vector<Nanos>({0, 10, 150}));
    QCOMPARE(index.minTs, Nanos(-5));
    QCOMPARE(index.maxTs, Nanos(160));
}

void TestTraceIndex::visibleRangeContainsEveryOverlappingEvent()
{
    // Random nested-ish intervals; the expected set is computed by brute force over all events.
    std::mt19937_64 rng(7);
    TraceBuilder b;
    for (int i = 0; i < 2000; ++i) {
        const Nanos ts = static_cast<Nanos>(rng() % 100000);
        const Nanos dur = (i % 50 == 0) ? static_cast<Nanos>(rng() % 20000) : static_cast<Nanos>(rng() % 300);
        b.cpu(EventCategory::CpuOp, "op", 1, 1, ts, dur);
    }
    const TraceIndex index = buildTraceIndex(b.trace);
    const Lane &lane = index.lanes.at(0);
    for (int q = 0; q < 300; ++q) {
        const Nanos t0 = static_cast<Nanos>(rng() % 110000) - 5000;
        const Nanos t1 = t0 + static_cast<Nanos>(rng() % 3000) + 1;
        const auto [first, last] = index.visibleRange(lane, t0, t1);
        QVERIFY(first <= last && last <= lane.events.size());
        std::size_t overlapping = 0;
        for (std::size_t pos = 0; pos < lane.events.size(); ++pos) {
            const DeviceEvent &e = b.trace.event(lane.events[pos]);
            if (e.ts < t1 && e.end() > t0) {
                ++overlapping;
                QVERIFY2(pos >= first && pos < last, "overlapping event outside the visible range");
            }
        }
        QVERIFY(overlapping <= last - first);
    }
}

void TestTraceIndex::emptyTrace()
{
    TraceBuilder b;
    const TraceIndex index = buildTraceIndex(b.trace);
    QVERIFY(index.lanes.empty());
    QCOMPARE(index.minTs, Nanos(0));
    QCOMPARE(index.maxTs, Nanos(0));
}

QTEST_GUILESS_MAIN(TestTraceIndex)
#include "test_traceindex.moc"
