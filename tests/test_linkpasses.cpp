// The link stage's passes on their own (docs/architecture.md, "The link stage, pass by pass"): the
// candidate lists' nesting, the parent search's answers whatever order it is asked in (its fingers
// only speed it up), the launch contexts (one per GPU op, returned as a value) and the fallback
// indexes built on first use. test_linker checks what the passes make together.
#include "index/traceindex.h"
#include "link/launchcontexts.h"
#include "link/launchindex.h"
#include "link/parentsearch.h"
#include "link/threadcandidates.h"
#include "tracebuilder.h"

#include <QTest>

#include <vector>

using namespace linkscope::core;
using linkscope::test::TraceBuilder;

namespace {

constexpr std::int64_t kPid = 1;
constexpr std::int64_t kTid = 7;
constexpr Nanos us = 1000;

// outer [0,100) encloses a [10,40) and b [50,90); b encloses c [60,70); a kernel at 200.
struct NestedThread {
    TraceBuilder b;
    EventIndex outer, a, bOp, c, kernel;
    NestedThread()
    {
        outer = b.cpu(EventCategory::CpuOp, "outer", kPid, kTid, 0, 100 * us, 1);
        a = b.cpu(EventCategory::CpuOp, "a", kPid, kTid, 10 * us, 30 * us, 2);
        bOp = b.cpu(EventCategory::CpuOp, "b", kPid, kTid, 50 * us, 40 * us, 3);
        c = b.cpu(EventCategory::UserAnnotation, "c", kPid, kTid, 60 * us, 10 * us, 4);
        kernel = b.gpu("k", 0, 7, 200 * us, 5 * us, 9, kNoId);
    }
};

} // namespace

class TestLinkPasses : public QObject {
    Q_OBJECT
private slots:
    void candidatesKnowTheirNestingParents();
    void parentSearchAnswersDoNotDependOnQueryOrder();
    void launchContextsOnePerGpuOpInEventOrder();
    void fallbackIndexesAreBuiltOnceAndTheFirstOpWins();
};

void TestLinkPasses::candidatesKnowTheirNestingParents()
{
    NestedThread t;
    const auto index = indexTrace(t.b.trace);
    const std::vector<HostNodeIndex> noHost(t.b.trace.events.size(), HostNodeIndex(kNone));
    ThreadCandidates candidates(t.b.trace, *index, nullptr, noHost);
    QCOMPARE(candidates.threads().size(), std::size_t(1));
    const ThreadOps *thread = candidates.find(t.b.trace.threadKey(t.b.trace.event(t.a)));
    QVERIFY(thread);
    QCOMPARE(thread->nest, (std::vector<EventIndex>{t.outer, t.a, t.bOp, t.c}));
    QCOMPARE(candidates.nestParentOf(t.outer), EventIndex(kNone));
    QCOMPARE(candidates.nestParentOf(t.a), t.outer);
    QCOMPARE(candidates.nestParentOf(t.c), t.bOp);
    QVERIFY(candidates.isNestAncestor(t.outer, t.c));
    QVERIFY(!candidates.isNestAncestor(t.a, t.c));
    const std::vector<EventIndex> released = candidates.releaseNestParents();
    QCOMPARE(released[t.c.get()], t.bOp);
    QCOMPARE(released[t.bOp.get()], t.outer);
}

void TestLinkPasses::parentSearchAnswersDoNotDependOnQueryOrder()
{
    NestedThread t;
    const auto index = indexTrace(t.b.trace);
    const std::vector<HostNodeIndex> noHost(t.b.trace.events.size(), HostNodeIndex(kNone));
    const ThreadCandidates candidates(t.b.trace, *index, nullptr, noHost);
    const ThreadOps &thread = candidates.threads().front();
    const std::vector<std::pair<Nanos, EventIndex>> expected = {
        {5 * us, t.outer}, {15 * us, t.a},     {45 * us, t.outer},           {55 * us, t.bOp},
        {65 * us, t.c},    {95 * us, t.outer}, {150 * us, EventIndex(kNone)}};
    ParentSearch search(t.b.trace, candidates, 0);
    for (const auto &[ts, parent] : expected)
        QCOMPARE(search.innermostEnclosing(thread, ts), parent);
    // The same searcher, its fingers left at the end, asked backwards; then a fresh one.
    for (auto it = expected.rbegin(); it != expected.rend(); ++it)
        QCOMPARE(search.innermostEnclosing(thread, it->first), it->second);
    ParentSearch fresh(t.b.trace, candidates, 0);
    QCOMPARE(fresh.innermostEnclosing(thread, 65 * us), t.c);
    QCOMPARE(fresh.innermostEnclosing(thread, 5 * us), t.outer);
    // Chakra HEAD: the latest op starting before the launch (no External id of the GPU op's among them),
    // and the op carrying an External id, asked out of order.
    const DeviceEvent &gpu = t.b.trace.event(t.kernel);
    QCOMPARE(search.chakraHead(thread, 55 * us, gpu), std::make_pair(t.bOp, false));
    QCOMPARE(search.chakraHead(thread, 12 * us, gpu), std::make_pair(t.a, false));
    QCOMPARE(search.cpuOpWithExternalId(thread, 3), t.bOp);
    QCOMPARE(search.cpuOpWithExternalId(thread, 1), t.outer);
    QCOMPARE(search.cpuOpWithExternalId(thread, 4), EventIndex(kNone)); // a user_annotation, not a cpu_op
}

void TestLinkPasses::launchContextsOnePerGpuOpInEventOrder()
{
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 10);
    const auto launch = b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 5 * us, 41, 10);
    const auto flowLaunch = b.runtime("hipLaunchKernel", kPid, kTid, 20 * us, 5 * us, kNoId, 10);
    b.gpu("byCorrelation", 0, 7, 30 * us, 5 * us, 41, 10);
    b.gpu("byFlow", 0, 7, 40 * us, 5 * us, 88, kNoId);
    b.flow(Phase::FlowStart, 88, kPid, kTid, 20 * us);
    b.flow(Phase::FlowFinish, 88, 0, 7, 40 * us);
    b.gpu("byExternalId", 0, 7, 50 * us, 5 * us, 0, 10);
    b.gpu("nothing", 0, 7, 60 * us, 5 * us, 0, kNoId);
    const auto index = indexTrace(b.trace);
    const std::vector<HostNodeIndex> noHost(b.trace.events.size(), HostNodeIndex(kNone));
    const ThreadCandidates candidates(b.trace, *index, nullptr, noHost);
    const LaunchIndex launches(b.trace);
    std::size_t progressCalls = 0;
    const std::vector<LaunchContext> contexts = findLaunchContexts(b.trace, *index, launches, candidates.chakraInTimeOrder(),
                                                                   [&](std::size_t) { ++progressCalls; });
    QCOMPARE(contexts.size(), std::size_t(4));
    QCOMPARE(progressCalls, std::size_t(0)); // every 4,096 GPU ops
    QCOMPARE(contexts[0].match, LaunchMatch::Correlation);
    QCOMPARE(contexts[0].event, launch);
    QCOMPARE(contexts[0].ts, 10 * us);
    QCOMPARE(contexts[0].end, 15 * us);
    QCOMPARE(contexts[1].match, LaunchMatch::Flow);
    QCOMPARE(contexts[1].event, flowLaunch);
    QCOMPARE(contexts[1].ts, 20 * us);
    QCOMPARE(contexts[2].match, LaunchMatch::ExternalId);
    QCOMPARE(contexts[2].externalIdOp, op);
    QVERIFY(contexts[2].found && !contexts[2].hasTime());
    QCOMPARE(contexts[3].match, LaunchMatch::None);
    QVERIFY(!contexts[3].found);
}

void TestLinkPasses::fallbackIndexesAreBuiltOnceAndTheFirstOpWins()
{
    TraceBuilder b;
    const auto late = b.cpu(EventCategory::CpuOp, "late", kPid, kTid, 50 * us, 10 * us, 10);
    const auto early = b.cpu(EventCategory::CpuOp, "early", kPid, kTid + 1, 5 * us, 10 * us, 10);
    b.cpu(EventCategory::UserAnnotation, "annotation", kPid, kTid, 0, 100 * us, 11);
    b.flow(Phase::FlowFinish, 3, 0, 7, 40 * us);
    b.flow(Phase::FlowFinish, 2, 0, 7, 30 * us);
    const auto start = b.flow(Phase::FlowStart, 2, kPid, kTid, 20 * us);
    const auto index = indexTrace(b.trace);
    const std::vector<HostNodeIndex> noHost(b.trace.events.size(), HostNodeIndex(kNone));
    const ThreadCandidates candidates(b.trace, *index, nullptr, noHost);
    LazyFallbackIndexes fallback(b.trace, candidates.chakraInTimeOrder());
    const auto &byExternalId = fallback.cpuOpByExternalId();
    QCOMPARE(&fallback.cpuOpByExternalId(), &byExternalId);
    QCOMPARE(byExternalId.size(), std::size_t(1)); // the user_annotation's id is not a cpu_op's
    QCOMPARE(byExternalId.at(10), early);
    QVERIFY(late != early);
    const FlowIndex &flows = fallback.flows();
    QCOMPARE(&fallback.flows(), &flows);
    QCOMPARE(flows.startOfFlow.at(2), start);
    const auto &finishes = flows.finishesByThread.at(b.trace.threadKey(b.trace.event(EventIndex(3))));
    QCOMPARE(finishes, (std::vector<std::pair<Nanos, std::int64_t>>{{30 * us, 2}, {40 * us, 3}}));
}

QTEST_GUILESS_MAIN(TestLinkPasses)
#include "test_linkpasses.moc"
