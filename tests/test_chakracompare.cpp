// compared_with_chakra (link/chakracompare.h): what Chakra 1.0's rule and the rule before Chakra PR
// #185 would make of a pair, against our (corrected) links. Checked on the bundled sample, whose NCCL
// kernels Chakra 1.0 puts on record_param_comms, and on a generated pair, whose ground truth names for
// every GPU op its true parent, the External-id op and the latest-starting op, so every count can be
// derived from the truth file alone.
#include "edit/correction.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/chakracompare.h"
#include "link/chakraupdate.h"
#include "link/linker.h"
#include "link/rules.h"
#include "pipeline/pairpipeline.h"
#include "report/findingsreport.h"

#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

using namespace linkscope::core;
using namespace linkscope::test;

namespace {

OpenedPair openSample()
{
    PairRequest request;
    request.files = {sourcePath("resources/samples/sample_host_et.json"), sourcePath("resources/samples/sample_kineto.json")};
    return openPair(request);
}

std::string launchName(const DeviceTrace &trace, const LinkSet &links, EventIndex gpuEvent)
{
    const GpuLink &link = links.gpuLinks[links.gpuLinkOf[gpuEvent]];
    return link.launch.isNone() ? std::string() : std::string(trace.name(trace.event(link.launch)));
}

LinkOptions externalIdOptions()
{
    LinkOptions options;
    options.policy = Policy::ExternalId;
    return options;
}

std::size_t dropped(const RuleComparison &c, ChakraDropReason reason) { return c.droppedBy[static_cast<std::size_t>(reason)]; }

} // namespace

class TestChakraCompare : public QObject {
    Q_OBJECT

private slots:
    void sampleNcclKernelsOnRecordParamComms();
    void sampleDropsGraphLaunchesAndMemsets();
    void correctionsChangeTheComparison();
    void updateAfterACorrectionEqualsAFullCompare();
    void generatedPairCountsFollowTheTruth();
    void reportCarriesTheComparison();
};

void TestChakraCompare::sampleNcclKernelsOnRecordParamComms()
{
    const OpenedPair pair = openSample();
    const LinkSet &ours = *pair.links;
    const ChakraComparison c = compareWithChakra(*pair.device, pair.host.get(), pair.index, ours, pair.options);

    QCOMPARE(c.chakra10.policy, Policy::ExternalId);
    QCOMPARE(c.pre185.policy, Policy::EvIdx);
    QCOMPARE(c.chakra10.gpuOps, ours.gpuLinks.size());
    // The three NCCL kernels: ours hang off the nccl:* annotation, Chakra 1.0's off record_param_comms.
    QCOMPARE(c.chakra10.collectiveOnRecordParamComms.size(), std::size_t(3));
    const LinkSet chakra = linkWithIndex(*pair.device, pair.host.get(), pair.index, externalIdOptions());
    for (EventIndex g : c.chakra10.collectiveOnRecordParamComms) {
        const DeviceTrace &d = *pair.device;
        QVERIFY2(isCollectiveKernelName(d.name(d.event(g))), d.name(d.event(g)).data());
        const GpuLink &our = ours.gpuLinks[ours.gpuLinkOf[g]];
        QVERIFY(d.name(d.event(our.parent)).starts_with("nccl:"));
        QCOMPARE(d.name(d.event(chakra.gpuLinks[chakra.gpuLinkOf[g]].parent)), std::string_view("record_param_comms"));
        QVERIFY(std::binary_search(c.chakra10.differentParent.begin(), c.chakra10.differentParent.end(), g));
    }
    // Before PR #185 the latest-starting op is the nccl:* op (by luck): no NCCL kernel on record_param_comms.
    QVERIFY(c.pre185.collectiveOnRecordParamComms.empty());
    QVERIFY(std::is_sorted(c.chakra10.differentParent.begin(), c.chakra10.differentParent.end()));
}

void TestChakraCompare::sampleDropsGraphLaunchesAndMemsets()
{
    const OpenedPair pair = openSample();
    const DeviceTrace &d = *pair.device;
    const LinkSet &ours = *pair.links;
    const ChakraComparison c = compareWithChakra(d, pair.host.get(), pair.index, ours, pair.options);

    // What Chakra cannot see, counted from the trace: memsets, and kernels of a cudaGraphLaunch.
    std::set<EventIndex> memsets, graphKernels;
    for (const GpuLink &link : ours.gpuLinks) {
        if (d.event(link.gpuEvent).category == EventCategory::GpuMemset)
            memsets.insert(link.gpuEvent);
        else if (launchName(d, ours, link.gpuEvent) == "cudaGraphLaunch")
            graphKernels.insert(link.gpuEvent);
    }
    QCOMPARE(memsets.size(), std::size_t(1));
    QCOMPARE(graphKernels.size(), std::size_t(5));
    for (const RuleComparison *rule : {&c.chakra10, &c.pre185}) {
        QCOMPARE(dropped(*rule, ChakraDropReason::Memset), memsets.size());
        QCOMPARE(dropped(*rule, ChakraDropReason::UnknownLaunchApi), graphKernels.size());
        QCOMPARE(dropped(*rule, ChakraDropReason::NoHostNode), std::size_t(0));
        std::set<EventIndex> expected = memsets;
        expected.insert(graphKernels.begin(), graphKernels.end());
        QCOMPARE(std::set<EventIndex>(rule->dropped.begin(), rule->dropped.end()), expected);
        // A dropped GPU op is not also counted as re-parented.
        for (EventIndex g : rule->differentParent)
            QVERIFY(!expected.count(g));
        // Every sync edge it loses ends on a GPU op it drops (the link rules do not change sync edges).
        std::size_t onDropped = 0;
        for (const Edge &e : ours.edges)
            if (e.kind == EdgeKind::Sync && (expected.count(e.from) || expected.count(e.to)))
                ++onDropped;
        QCOMPARE(rule->syncEdgesLost, onDropped);
        QVERIFY(rule->syncEdgesLost > 0);
        for (EventIndex g : rule->syncLostGpuOps)
            QVERIFY(expected.count(g));
    }
}

void TestChakraCompare::correctionsChangeTheComparison()
{
    const OpenedPair pair = openSample();
    const DeviceTrace &d = *pair.device;
    const ChakraComparison before = compareWithChakra(d, pair.host.get(), pair.index, *pair.links, pair.options);
    const EventIndex nccl = before.chakra10.collectiveOnRecordParamComms.front();
    const LinkSet chakra = linkWithIndex(d, pair.host.get(), pair.index, externalIdOptions());
    const EventIndex rpc = chakra.gpuLinks[chakra.gpuLinkOf[nccl]].parent;

    // The user drags the NCCL kernel onto record_param_comms, as Chakra 1.0 would, and adds a sync
    // edge from a kernel Chakra keeps to that record_param_comms.
    LinkSet corrected = *pair.links;
    LinkEditor editor(corrected, d, pair.host.get());
    EventIndex kept;
    for (const GpuLink &link : corrected.gpuLinks)
        if (link.gpuEvent != nccl && !chakraDrops(d, chakra.gpuLinks[chakra.gpuLinkOf[link.gpuEvent]]))
            kept = link.gpuEvent;
    QVERIFY(kept.valid());
    const auto outcomes = editor.apply({"as Chakra", {editor.reparent(nccl, rpc), editor.addEdge(kept, rpc, EdgeKind::Sync)}});
    QCOMPARE(outcomes.size(), std::size_t(2));
    QCOMPARE(outcomes[0].status, EditStatus::Applied);
    QCOMPARE(outcomes[1].status, EditStatus::Applied);

    const ChakraComparison after = compareWithChakra(d, pair.host.get(), pair.index, corrected, pair.options);
    QCOMPARE(after.chakra10.collectiveOnRecordParamComms.size(), before.chakra10.collectiveOnRecordParamComms.size() - 1);
    QCOMPARE(after.chakra10.differentParent.size(), before.chakra10.differentParent.size() - 1);
    QVERIFY(!std::binary_search(after.chakra10.differentParent.begin(), after.chakra10.differentParent.end(), nccl));
    // Before #185 the nccl:* op was chosen: now that rule differs from ours on this kernel.
    QVERIFY(std::binary_search(after.pre185.differentParent.begin(), after.pre185.differentParent.end(), nccl));
    // The added sync edge is ours only.
    QCOMPARE(after.chakra10.syncEdges, before.chakra10.syncEdges + 1);
    QCOMPARE(after.chakra10.syncEdgesLost, before.chakra10.syncEdgesLost + 1);
    QVERIFY(std::binary_search(after.chakra10.syncLostGpuOps.begin(), after.chakra10.syncLostGpuOps.end(), kept));
    const auto affected = after.chakra10.affected();
    QVERIFY(std::is_sorted(affected.begin(), affected.end()));
    QVERIFY(std::binary_search(affected.begin(), affected.end(), kept));
}

void TestChakraCompare::updateAfterACorrectionEqualsAFullCompare()
{
    const OpenedPair pair = openSample();
    const DeviceTrace &d = *pair.device;
    const ChakraLinks chakra = linkUnderChakra(d, pair.host.get(), pair.index, pair.options);
    auto same = [](const RuleComparison &a, const RuleComparison &b) {
        return a.policy == b.policy && a.gpuOps == b.gpuOps && a.differentParent == b.differentParent
               && a.collectiveOnRecordParamComms == b.collectiveOnRecordParamComms && a.dropped == b.dropped
               && a.droppedBy == b.droppedBy && a.syncEdges == b.syncEdges && a.syncEdgesLost == b.syncEdgesLost
               && a.syncLostGpuOps == b.syncLostGpuOps && a.linked == b.linked && a.fallback == b.fallback;
    };
    const ChakraComparison first = compareWithChakra(d, chakra, *pair.links);
    const EventIndex nccl = first.chakra10.collectiveOnRecordParamComms.front();
    const EventIndex rpc = chakra.chakra10->gpuLinks[chakra.chakra10->gpuLinkOf[nccl]].parent;
    // A GPU op Chakra drops that we link: detaching it takes it out of `dropped`.
    const EventIndex droppedOp = first.chakra10.dropped.front();

    LinkSet working = *pair.links;
    LinkEditor editor(working, d, pair.host.get());
    LinkSet before = working;
    ChakraComparison shown = first;
    for (const LogEntry &entry :
         {LogEntry{"as Chakra", {editor.reparent(nccl, rpc)}}, LogEntry{"detach", {editor.detach(droppedOp)}},
          LogEntry{"both back", {editor.restore(nccl), editor.restore(droppedOp)}}}) {
        for (const EditOutcome &o : editor.apply(entry))
            QCOMPARE(o.status, EditStatus::Applied);
        const std::vector<GpuLinkIndex> changed = {std::min(working.gpuLinkOf[nccl], working.gpuLinkOf[droppedOp]),
                                                   std::max(working.gpuLinkOf[nccl], working.gpuLinkOf[droppedOp])};
        const ChakraComparison full = compareWithChakra(d, chakra, working);
        for (auto [was, theirs, expected] : {std::tuple{&shown.chakra10, chakra.chakra10.get(), &full.chakra10},
                                             std::tuple{&shown.pre185, chakra.pre185.get(), &full.pre185}}) {
            const std::optional<RuleComparison> updated = updateComparison(d, *was, before, working, *theirs, changed);
            QVERIFY2(updated, entry.label.c_str());
            QVERIFY2(same(*updated, *expected), entry.label.c_str());
            *was = *updated;
        }
        before = working;
    }
    QVERIFY(same(shown.chakra10, first.chakra10)); // every edit undone by the last entry
    // A sync edge of ours changes what is lost edge by edge: the update does not apply.
    editor.apply({"sync", {editor.addEdge(nccl, rpc, EdgeKind::Sync)}});
    QVERIFY(!updateComparison(d, shown.chakra10, before, working, *chakra.chakra10, {}));
}

void TestChakraCompare::generatedPairCountsFollowTheTruth()
{
    for (std::uint64_t seed : {1, 7}) {
        linkscope::gen::GeneratorOptions options;
        options.seed = seed;
        options.steps = 3;
        options.devices = seed == 7 ? 2 : 1;
        std::ostringstream hostText, kinetoText, truthText;
        linkscope::gen::generatePair(options, hostText, kinetoText, truthText);
        const HostTrace host = parseHostTrace(hostText.str(), "generated_host.json");
        const DeviceTrace device = parseKinetoTrace(kinetoText.str(), "generated_kineto.json");
        const LinkSet ours = linkTraces(device, &host);
        const ChakraComparison c = compareWithChakra(device, &host, ours.index, ours);

        // From the truth alone: Chakra drops memsets and the kernels of cudaGraphLaunch (not in its
        // launch list); of the rest, Chakra 1.0 takes the External-id op, pre-#185 the latest-starting op.
        std::size_t memsets = 0, graph = 0, headDiffers = 0, headNcclOnRpc = 0, preDiffers = 0, total = 0;
        std::istringstream lines(truthText.str());
        for (std::string line; std::getline(lines, line);) {
            const auto t = nlohmann::json::parse(line);
            ++total;
            if (t["cat"] == "gpu_memset") {
                ++memsets;
                continue;
            }
            if (t["launch"]["name"] == "cudaGraphLaunch") {
                ++graph;
                continue;
            }
            QVERIFY(!t["external_id_op"].is_null());
            QVERIFY(!t["latest_starting"].is_null());
            const auto evIdx = t["parent"]["ev_idx"];
            if (t["external_id_op"]["ev_idx"] != evIdx) {
                ++headDiffers;
                const std::string name = t["name"];
                if (isCollectiveKernelName(name) && t["external_id_op"]["name"] == "record_param_comms")
                    ++headNcclOnRpc;
            }
            if (t["latest_starting"]["ev_idx"] != evIdx)
                ++preDiffers;
        }
        QCOMPARE(c.chakra10.gpuOps, total);
        QVERIFY(memsets > 0 && graph > 0 && headNcclOnRpc > 0);
        QCOMPARE(dropped(c.chakra10, ChakraDropReason::Memset), memsets);
        QCOMPARE(dropped(c.chakra10, ChakraDropReason::UnknownLaunchApi), graph);
        QCOMPARE(c.chakra10.dropped.size(), memsets + graph);
        QCOMPARE(c.pre185.dropped.size(), memsets + graph);
        QCOMPARE(c.chakra10.differentParent.size(), headDiffers);
        QCOMPARE(c.chakra10.collectiveOnRecordParamComms.size(), headNcclOnRpc);
        QCOMPARE(c.pre185.differentParent.size(), preDiffers);
        QVERIFY(c.pre185.collectiveOnRecordParamComms.empty());
    }
}

void TestChakraCompare::reportCarriesTheComparison()
{
    const OpenedPair pair = openSample();
    const ChakraComparison c = compareWithChakra(*pair.device, pair.host.get(), pair.index, *pair.links, pair.options);
    const auto report = nlohmann::json::parse(
        findingsReportJson("k.json", "h.json", *pair.device, pair.host.get(), *pair.links, &c));
    const auto &head = report.at("compared_with_chakra").at("chakra_1_0");
    QCOMPARE(head.at("policy").get<std::string>(), std::string("external-id"));
    QCOMPARE(head.at("collective_on_record_param_comms").get<std::size_t>(), std::size_t(3));
    QCOMPARE(head.at("different_parent").get<std::size_t>(), c.chakra10.differentParent.size());
    QCOMPARE(head.at("dropped_by").at("unknown_launch_api").get<std::size_t>(), std::size_t(5));
    QCOMPARE(head.at("dropped_by").at("memset").get<std::size_t>(), std::size_t(1));
    QCOMPARE(head.at("sync_edges_lost").get<std::size_t>(), c.chakra10.syncEdgesLost);
    QCOMPARE(report.at("compared_with_chakra").at("chakra_pre_185").at("policy").get<std::string>(), std::string("ev-idx"));
    // Without a comparison the field is absent.
    const auto plain = nlohmann::json::parse(findingsReportJson("k.json", "", *pair.device, pair.host.get(), *pair.links));
    QVERIFY(!plain.contains("compared_with_chakra"));
}

QTEST_APPLESS_MAIN(TestChakraCompare)
#include "test_chakracompare.moc"
