// The seed scenario end to end through the real linker (docs/linking.md, The linkage rule;
// Chakra issue #196): under the external-id policy the NCCL kernel hangs off record_param_comms;
// the finding suggests nccl:_all_gather_base; applying it, saving the sidecar, relinking and
// re-applying gives the same links; a policy change reports exactly the kernel as changed.

#include "edit/correction.h"
#include "edit/sidecar.h"
#include "link/linker.h"
#include "testsupport.h"
#include "tracebuilder.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace linkscope::core;
using linkscope::test::HostBuilder;
using linkscope::test::TraceBuilder;

namespace {
constexpr std::int64_t kPid = 1;
constexpr std::int64_t kTid = 1331;
constexpr Nanos us = 1000;

// Times in µs, as in the worked example of docs/linking.md.
struct Seed {
    TraceBuilder b;
    HostBuilder h;
    EventIndex rpc, nccl, launch, kernel;
    Seed()
    {
        rpc = b.cpu(EventCategory::CpuOp, "record_param_comms", kPid, kTid, 100 * us, 50 * us, 17, 19, 40);
        nccl = b.cpu(EventCategory::UserAnnotation, "nccl:_all_gather_base", kPid, kTid, 110 * us, 30 * us, 18, 20, 41);
        launch = b.runtime("cuLaunchKernelEx", kPid, kTid, 120 * us, 5 * us, 5000, 17, EventCategory::CudaDriver);
        kernel = b.gpu("ncclDevKernel_AllGather_RING_LL", 0, 20, 130 * us, 50 * us, 5000, 17);
        h.host.pid = kPid;
        h.node(1, -1, "[pytorch|profiler|execution_trace|process]", 0);
        h.node(2, 1, "[pytorch|profiler|execution_trace|thread]", 0);
        h.node(30, 2, "record_param_comms", 19);
        h.node(31, 30, "nccl:_all_gather_base", 20);
        h.finish();
    }
    LinkSet link(Policy policy) const
    {
        LinkOptions options;
        options.policy = policy;
        return linkTraces(b.trace, &h.host, options);
    }
};

const GpuLink &linkOf(const LinkSet &links, EventIndex event) { return links.gpuLinks.at(links.gpuLinkOf.at(event)); }
} // namespace

class TestCorrectionsSeed : public QObject {
    Q_OBJECT
private slots:
    void endToEnd();
};

void TestCorrectionsSeed::endToEnd()
{
    const Seed seed;
    LinkSet links = seed.link(Policy::ExternalId);
    // docs/linking.md: Chakra HEAD (External-id match first) → record_param_comms, ET node 30.
    QCOMPARE(linkOf(links, seed.kernel).parent, seed.rpc);
    QCOMPARE(seed.h.host.nodes.at(linkOf(links, seed.kernel).hostNode.get()).id, std::int64_t(30));
    const auto finding = std::find_if(links.findings.begin(), links.findings.end(),
                                      [](const Finding &f) { return f.kind == FindingKind::NcclParentIsRecordParamComms; });
    QVERIFY(finding != links.findings.end());
    QCOMPARE(finding->event, seed.kernel);
    QCOMPARE(finding->suggestedParent, seed.nccl);

    // Apply the finding's suggestion to every finding of its kind: one undoable step.
    CorrectionLog log;
    {
        LinkEditor editor(links, seed.b.trace, &seed.h.host);
        const LogEntry bulk = editor.applySuggestions(FindingKind::NcclParentIsRecordParamComms);
        QCOMPARE(bulk.edits.size(), std::size_t(1));
        const auto outcomes = editor.apply(bulk);
        QCOMPARE(outcomes.at(0).status, EditStatus::Applied);
        log.entries.push_back(bulk);
        QCOMPARE(linkOf(links, seed.kernel).parent, seed.nccl);
        QCOMPARE(seed.h.host.nodes.at(linkOf(links, seed.kernel).hostNode.get()).id, std::int64_t(31));
        QCOMPARE(linkOf(links, seed.kernel).rule, ParentRule::Manual);
        QVERIFY(editor.undoLast());
        QCOMPARE(linkOf(links, seed.kernel).parent, seed.rpc);
        QCOMPARE(linkOf(links, seed.kernel).rule, ParentRule::ExternalId);
        editor.apply(bulk);
    }

    // Save, reload, relink from scratch, re-apply: the same corrected links.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Sidecar sidecar;
    sidecar.device = {"seed.json", 1, std::string(64, '1')};
    sidecar.policy = Policy::ExternalId;
    sidecar.log = log;
    const std::string path = dir.filePath("seed.json.linkscope.json").toStdString();
    saveSidecar(sidecar, path);
    const Sidecar loaded = loadSidecar(path);
    QCOMPARE(loaded.policy, Policy::ExternalId);
    LinkSet relinked = seed.link(loaded.policy);
    const ApplyResult result = applyCorrections(loaded.log, relinked, seed.b.trace, &seed.h.host);
    QCOMPARE(result.count(EditStatus::Applied), std::size_t(1));
    QVERIFY(result.problems().empty());
    QCOMPARE(linkOf(relinked, seed.kernel).parent, seed.nccl);
    QCOMPARE(linkOf(relinked, seed.kernel).hostNode, linkOf(links, seed.kernel).hostNode);
    QCOMPARE(linkOf(relinked, seed.kernel).rule, ParentRule::Manual);

    // A policy change: external-id → nesting changes exactly the kernel's parent (docs/linking.md, Policies).
    const LinkSet headLinks = seed.link(Policy::ExternalId);
    LinkSet nestingLinks = seed.link(Policy::Nesting);
    const ParentDiff diff = diffParents(headLinks, nestingLinks);
    QCOMPARE(diff.compared, std::size_t(1));
    QCOMPARE(diff.changes.size(), std::size_t(1));
    QCOMPARE(diff.changes[0].gpuEvent, seed.kernel);
    QCOMPARE(diff.changes[0].before, seed.rpc);
    QCOMPARE(diff.changes[0].after, seed.nccl);
    // The sidecar re-applied under the new policy still pins the kernel to nccl:* (already the
    // nesting choice: no parent changes against the corrected external-id links).
    applyCorrections(loaded.log, nestingLinks, seed.b.trace, &seed.h.host);
    QVERIFY(diffParents(relinked, nestingLinks).changes.empty());
}

QTEST_GUILESS_MAIN(TestCorrectionsSeed)
#include "test_corrections_seed.moc"
