// The linker on traces built in code: the worked example of docs/linking.md under each policy, and each
// of its failure cases that concerns linking. Expected values come from the hand-written timelines in each case.
#include "link/hostjoin.h"
#include "link/linker.h"
#include "testsupport.h"
#include "tracebuilder.h"

#include <QTest>

#include <algorithm>

using namespace linkscope::core;
using linkscope::test::HostBuilder;
using linkscope::test::TraceBuilder;

Q_DECLARE_METATYPE(linkscope::core::Policy)

namespace {

constexpr std::int64_t kPid = 1;
constexpr std::int64_t kTid = 1331;
constexpr Nanos us = 1000;

std::string nameOf(const DeviceTrace &t, EventIndex event)
{
    return event.isNone() ? std::string("(none)") : std::string(t.name(t.event(event)));
}

const GpuLink &linkOf(const LinkSet &ls, EventIndex gpuEvent) { return ls.gpuLinks.at(ls.gpuLinkOf.at(gpuEvent)); }

std::size_t countKind(const LinkSet &ls, FindingKind kind)
{
    return static_cast<std::size_t>(
        std::count_if(ls.findings.begin(), ls.findings.end(), [&](const Finding &f) { return f.kind == kind; }));
}

const Finding *findingFor(const LinkSet &ls, FindingKind kind, EventIndex subject)
{
    for (const Finding &f : ls.findings)
        if (f.kind == kind && f.event == subject)
            return &f;
    return nullptr;
}

const Finding *findingFor(const LinkSet &ls, FindingKind kind, HostNodeIndex subject)
{
    for (const Finding &f : ls.findings)
        if (f.kind == kind && f.hostNode == subject)
            return &f;
    return nullptr;
}

std::size_t countEdges(const LinkSet &ls, EdgeKind kind)
{
    return static_cast<std::size_t>(
        std::count_if(ls.edges.begin(), ls.edges.end(), [&](const Edge &e) { return e.kind == kind; }));
}

bool hasEdge(const LinkSet &ls, EdgeKind kind, EventIndex from, EventIndex to)
{
    return std::any_of(ls.edges.begin(), ls.edges.end(),
                       [&](const Edge &e) { return e.kind == kind && e.from == from && e.to == to; });
}

// The worked example of docs/linking.md (Chakra issue #196), times in µs:
//   record_param_comms     [100,150) cpu_op          External id 17  rf 19  Ev Idx 40
//    nccl:_all_gather_base [110,140) user_annotation External id 18  rf 20  Ev Idx 41
//     cuLaunchKernelEx     [120,125) cuda_driver     External id 17  correlation 5000
//   ncclDevKernel_AllGather_RING_LL  GPU [130,180)   External id 17  correlation 5000  stream 20
struct SeedCase {
    TraceBuilder b;
    HostBuilder h;
    EventIndex rpc, nccl, launch, kernel, annotation;

    explicit SeedCase(bool withAnnotation = true)
    {
        rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", kPid, kTid, 100 * us, 50 * us, 17, 19, 40);
        nccl = b.cpu(EventCategory::UserAnnotation, "nccl:_all_gather_base", kPid, kTid, 110 * us, 30 * us, 18, 20, 41);
        launch = b.runtime("cuLaunchKernelEx", kPid, kTid, 120 * us, 5 * us, 5000, 17, EventCategory::CudaDriver);
        kernel = b.gpu("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0, 20, 130 * us, 50 * us, 5000,
                       17);
        if (withAnnotation)
            annotation = b.add(EventCategory::GpuUserAnnotation, "nccl:_all_gather_base", 0, 20, 129 * us, 52 * us);
        if (annotation.valid())
            b.at(annotation).externalId = 18;
        h.host.pid = kPid;
        h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
        h.node(2, 1, "[pytorch|profiler|execution_trace|thread]", 0);
        h.node(30, 2, "record_param_comms", 19);
        h.node(31, 30, "nccl:_all_gather_base", 20);
        h.finish();
    }
};

} // namespace

class TestLinker : public QObject {
    Q_OBJECT

private slots:
    void seedCase_data();
    void seedCase();
    void seedCaseFindings_data();
    void seedCaseFindings();
    void finishedSiblingBeforeLaunch();
    void launchOutsideParentAndDisagreement();
    void nestingAncestorWhenInnermostHasNoEtNode();
    void noHostNodeOrphan();
    void orphanReasons_data();
    void orphanReasons();
    void anyRuntimeLaunchesNoWhitelist_data();
    void anyRuntimeLaunchesNoWhitelist();
    void cudaGraphKernelsShareTheParent();
    void flowFallback();
    void externalIdFallback();
    void duplicateCorrelationPicksNearestBefore();
    void gpuBeforeLaunch();
    void enclosureTolerance();
    void tieRules();
    void ncclCoalescedSkippedByChakraPolicies();
    void profilerStepsKeptButNeverParents();
    void multiGpuStreamsAreSeparate();
    void cpuOnlyTrace();
    void mergedProcessesKeepCorrelationsApart();
    void exclusiveDurations();
    void streamOrderEdges();
    void syncEdgesFromRuntimeCalls();
    void syncEdgesFromSyncEvents();
    void eventSyncWaitsOnRecordedStream();
    void interThreadEdges();
    void hostJoinByRecordFunctionId();
    void hostJoinByOffset_data();
    void hostJoinByOffset();
    void hostFindings();
    void progressCancels();
    void names();
};

void TestLinker::seedCase_data()
{
    QTest::addColumn<Policy>("policy");
    QTest::addColumn<bool>("withHost");
    QTest::addColumn<QString>("parent");
    QTest::addColumn<int>("rule");
    // docs/linking.md: pre-#185 → nccl:* (by luck), HEAD → record_param_comms (wrong), nesting → nccl:*.
    for (bool withHost : {false, true}) {
        const char *suffix = withHost ? " pair" : " kineto";
        QTest::addRow("nesting%s", suffix) << Policy::Nesting << withHost << "nccl:_all_gather_base" << int(ParentRule::Nesting);
        QTest::addRow("external-id%s", suffix)
            << Policy::ExternalId << withHost << "record_param_comms" << int(ParentRule::ExternalId);
        QTest::addRow("ev-idx%s", suffix) << Policy::EvIdx << withHost << "nccl:_all_gather_base"
                                          << int(ParentRule::LatestStarting);
    }
}

void TestLinker::seedCase()
{
    QFETCH(Policy, policy);
    QFETCH(bool, withHost);
    QFETCH(QString, parent);
    QFETCH(int, rule);
    SeedCase s;
    LinkOptions options;
    options.policy = policy;
    const LinkSet ls = linkTraces(s.b.trace, withHost ? &s.h.host : nullptr, options);
    QCOMPARE(ls.gpuLinks.size(), std::size_t(1));
    const GpuLink &link = linkOf(ls, s.kernel);
    QCOMPARE(link.launch, s.launch);
    QCOMPARE(link.launchMatch, LaunchMatch::Correlation);
    QCOMPARE(QString::fromStdString(nameOf(s.b.trace, link.parent)), parent);
    QCOMPARE(int(link.rule), rule);
    QCOMPARE(link.orphan, OrphanReason::None);
    QCOMPARE(link.innermost, s.nccl);
    // Every policy's choice is kept whatever the run's policy.
    QCOMPARE(link.byPolicy[0], s.nccl);
    QCOMPARE(link.byPolicy[1], s.rpc);
    QCOMPARE(link.byPolicy[2], s.nccl);
    if (withHost) {
        QCOMPARE(ls.join.method, HostJoinMethod::RecordFunctionId);
        QCOMPARE(ls.join.matched, std::size_t(2));
        QCOMPARE(s.h.host.node(link.hostNode).id, policy == Policy::ExternalId ? 30 : 31);
    } else {
        QCOMPARE(link.hostNode, kNone);
    }
    if (policy == Policy::Nesting) {
        // The parent is a user_annotation nested in the External-id op (17 = record_param_comms) and the
        // gpu_user_annotation with External id 18 overlaps the kernel: full confidence with evidence.
        QCOMPARE(link.annotationEvidence, s.annotation);
        QCOMPARE(link.confidence, 1.0f);
    }
}

void TestLinker::seedCaseFindings_data()
{
    QTest::addColumn<Policy>("policy");
    QTest::addColumn<int>("ncclFindings");
    QTest::addColumn<int>("disagreements");
    QTest::newRow("nesting") << Policy::Nesting << 0 << 0;
    QTest::newRow("external-id") << Policy::ExternalId << 1 << 0;
    QTest::newRow("ev-idx") << Policy::EvIdx << 0 << 0;
}

void TestLinker::seedCaseFindings()
{
    QFETCH(Policy, policy);
    QFETCH(int, ncclFindings);
    QFETCH(int, disagreements);
    SeedCase s;
    LinkOptions options;
    options.policy = policy;
    const LinkSet ls = linkTraces(s.b.trace, &s.h.host, options);
    QCOMPARE(int(countKind(ls, FindingKind::NcclParentIsRecordParamComms)), ncclFindings);
    // HEAD's record_param_comms differs from nesting's nccl:* only by the user-scope refinement.
    QCOMPARE(int(countKind(ls, FindingKind::PolicyDisagreement)), disagreements);
    QCOMPARE(countKind(ls, FindingKind::OrphanGpuOp), std::size_t(0));
    QCOMPARE(countKind(ls, FindingKind::RfIdAbsent), std::size_t(0));
    if (ncclFindings) {
        const Finding *f = findingFor(ls, FindingKind::NcclParentIsRecordParamComms, s.kernel);
        QVERIFY(f);
        QCOMPARE(f->suggestedParent, s.nccl);
        QCOMPARE(f->severity, FindingSeverity::Warning);
        QVERIFY(!f->message.empty() && !f->suggestion.empty());
    }
    const auto counts = countFindingsByKind(ls.findings);
    QCOMPARE(int(counts[static_cast<std::size_t>(FindingKind::NcclParentIsRecordParamComms)]), ncclFindings);
}

void TestLinker::finishedSiblingBeforeLaunch()
{
    // The pre-#185 failure: aten::addmm [0,100) ⊃ aten::empty [10,20), then the launch at 50.
    // The latest-starting op before the launch is the finished aten::empty.
    TraceBuilder b;
    const auto addmm = b.cpu(EventCategory::CpuOp, "aten::addmm", kPid, kTid, 0, 100 * us, 5);
    const auto empty = b.cpu(EventCategory::CpuOp, "aten::empty", kPid, kTid, 10 * us, 10 * us, 6);
    const auto launch = b.runtime("cudaLaunchKernel", kPid, kTid, 50 * us, 5 * us, 900, 5);
    const auto kernel = b.gpu("gemm", 0, 7, 60 * us, 30 * us, 900, 5);
    const LinkSet nesting = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(nesting, kernel).parent, addmm);
    QCOMPARE(linkOf(nesting, kernel).byPolicy[1], addmm); // External id 5 matches aten::addmm
    QCOMPARE(linkOf(nesting, kernel).byPolicy[2], empty);
    QCOMPARE(linkOf(nesting, kernel).launch, launch);
    QCOMPARE(linkOf(nesting, kernel).confidence, 1.0f); // nesting == External-id op
    LinkOptions pre;
    pre.policy = Policy::EvIdx;
    const LinkSet old = linkTraces(b.trace, nullptr, pre);
    QCOMPARE(linkOf(old, kernel).parent, empty);
    const Finding *outside = findingFor(old, FindingKind::LaunchOutsideParent, kernel);
    QVERIFY(outside);
    QCOMPARE(outside->suggestedParent, addmm);
    const Finding *disagree = findingFor(old, FindingKind::PolicyDisagreement, kernel);
    QVERIFY(disagree);
    QCOMPARE(disagree->suggestedParent, addmm);
    QCOMPARE(disagree->severity, FindingSeverity::Info);
}

void TestLinker::launchOutsideParentAndDisagreement()
{
    // Old-style External id (== correlation) matches no CPU op; HEAD falls back to latest-starting,
    // which here is a finished op: HEAD and pre-#185 both pick aten::view, nesting picks aten::linear.
    TraceBuilder b;
    const auto linear = b.cpu(EventCategory::CpuOp, "aten::linear", kPid, kTid, 0, 100 * us, 3);
    const auto view = b.cpu(EventCategory::CpuOp, "aten::view", kPid, kTid, 5 * us, 5 * us, 4);
    b.runtime("cudaLaunchKernel", kPid, kTid, 40 * us, 5 * us, 777, 777);
    const auto kernel = b.gpu("k", 0, 7, 50 * us, 5 * us, 777, 777);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    const GpuLink &link = linkOf(ls, kernel);
    QCOMPARE(link.parent, linear);
    QCOMPARE(link.byPolicy[1], view);
    QCOMPARE(link.byPolicy[2], view);
    QCOMPARE(link.confidence, 0.85f); // no External-id op to cross-check against
    QVERIFY(findingFor(ls, FindingKind::PolicyDisagreement, kernel));
    QVERIFY(!findingFor(ls, FindingKind::LaunchOutsideParent, kernel));
    LinkOptions head;
    head.policy = Policy::ExternalId;
    const LinkSet chakra = linkTraces(b.trace, nullptr, head);
    QCOMPARE(linkOf(chakra, kernel).rule, ParentRule::LatestStarting);
    QVERIFY(findingFor(chakra, FindingKind::LaunchOutsideParent, kernel));
}

void TestLinker::nestingAncestorWhenInnermostHasNoEtNode()
{
    // aten::mm (rf 7, ET node) ⊃ a record_function block without an ET match (rf 8 absent from the host).
    TraceBuilder b;
    const auto mm = b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 0, 100 * us, 10, 7);
    const auto block = b.cpu(EventCategory::UserAnnotation, "my_block", kPid, kTid, 10 * us, 50 * us, 11, 8);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 42, 10);
    const auto kernel = b.gpu("k", 0, 7, 30 * us, 5 * us, 42, 10);
    HostBuilder h;
    h.host.pid = kPid;
    h.node(1, -1, "[pytorch|profiler|execution_trace|thread]", 0);
    h.node(5, 1, "aten::mm", 7);
    h.finish();
    const LinkSet pair = linkTraces(b.trace, &h.host);
    const GpuLink &link = linkOf(pair, kernel);
    QCOMPARE(link.innermost, block);
    QCOMPARE(link.parent, mm);
    QCOMPARE(link.rule, ParentRule::NestingAncestor);
    QCOMPARE(h.host.node(link.hostNode).id, std::int64_t(5));
    QVERIFY(findingFor(pair, FindingKind::DeviceOpWithoutHost, block));
    // Kineto only: the innermost op is the parent.
    const LinkSet kinetoOnly = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(kinetoOnly, kernel).parent, block);
    QCOMPARE(linkOf(kinetoOnly, kernel).rule, ParentRule::Nesting);
}

void TestLinker::noHostNodeOrphan()
{
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::add", kPid, kTid, 0, 100 * us, 10, 70);
    b.cpu(EventCategory::CpuOp, "aten::mul", kPid, kTid, 200 * us, 10 * us, 12, 71);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 42, 10);
    const auto kernel = b.gpu("k", 0, 7, 30 * us, 5 * us, 42, 10);
    HostBuilder h;
    h.host.pid = kPid;
    h.node(5, -1, "aten::mul", 71); // only the other op is in the ET
    h.finish();
    const LinkSet ls = linkTraces(b.trace, &h.host);
    const GpuLink &link = linkOf(ls, kernel);
    QCOMPARE(link.orphan, OrphanReason::NoHostNode);
    QCOMPARE(link.parent, kNone);
    QCOMPARE(link.innermost, op);
    const Finding *f = findingFor(ls, FindingKind::OrphanGpuOp, kernel);
    QVERIFY(f);
    QCOMPARE(f->suggestedParent, op);
}

void TestLinker::orphanReasons_data()
{
    QTest::addColumn<qint64>("kernelCorrelation");
    QTest::addColumn<qint64>("runtimeCorrelation");
    QTest::addColumn<qint64>("launchAt");
    QTest::addColumn<int>("reason");
    QTest::addColumn<bool>("chakraOrphans");
    // Failure cases "Orphan GPU ops", "Missing correlation" (docs/linking.md): no runtime for the correlation; correlation -1 (AMD) or 0 (roctracer) = missing;
    // launch found but outside every CPU op (Chakra then takes the finished aten::add).
    QTest::newRow("no launch event") << qint64(5) << qint64(6) << qint64(20) << int(OrphanReason::NoLaunchEvent) << true;
    QTest::newRow("correlation -1") << qint64(-1) << qint64(6) << qint64(20) << int(OrphanReason::NoCorrelation) << true;
    QTest::newRow("correlation 0") << qint64(0) << qint64(0) << qint64(20) << int(OrphanReason::NoCorrelation) << true;
    QTest::newRow("no enclosing op") << qint64(5) << qint64(5) << qint64(500) << int(OrphanReason::NoEnclosingOp) << false;
}

void TestLinker::orphanReasons()
{
    QFETCH(qint64, kernelCorrelation);
    QFETCH(qint64, runtimeCorrelation);
    QFETCH(qint64, launchAt);
    QFETCH(int, reason);
    QFETCH(bool, chakraOrphans);
    TraceBuilder b;
    const auto add = b.cpu(EventCategory::CpuOp, "aten::add", kPid, kTid, 0, 100 * us, 10);
    b.runtime("cudaLaunchKernel", kPid, kTid, launchAt * us, 5 * us, runtimeCorrelation, 10);
    const auto kernel = b.gpu("k", 0, 7, 600 * us, 5 * us, kernelCorrelation, 10);
    b.at(kernel).externalId = kNoId; // no External-id fallback
    for (Policy policy : {Policy::Nesting, Policy::ExternalId, Policy::EvIdx}) {
        LinkOptions options;
        options.policy = policy;
        const LinkSet ls = linkTraces(b.trace, nullptr, options);
        QCOMPARE(ls.gpuLinks.size(), std::size_t(1)); // never dropped
        const GpuLink &link = linkOf(ls, kernel);
        if (policy != Policy::Nesting && !chakraOrphans) {
            QCOMPARE(link.parent, add);
            QCOMPARE(link.rule, ParentRule::LatestStarting);
            QVERIFY(findingFor(ls, FindingKind::LaunchOutsideParent, kernel));
            continue;
        }
        QCOMPARE(int(link.orphan), reason);
        QCOMPARE(link.parent, kNone);
        QCOMPARE(link.confidence, 0.0f);
        const Finding *f = findingFor(ls, FindingKind::OrphanGpuOp, kernel);
        QVERIFY(f);
        QVERIFY(f->message.find("has no parent") != std::string::npos);
    }
}

void TestLinker::anyRuntimeLaunchesNoWhitelist_data()
{
    QTest::addColumn<QString>("runtime");
    QTest::addColumn<int>("category");
    QTest::addColumn<int>("gpuCategory");
    // Failure cases (docs/linking.md): names outside Chakra's 15-name whitelist, memsets, HIP.
    QTest::newRow("cudaGraphLaunch") << "cudaGraphLaunch" << int(EventCategory::CudaRuntime) << int(EventCategory::Kernel);
    QTest::newRow("cudaMemsetAsync") << "cudaMemsetAsync" << int(EventCategory::CudaRuntime) << int(EventCategory::GpuMemset);
    QTest::newRow("cudaMemcpy2DAsync") << "cudaMemcpy2DAsync" << int(EventCategory::CudaRuntime) << int(EventCategory::GpuMemcpy);
    QTest::newRow("cuLaunchKernel (Triton)") << "cuLaunchKernel" << int(EventCategory::CudaDriver) << int(EventCategory::Kernel);
    QTest::newRow("cudaLaunchCooperativeKernelMultiDevice")
        << "cudaLaunchCooperativeKernelMultiDevice" << int(EventCategory::CudaRuntime) << int(EventCategory::Kernel);
    QTest::newRow("hipExtModuleLaunchKernel")
        << "hipExtModuleLaunchKernel" << int(EventCategory::CudaRuntime) << int(EventCategory::Kernel);
}

void TestLinker::anyRuntimeLaunchesNoWhitelist()
{
    QFETCH(QString, runtime);
    QFETCH(int, category);
    QFETCH(int, gpuCategory);
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 10);
    const auto launch = b.runtime(runtime.toStdString(), kPid, kTid, 20 * us, 5 * us, 31, 10,
                                  static_cast<EventCategory>(category));
    const auto gpu = b.gpu("gpu op", 0, 7, 30 * us, 5 * us, 31, 10, static_cast<EventCategory>(gpuCategory));
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(ls, gpu).launch, launch);
    QCOMPARE(linkOf(ls, gpu).parent, op);
    QVERIFY(hasEdge(ls, EdgeKind::Launch, launch, gpu));
}

void TestLinker::cudaGraphKernelsShareTheParent()
{
    // Failure case "CUDA graphs" (docs/linking.md): one cudaGraphLaunch, three kernels with its correlation on two streams.
    TraceBuilder b;
    const auto replay = b.cpu(EventCategory::CpuOp, "CUDAGraph::replay", kPid, kTid, 0, 100 * us, 10);
    const auto launch = b.runtime("cudaGraphLaunch", kPid, kTid, 20 * us, 5 * us, 64, 10);
    const auto k1 = b.gpu("k1", 0, 7, 30 * us, 5 * us, 64, 10);
    const auto k2 = b.gpu("k2", 0, 7, 36 * us, 5 * us, 64, 10);
    const auto k3 = b.gpu("k3", 0, 9, 31 * us, 5 * us, 64, 10);
    for (auto k : {k1, k2, k3})
        b.graphId(k, 3);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    for (auto k : {k1, k2, k3}) {
        QCOMPARE(linkOf(ls, k).launch, launch);
        QCOMPARE(linkOf(ls, k).parent, replay);
    }
    QCOMPARE(countKind(ls, FindingKind::DuplicateCorrelation), std::size_t(0));
    QVERIFY(hasEdge(ls, EdgeKind::StreamOrder, k1, k2));
    QCOMPARE(countEdges(ls, EdgeKind::StreamOrder), std::size_t(1));
}

void TestLinker::flowFallback()
{
    // The runtime event lacks a correlation arg; the ac2g flow (s on the thread, f on the kernel) still links.
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 10);
    const auto launch = b.runtime("hipLaunchKernel", kPid, kTid, 20 * us, 5 * us, kNoId, 10);
    const auto kernel = b.gpu("k", 0, 7, 30 * us, 5 * us, 88, kNoId);
    b.flow(Phase::FlowStart, 88, kPid, kTid, 20 * us);
    b.flow(Phase::FlowFinish, 88, 0, 7, 30 * us);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    const GpuLink &link = linkOf(ls, kernel);
    QCOMPARE(link.launchMatch, LaunchMatch::Flow);
    QCOMPARE(link.launch, launch);
    QCOMPARE(link.parent, op);
    QCOMPARE(link.confidence, 0.8f); // flow launch; the External-id op agrees with the nesting parent
}

void TestLinker::externalIdFallback()
{
    // No correlation at all (roctracer 0), new-style External id naming the cpu_op.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::other", kPid, kTid, 0, 10 * us, 9);
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 20 * us, 100 * us, 10);
    const auto kernel = b.gpu("k", 0, 7, 200 * us, 5 * us, 0, 10);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    const GpuLink &link = linkOf(ls, kernel);
    QCOMPARE(link.launchMatch, LaunchMatch::ExternalId);
    QCOMPARE(link.launch, kNone);
    QCOMPARE(link.parent, op);
    QCOMPARE(link.rule, ParentRule::ExternalId);
    QCOMPARE(link.confidence, 0.5f * 0.9f);
    // Old style (External id == correlation) is not an op id: no fallback.
    TraceBuilder old;
    old.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 77);
    const auto oldKernel = old.gpu("k", 0, 7, 200 * us, 5 * us, 77, 77);
    QCOMPARE(linkOf(linkTraces(old.trace, nullptr), oldKernel).orphan, OrphanReason::NoLaunchEvent);
}

void TestLinker::duplicateCorrelationPicksNearestBefore()
{
    // Failure case "Duplicate correlation" (docs/linking.md): two launches share (pid, correlation) 12; each kernel takes the nearest launch before it.
    TraceBuilder b;
    const auto first = b.cpu(EventCategory::CpuOp, "aten::first", kPid, kTid, 0, 50 * us, 1);
    const auto second = b.cpu(EventCategory::CpuOp, "aten::second", kPid, kTid, 100 * us, 50 * us, 2);
    const auto l1 = b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 5 * us, 12, 1);
    const auto l2 = b.runtime("cudaLaunchKernel", kPid, kTid, 110 * us, 5 * us, 12, 2);
    const auto k1 = b.gpu("k", 0, 7, 20 * us, 5 * us, 12);
    const auto k2 = b.gpu("k", 0, 7, 120 * us, 5 * us, 12);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(ls, k1).launch, l1);
    QCOMPARE(linkOf(ls, k1).parent, first);
    QCOMPARE(linkOf(ls, k2).launch, l2);
    QCOMPARE(linkOf(ls, k2).parent, second);
    QCOMPARE(countKind(ls, FindingKind::DuplicateCorrelation), std::size_t(1));
    // The same correlation in another process is not a duplicate.
    TraceBuilder other;
    other.runtime("cudaLaunchKernel", 1, 1, 10, 5, 12);
    other.runtime("cudaLaunchKernel", 2, 2, 10, 5, 12);
    QCOMPARE(countKind(linkTraces(other.trace, nullptr), FindingKind::DuplicateCorrelation), std::size_t(0));
}

void TestLinker::gpuBeforeLaunch()
{
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 10);
    b.runtime("cudaLaunchKernel", kPid, kTid, 50 * us, 5 * us, 3, 10);
    const auto kernel = b.gpu("k", 0, 7, 40 * us, 5 * us, 3, 10);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    const Finding *f = findingFor(ls, FindingKind::GpuBeforeLaunch, kernel);
    QVERIFY(f);
    QVERIFY(f->message.find("10000 ns before") != std::string::npos);
    QCOMPARE(linkOf(ls, kernel).orphan, OrphanReason::None);
}

void TestLinker::enclosureTolerance()
{
    // CPU ops and CUPTI runtime events come from different clocks: a launch 400 ns before its op's
    // recorded start is still inside it (ε = 1 µs), but not with ε = 100 ns.
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 10 * us, 100 * us, 10);
    b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us - 400, 5 * us, 3, 10);
    const auto kernel = b.gpu("k", 0, 7, 40 * us, 5 * us, 3, 10);
    QCOMPARE(linkOf(linkTraces(b.trace, nullptr), kernel).parent, op);
    LinkOptions strict;
    strict.enclosureTolerance = 100;
    QCOMPARE(linkOf(linkTraces(b.trace, nullptr, strict), kernel).orphan, OrphanReason::NoEnclosingOp);
    // Exact containment beats containment within ε: an op that ended 200 ns before the launch loses to
    // its enclosing op.
    TraceBuilder c;
    const auto outer = c.cpu(EventCategory::CpuOp, "outer", kPid, kTid, 0, 100 * us, 1);
    c.cpu(EventCategory::CpuOp, "inner", kPid, kTid, 10 * us, 10 * us - 200, 2);
    c.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 3, 1);
    const auto k = c.gpu("k", 0, 7, 40 * us, 5 * us, 3, 1);
    QCOMPARE(linkOf(linkTraces(c.trace, nullptr), k).parent, outer);
}

void TestLinker::tieRules()
{
    // docs/linking.md, The linkage rule, step 3: equal start → the shorter one is inner; equal interval → larger Ev Idx is inner.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "long", kPid, kTid, 0, 100 * us, 1, 0, 10);
    const auto shortOp = b.cpu(EventCategory::CpuOp, "short", kPid, kTid, 0, 50 * us, 2, 0, 11);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 3, 2);
    const auto k = b.gpu("k", 0, 7, 40 * us, 5 * us, 3, 2);
    QCOMPARE(linkOf(linkTraces(b.trace, nullptr), k).parent, shortOp);

    TraceBuilder c;
    const auto twinB = c.cpu(EventCategory::UserAnnotation, "b", kPid, kTid, 0, 100 * us, 2, 0, 21);
    c.cpu(EventCategory::CpuOp, "a", kPid, kTid, 0, 100 * us, 1, 0, 20);
    c.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 3, 1);
    const auto k2 = c.gpu("k", 0, 7, 40 * us, 5 * us, 3, 1);
    QCOMPARE(linkOf(linkTraces(c.trace, nullptr), k2).parent, twinB);

    // With ET nodes, the ET descendant (larger ET id) wins over Ev Idx.
    TraceBuilder d;
    const auto etChild = d.cpu(EventCategory::CpuOp, "child", kPid, kTid, 0, 100 * us, 1, 101, 20);
    d.cpu(EventCategory::CpuOp, "parent", kPid, kTid, 0, 100 * us, 2, 100, 21);
    d.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 3, 1);
    const auto k3 = d.gpu("k", 0, 7, 40 * us, 5 * us, 3, 1);
    HostBuilder h;
    h.host.pid = kPid;
    h.node(10, -1, "parent", 100);
    h.node(11, 10, "child", 101);
    h.finish();
    QCOMPARE(linkOf(linkTraces(d.trace, &h.host), k3).parent, etChild);
}

void TestLinker::ncclCoalescedSkippedByChakraPolicies()
{
    // record_param_comms ⊃ nccl:coalesced (latest-starting); Chakra skips nccl:coalesced for NCCL kernels,
    // nesting keeps it (it is the true enclosing op: docs/linking.md, The linkage rule, step 6).
    TraceBuilder b;
    const auto rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", kPid, kTid, 0, 100 * us, 50);
    const auto coalesced = b.cpu(EventCategory::UserAnnotation, "nccl:coalesced", kPid, kTid, 10 * us, 80 * us, 51);
    b.runtime("cudaLaunchKernelExC", kPid, kTid, 20 * us, 5 * us, 3, 50);
    const auto k = b.gpu("ncclDevKernel_SendRecv", 0, 7, 40 * us, 5 * us, 3, 999);
    const auto plain = b.gpu("elementwise", 0, 7, 50 * us, 5 * us, 3, 999);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(ls, k).parent, coalesced);
    QCOMPARE(linkOf(ls, k).byPolicy[1], rpc);           // External id 999 matches nothing → latest non-coalesced
    QCOMPARE(linkOf(ls, k).byPolicy[2], rpc);           // pre-#185: closest is nccl:coalesced → earlier same-thread op
    QCOMPARE(linkOf(ls, plain).byPolicy[1], coalesced); // not an NCCL kernel: no skipping
    QCOMPARE(linkOf(ls, plain).byPolicy[2], coalesced);
}

void TestLinker::profilerStepsKeptButNeverParents()
{
    // Failure case "Several iterations" (docs/linking.md): two iterations; kernels in both are linked; ProfilerStep#N is never a parent.
    TraceBuilder b;
    b.cpu(EventCategory::UserAnnotation, "ProfilerStep#1", kPid, kTid, 0, 100 * us, 1);
    b.cpu(EventCategory::UserAnnotation, "ProfilerStep#2", kPid, kTid, 100 * us, 100 * us, 2);
    const auto op1 = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 10 * us, 50 * us, 3);
    const auto op2 = b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 110 * us, 50 * us, 4);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 5 * us, 5, 3);
    b.runtime("cudaLaunchKernel", kPid, kTid, 120 * us, 5 * us, 6, 4);
    b.runtime("cudaLaunchKernel", kPid, kTid, 170 * us, 5 * us, 7, 2);
    const auto k1 = b.gpu("k", 0, 7, 30 * us, 5 * us, 5, 3);
    const auto k2 = b.gpu("k", 0, 7, 130 * us, 5 * us, 6, 4);
    const auto k3 = b.gpu("k", 0, 7, 180 * us, 5 * us, 7, 2); // launched directly in the step
    for (Policy p : {Policy::Nesting, Policy::ExternalId, Policy::EvIdx}) {
        LinkOptions options;
        options.policy = p;
        const LinkSet ls = linkTraces(b.trace, nullptr, options);
        QCOMPARE(linkOf(ls, k1).parent, op1);
        QCOMPARE(linkOf(ls, k2).parent, op2);
        if (p == Policy::Nesting)
            QCOMPARE(linkOf(ls, k3).orphan, OrphanReason::NoEnclosingOp);
        else
            QCOMPARE(linkOf(ls, k3).parent, op2); // Chakra: latest-starting op, already finished
    }
}

void TestLinker::multiGpuStreamsAreSeparate()
{
    // Failure case "Several GPUs or merged traces" (docs/linking.md): stream 7 on GPU 0 and on GPU 1, and a CPU thread whose tid is 7.
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::op", kPid, 7, 0, 100 * us, 10);
    b.runtime("cudaLaunchKernel", kPid, 7, 10 * us, 2 * us, 1, 10);
    b.runtime("cudaLaunchKernel", kPid, 7, 20 * us, 2 * us, 2, 10);
    b.runtime("cudaLaunchKernel", kPid, 7, 30 * us, 2 * us, 3, 10);
    const auto a0 = b.gpu("a", 0, 7, 40 * us, 5 * us, 1, 10);
    const auto b1 = b.gpu("b", 1, 7, 41 * us, 5 * us, 2, 10);
    const auto c0 = b.gpu("c", 0, 7, 50 * us, 5 * us, 3, 10);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    for (auto k : {a0, b1, c0})
        QCOMPARE(linkOf(ls, k).parent, op);
    QCOMPARE(countEdges(ls, EdgeKind::StreamOrder), std::size_t(1));
    QVERIFY(hasEdge(ls, EdgeKind::StreamOrder, a0, c0));
}

void TestLinker::cpuOnlyTrace()
{
    // Failure case "CPU-only captures" (docs/linking.md): only cpu_op events.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::op", kPid, kTid, 0, 100 * us, 10);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QVERIFY(ls.gpuLinks.empty());
    QCOMPARE(ls.gpuLinkOf, std::vector<GpuLinkIndex>({kNone}));
    QCOMPARE(ls.exclusiveDur, std::vector<Nanos>({100 * us}));
    QVERIFY(std::any_of(ls.warnings.begin(), ls.warnings.end(),
                        [](const Diagnostic &d) { return d.message.find("CPU-only") != std::string::npos; }));
}

void TestLinker::mergedProcessesKeepCorrelationsApart()
{
    // Two processes merged in one file, each with its own GPU (pid 0 ← process 10, pid 1 ← process 20),
    // and the same correlation 7 in both. Process 20's launch is the nearest before GPU 0's kernel, but
    // GPU 0 is driven by process 10 (its other correlations say so).
    TraceBuilder b;
    const auto a = b.cpu(EventCategory::CpuOp, "proc10::op", 10, 11, 0, 100 * us, 1);
    const auto c = b.cpu(EventCategory::CpuOp, "proc20::op", 20, 21, 0, 100 * us, 1);
    const auto l10 = b.runtime("cudaLaunchKernel", 10, 11, 10 * us, 2 * us, 7, 1);
    b.runtime("cudaLaunchKernel", 10, 11, 20 * us, 2 * us, 8, 1);
    const auto l20 = b.runtime("cudaLaunchKernel", 20, 21, 30 * us, 2 * us, 7, 1);
    b.runtime("cudaLaunchKernel", 20, 21, 40 * us, 2 * us, 9, 1);
    const auto k0 = b.gpu("k", 0, 7, 50 * us, 5 * us, 7);
    b.gpu("k", 0, 7, 60 * us, 5 * us, 8);
    const auto k1 = b.gpu("k", 1, 7, 50 * us, 5 * us, 7);
    b.gpu("k", 1, 7, 60 * us, 5 * us, 9);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(linkOf(ls, k0).launch, l10);
    QCOMPARE(linkOf(ls, k0).parent, a);
    QCOMPARE(linkOf(ls, k1).launch, l20);
    QCOMPARE(linkOf(ls, k1).parent, c);
    QCOMPARE(countKind(ls, FindingKind::DuplicateCorrelation), std::size_t(0));
}

void TestLinker::exclusiveDurations()
{
    // Failure case "Exclusive durations" (docs/linking.md). parent [0,100) ⊃ child [0,30) (same start: Chakra's ascending-dur sort misses it),
    // child2 [20,50) partially overlapping child (sibling), grandchild [5,10) in child; runtime time stays
    // in the op (as Chakra's calculate_exclusive_dur does). Expected by hand: parent 100 − |[0,30) ∪ [20,50)| = 50;
    // child 30 − 5 = 25; child2 30; grandchild 5.
    TraceBuilder b;
    const auto parent = b.cpu(EventCategory::CpuOp, "parent", kPid, kTid, 0, 100, 1);
    const auto child = b.cpu(EventCategory::CpuOp, "child", kPid, kTid, 0, 30, 2);
    const auto child2 = b.cpu(EventCategory::UserAnnotation, "child2", kPid, kTid, 20, 30, 3);
    const auto grandchild = b.cpu(EventCategory::CpuOp, "grandchild", kPid, kTid, 5, 5, 4);
    const auto runtime = b.runtime("cudaLaunchKernel", kPid, kTid, 60, 10, 9);
    const auto kernel = b.gpu("k", 0, 7, 80, 40, 9);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(ls.exclusiveDur[parent], Nanos(50));
    QCOMPARE(ls.exclusiveDur[child], Nanos(25));
    QCOMPARE(ls.exclusiveDur[child2], Nanos(30));
    QCOMPARE(ls.exclusiveDur[grandchild], Nanos(5));
    QCOMPARE(ls.exclusiveDur[runtime], Nanos(10));
    QCOMPARE(ls.exclusiveDur[kernel], Nanos(40));
    for (Nanos d : ls.exclusiveDur)
        QVERIFY(d >= 0);
}

void TestLinker::streamOrderEdges()
{
    // docs/linking.md, Edges, stream_order: per (device, stream) chains by device ts, ties in input order; user annotations excluded.
    TraceBuilder b;
    const auto k3 = b.gpu("k3", 0, 7, 30, 5, kNoId);
    const auto k1 = b.gpu("k1", 0, 7, 10, 5, kNoId);
    const auto k2a = b.gpu("k2a", 0, 7, 20, 5, kNoId);
    const auto k2b = b.gpu("k2b", 0, 7, 20, 9, kNoId, kNoId, EventCategory::GpuMemcpy);
    b.add(EventCategory::GpuUserAnnotation, "ann", 0, 7, 0, 100);
    const auto other = b.gpu("other", 0, 8, 15, 5, kNoId);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QCOMPARE(countEdges(ls, EdgeKind::StreamOrder), std::size_t(3));
    QVERIFY(hasEdge(ls, EdgeKind::StreamOrder, k1, k2a));
    QVERIFY(hasEdge(ls, EdgeKind::StreamOrder, k2a, k2b));
    QVERIFY(hasEdge(ls, EdgeKind::StreamOrder, k2b, k3));
    Q_UNUSED(other);
}

void TestLinker::syncEdgesFromRuntimeCalls()
{
    // docs/linking.md, Edges, sync: no ProfilerStep, no cuda_sync events. Thread 1331 launches k1 (stream 7), k2 (stream 9),
    // then cudaStreamSynchronize (waits for stream 9, the last one it launched to), then aten::next.
    // Later cudaDeviceSynchronize waits for the last op of every stream of GPU 0.
    TraceBuilder b;
    const auto op = b.cpu(EventCategory::CpuOp, "aten::work", kPid, kTid, 0, 40 * us, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 2 * us, 1, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 2 * us, 2, 1);
    const auto k1 = b.gpu("k1", 0, 7, 15 * us, 50 * us, 1, 1);
    const auto k2 = b.gpu("k2", 0, 9, 25 * us, 30 * us, 2, 1);
    b.runtime("cudaStreamSynchronize", kPid, kTid, 50 * us, 10 * us, 3);
    const auto next = b.cpu(EventCategory::CpuOp, "aten::next", kPid, kTid, 70 * us, 10 * us, 2);
    b.runtime("cudaDeviceSynchronize", kPid, kTid, 90 * us, 10 * us, 4);
    const auto last = b.cpu(EventCategory::CpuOp, "aten::last", kPid, kTid, 110 * us, 10 * us, 3);
    // Event record / stream wait: the event recorded after k2 is waited on before k4 (stream 7).
    const auto l3 = b.runtime("cudaLaunchKernel", kPid, kTid, 130 * us, 2 * us, 5, kNoId);
    const auto k3 = b.gpu("k3", 0, 9, 135 * us, 10 * us, 5);
    b.runtime("cudaEventRecord", kPid, kTid, 140 * us, 1 * us, 6);
    b.runtime("cudaStreamWaitEvent", kPid, kTid, 150 * us, 1 * us, 7);
    b.runtime("cudaLaunchKernel", kPid, kTid, 160 * us, 2 * us, 8, kNoId);
    const auto k4 = b.gpu("k4", 0, 7, 165 * us, 10 * us, 8);
    Q_UNUSED(op);
    Q_UNUSED(l3);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QVERIFY(hasEdge(ls, EdgeKind::Sync, k2, next));
    QVERIFY(!hasEdge(ls, EdgeKind::Sync, k1, next));
    QVERIFY(hasEdge(ls, EdgeKind::Sync, k1, last));
    QVERIFY(hasEdge(ls, EdgeKind::Sync, k2, last));
    QVERIFY(hasEdge(ls, EdgeKind::Sync, k3, k4));
    QCOMPARE(countEdges(ls, EdgeKind::Sync), std::size_t(4));
}

void TestLinker::syncEdgesFromSyncEvents()
{
    // With cuda_sync events the stream comes from the event, not from the last launch.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::work", kPid, kTid, 0, 40 * us, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 2 * us, 1, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 2 * us, 2, 1);
    const auto k1 = b.gpu("k1", 0, 7, 15 * us, 50 * us, 1, 1);
    const auto k2 = b.gpu("k2", 0, 9, 25 * us, 30 * us, 2, 1);
    b.runtime("cudaStreamSynchronize", kPid, kTid, 50 * us, 20 * us, 3);
    const auto sync = b.add(EventCategory::CudaSync, "Stream Sync", 0, 7, 50 * us, 20 * us);
    b.at(sync).correlation = 3;
    b.at(sync).stream = 7;
    b.at(sync).device = 0;
    const auto next = b.cpu(EventCategory::CpuOp, "aten::next", kPid, kTid, 80 * us, 10 * us, 2);
    const LinkSet ls = linkTraces(b.trace, nullptr);
    QVERIFY(hasEdge(ls, EdgeKind::Sync, k1, next));
    QVERIFY(!hasEdge(ls, EdgeKind::Sync, k2, next));
    QCOMPARE(countEdges(ls, EdgeKind::Sync), std::size_t(1));
}

void TestLinker::eventSyncWaitsOnRecordedStream()
{
    // An "Event Sync" cuda_sync event names the recorded stream (wait_on_stream) and the record call
    // (wait_on_cuda_event_record_corr_id); the reader keeps them in DeviceTrace::syncArgs. The op the
    // event stands for is the last one launched on that stream before the record: k1, not k2 (which
    // was launched later, on stream 9, by the same thread).
    auto build = [](bool withSyncArgs, EventIndex &k1, EventIndex &k2, EventIndex &next) {
        TraceBuilder b;
        b.cpu(EventCategory::CpuOp, "aten::work", kPid, kTid, 0, 45 * us, 1);
        b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 2 * us, 1, 1);
        b.runtime("cudaLaunchKernel", kPid, kTid, 20 * us, 2 * us, 2, 1);
        b.runtime("cudaEventRecord", kPid, kTid, 30 * us, 1 * us, 4, 1);
        k1 = b.gpu("k1", 0, 7, 15 * us, 50 * us, 1, 1);
        k2 = b.gpu("k2", 0, 9, 25 * us, 30 * us, 2, 1);
        b.runtime("cudaEventSynchronize", kPid, kTid, 50 * us, 20 * us, 3);
        const auto sync = b.add(EventCategory::CudaSync, "Event Sync", 0, 7, 50 * us, 20 * us);
        b.at(sync).correlation = 3;
        b.at(sync).device = 0;
        if (withSyncArgs)
            b.trace.syncArgs.push_back(SyncArgs{sync, 7, 4});
        next = b.cpu(EventCategory::CpuOp, "aten::next", kPid, kTid, 80 * us, 10 * us, 2);
        return linkTraces(b.trace, nullptr);
    };
    EventIndex k1, k2, next;
    const LinkSet withArgs = build(true, k1, k2, next);
    QVERIFY(hasEdge(withArgs, EdgeKind::Sync, k1, next));
    QVERIFY(!hasEdge(withArgs, EdgeKind::Sync, k2, next));
    // Without them the record call is unknown and no edge is guessed.
    const LinkSet without = build(false, k1, k2, next);
    QVERIFY(!hasEdge(without, EdgeKind::Sync, k1, next));
    QVERIFY(!hasEdge(without, EdgeKind::Sync, k2, next));
}

void TestLinker::interThreadEdges()
{
    // Chakra's gap rule: thread 2's first op depends on the latest-starting op of thread 1 before it; after a
    // gap > 1 ms the dependency is recomputed.
    TraceBuilder b;
    const auto a1 = b.cpu(EventCategory::CpuOp, "a1", kPid, 1, 0, 10 * us, 1);
    const auto a2 = b.cpu(EventCategory::CpuOp, "a2", kPid, 1, 2000 * us, 10 * us, 2);
    const auto b1 = b.cpu(EventCategory::CpuOp, "b1", kPid, 2, 5 * us, 10 * us, 3);
    const auto b2 = b.cpu(EventCategory::CpuOp, "b2", kPid, 2, 20 * us, 10 * us, 4);
    const auto b3 = b.cpu(EventCategory::CpuOp, "b3", kPid, 2, 3000 * us, 10 * us, 5);
    QCOMPARE(countEdges(linkTraces(b.trace, nullptr), EdgeKind::InterThread), std::size_t(0)); // off by default
    LinkOptions options;
    options.interThreadDeps = true;
    const LinkSet ls = linkTraces(b.trace, nullptr, options);
    QVERIFY(hasEdge(ls, EdgeKind::InterThread, a1, b1));
    QVERIFY(hasEdge(ls, EdgeKind::InterThread, a1, b2));
    QVERIFY(hasEdge(ls, EdgeKind::InterThread, a2, b3));
    QVERIFY(hasEdge(ls, EdgeKind::InterThread, b2, a2));             // a2 follows a gap: latest on thread 2 before it
    QCOMPARE(countEdges(ls, EdgeKind::InterThread), std::size_t(4)); // a1 has nothing before it
}

void TestLinker::hostJoinByRecordFunctionId()
{
    TraceBuilder b;
    const auto add = b.cpu(EventCategory::CpuOp, "aten::add", kPid, kTid, 0, 10, 5, 11);
    const auto mul = b.cpu(EventCategory::CpuOp, "aten::mul", kPid, kTid, 20, 10, 6, 12);
    b.cpu(EventCategory::CpuOp, "aten::zero", kPid, kTid, 40, 10, 7, 0); // rf 0 = absent
    HostBuilder h;
    h.host.pid = kPid;
    h.node(1, -1, "[pytorch|profiler|execution_trace|thread]", 0);
    h.node(2, 1, "aten::add", 11);
    h.node(3, 1, "aten::div", 12); // name differs from the Kineto op with this rf_id
    h.node(4, 1, "aten::sub", 13); // no Kineto op
    h.finish();
    const HostJoin join = joinHostToDevice(h.host, b.trace);
    QCOMPARE(join.stats.method, HostJoinMethod::RecordFunctionId);
    QCOMPARE(join.stats.hostNodesWithRfId, std::size_t(3));
    QCOMPARE(join.stats.deviceCpuOps, std::size_t(3));
    QCOMPARE(join.stats.matched, std::size_t(2));
    QCOMPARE(join.stats.nameMismatches, std::size_t(1));
    QCOMPARE(join.hostOfEvent[add.get()], h.host.indexById.at(2));
    QCOMPARE(join.hostOfEvent[mul.get()], h.host.indexById.at(3));
    QCOMPARE(join.eventOfHost[h.host.indexById.at(4).get()], kNone);
    QCOMPARE(join.eventOfHost[h.host.indexById.at(1).get()], kNone);
}

void TestLinker::hostJoinByOffset_data()
{
    QTest::addColumn<int>("evIdxOffset");
    QTest::addColumn<int>("externalIdOffset");
    QTest::addColumn<int>("method");
    QTest::addColumn<int>("offset");
    // astrasim_megatron: Ev Idx = rf_id + 1, External id = rf_id + 2 (tie → Ev Idx);
    // hta_simple_add: External id == rf_id while Ev Idx is unrelated.
    QTest::newRow("megatron-like") << 1 << 2 << int(HostJoinMethod::EvIdxOffset) << 1;
    QTest::newRow("simple-add-like") << 1000 << 0 << int(HostJoinMethod::ExternalIdOffset) << 0;
}

void TestLinker::hostJoinByOffset()
{
    QFETCH(int, evIdxOffset);
    QFETCH(int, externalIdOffset);
    QFETCH(int, method);
    QFETCH(int, offset);
    const char *names[] = {"aten::to",  "aten::_to_copy", "aten::empty_strided", "aten::copy_", "aten::add",
                           "aten::mul", "aten::to",       "aten::linear",        "aten::t",     "aten::addmm"};
    TraceBuilder b;
    HostBuilder h;
    h.host.pid = kPid;
    h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
    for (int rf = 1; rf <= 40; ++rf) {
        const std::string name = names[(rf * 7) % 10];
        h.node(rf + 4, 1, name, static_cast<std::uint64_t>(rf));
        // Ev Idx of an unrelated scheme for the second case: multiply so no constant offset fits.
        const std::int64_t evIdx = evIdxOffset == 1000 ? rf * 3 + 1000 : rf + evIdxOffset;
        b.cpu(EventCategory::CpuOp, name, kPid, kTid, rf * 100, 50, rf + externalIdOffset, 0, evIdx);
    }
    h.finish();
    const HostJoin join = joinHostToDevice(h.host, b.trace);
    QCOMPARE(int(join.stats.method), method);
    QCOMPARE(join.stats.offset, std::int64_t(offset));
    QCOMPARE(join.stats.matched, std::size_t(40));
    QCOMPARE(join.stats.nameMismatches, std::size_t(0));
    QVERIFY(!join.warnings.empty()); // says that the ET observer was not attached
    const LinkSet ls = linkTraces(b.trace, &h.host);
    QCOMPARE(countKind(ls, FindingKind::RfIdAbsent), std::size_t(1));
}

void TestLinker::hostFindings()
{
    // Failure case "ET nodes whose parent is not in the file" (docs/linking.md): ET node whose parent is absent; host op without Kineto op; Kineto op without ET node.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::add", kPid, kTid, 0, 10, 5, 11);
    const auto lonely = b.cpu(EventCategory::CpuOp, "aten::lonely", kPid, kTid, 20, 10, 6, 99);
    HostBuilder h;
    h.host.pid = kPid;
    h.node(2, -1, "aten::add", 11);
    h.node(439, 438, "record_param_comms", 12); // 438 is not in the file
    h.finish();
    const LinkSet ls = linkTraces(b.trace, &h.host);
    const Finding *missing = findingFor(ls, FindingKind::EtParentMissing, h.host.indexById.at(439));
    QVERIFY(missing);
    QCOMPARE(missing->subjectKind, SubjectKind::HostNode);
    QVERIFY(findingFor(ls, FindingKind::HostOpWithoutDevice, h.host.indexById.at(439)));
    QVERIFY(findingFor(ls, FindingKind::DeviceOpWithoutHost, lonely));
    QCOMPARE(countKind(ls, FindingKind::HostOpWithoutDevice), std::size_t(1));
    QCOMPARE(countKind(ls, FindingKind::DeviceOpWithoutHost), std::size_t(1));
    QCOMPARE(countKind(ls, FindingKind::RfIdAbsent), std::size_t(0));
}

void TestLinker::progressCancels()
{
    SeedCase s;
    LinkOptions options;
    int calls = 0;
    options.progress = [&](std::uint64_t, std::uint64_t) { return ++calls < 3; };
    QVERIFY_THROWS_EXCEPTION(Cancelled, linkTraces(s.b.trace, nullptr, options));
    QCOMPARE(calls, 3);
}

void TestLinker::names()
{
    QCOMPARE(policyName(Policy::ExternalId), std::string_view("external-id"));
    for (Policy p : {Policy::Nesting, Policy::ExternalId, Policy::EvIdx})
        QCOMPARE(policyFromName(policyName(p)), std::optional<Policy>(p));
    QVERIFY(!policyFromName("closest").has_value());
    QCOMPARE(findingKindName(FindingKind::NcclParentIsRecordParamComms), std::string_view("nccl_parent_is_record_param_comms"));
    QCOMPARE(findingKindName(FindingKind::RfIdAbsent), std::string_view("rf_id_absent"));
    QVERIFY(!findingKindFromName("export_cycle")); // a cycle is refused by the exporter, not a finding
    QCOMPARE(orphanReasonName(OrphanReason::NoLaunchEvent), std::string_view("no_launch_event"));
    QCOMPARE(parentRuleName(ParentRule::NestingAncestor), std::string_view("nesting_ancestor"));
    QCOMPARE(hostJoinMethodName(HostJoinMethod::EvIdxOffset), std::string_view("ev_idx_offset"));
}

QTEST_GUILESS_MAIN(TestLinker)
#include "test_linker.moc"
