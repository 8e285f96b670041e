// The linker on public traces (tests/data/traces, and ../shared/traces when present). Expected numbers were computed independently
// with python3 over the gzip JSON (/tmp scripts quoted in each case): for every GPU op, the runtime event
// with its correlation, then the innermost cpu_op/user_annotation (not ProfilerStep#*) on the same
// (pid, tid) whose [ts, ts+dur] contains the runtime's ts.
#include "io/tracereader.h"
#include "link/linker.h"
#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <cctype>
#include <map>

using namespace linkscope::core;
using linkscope::test::tracePath;

namespace {

bool isNccl(std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("nccl") != std::string::npos;
}

} // namespace

class TestLinkerReal : public QObject {
    Q_OBJECT

private slots:
    void megatronEveryNcclKernelUnderNcclAllReduce_data();
    void megatronEveryNcclKernelUnderNcclAllReduce();
    void megatronChakraHeadPicksRecordParamCommsOrWorse();
    void ncclDataKinetoOnly();
    void simpleAddPairJoinsByExternalId();
    void sampledTraceOrphansAreKeptWithTheirReason();
};

void TestLinkerReal::megatronEveryNcclKernelUnderNcclAllReduce_data()
{
    QTest::addColumn<int>("rank");
    for (int rank = 0; rank < 8; ++rank)
        QTest::addRow("rank %d", rank) << rank;
}

void TestLinkerReal::megatronEveryNcclKernelUnderNcclAllReduce()
{
    // python3: per rank 777 GPU ops, all with a launch and an enclosing op that has an ET node
    // (Ev Idx − 1 = rf_id for 5,422 of 5,422 host ops with rf_id, names all equal); the 84 NCCL kernels'
    // innermost enclosing op is nccl:all_reduce.
    QFETCH(int, rank);
    const std::string dir = "astrasim_megatron_tp8_8rank_pair/";
    LINKSCOPE_REQUIRE_TRACES(dir + "megatron_et_" + std::to_string(rank) + ".json.gz",
                             dir + "megatron_kineto_" + std::to_string(rank) + ".json.gz"); // rank 0 is bundled
    const HostTrace host = readHostTrace(tracePath(dir + "megatron_et_" + std::to_string(rank) + ".json.gz"));
    const DeviceTrace device = readKinetoTrace(tracePath(dir + "megatron_kineto_" + std::to_string(rank) + ".json.gz"));
    const LinkSet ls = linkTraces(device, &host);
    QCOMPARE(ls.join.method, HostJoinMethod::EvIdxOffset);
    QCOMPARE(ls.join.offset, std::int64_t(1));
    QCOMPARE(ls.join.hostNodesWithRfId, std::size_t(5422));
    QCOMPARE(ls.join.matched, std::size_t(5422));
    QCOMPARE(ls.join.nameMismatches, std::size_t(0));
    QCOMPARE(ls.gpuLinks.size(), std::size_t(777));
    std::size_t nccl = 0;
    for (const GpuLink &link : ls.gpuLinks) {
        QCOMPARE(link.orphan, OrphanReason::None);
        QCOMPARE(link.rule, ParentRule::Nesting);
        QVERIFY(link.hostNode.valid());
        const DeviceEvent &gpu = device.event(link.gpuEvent);
        if (!isNccl(device.name(gpu)))
            continue;
        ++nccl;
        QCOMPARE(device.name(device.event(link.parent)), std::string_view("nccl:all_reduce"));
        QCOMPARE(host.name(host.node(link.hostNode)), std::string_view("nccl:all_reduce"));
    }
    QCOMPARE(nccl, std::size_t(84));
    QCOMPARE(countFindingsByKind(ls.findings)[static_cast<std::size_t>(FindingKind::RfIdAbsent)], std::size_t(1));
    QCOMPARE(countFindingsByKind(ls.findings)[static_cast<std::size_t>(FindingKind::NcclParentIsRecordParamComms)],
             std::size_t(0));
}

void TestLinkerReal::megatronChakraHeadPicksRecordParamCommsOrWorse()
{
    // Old Kineto: kernel External id == correlation, so HEAD finds no External-id match and falls back to
    // the latest-starting op before the launch; it never picks nccl:all_reduce's enclosing record_param_comms
    // by External id. Whatever it picks, the nesting choice is recorded alongside.
    const HostTrace host = readHostTrace(tracePath("astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz"));
    const DeviceTrace device = readKinetoTrace(tracePath("astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz"));
    LinkOptions options;
    options.policy = Policy::ExternalId;
    const LinkSet ls = linkTraces(device, &host, options);
    for (const GpuLink &link : ls.gpuLinks) {
        QCOMPARE(link.rule == ParentRule::ExternalId, false);
        if (isNccl(device.name(device.event(link.gpuEvent))))
            QCOMPARE(device.name(device.event(link.byPolicy[0])), std::string_view("nccl:all_reduce"));
    }
}

void TestLinkerReal::ncclDataKinetoOnly()
{
    // python3: 3,774 GPU ops, every one has a launch inside an op; the 21 NCCL kernels sit in
    // nccl:all_reduce (15) and nccl:broadcast (6). Kernel External id = record_param_comms' External id,
    // so HEAD (external-id) picks record_param_comms for all 21 (the seed bug).
    const DeviceTrace device = readKinetoTrace(tracePath("hta_kineto_nccl/nccl_data.json.gz"));
    const LinkSet ls = linkTraces(device, nullptr);
    QCOMPARE(ls.gpuLinks.size(), std::size_t(3774));
    std::map<std::string, int> ncclParents;
    for (const GpuLink &link : ls.gpuLinks) {
        QCOMPARE(link.orphan, OrphanReason::None);
        if (!isNccl(device.name(device.event(link.gpuEvent))))
            continue;
        ++ncclParents[std::string(device.name(device.event(link.parent)))];
        QCOMPARE(device.name(device.event(link.byPolicy[1])), std::string_view("record_param_comms"));
        QCOMPARE(link.confidence, 1.0f); // nccl:* nested in the External-id op
    }
    QCOMPARE(ncclParents, (std::map<std::string, int>{{"nccl:all_reduce", 15}, {"nccl:broadcast", 6}}));

    LinkOptions head;
    head.policy = Policy::ExternalId;
    const LinkSet chakra = linkTraces(device, nullptr, head);
    QCOMPARE(countFindingsByKind(chakra.findings)[static_cast<std::size_t>(FindingKind::NcclParentIsRecordParamComms)],
             std::size_t(21));
}

void TestLinkerReal::simpleAddPairJoinsByExternalId()
{
    // python3: schema 1.0.1 ET with 36 rf_ids; the 36 Kineto CPU ops have no Record function id and
    // External id == rf_id with equal names for all 36; 4 GPU ops.
    const HostTrace host = readHostTrace(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz"));
    const DeviceTrace device = readKinetoTrace(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz"));
    const LinkSet ls = linkTraces(device, &host);
    QCOMPARE(ls.join.method, HostJoinMethod::ExternalIdOffset);
    QCOMPARE(ls.join.offset, std::int64_t(0));
    QCOMPARE(ls.join.matched, std::size_t(36));
    QCOMPARE(ls.gpuLinks.size(), std::size_t(4));
    for (const GpuLink &link : ls.gpuLinks) {
        QCOMPARE(link.orphan, OrphanReason::None);
        QVERIFY(link.hostNode.valid());
    }
}

void TestLinkerReal::sampledTraceOrphansAreKeptWithTheirReason()
{
    // python3: 7,747 GPU ops (6,080 kernels, 1,390 memcpy, 277 memset); 872 of them (705 kernels, 140 memcpy,
    // 27 memset) have a correlation that no cuda_runtime/cuda_driver event carries; every other one has a
    // launch inside a CPU op.
    LINKSCOPE_REQUIRE_TRACES("hta_kineto_large/negative_queue_length_rank0.json.gz");
    const DeviceTrace device = readKinetoTrace(tracePath("hta_kineto_large/negative_queue_length_rank0.json.gz"));
    const LinkSet ls = linkTraces(device, nullptr);
    QCOMPARE(ls.gpuLinks.size(), std::size_t(7747));
    std::map<OrphanReason, int> reasons;
    std::map<EventCategory, int> orphanCategories;
    for (const GpuLink &link : ls.gpuLinks) {
        ++reasons[link.orphan];
        if (link.orphan != OrphanReason::None)
            ++orphanCategories[device.event(link.gpuEvent).category];
    }
    QCOMPARE(reasons, (std::map<OrphanReason, int>{{OrphanReason::None, 6875}, {OrphanReason::NoLaunchEvent, 872}}));
    QCOMPARE(orphanCategories,
             (std::map<EventCategory, int>{
                 {EventCategory::Kernel, 705}, {EventCategory::GpuMemcpy, 140}, {EventCategory::GpuMemset, 27}}));
    QCOMPARE(countFindingsByKind(ls.findings)[static_cast<std::size_t>(FindingKind::OrphanGpuOp)], std::size_t(872));
}

QTEST_GUILESS_MAIN(TestLinkerReal)
#include "test_linker_real.moc"
