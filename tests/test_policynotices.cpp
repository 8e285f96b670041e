// Notices (link/policynotices.h): when a policy cannot apply to a pair, one notice says so and why.
// Small synthetic traces for each case, and the real ones that motivated them: megatron's External ids
// equal its correlations (all 777 links fall back under Chakra 1.0's rule), and megatron rank 0's host
// ET opened with rank 1's Kineto trace (another process).
#include "io/tracereader.h"
#include "link/chakracompare.h"
#include "link/linker.h"
#include "link/policynotices.h"

#include "testsupport.h"
#include "tracebuilder.h"

#include <QTest>

#include <algorithm>
#include <utility>

using namespace linkscope::core;
using namespace linkscope::test;

namespace {

constexpr Nanos us = 1000;
constexpr std::int64_t kPid = 10, kTid = 11;

const Notice *find(const std::vector<Notice> &notices, NoticeKind kind)
{
    const auto it = std::find_if(notices.begin(), notices.end(), [&](const Notice &n) { return n.kind == kind; });
    return it == notices.end() ? nullptr : &*it;
}

std::vector<Notice> noticesOf(const DeviceTrace &device, const HostTrace *host = nullptr)
{
    const LinkSet links = linkTraces(device, host);
    const ChakraComparison c = compareWithChakra(device, host, links.index, links);
    return policyNotices(device, host, links, &c);
}

// One thread: aten::mm [0, 100) µs with two kernel launches (correlations 501, 502), the kernels
// carrying `kernelExternalId(correlation)` as External id.
template <typename ExternalIdOf>
DeviceTrace twoLaunches(ExternalIdOf kernelExternalId)
{
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 0, 100 * us, 7);
    for (std::int64_t corr : {501, 502}) {
        const Nanos at = (corr - 500) * 20 * us;
        b.runtime("cudaLaunchKernel", kPid, kTid, at, 5 * us, corr, kernelExternalId(corr));
        b.gpu("gemm_kernel", 0, 7, at + 10 * us, 5 * us, corr, kernelExternalId(corr));
    }
    return std::move(b.trace);
}

} // namespace

class TestPolicyNotices : public QObject {
    Q_OBJECT

private slots:
    void externalIdEqualToCorrelation();
    void externalIdNamingTheOpIsNoNotice();
    void megatronFallsBackForEveryLink();
    void graphCaptureLaunches();
    void runtimeCallsWithoutCpuOps();
    void hostEtOfAnotherProcess();
    void hostEtThatJoinsNothing();
    void megatronRank0EtWithRank1Kineto();
};

void TestPolicyNotices::externalIdEqualToCorrelation()
{
    const DeviceTrace device = twoLaunches([](std::int64_t corr) { return corr; });
    const auto notices = noticesOf(device);
    const Notice *n = find(notices, NoticeKind::ExternalIdIsCorrelation);
    QVERIFY(n);
    // Chakra 1.0 finds no op with External id 501/502 and takes the latest-starting op for both links.
    QCOMPARE(n->count, std::size_t(2));
    QCOMPARE(n->total, std::size_t(2));
    QCOMPARE(n->events.size(), std::size_t(2));
    QVERIFY2(n->message.find("falls back to the latest-starting op for all 2 links") != std::string::npos, n->message.c_str());
    QCOMPARE(notices.size(), std::size_t(1));
}

void TestPolicyNotices::externalIdNamingTheOpIsNoNotice()
{
    const DeviceTrace device = twoLaunches([](std::int64_t) { return std::int64_t(7); }); // aten::mm's id
    QVERIFY(noticesOf(device).empty());
}

void TestPolicyNotices::megatronFallsBackForEveryLink()
{
    const std::string dir = "astrasim_megatron_tp8_8rank_pair/";
    LINKSCOPE_REQUIRE_TRACES(dir + "megatron_et_0.json.gz", dir + "megatron_kineto_0.json.gz");
    const HostTrace host = readHostTrace(tracePath(dir + "megatron_et_0.json.gz"));
    const DeviceTrace device = readKinetoTrace(tracePath(dir + "megatron_kineto_0.json.gz"));
    const auto notices = noticesOf(device, &host);
    const Notice *n = find(notices, NoticeKind::ExternalIdIsCorrelation);
    QVERIFY(n);
    QCOMPARE(n->count, std::size_t(777));
    QCOMPARE(n->total, std::size_t(777));
    QVERIFY(!find(notices, NoticeKind::PairMismatch)); // rank 0 with rank 0: the same process
}

void TestPolicyNotices::graphCaptureLaunches()
{
    // Capture [0, 40) µs: two launches that run no GPU op; then the graph is launched (two kernels with
    // its correlation) and one ordinary launch runs its kernel.
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "capture", kPid, kTid, 0, 200 * us, 1);
    b.runtime("cudaStreamBeginCapture", kPid, kTid, 1 * us, 2 * us, 600);
    const auto captured1 = b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 2 * us, 601);
    const auto captured2 = b.runtime("cuLaunchKernel", kPid, kTid, 20 * us, 2 * us, 602, kNoId, EventCategory::CudaDriver);
    b.runtime("cudaStreamEndCapture", kPid, kTid, 30 * us, 5 * us, 603);
    b.runtime("cudaGraphLaunch", kPid, kTid, 50 * us, 5 * us, 604);
    b.gpu("k1", 0, 7, 60 * us, 5 * us, 604);
    b.gpu("k2", 0, 7, 66 * us, 5 * us, 604);
    b.runtime("cudaLaunchKernel", kPid, kTid, 100 * us, 2 * us, 605);
    b.gpu("k3", 0, 7, 110 * us, 5 * us, 605);
    // A launch outside any capture whose GPU op fell outside the trace is no capture.
    b.runtime("cudaLaunchKernel", kPid, kTid, 150 * us, 2 * us, 606);
    const auto notices = noticesOf(b.trace);
    const Notice *n = find(notices, NoticeKind::GraphCapture);
    QVERIFY(n);
    QCOMPARE(n->count, std::size_t(2));
    QCOMPARE(n->total, std::size_t(5)); // launch calls: 3 cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch
    QCOMPARE(n->events, (std::vector<EventIndex>{captured1, captured2}));
    QVERIFY2(n->message.starts_with("2 of 5 launch calls lie between StreamBeginCapture and StreamEndCapture"),
             n->message.c_str());
}

void TestPolicyNotices::runtimeCallsWithoutCpuOps()
{
    TraceBuilder b;
    b.runtime("hipLaunchKernel", kPid, kTid, 0, 2 * us, 1);
    b.gpu("k", 0, 1, 5 * us, 5 * us, 1);
    b.runtime("hipMemcpyAsync", kPid, kTid, 10 * us, 2 * us, 2);
    b.gpu("Memcpy DtoH", 0, 1, 15 * us, 5 * us, 2, kNoId, EventCategory::GpuMemcpy);
    const auto notices = noticesOf(b.trace);
    const Notice *n = find(notices, NoticeKind::NoCpuOps);
    QVERIFY(n);
    QCOMPARE(n->count, std::size_t(2));
    QCOMPARE(n->total, std::size_t(2));
    QVERIFY2(n->message.find("2 runtime/driver calls but no CPU ops") != std::string::npos, n->message.c_str());
    QVERIFY(n->message.find("or by hand") != std::string::npos);

    // With one CPU op the trace is an ordinary one (the GPU ops outside it are orphans with findings).
    b.cpu(EventCategory::CpuOp, "aten::add", kPid, kTid, 0, 3 * us, 9);
    QVERIFY(!find(noticesOf(b.trace), NoticeKind::NoCpuOps));
}

void TestPolicyNotices::hostEtOfAnotherProcess()
{
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 0, 100 * us, 7, 5, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 5 * us, 501, 7);
    b.gpu("gemm_kernel", 0, 7, 20 * us, 5 * us, 501, 7);
    HostBuilder h;
    h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
    h.node(5, 1, "aten::mm", 5);
    h.finish();
    h.host.pid = kPid;
    QVERIFY(noticesOf(b.trace, &h.host).empty()); // same process, joined

    h.host.pid = 4242;
    const auto notices = noticesOf(b.trace, &h.host);
    const Notice *n = find(notices, NoticeKind::PairMismatch);
    QVERIFY(n);
    QVERIFY2(n->message.find("the host ET is of process 4242, the Kineto trace's CPU ops of process 10") != std::string::npos,
             n->message.c_str());
}

void TestPolicyNotices::hostEtThatJoinsNothing()
{
    TraceBuilder b;
    b.cpu(EventCategory::CpuOp, "aten::mm", kPid, kTid, 0, 100 * us, 7, 5, 1);
    b.runtime("cudaLaunchKernel", kPid, kTid, 10 * us, 5 * us, 501, 7);
    b.gpu("gemm_kernel", 0, 7, 20 * us, 5 * us, 501, 7);
    HostBuilder h;
    h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
    for (int i = 0; i < 4; ++i) // rf_ids 50..53: none is a Kineto op's Record function id
        h.node(10 + i, 1, "aten::relu", 50 + static_cast<std::uint64_t>(i));
    h.finish();
    const auto notices = noticesOf(b.trace, &h.host);
    const Notice *n = find(notices, NoticeKind::PairMismatch);
    QVERIFY(n);
    QCOMPARE(n->count, std::size_t(4));
    QCOMPARE(n->total, std::size_t(4));
    QVERIFY2(n->message.starts_with("The host ET could not be joined to the Kineto trace: all 4 host ops"), n->message.c_str());
}

void TestPolicyNotices::megatronRank0EtWithRank1Kineto()
{
    const std::string dir = "astrasim_megatron_tp8_8rank_pair/";
    LINKSCOPE_REQUIRE_TRACES(dir + "megatron_et_0.json.gz", dir + "megatron_kineto_1.json.gz");
    const HostTrace host = readHostTrace(tracePath(dir + "megatron_et_0.json.gz"));
    const DeviceTrace device = readKinetoTrace(tracePath(dir + "megatron_kineto_1.json.gz"));
    const auto notices = noticesOf(device, &host);
    const Notice *n = find(notices, NoticeKind::PairMismatch);
    QVERIFY(n);
    // Ranks run the same program, so the ops join by Ev Idx; only the process tells them apart.
    QVERIFY2(n->message.find("process 2590092, the Kineto trace's CPU ops of process 2590093") != std::string::npos,
             n->message.c_str());
}

QTEST_APPLESS_MAIN(TestPolicyNotices)
#include "test_policynotices.moc"
