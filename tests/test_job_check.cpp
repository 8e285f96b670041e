// Cross-rank checks (core/job): the multi-rank generator, process groups and their ids, the
// alignment of each group's collective sequences and the P2P pairing, on hand-made sequences and
// on generated 8-rank jobs into which one fault at a time is injected; clock alignment and
// stragglers against the offsets the generator used.

#include "collective/classify.h"
#include "export/chakra/chakrakind.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "job/rankcalls.h"
#include "job/timing.h"
#include "jobmodel/crossrank.h"
#include "jobmodel/processgroups.h"
#include "link/linker.h"

#include <QTest>

#include <sstream>

using namespace linkscope;
using namespace linkscope::core::job;

namespace {

struct Rank {
    core::HostTrace host;
    core::DeviceTrace device;
    std::vector<CollectiveCall> calls;
    std::vector<ProcessGroup> groups;
};

std::vector<Rank> generateJobInMemory(gen::GeneratorOptions options, int world)
{
    std::vector<Rank> ranks(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) {
        gen::GeneratorOptions o = options;
        o.rank = r;
        o.worldSize = world;
        std::ostringstream host, kineto, truth;
        gen::generatePair(o, host, kineto, truth);
        Rank &rk = ranks[static_cast<std::size_t>(r)];
        rk.host = core::parseHostTrace(host.str(), "host_" + std::to_string(r) + ".json");
        rk.device = core::parseKinetoTrace(kineto.str(), "kineto_" + std::to_string(r) + ".json");
        const core::LinkSet links = core::linkTraces(rk.device, &rk.host);
        rk.calls = collectiveCallsOf(rk.device, &rk.host, links);
        rk.groups = mergeRankGroups(processGroupsFromKineto(rk.device), processGroupsFromHostEt(rk.host, world));
    }
    return ranks;
}

CheckInput inputOf(const std::vector<Rank> &ranks, const std::vector<int> &skip = {})
{
    CheckInput in;
    std::map<std::int64_t, std::vector<ProcessGroup>> byRank;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (std::find(skip.begin(), skip.end(), static_cast<int>(r)) != skip.end())
            continue;
        in.ranks.push_back({static_cast<std::int64_t>(r), ranks[r].calls});
        byRank[static_cast<std::int64_t>(r)] = ranks[r].groups;
    }
    in.groups = mergeJobGroups(byRank);
    in.defaultGroup = defaultGroupName(in.groups);
    return in;
}

CollectiveCall call(CallKind kind, std::int64_t elements, std::string group = "0", std::int64_t peer = -1)
{
    CollectiveCall c;
    c.kind = kind;
    c.elements = elements;
    c.dtype = "float32";
    c.processGroup = std::move(group);
    c.peer = peer;
    return c;
}

std::string describe(const std::vector<JobFinding> &findings)
{
    std::string t;
    for (const JobFinding &f : findings)
        t += f.kind + " pg=" + f.processGroup + " index=" + std::to_string(f.index) + ": " + f.message + "\n";
    return t;
}

} // namespace

class TestJobCheck : public QObject {
    Q_OBJECT

private slots:
    void processGroupIds()
    {
        QCOMPARE(processGroupId("0"), 0);
        QCOMPARE(processGroupId("7"), 7);
        QCOMPARE(processGroupId("123456789"), 123456789);
        // Not a plain decimal: hashed into [1e9, 2e9), the same every time.
        const std::int64_t a = processGroupId("tp_group"), b = processGroupId("007");
        QVERIFY(a >= 1'000'000'000 && a < 2'000'000'000);
        QVERIFY(b >= 1'000'000'000 && b < 2'000'000'000);
        QCOMPARE(processGroupId("tp_group"), a);
        QVERIFY(a != b);
        QVERIFY(processGroupId("1234567890") >= 1'000'000'000); // too long to be an id of its own
    }

    void commGroupFileOrdersIdsNumerically()
    {
        std::vector<ProcessGroup> groups = {
            {"10", "", {1, 3}, 2}, {"2", "", {0, 1}, 2}, {"0", "default_pg", {0, 1, 2, 3}, 4}, {"9", "", {}, 2}};
        QCOMPARE(QString::fromStdString(commGroupJson(groups).dump()),
                 QStringLiteral(R"({"2":[0,1],"10":[1,3]})")); // id 0 (every rank) is not written
        QCOMPARE(defaultGroupName(groups), std::string("0"));
    }

    void generatedRankDeclaresItsGroups()
    {
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 2;
        const auto ranks = generateJobInMemory(o, 8);
        const Rank &r3 = ranks[3];
        QVERIFY(r3.device.distributed.has_value());
        QCOMPARE(r3.device.distributed->rank, 3);
        QCOMPARE(r3.device.distributed->worldSize, 8);
        const auto kineto = processGroupsFromKineto(r3.device);
        const auto host = processGroupsFromHostEt(r3.host, 8);
        // default, tensor-parallel {2,3} ("2"), data-parallel {1,3,5,7} ("6"), the same from both traces.
        QCOMPARE(kineto.size(), std::size_t(3));
        QCOMPARE(kineto, host);
        QCOMPARE(kineto[0].name, std::string("0"));
        QCOMPARE(kineto[0].ranks, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
        QCOMPARE(kineto[1].name, std::string("2"));
        QCOMPARE(kineto[1].ranks, (std::vector<std::int64_t>{2, 3}));
        QCOMPARE(kineto[2].name, std::string("6"));
        QCOMPARE(kineto[2].desc, std::string("data_parallel"));
        QCOMPARE(kineto[2].ranks, (std::vector<std::int64_t>{1, 3, 5, 7}));

        // Calls: every group, and a receive from rank 2 on the default group.
        std::map<std::string, int> perGroup;
        int recvs = 0;
        for (const CollectiveCall &c : r3.calls) {
            ++perGroup[c.processGroup];
            if (c.kind == CallKind::Recv) {
                ++recvs;
                QCOMPARE(c.peer, 2);
                QCOMPARE(c.processGroup, std::string("0"));
            }
            QCOMPARE(c.dtype, std::string("float32"));
            QVERIFY(c.elements > 0);
            QVERIFY(c.launchNs != kUnknownTime && c.endNs > c.launchNs);
        }
        QCOMPARE(recvs, 2);
        QCOMPARE(perGroup["2"], 8); // 4 layers × 2 steps of tensor-parallel all-reduce
        QCOMPARE(perGroup["6"], 4); // 2 buckets × 2 steps
        QCOMPARE(perGroup["0"], 3); // one all-gather (step 0) + 2 receives

        const auto job = mergeJobGroups({{0, ranks[0].groups}, {3, r3.groups}});
        QCOMPARE(job.size(), std::size_t(5)); // 0, 1, 2, 5, 6
    }

    void cleanGeneratedJobHasNoFindings()
    {
        gen::GeneratorOptions o;
        o.seed = 11;
        o.steps = 3;
        const auto ranks = generateJobInMemory(o, 8);
        const CheckInput in = inputOf(ranks);
        const CheckResult r = checkCollectives(in);
        QVERIFY2(r.findings.empty(), describe(r.findings).c_str());
        QCOMPARE(r.groups.size(), std::size_t(7));
        for (const GroupAlignment &g : r.groups) {
            if (g.name == "0")
                QCOMPARE(g.members.size(), std::size_t(8));
            QVERIFY(g.length > 0);
        }
    }

    void injectedFaultIsReportedOnce_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("group");
        QTest::addColumn<int>("index");
        QTest::addColumn<QList<int>>("ranks");
        QTest::newRow("skip on data-parallel") << "skip:4:5:2"
                                               << "missing_collective"
                                               << "5" << 2 << QList<int>{4};
        QTest::newRow("skip on default") << "skip:5:0:1"
                                         << "missing_collective"
                                         << "0" << 1 << QList<int>{5};
        QTest::newRow("skip in a pair") << "skip:1:1:3"
                                        << "missing_collective"
                                        << "1" << 3 << QList<int>{1};
        QTest::newRow("resized") << "resize:6:5:1"
                                 << "collective_mismatch"
                                 << "5" << 1 << QList<int>{6};
        QTest::newRow("swapped") << "swap:2:5:0"
                                 << "collectives_swapped"
                                 << "5" << 0 << QList<int>{2};
        QTest::newRow("swapped late") << "swap:7:6:4"
                                      << "collectives_swapped"
                                      << "6" << 4 << QList<int>{7};
        QTest::newRow("unpaired send") << "drop-recv:3:0:1"
                                       << "unpaired_send"
                                       << "0" << 1 << QList<int>{2};
    }

    void injectedFaultIsReportedOnce()
    {
        QFETCH(QString, fault);
        QFETCH(QString, kind);
        QFETCH(QString, group);
        QFETCH(int, index);
        QFETCH(QList<int>, ranks);
        gen::GeneratorOptions o;
        o.seed = 11;
        o.steps = 3;
        gen::GeneratorFault f;
        QVERIFY(gen::parseFault(fault.toStdString(), f));
        o.faults.push_back(f);
        const auto job = generateJobInMemory(o, 8);
        const CheckResult r = checkCollectives(inputOf(job));
        QVERIFY2(r.findings.size() == 1, describe(r.findings).c_str());
        const JobFinding &got = r.findings.front();
        QCOMPARE(QString::fromStdString(got.kind), kind);
        QCOMPARE(QString::fromStdString(got.processGroup), group);
        QCOMPARE(got.index, index);
        std::vector<std::int64_t> want(ranks.begin(), ranks.end());
        QCOMPARE(got.ranks, want);
        QCOMPARE(got.severity, Severity::Error);
        QVERIFY(got.message.find("process group " + group.toStdString()) != std::string::npos);
    }

    void alignmentFindsOneFindingPerDeviation()
    {
        // Four ranks on one group; rank 1 skips #2, rank 2 issues #4 with a different size, rank 3
        // swaps #5 and #6 and adds an extra barrier before #8. 12 collectives.
        std::vector<CollectiveCall> base;
        for (int i = 0; i < 12; ++i)
            base.push_back(call(i % 3 == 0 ? CallKind::AllGather : CallKind::AllReduce, 1000 + 10 * i));
        CheckInput in;
        in.groups = {{"0", "default_pg", {0, 1, 2, 3}, 4}};
        in.ranks.push_back({0, base});
        auto r1 = base;
        r1.erase(r1.begin() + 2);
        in.ranks.push_back({1, r1});
        auto r2 = base;
        r2[4].elements = 5;
        in.ranks.push_back({2, r2});
        auto r3 = base;
        std::swap(r3[5], r3[6]);
        r3.insert(r3.begin() + 8, call(CallKind::Barrier, 0));
        in.ranks.push_back({3, r3});
        const CheckResult r = checkCollectives(in);
        QVERIFY2(r.findings.size() == 4, describe(r.findings).c_str());
        QCOMPARE(r.findings[0].kind, std::string("missing_collective"));
        QCOMPARE(r.findings[0].index, 2);
        QCOMPARE(r.findings[0].ranks, std::vector<std::int64_t>{1});
        QCOMPARE(r.findings[1].kind, std::string("collective_mismatch"));
        QCOMPARE(r.findings[1].index, 4);
        QCOMPARE(r.findings[1].ranks, std::vector<std::int64_t>{2});
        QVERIFY(r.findings[1].message.find("element count 5 instead of 1040") != std::string::npos);
        QCOMPARE(r.findings[2].kind, std::string("collectives_swapped"));
        QCOMPARE(r.findings[2].index, 5);
        QVERIFY2(r.findings[3].kind == "extra_collective", describe(r.findings).c_str());
        QCOMPARE(r.findings[3].index, 8);
        QCOMPARE(r.findings[3].ranks, std::vector<std::int64_t>{3});
        // The skipping rank's later calls still line up with the reference.
        const GroupAlignment &g = r.groups.front();
        QCOMPARE(g.referenceRank, 0);
        QCOMPARE(g.positionOf.at(1)[2], 3);
        QCOMPARE(g.positionOf.at(3)[8], -1);
    }

    void ranksThatDeviateAlikeShareOneFinding()
    {
        std::vector<CollectiveCall> base = {call(CallKind::AllReduce, 1), call(CallKind::AllReduce, 2),
                                            call(CallKind::AllReduce, 3)};
        auto skipped = base;
        skipped.erase(skipped.begin() + 1);
        CheckInput in;
        for (int r = 0; r < 6; ++r)
            in.ranks.push_back({r, (r == 2 || r == 4) ? skipped : base});
        const CheckResult res = checkCollectives(in);
        QVERIFY2(res.findings.size() == 1, describe(res.findings).c_str());
        QCOMPARE(res.findings[0].ranks, (std::vector<std::int64_t>{2, 4}));
        QVERIFY(res.findings[0].message.rfind("ranks 2, 4 did not issue collective 1", 0) == 0);
    }

    void rankAbsentFromItsGroup()
    {
        std::vector<CollectiveCall> base = {call(CallKind::AllReduce, 1, "3"), call(CallKind::AllReduce, 2, "3")};
        CheckInput in;
        in.groups = {{"3", "", {0, 1, 2}, 3}};
        in.ranks = {{0, base}, {1, base}, {2, {call(CallKind::AllReduce, 9, "0")}}};
        const CheckResult r = checkCollectives(in);
        QVERIFY2(r.findings.size() == 1, describe(r.findings).c_str());
        QCOMPARE(r.findings[0].kind, std::string("rank_absent_from_group"));
        QCOMPARE(r.findings[0].processGroup, std::string("3"));
        QCOMPARE(r.findings[0].ranks, std::vector<std::int64_t>{2});
    }

    void p2pPairing()
    {
        CheckInput in;
        // rank 0 sends 3 messages to rank 1; rank 1 receives the first two swapped, and the third
        // with the wrong size; rank 2 receives from rank 0 what rank 0 never sent.
        in.ranks.push_back(
            {0, {call(CallKind::Send, 10, "0", 1), call(CallKind::Send, 20, "0", 1), call(CallKind::Send, 30, "0", 1)}});
        in.ranks.push_back(
            {1, {call(CallKind::Recv, 20, "0", 0), call(CallKind::Recv, 10, "0", 0), call(CallKind::Recv, 31, "0", 0)}});
        in.ranks.push_back({2, {call(CallKind::Recv, 5, "0", 0)}});
        const CheckResult r = checkCollectives(in);
        QVERIFY2(r.findings.size() == 3, describe(r.findings).c_str());
        QCOMPARE(r.findings[0].kind, std::string("p2p_order"));
        QCOMPARE(r.findings[0].index, 0);
        QCOMPARE(r.findings[0].ranks, (std::vector<std::int64_t>{0, 1}));
        QCOMPARE(r.findings[1].kind, std::string("unpaired_recv"));
        QCOMPARE(r.findings[1].ranks, std::vector<std::int64_t>{2});
        QCOMPARE(r.findings[2].kind, std::string("p2p_size_mismatch"));
        QCOMPARE(r.findings[2].index, 2);
        QCOMPARE(r.findings[2].ranks, (std::vector<std::int64_t>{0, 1}));
    }

    void longSequencesAlignInBand()
    {
        // 20,000 collectives with one skip near the middle: prefix/suffix are taken before the DP.
        std::vector<CollectiveCall> base;
        for (int i = 0; i < 20000; ++i)
            base.push_back(call(CallKind::AllReduce, i % 97 + 1));
        auto skipped = base;
        skipped.erase(skipped.begin() + 12345);
        CheckInput in;
        in.ranks = {{0, base}, {1, base}, {2, skipped}};
        const CheckResult r = checkCollectives(in);
        QVERIFY2(r.findings.size() == 1, describe(r.findings).c_str());
        QCOMPARE(r.findings[0].kind, std::string("missing_collective"));
        // 12345 % 97 == 26: the neighbours differ, so the position is exact.
        QCOMPARE(r.findings[0].index, 12345);
    }

    void chakraCommTypesAndDtypes()
    {
        QCOMPARE(core::callKindFromChakraCommType(0), CallKind::AllReduce);
        QCOMPARE(core::callKindFromChakraCommType(6), CallKind::AllToAll);
        QCOMPARE(core::callKindFromChakraCommType(9), CallKind::Barrier);
        QCOMPARE(core::callKindFromChakraCommType(8), CallKind::ReduceScatter); // REDUCE_SCATTER_BLOCK
        QCOMPARE(core::callKindFromChakraCommType(42), CallKind::Unknown);
        QCOMPARE(callKindFromName("reduce_scatter"), std::optional<CallKind>(CallKind::ReduceScatter));
        QCOMPARE(canonicalDtype("Float"), std::string("float32"));
        QCOMPARE(canonicalDtype("c10::BFloat16"), std::string("bfloat16"));
        QCOMPARE(core::dtypeFromKernelName("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                 std::string("float16"));
        QCOMPARE(core::dtypeFromKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), std::string("float32"));
        QCOMPARE(core::dtypeFromKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)"), std::string("int8"));
        QCOMPARE(core::dtypeFromKernelName("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), std::string());
    }

    void clocksAlignedByCollectivesAndStraggler()
    {
        gen::GeneratorOptions o;
        o.seed = 21;
        o.steps = 3;
        o.straggler = 6;
        const auto ranks = generateJobInMemory(o, 8);
        const CheckInput in = inputOf(ranks);
        const CheckResult check = checkCollectives(in);
        QVERIFY2(check.findings.empty(), describe(check.findings).c_str());
        const JobTiming t = analyseTiming(in, check);
        QCOMPARE(t.referenceRank, 0);
        QVERIFY(t.unaligned.empty());
        for (int r = 0; r < 8; ++r)
            QCOMPARE(t.clockOffsetNs.at(r), gen::clockOffsetNs(o.seed, r) - gen::clockOffsetNs(o.seed, 0));
        QVERIFY(!t.collectives.empty());
        for (const CollectiveTiming &c : t.collectives)
            QVERIFY2(c.skewNs >= 0 && c.skewNs <= 200'000, std::to_string(c.skewNs).c_str());
        QCOMPARE(t.stragglers.front().rank, 6);
        QVERIFY(t.stragglers.front().lastArrivals * 2 > t.stragglers.front().of);
    }
};

QTEST_GUILESS_MAIN(TestJobCheck)
#include "test_job_check.moc"
