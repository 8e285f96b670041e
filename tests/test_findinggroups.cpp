// Triage of findings (report/findinggroups.h): findings fold by cause, the folded row says what
// they share, and message times read relative to the trace start.
//
// megatron rank 0 (bundled): 131 policy_disagreement findings. Computed independently from the
// files with python3 (the messages of `linkscope link --report` give each rule's pick by name and
// ts; the Kineto trace gives the pick's end and the launch's ts by correlation): in every one both
// external-id and ev-idx pick the same op, which had finished before the launch —
// aten::empty_strided 81, aten::empty 40, aten::as_strided 5, aten::resize_ 3, aten::view 2.
#include "io/tracereader.h"
#include "link/diagnose.h"
#include "link/linker.h"
#include "report/findinggroups.h"

#include "testsupport.h"
#include "tracebuilder.h"

#include <QTest>

#include <algorithm>

using namespace linkscope::core;
using namespace linkscope::test;

namespace {

constexpr Nanos us = 1000;

std::vector<FindingGroup> groupsOf(const DeviceTrace &device, const LinkSet &links)
{
    std::vector<FindingCause> causes;
    for (const Finding &f : links.findings)
        causes.push_back(causeOf(f, device, links));
    return groupFindings(causes);
}

std::vector<const FindingGroup *> ofKind(const std::vector<FindingGroup> &groups, FindingKind kind)
{
    std::vector<const FindingGroup *> out;
    for (const FindingGroup &g : groups)
        if (g.cause.kind == kind)
            out.push_back(&g);
    return out;
}

std::string asMicros(Nanos t) { return std::to_string(t / 1000) + "us"; }

} // namespace

class TestFindingGroups : public QObject {
    Q_OBJECT

private slots:
    void megatronPolicyDisagreementsFoldByPick()
    {
        const std::string dir = "astrasim_megatron_tp8_8rank_pair/";
        LINKSCOPE_REQUIRE_TRACES(dir + "megatron_et_0.json.gz", dir + "megatron_kineto_0.json.gz");
        const HostTrace host = readHostTrace(tracePath(dir + "megatron_et_0.json.gz"));
        const DeviceTrace device = readKinetoTrace(tracePath(dir + "megatron_kineto_0.json.gz"));
        const LinkSet links = linkTraces(device, &host);
        const std::vector<FindingGroup> groups = groupsOf(device, links);

        // Every finding is in exactly one group.
        std::vector<std::uint32_t> all;
        for (const FindingGroup &g : groups) {
            all.insert(all.end(), g.members.begin(), g.members.end());
            QVERIFY(std::is_sorted(g.members.begin(), g.members.end()));
            for (std::uint32_t m : g.members)
                QCOMPARE(links.findings[m].kind, g.cause.kind);
        }
        std::sort(all.begin(), all.end());
        QCOMPARE(all.size(), links.findings.size());
        QVERIFY(std::adjacent_find(all.begin(), all.end()) == all.end());

        // Warnings before infos.
        for (std::size_t i = 1; i < groups.size(); ++i)
            QVERIFY(groups[i - 1].cause.severity >= groups[i].cause.severity);

        const auto policy = ofKind(groups, FindingKind::PolicyDisagreement);
        std::vector<std::size_t> sizes;
        for (const FindingGroup *g : policy)
            sizes.push_back(g->members.size());
        std::sort(sizes.rbegin(), sizes.rend());
        QCOMPARE(sizes, (std::vector<std::size_t>{81, 40, 5, 3, 2}));
        const auto biggest = std::max_element(policy.begin(), policy.end(),
                                              [](auto *a, auto *b) { return a->members.size() < b->members.size(); });
        QCOMPARE(describeCause((*biggest)->cause, (*biggest)->members.size(), device),
                 std::string("external-id and ev-idx pick a finished 'aten::empty_strided' for 81 GPU ops"));
    }

    void orphansFoldByReason()
    {
        // Two kernels whose correlation no launch has, one whose launch no CPU op encloses, and one
        // kernel under aten::mm that is linked (no finding of its own).
        TraceBuilder b;
        b.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 0, 50 * us);
        b.runtime("cudaLaunchKernel", 1, 1, 10 * us, 2 * us, 100);
        b.gpu("gemm", 0, 7, 20 * us, 5 * us, 100);
        b.runtime("cudaLaunchKernel", 1, 1, 80 * us, 2 * us, 101); // after aten::mm ended
        b.gpu("late", 0, 7, 90 * us, 5 * us, 101);
        b.gpu("lost_a", 0, 7, 100 * us, 5 * us, 900);
        b.gpu("lost_b", 0, 7, 110 * us, 5 * us, 901);
        const DeviceTrace device = std::move(b.trace);
        const LinkSet links = linkTraces(device, nullptr);
        const std::vector<FindingGroup> groups = groupsOf(device, links);
        const auto orphans = ofKind(groups, FindingKind::OrphanGpuOp);
        QCOMPARE(orphans.size(), std::size_t(2));
        std::vector<std::string> titles;
        for (const FindingGroup *g : orphans)
            titles.push_back(describeCause(g->cause, g->members.size(), device));
        std::sort(titles.begin(), titles.end());
        QCOMPARE(QString::fromStdString(titles[0]), QStringLiteral("1 GPU op has no parent: their launch is inside no CPU op"));
        QCOMPARE(QString::fromStdString(titles[1]),
                 QStringLiteral("2 GPU ops have no parent: no launch in the trace has their correlation "
                                "(launched outside the profiling window?)"));
    }

    void evIdxAloneNamesItsPick()
    {
        // aten::mm encloses the launch; ev-idx (the latest-starting op before it, by Ev Idx) picks
        // aten::empty, which had finished: one group names that pick.
        TraceBuilder b;
        b.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 0, 100 * us, 1, 0, 1);
        b.cpu(EventCategory::CpuOp, "aten::empty", 1, 1, 5 * us, 3 * us, 2, 0, 2);
        for (std::int64_t corr : {11, 12}) {
            b.runtime("cudaLaunchKernel", 1, 1, (corr - 10) * 20 * us, 2 * us, corr, 1);
            b.gpu("gemm", 0, 7, (corr - 10) * 20 * us + 5 * us, 5 * us, corr, 1);
        }
        const DeviceTrace device = std::move(b.trace);
        const LinkSet links = linkTraces(device, nullptr);
        const std::vector<FindingGroup> groups = groupsOf(device, links);
        const auto policy = ofKind(groups, FindingKind::PolicyDisagreement);
        if (policy.empty())
            QSKIP("the rules agree on this trace: nothing to fold"); // guards against a linker change
        QCOMPARE(policy.size(), std::size_t(1));
        QCOMPARE(policy[0]->members.size(), std::size_t(2));
        const std::string title = describeCause(policy[0]->cause, 2, device);
        QVERIFY2(title.find("'aten::empty'") != std::string::npos,
                 (title + " / " + links.findings[policy[0]->members[0]].message).c_str());
        QVERIFY2(title.find("for 2 GPU ops") != std::string::npos, title.c_str());
    }

    void severityOrderThenFirstAppearance()
    {
        std::vector<FindingCause> causes(5);
        causes[0] = {FindingSeverity::Info, FindingKind::PolicyDisagreement, 1, 7, StringPool::kMissing};
        causes[1] = {FindingSeverity::Warning, FindingKind::OrphanGpuOp, 2, StringPool::kMissing, StringPool::kMissing};
        causes[2] = {FindingSeverity::Info, FindingKind::PolicyDisagreement, 1, 7, StringPool::kMissing};
        causes[3] = {FindingSeverity::Error, FindingKind::GpuBeforeLaunch, 0, StringPool::kMissing, StringPool::kMissing};
        causes[4] = {FindingSeverity::Info, FindingKind::PolicyDisagreement, 1, 8, StringPool::kMissing};
        const std::vector<FindingGroup> groups = groupFindings(causes);
        QCOMPARE(groups.size(), std::size_t(4));
        QCOMPARE(groups[0].members, std::vector<std::uint32_t>{3});
        QCOMPARE(groups[1].members, std::vector<std::uint32_t>{1});
        QCOMPARE(groups[2].members, (std::vector<std::uint32_t>{0, 2}));
        QCOMPARE(groups[3].members, std::vector<std::uint32_t>{4});
        QVERIFY(groupFindings({}).empty());
    }

    void countsHaveThousandsSeparators()
    {
        QCOMPARE(formatCount(0), std::string("0"));
        QCOMPARE(formatCount(999), std::string("999"));
        QCOMPARE(formatCount(1000), std::string("1,000"));
        QCOMPARE(formatCount(2365), std::string("2,365"));
        QCOMPARE(formatCount(1234567), std::string("1,234,567"));
    }

    void messagesTellTimesFromTheTraceStart()
    {
        // The diagnosis' own wording: a kernel that starts 4 µs before its launch.
        TraceBuilder b;
        b.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 1000 * us, 50 * us);
        b.runtime("cudaLaunchKernel", 1, 1, 1010 * us, 2 * us, 100);
        b.gpu("gemm", 0, 7, 1006 * us, 5 * us, 100);
        const DeviceTrace device = std::move(b.trace);
        const LinkSet links = linkTraces(device, nullptr);
        const auto it = std::find_if(links.findings.begin(), links.findings.end(),
                                     [](const Finding &f) { return f.kind == FindingKind::GpuBeforeLaunch; });
        QVERIFY(it != links.findings.end());
        QCOMPARE(it->message, std::string("GPU op 'gemm' at 1006000 ns starts 4000 ns before its launch "
                                          "'cudaLaunchKernel' at 1010000 ns"));
        const std::string retimed = retimeMessage(it->message, 1000 * us, asMicros,
                                                  [](Nanos d) { return "d" + std::to_string(d); });
        QCOMPARE(retimed, std::string("GPU op 'gemm' at 6us starts d4000 before its launch 'cudaLaunchKernel' at 10us"));

        // Intervals, negative offsets; other numbers and words ending in "at" are left alone.
        QCOMPARE(retimeMessage(
                     "the launch at 900 ns is outside its parent 'x' at 1000 ns (Ev Idx 4) [1000, 5000)", 1000,
                     [](Nanos t) { return "t" + std::to_string(t); }, [](Nanos) { return std::string("?"); }),
                 std::string("the launch at t-100 is outside its parent 'x' at t0 (Ev Idx 4) [t0, t4000)"));
        QCOMPARE(retimeMessage(
                     "correlation 12 ns; that 5 ns; at 7 µs; [1, 2]", 0, [](Nanos) { return std::string("T"); },
                     [](Nanos) { return std::string("D"); }),
                 std::string("correlation 12 ns; that 5 ns; at 7 µs; [1, 2]"));
    }
};

QTEST_APPLESS_MAIN(TestFindingGroups)
#include "test_findinggroups.moc"
