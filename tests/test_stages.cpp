// The stages as values (docs/architecture.md, "Stages"): the index built once and shared by every
// relink; a correction that shares everything it did not change (chunks of GPU links, edges and
// findings, every per-event array); findings that follow the corrections (a finding a correction
// resolves disappears, one it creates appears, and the incremental update equals a diagnosis from
// scratch); the re-parent rule refusing a cross-process parent in core, from a sidecar's log.

#include "base/cowvector.h"
#include "edit/correction.h"
#include "export/targets.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/diagnose.h"
#include "link/linker.h"
#include "link/rules.h"
#include "pipeline/pairpipeline.h"
#include "testsupport.h"
#include "tracebuilder.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <set>

#include <numeric>
#include <sstream>

using namespace linkscope::core;
using linkscope::test::dataPath;

namespace {

EventIndex eventNamed(const DeviceTrace &device, std::string_view prefix, EventCategory category)
{
    for (EventIndex i{0}; i.in(device.events.size()); ++i)
        if (device.event(i).category == category && device.name(device.event(i)).substr(0, prefix.size()) == prefix)
            return i;
    return kNone;
}

std::size_t findingsOn(const LinkSet &links, EventIndex event, FindingKind kind)
{
    return static_cast<std::size_t>(std::count_if(links.findings.begin(), links.findings.end(), [&](const Finding &f) {
        return f.kind == kind && f.subjectKind == SubjectKind::DeviceEvent && f.event == event;
    }));
}

// Findings as comparable tuples, in list order.
std::vector<std::tuple<int, int, EventIndex, HostNodeIndex, std::string, std::string, EventIndex>> flat(const FindingList &list)
{
    std::vector<std::tuple<int, int, EventIndex, HostNodeIndex, std::string, std::string, EventIndex>> out;
    for (const Finding &f : list)
        out.emplace_back(int(f.kind), int(f.subjectKind), f.event, f.hostNode, f.message, f.suggestion, f.suggestedParent);
    return out;
}

OpenedPair seedPair(Policy policy)
{
    PairRequest request;
    request.files = {dataPath("export/seed_host_et.json"), dataPath("export/seed_kineto.json")};
    request.link.policy = policy;
    return openPair(request);
}

} // namespace

class TestStages : public QObject {
    Q_OBJECT

private slots:
    void cowVectorCopiesOnlyTheChunkItWrites()
    {
        std::vector<int> values(3 * 4096 + 10);
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<int>(i);
        const CowVector<int> original(values);
        QCOMPARE(original.size(), values.size());
        QCOMPARE(original.chunkCount(), std::size_t(4));
        CowVector<int> copy = original;
        QCOMPARE(copy.sharedChunks(original), std::size_t(4));
        copy.set(5000, -1);
        QCOMPARE(copy.sharedChunks(original), std::size_t(3)); // only chunk 1 was copied
        QCOMPARE(copy[5000], -1);
        QCOMPARE(original[5000], 5000);
        copy.push_back(99);
        QCOMPARE(copy.back(), 99);
        QCOMPARE(original.size(), values.size());
        copy.pop_back();
        copy.set(5000, 5000);
        QVERIFY(copy == original);
        QCOMPARE(std::accumulate(copy.begin(), copy.end(), 0LL), std::accumulate(values.begin(), values.end(), 0LL));
        QCOMPARE(copy.toVector(), values);
        // Emptied and refilled across a chunk boundary.
        CowVector<int> small;
        for (int i = 0; i < 4097; ++i)
            small.push_back(i);
        QCOMPARE(small.chunkCount(), std::size_t(2));
        small.pop_back();
        QCOMPARE(small.chunkCount(), std::size_t(1));
        QCOMPARE(small.back(), 4095);
    }

    void indexIsBuiltOnceAndShared()
    {
        const OpenedPair pair = seedPair(Policy::Nesting);
        QVERIFY(pair.index);
        QCOMPARE(pair.linked->index, pair.index);
        LinkOptions externalId;
        externalId.policy = Policy::ExternalId;
        const auto relinked = relinkPair(pair, externalId);
        QCOMPARE(relinked->index, pair.index); // the same object, not an equal copy
        QCOMPARE(relinked->policy, Policy::ExternalId);
        // Relinking over the shared index gives what linking from scratch gives.
        const LinkSet fresh = linkTraces(*pair.device, pair.host.get(), externalId);
        QCOMPARE(fresh.gpuLinks.size(), relinked->gpuLinks.size());
        for (std::size_t i = 0; i < fresh.gpuLinks.size(); ++i)
            QCOMPARE(fresh.gpuLinks[i].parent, relinked->gpuLinks[i].parent);
        QVERIFY(flat(fresh.findings) == flat(relinked->findings));
    }

    void correctionSharesWhatItDidNotChange()
    {
        linkscope::gen::GeneratorOptions options;
        options.steps = 200;
        options.devices = 2;
        std::ostringstream hostText, kinetoText, truth;
        linkscope::gen::generatePair(options, hostText, kinetoText, truth);
        const HostTrace host = parseHostTrace(hostText.str(), "generated_host.json");
        const DeviceTrace device = parseKinetoTrace(kinetoText.str(), "generated_kineto.json");
        auto linked = std::make_shared<const LinkSet>(linkTraces(device, &host));
        QVERIFY(linked->gpuLinks.chunkCount() >= 3);

        // One re-parent in the middle, to another candidate.
        const std::size_t k = linked->gpuLinks.size() / 2;
        EventIndex gpu, target;
        for (std::size_t i = k; i < linked->gpuLinks.size() && target.isNone(); ++i) {
            const GpuLink &link = linked->gpuLinks[i];
            for (EventIndex c : reparentCandidates(device, *linked, link.gpuEvent))
                if (c != link.parent) {
                    gpu = link.gpuEvent;
                    target = c;
                    break;
                }
        }
        QVERIFY(target.valid());
        CorrectionLog log;
        {
            LinkSet scratch = *linked;
            LinkEditor editor(scratch, device, &host);
            log.entries.push_back({"move", {editor.reparent(gpu, target)}});
        }
        ApplyResult applied;
        const auto corrected = correctLinks(linked, log, device, &host, &applied);
        QCOMPARE(applied.count(EditStatus::Applied), std::size_t(1));
        QCOMPARE(corrected->gpuLinks[corrected->gpuLinkOf[gpu]].parent, target);
        QVERIFY(linked->gpuLinks[linked->gpuLinkOf[gpu]].parent != target); // the linker's result is untouched
        // Shared, not copied: the index, every per-event array, the evidence, all edges, and all
        // GPU-link chunks but the one edited.
        QCOMPARE(corrected->index, linked->index);
        QVERIFY(corrected->gpuLinkOf.sharedWith(linked->gpuLinkOf));
        QVERIFY(corrected->hostOfEvent.sharedWith(linked->hostOfEvent));
        QVERIFY(corrected->eventOfHost.sharedWith(linked->eventOfHost));
        QVERIFY(corrected->exclusiveDur.sharedWith(linked->exclusiveDur));
        QCOMPARE(corrected->evidence, linked->evidence);
        QCOMPARE(corrected->edges.sharedChunks(linked->edges), linked->edges.chunkCount());
        QCOMPARE(corrected->gpuLinks.sharedChunks(linked->gpuLinks), linked->gpuLinks.chunkCount() - 1);
        // The findings follow: equal to a diagnosis of the corrected links from scratch.
        QVERIFY(flat(corrected->findings) == flat(diagnoseAll(device, *corrected)));
    }

    void findingsFollowCorrections()
    {
        // Nesting puts the NCCL kernel under nccl:_all_gather_base: no NCCL finding. Dragging it
        // onto record_param_comms by hand raises one; undoing the edit clears it again.
        OpenedPair pair = seedPair(Policy::Nesting);
        const DeviceTrace &trace = *pair.device;
        const EventIndex kernel = eventNamed(trace, "ncclDevKernel", EventCategory::Kernel);
        const EventIndex annotation = eventNamed(trace, "nccl:_all_gather_base", EventCategory::UserAnnotation);
        const EventIndex comms = eventNamed(trace, "record_param_comms", EventCategory::CpuOp);
        QVERIFY(kernel.valid() && annotation.valid() && comms.valid());
        QCOMPARE(pair.linked->gpuLinks[pair.linked->gpuLinkOf[kernel]].parent, annotation);
        QCOMPARE(findingsOn(*pair.linked, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(0));

        LinkSet working = *pair.linked;
        LinkEditor editor(working, trace, pair.host.get());
        const auto outcomes = editor.apply({"by hand", {editor.reparent(kernel, comms)}});
        QCOMPARE(outcomes.front().status, EditStatus::Applied);
        QCOMPARE(findingsOn(working, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(1));
        QVERIFY(flat(working.findings) == flat(diagnoseAll(trace, working)));
        // The linker's links and findings are not changed by the correction.
        QCOMPARE(findingsOn(*pair.linked, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(0));
        QVERIFY(editor.undoLast());
        QCOMPARE(findingsOn(working, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(0));
        QVERIFY(flat(working.findings) == flat(pair.linked->findings));

        // Under external-id the linker makes Chakra's mistake and says so; the fix resolves it.
        const OpenedPair chakra = seedPair(Policy::ExternalId);
        QCOMPARE(findingsOn(*chakra.linked, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(1));
        LinkSet fixed = *chakra.linked;
        LinkEditor fixer(fixed, *chakra.device, chakra.host.get());
        const LogEntry suggestions = fixer.applySuggestions(FindingKind::NcclParentIsRecordParamComms);
        QVERIFY(!suggestions.edits.empty());
        fixer.apply(suggestions);
        QCOMPARE(findingsOn(fixed, kernel, FindingKind::NcclParentIsRecordParamComms), std::size_t(0));
        QCOMPARE(countFindingsByKind(fixed.findings)[std::size_t(FindingKind::NcclParentIsRecordParamComms)], std::size_t(0));
        // Detaching a GPU op leaves it no parent to judge, but keeps what its launch says.
        fixer.apply({"detach", {fixer.detach(kernel)}});
        QCOMPARE(findingsOn(fixed, kernel, FindingKind::LaunchOutsideParent), std::size_t(0));
        QVERIFY(flat(fixed.findings) == flat(diagnoseAll(*chakra.device, fixed)));
    }

    void crossProcessParentRefusedInCore()
    {
        // Two processes, each launching a kernel from its own CPU op.
        linkscope::test::TraceBuilder b;
        const EventIndex opA = b.cpu(EventCategory::CpuOp, "aten::mm", 100, 1, 1000, 1000);
        b.runtime("cudaLaunchKernel", 100, 1, 1100, 50, 7);
        const EventIndex kernelA = b.gpu("gemm", 0, 7, 1200, 100, 7);
        const EventIndex opB = b.cpu(EventCategory::CpuOp, "aten::mm", 200, 1, 1000, 1000);
        b.runtime("cudaLaunchKernel", 200, 1, 1100, 50, 8);
        b.gpu("gemm", 1, 7, 1200, 100, 8);
        const DeviceTrace &trace = b.trace;
        const LinkSet links = linkTraces(trace, nullptr);
        QCOMPARE(links.gpuLinks[links.gpuLinkOf[kernelA]].parent, opA);

        const ReparentCheck check = checkReparent(trace, links, kernelA, opB);
        QCOMPARE(check.refusal, ReparentRefusal::OtherProcess);
        QVERIFY2(check.reason.find("process 200") != std::string::npos, check.reason.c_str());
        QVERIFY(checkReparent(trace, links, kernelA, opA).allowed());
        const auto candidates = reparentCandidates(trace, links, kernelA);
        QVERIFY(std::find(candidates.begin(), candidates.end(), opB) == candidates.end());

        // A log (what a sidecar or `export --corrections` carries) asking for it is rejected, with
        // the reason, and changes nothing.
        LinkSet working = links;
        LinkEditor editor(working, trace, nullptr);
        CorrectionLog log;
        log.entries.push_back({"cross-process", {editor.reparent(kernelA, opB)}});
        LinkSet applied = links;
        const ApplyResult result = applyCorrections(log, applied, trace, nullptr);
        QCOMPARE(result.count(EditStatus::Rejected), std::size_t(1));
        QVERIFY2(result.outcomes.front().reason.find("another process") != std::string::npos
                     || result.outcomes.front().reason.find("process 200") != std::string::npos,
                 result.outcomes.front().reason.c_str());
        QCOMPARE(applied.gpuLinks[applied.gpuLinkOf[kernelA]].parent, opA);
    }

    void oneCollectivePredicate()
    {
        QVERIFY(isCollectiveKernelName("ncclDevKernel_AllGather_RING_LL"));
        QVERIFY(isCollectiveKernelName("ncclKernel_AllReduce"));
        QVERIFY(isCollectiveKernelName("rcclGenericKernel"));
        QVERIFY(isCollectiveKernelName("void at::NCCL_wrapper<float>"));
        QVERIFY(!isCollectiveKernelName("volta_sgemm_128x64_nn"));
        // Chakra's own test knows NCCL only (the Chakra policies reproduce it).
        QVERIFY(chakraSaysNccl("ncclKernel_AllReduce") && !chakraSaysNccl("rcclGenericKernel"));
        QVERIFY(isPrimaryRule(Policy::Nesting, ParentRule::NestingAncestor));
        QVERIFY(!isPrimaryRule(Policy::Nesting, ParentRule::LatestStarting));
        QVERIFY(isPrimaryRule(Policy::EvIdx, ParentRule::LatestStarting));
    }

    void exportTargetTable()
    {
        const OpenedPair pair = seedPair(Policy::Nesting);
        QTemporaryDir dir;
        std::set<std::string_view> names;
        for (const ExportTarget &target : exportTargets()) {
            QVERIFY(target.write != nullptr && !target.writeStage.empty());
            QVERIFY(names.insert(target.name).second);
            // Requesting one row writes that file and no other.
            ExportRequest request;
            const std::string path = dir.filePath(QString::fromUtf8(target.name.data(), target.name.size())).toStdString();
            request.outputs[target.name] = path;
            std::vector<std::string> stages;
            request.progress = [&](std::string_view stage, std::size_t, std::size_t) {
                stages.emplace_back(stage);
                return true;
            };
            const ExportReport report = exportLinkedPair(*pair.host, *pair.device, *pair.links, request);
            QVERIFY(std::filesystem::file_size(path) > 0);
            QCOMPARE(report.bytesOf(target.name), std::uint64_t(std::filesystem::file_size(path)));
            QCOMPARE(report.bytes.size(), std::size_t(1));
            QVERIFY(!target.title.empty() && !target.help.empty() && !target.description.empty()
                    && !target.defaultSuffix.empty());
            QCOMPARE(stages.front(), std::string("building the ET+ graph"));
            QVERIFY(std::find(stages.begin(), stages.end(), std::string(target.writeStage)) != stages.end());
            QCOMPARE(stages.size(), std::size_t(2 + (target.check ? 1 : 0) + 1)); // graph, [check], write, done
        }
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), {}),
                 std::ptrdiff_t(exportTargets().size()));
    }

    void lookups()
    {
        const OpenedPair pair = seedPair(Policy::Nesting);
        const DeviceTrace &trace = *pair.device;
        const EventIndex comms = eventNamed(trace, "record_param_comms", EventCategory::CpuOp);
        const DeviceEvent &e = trace.event(comms);
        QVERIFY(e.rfId != 0);
        QCOMPARE(findCpuOp(trace, EventKey::RecordFunctionId, static_cast<std::int64_t>(e.rfId)), comms);
        const auto byRf = findEvents(trace, pair.host.get(), *pair.links, EventKey::RecordFunctionId,
                                     static_cast<std::int64_t>(e.rfId));
        QVERIFY(std::find(byRf.begin(), byRf.end(), comms) != byRf.end());
        const EventIndex kernel = eventNamed(trace, "ncclDevKernel", EventCategory::Kernel);
        const auto byCorrelation = findEvents(trace, pair.host.get(), *pair.links, EventKey::Correlation,
                                              trace.event(kernel).correlation);
        QVERIFY(std::find(byCorrelation.begin(), byCorrelation.end(), kernel) != byCorrelation.end());
        for (std::size_t i = 1; i < byCorrelation.size(); ++i) // by start time
            QVERIFY(trace.event(byCorrelation[i - 1]).ts <= trace.event(byCorrelation[i]).ts);
        QVERIFY(findEvents(trace, pair.host.get(), *pair.links, EventKey::EvIdx, -12345).empty());
    }
};

QTEST_GUILESS_MAIN(TestStages)
#include "test_stages.moc"
