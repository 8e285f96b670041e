// The astra-sim .et target (docs/astra-sim-export.md): inputs/outputs in Python's text, no METADATA
// node, no dependency on a node left out, and durations of each node's own time — checked on a
// two-thread pair built here whose answer is worked out by hand, and on the bundled sample.

#include "testsupport.h"

#include "hostetnode.h"

#include "export/chakra/astrasimtarget.h"
#include "export/chakra/etcheck.h"
#include "export/chakra/pyrepr.h"
#include "export/exporter.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

using namespace linkscope::core;

namespace {

struct Op {
    int id;
    std::string name;
    int parent;
    int tid;
    long ts, dur; // µs; dur < 0: no Kineto event (ET only)
};

// A host ET (nested, 1.1.1-chakra.0.0.4) and its Kineto trace (Record function id = rf_id = id).
void writePair(const std::vector<Op> &ops, const std::string &hostPath, const std::string &kinetoPath)
{
    nlohmann::json nodes = nlohmann::json::array();
    auto node = linkscope::test::hostEtNode;
    nodes.push_back(node(1, "[pytorch|profiler|execution_trace|process]", 0, 0));
    std::set<int> tids;
    for (const Op &op : ops)
        tids.insert(op.tid);
    for (int tid : tids)
        nodes.push_back(node(1 + tid, "[pytorch|profiler|execution_trace|thread]", 1, tid));
    for (const Op &op : ops) {
        nlohmann::json n = node(op.id, op.name, op.parent, op.tid);
        if (op.name.find("process_group:init") != std::string::npos)
            n["inputs"]["values"] = {"[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
                                     "\"ranks\": [], \"group_size\": 2, \"group_count\": 1}]"};
        if (op.name == "aten::add")
            n["inputs"]["values"] = {nlohmann::json::array({1, 2, 0, 4, 4, "cuda:0"}), 1.5, true, "it's"};
        nodes.push_back(n);
    }
    const nlohmann::json host = {{"schema", "1.1.1-chakra.0.0.4"},
                                 {"pid", 4242},
                                 {"time", "2026-12-01 10:00:00"},
                                 {"start_ts", 0},
                                 {"finish_ts", 2000},
                                 {"nodes", nodes}};
    nlohmann::json events = nlohmann::json::array();
    for (const Op &op : ops)
        if (op.dur >= 0)
            events.push_back({{"ph", "X"},
                              {"cat", "cpu_op"},
                              {"name", op.name},
                              {"pid", 4242},
                              {"tid", 1000 + op.tid},
                              {"ts", op.ts},
                              {"dur", op.dur},
                              {"args", {{"External id", op.id}, {"Record function id", op.id}, {"Ev Idx", op.id}}}});
    const nlohmann::json kineto = {{"schemaVersion", 1}, {"traceEvents", events}};
    std::ofstream(hostPath) << host.dump(1);
    std::ofstream(kinetoPath) << kineto.dump(1);
}

// A main thread blocked in a backward call while the autograd thread runs (µs):
//   main     ProfilerStep#1 [0,1000) ⊃ forward [10,200), backward [200,900), optimizer [920,990)
//   autograd mm_backward [300,500), add_backward [520,880)
// and a process_group:init node (ET only) at the start of the main thread.
std::vector<Op> twoThreadOps()
{
    return {{9, "## process_group:init ##", 2, 1, 0, -1},
            {10, "ProfilerStep#1", 2, 1, 0, 1000},
            {11, "aten::forward", 10, 1, 10, 190},
            {12, "aten::backward", 10, 1, 200, 700},
            {13, "Optimizer.step", 10, 1, 920, 70},
            {20, "aten::mm_backward", 3, 2, 300, 200},
            {21, "aten::add", 3, 2, 520, 360}};
}

struct Exported {
    ExportReport report;
    ChakraTrace trace;
    std::map<std::string, std::uint64_t> durationOf; // by node name
};

Exported exportPair(const std::string &host, const std::string &kineto, const std::string &et, const ChakraOptions &options)
{
    HostTrace h = readHostTrace(host);
    DeviceTrace d = readKinetoTrace(kineto);
    LinkSet links = linkTraces(d, &h, {});
    ExportRequest request;
    request.outputs["et"] = et;
    request.chakra = options;
    Exported out;
    out.report = exportLinkedPair(h, d, links, request);
    out.trace = readChakraEt(et);
    for (const auto &node : out.trace.nodes)
        out.durationOf[node.name()] = node.duration_micros();
    return out;
}

ChakraOptions astraOptions()
{
    ChakraOptions options;
    options.target = EtTarget::AstraSim;
    return options;
}

} // namespace

class TestAstraSimExport : public QObject {
    Q_OBJECT

private slots:
    void pythonRepr_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("python");
        QTest::newRow("list") << "[1, \"a\", true, false, null]"
                              << "[1, 'a', True, False, None]";
        QTest::newRow("nested, spacing") << "[[1,2],[],{\"k\":[3]}]"
                                         << "[[1, 2], [], {'k': [3]}]";
        QTest::newRow("floats") << "[1.5, 1e-5, 0.0001, 1e16, 1.5e16, 100.0, 123456789.125, -0.0, 2E3]"
                                << "[1.5, 1e-05, 0.0001, 1e+16, 1.5e+16, 100.0, 123456789.125, -0.0, 2000.0]";
        QTest::newRow("ints") << "[0, -0, -12, 9223372036854775807]"
                              << "[0, 0, -12, 9223372036854775807]";
        QTest::newRow("quote choice") << "[\"it's\", \"say \\\"hi\\\"\", \"both ' and \\\"\"]"
                                      << "[\"it's\", 'say \"hi\"', 'both \\' and \"']";
        QTest::newRow("escapes") << "[\"tab\\tnl\\nback\\\\slash\", \"\\u0001\", \"\\u00e9\\u00a0\", \"\\ud83d\\ude00\"]"
                                 << QString::fromUtf8("['tab\\tnl\\nback\\\\slash', '\\x01', 'é\\xa0', '😀']");
        QTest::newRow("pg metadata") << "[\"[{\\\"pg_name\\\": \\\"0\\\", \\\"ranks\\\": []}]\"]"
                                     << "['[{\"pg_name\": \"0\", \"ranks\": []}]']";
        QTest::newRow("non-finite") << "[NaN, Infinity, -Infinity, 1e400]"
                                    << "[nan, inf, -inf, inf]";
    }

    void pythonRepr()
    {
        QFETCH(QString, json);
        QFETCH(QString, python);
        QCOMPARE(QString::fromStdString(linkscope::core::pythonRepr(json.toStdString())), python);
    }

    void pythonReprRejectsBrokenText()
    {
        std::string out = "keep";
        QVERIFY(!appendPythonRepr(out, "[\"unterminated"));
        QVERIFY(!appendPythonRepr(out, "[bogus]"));
        QCOMPARE(out, std::string("keep"));
        QCOMPARE(linkscope::core::pythonRepr("[x]"), std::string("[x]")); // left as it was
    }

    // The worked example: every instant of the iteration goes to the node ASTRA-sim runs then.
    void ownTimeAndGaps()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("host.json").toStdString(), kineto = dir.filePath("kineto.json").toStdString();
        writePair(twoThreadOps(), host, kineto);

        const Exported astra = exportPair(host, kineto, dir.filePath("a.0.et").toStdString(), astraOptions());
        // main: ProfilerStep's 10 µs before its first child; forward 190; backward [200,300): it
        // waits for the autograd thread from 300 to 880 (blocked: nobody's time), and its time after
        // that, [880,900), goes to the optimizer that continues after the wait; optimizer 70 + 20
        // + the 20 µs gap before it + ProfilerStep's 10 µs after it. autograd: mm 200; add 360 + the
        // 20 µs gap before it.
        QCOMPARE(astra.durationOf.at("ProfilerStep#1"), std::uint64_t(10));
        QCOMPARE(astra.durationOf.at("aten::forward"), std::uint64_t(190));
        QCOMPARE(astra.durationOf.at("aten::backward"), std::uint64_t(100));
        QCOMPARE(astra.durationOf.at("Optimizer.step"), std::uint64_t(120));
        // The optimizer waits for the autograd thread's last op; its first op follows the backward
        // that hands it the work (running when it starts, started after the forward ended).
        QCOMPARE(astra.report.chakra.threadWaitDeps, std::size_t(1));
        QCOMPARE(astra.report.chakra.blocked.threadWaits, std::size_t(1));
        QCOMPARE(astra.report.chakra.blocked.threadWaitNs, Nanos(580'000));
        std::map<std::uint64_t, std::string> nameOf;
        for (const auto &node : astra.trace.nodes)
            nameOf[node.id()] = node.name();
        std::map<std::string, std::set<std::string>> depsOf;
        for (const auto &node : astra.trace.nodes)
            for (auto d : node.data_deps())
                depsOf[node.name()].insert(nameOf[d]);
        QVERIFY(depsOf["Optimizer.step"].count("aten::add"));
        QVERIFY(depsOf["aten::mm_backward"].count("aten::backward"));
        QVERIFY(!depsOf["aten::mm_backward"].count("aten::forward"));
        QCOMPARE(astra.durationOf.at("aten::mm_backward"), std::uint64_t(200));
        QCOMPARE(astra.durationOf.at("aten::add"), std::uint64_t(380));
        QCOMPARE(astra.report.chakra.cpuDurationMicros, std::uint64_t(1000));
        QCOMPARE(astra.report.chakra.measuredNs(), Nanos(1000000));
        QCOMPARE(astra.report.chakra.iterationEnd - astra.report.chakra.iterationBegin, Nanos(1000000));

        ChakraOptions noOwnTime = astraOptions();
        noOwnTime.ownTimeDurations = false;
        noOwnTime.blockedAsDependencies = false;
        const Exported waits = exportPair(host, kineto, dir.filePath("b.0.et").toStdString(), noOwnTime);
        QCOMPARE(waits.durationOf.at("aten::backward"), std::uint64_t(700)); // the wait counted as its own
        QCOMPARE(waits.durationOf.at("aten::add"), std::uint64_t(380));

        ChakraOptions noGaps = astraOptions();
        noGaps.keepGaps = false;
        const Exported gapless = exportPair(host, kineto, dir.filePath("c.0.et").toStdString(), noGaps);
        QCOMPARE(gapless.durationOf.at("ProfilerStep#1"), std::uint64_t(40)); // its exclusive time, up front
        QCOMPARE(gapless.durationOf.at("aten::add"), std::uint64_t(360));
        QCOMPARE(gapless.durationOf.at("Optimizer.step"), std::uint64_t(70));

        // The Chakra target: exclusive times (ProfilerStep 40, backward 700), the METADATA node kept.
        const Exported chakra = exportPair(host, kineto, dir.filePath("d.0.et").toStdString(), {});
        QCOMPARE(chakra.durationOf.at("ProfilerStep#1"), std::uint64_t(40));
        QCOMPARE(chakra.durationOf.at("aten::backward"), std::uint64_t(700));
        QVERIFY(chakra.durationOf.count("## process_group:init ##"));
    }

    void noMetadataNodeAndPythonText()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("host.json").toStdString(), kineto = dir.filePath("kineto.json").toStdString();
        writePair(twoThreadOps(), host, kineto);
        const std::string et = dir.filePath("a.0.et").toStdString();
        const Exported astra = exportPair(host, kineto, et, astraOptions());
        QCOMPARE(astra.report.chakra.metadataDropped, std::size_t(1));
        QCOMPARE(astra.report.chakra.metadata, std::size_t(0));
        std::set<std::uint64_t> ids;
        for (const auto &node : astra.trace.nodes) {
            QVERIFY2(node.type() != ChakraProtoMsg::METADATA_NODE, node.name().c_str());
            ids.insert(node.id());
        }
        // The node after the dropped one on the main thread waits for what the dropped one waited for.
        for (const auto &node : astra.trace.nodes) {
            for (auto dep : node.data_deps())
                QVERIFY(ids.count(dep));
            for (auto dep : node.ctrl_deps())
                QVERIFY(ids.count(dep));
            if (node.name() == "aten::add")
                QCOMPARE(node.inputs().values(), std::string("[[1, 2, 0, 4, 4, 'cuda:0'], 1.5, True, \"it's\"]"));
        }
        const EtCheckResult check = checkEtFiles({et});
        QVERIFY2(check.ok(), check.toJson().dump().c_str());
    }

    // The bundled sample: the astra-sim target passes the pre-flight, keeps the collectives, and its CPU
    // nodes add up to the measured iteration; the chakra target of the same pair is unchanged by it.
    void sample()
    {
        QTemporaryDir dir;
        const std::string host = linkscope::test::sourcePath("resources/samples/sample_host_et.json");
        const std::string kineto = linkscope::test::sourcePath("resources/samples/sample_kineto.json");
        const std::string et = dir.filePath("s.0.et").toStdString();
        const Exported astra = exportPair(host, kineto, et, astraOptions());
        QVERIFY(astra.report.chakra.commColl > 0);
        QCOMPARE(astra.report.chakra.metadata, std::size_t(0));
        // The CPU nodes add up to the measured iteration less the blocked time taken out of them (the
        // sample's main thread waits in syncs), and to all of it with the blocked time kept in.
        const double measuredUs = static_cast<double>(astra.report.chakra.measuredNs()) / 1000.0;
        const double cpuUs = static_cast<double>(astra.report.chakra.cpuDurationMicros);
        const double removedUs = static_cast<double>(astra.report.chakra.blocked.removedNs()) / 1000.0;
        QVERIFY2(removedUs > 0 && cpuUs < measuredUs && cpuUs + removedUs >= measuredUs - 1.0,
                 qPrintable(QString("cpu %1 + removed %2 vs measured %3").arg(cpuUs).arg(removedUs).arg(measuredUs)));
        ChakraOptions kept = astraOptions();
        kept.blockedAsDependencies = false;
        const Exported replay = exportPair(host, kineto, dir.filePath("k.0.et").toStdString(), kept);
        QVERIFY2(std::abs(static_cast<double>(replay.report.chakra.cpuDurationMicros) - measuredUs) <= 1.0,
                 qPrintable(QString("%1 vs %2").arg(replay.report.chakra.cpuDurationMicros).arg(measuredUs)));
        const EtCheckResult check = checkEtFiles({et});
        QVERIFY2(check.ok(), check.toJson().dump().c_str());

        const Exported chakra = exportPair(host, kineto, dir.filePath("c.0.et").toStdString(), {});
        QCOMPARE(chakra.report.chakra.metadata, std::size_t(1));
        QCOMPARE(chakra.report.chakra.pgOrderDeps, std::size_t(0));
    }

    // A collective of a one-rank group (Kineto "Group size": 1; here the data-parallel groups of a
    // job whose tensor-parallel group is every rank) is replayed as compute for its measured time:
    // ASTRA-sim never completes a collective on a group of one rank. The chakra target keeps it.
    void oneRankGroupReplayed()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options;
        options.seed = 3;
        options.steps = 2;
        options.worldSize = 8;
        options.tensorParallel = 8;
        linkscope::gen::generateJob(options, dir.path().toStdString());
        const std::string host = dir.filePath("host_0.json").toStdString(), kineto = dir.filePath("kineto_0.json").toStdString();
        const DeviceTrace device = readKinetoTrace(kineto);
        std::multiset<std::string> lone; // kernels of one-rank groups, by name
        std::size_t kernels = 0;
        for (EventIndex i{0}; i.in(device.events.size()); ++i) {
            const DeviceEvent &e = device.event(i);
            if (!isGpuOpCategory(e.category) || !e.hasCollective())
                continue;
            ++kernels;
            if (device.collectiveOf(i)->groupSize == 1)
                lone.insert(std::string(device.name(e)));
        }
        QVERIFY(!lone.empty() && lone.size() < kernels);

        const Exported astra = exportPair(host, kineto, dir.filePath("a.0.et").toStdString(), astraOptions());
        // Replayed as GPU compute: where another stream's kernel that started earlier runs at the same
        // time, that kernel keeps the instant (ASTRA-sim runs one compute node at a time), so some
        // replayed collectives keep only part of their time; together they keep some.
        std::multiset<std::string> replayed;
        std::uint64_t replayedMicros = 0;
        for (const auto &node : astra.trace.nodes)
            for (const auto &a : node.attr())
                if (a.name() == "replayed_communication") {
                    QCOMPARE(node.type(), ChakraProtoMsg::COMP_NODE);
                    replayedMicros += node.duration_micros();
                    replayed.insert(node.name());
                }
        QVERIFY(replayedMicros > 0);
        QVERIFY(replayed == lone);
        QCOMPARE(astra.report.chakra.commReplayed, lone.size());
        QCOMPARE(astra.report.chakra.commColl + astra.report.chakra.commSend + astra.report.chakra.commRecv
                     - astra.report.chakra.p2pRendezvous,
                 kernels - lone.size());

        const Exported chakra = exportPair(host, kineto, dir.filePath("c.0.et").toStdString(), {});
        QCOMPARE(chakra.report.chakra.commColl + chakra.report.chakra.commSend + chakra.report.chakra.commRecv, kernels);
    }

    // A send waits for its receiver (docs/astra-sim-export.md, "Sends that wait for their receiver"):
    // before each receive, a one-byte clear-to-send back to the sender, posted with the receive (its
    // dependencies); before each send, the receive of it, which the send waits for. Peers swapped,
    // the transfer's tag with bit 30 set, and every one sent on one rank awaited on the other.
    void p2pSendWaitsForItsReceiver()
    {
        QTemporaryDir dir;
        linkscope::gen::GeneratorOptions options;
        options.seed = 4;
        options.steps = 2;
        options.worldSize = 2;
        linkscope::gen::generateJob(options, dir.path().toStdString());
        std::vector<std::string> ets;
        std::multiset<std::int32_t> ctsTags[2]; // [0] sent by receivers, [1] awaited by senders
        const auto attrOf = [](const ChakraProtoMsg::Node &n, std::string_view name) -> const ChakraProtoMsg::AttributeProto * {
            for (const auto &a : n.attr())
                if (a.name() == name)
                    return &a;
            return nullptr;
        };
        for (int rank = 0; rank < 2; ++rank) {
            const std::string r = std::to_string(rank);
            ets.push_back(dir.filePath(QString::fromStdString("a." + r + ".et")).toStdString());
            const Exported e = exportPair(dir.filePath(QString::fromStdString("host_" + r + ".json")).toStdString(),
                                          dir.filePath(QString::fromStdString("kineto_" + r + ".json")).toStdString(), ets.back(),
                                          astraOptions());
            std::size_t ctsNodes = 0, transfers = 0;
            for (std::size_t k = 0; k < e.trace.nodes.size(); ++k) {
                const ChakraProtoMsg::Node &n = e.trace.nodes[k];
                const auto *cts = attrOf(n, "p2p_rendezvous");
                if (!cts) {
                    transfers += n.type() == ChakraProtoMsg::COMM_SEND_NODE || n.type() == ChakraProtoMsg::COMM_RECV_NODE;
                    continue;
                }
                ++ctsNodes;
                // Written just before its transfer.
                QVERIFY(k + 1 < e.trace.nodes.size());
                const ChakraProtoMsg::Node &transfer = e.trace.nodes[k + 1];
                const bool sender = cts->string_val() == "sender";
                QCOMPARE(n.type(), sender ? ChakraProtoMsg::COMM_RECV_NODE : ChakraProtoMsg::COMM_SEND_NODE);
                QCOMPARE(transfer.type(), sender ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
                QCOMPARE(attrOf(n, "comm_src")->int32_val(), attrOf(transfer, "comm_dst")->int32_val());
                QCOMPARE(attrOf(n, "comm_dst")->int32_val(), attrOf(transfer, "comm_src")->int32_val());
                QCOMPARE(attrOf(n, "comm_tag")->int32_val(), attrOf(transfer, "comm_tag")->int32_val() | kP2pRendezvousTagBit);
                QCOMPARE(attrOf(n, "comm_size")->int64_val(), std::int64_t(1));
                // Posted when the transfer is; the send also waits for it, the receive does not.
                const std::set<std::uint64_t> ctsDeps(n.data_deps().begin(), n.data_deps().end());
                std::set<std::uint64_t> transferDeps(transfer.data_deps().begin(), transfer.data_deps().end());
                QVERIFY(!ctsDeps.count(transfer.id()));
                QCOMPARE(transferDeps.count(n.id()), std::size_t(sender ? 1 : 0));
                transferDeps.erase(n.id());
                QVERIFY(ctsDeps == transferDeps);
                ctsTags[sender ? 1 : 0].insert(attrOf(n, "comm_tag")->int32_val());
            }
            QVERIFY(transfers > 0);
            QCOMPARE(ctsNodes, transfers);
            QCOMPARE(e.report.chakra.p2pRendezvous, ctsNodes);
        }
        QVERIFY(!ctsTags[0].empty());
        QVERIFY(ctsTags[0] == ctsTags[1]);
        const EtCheckResult check = checkEtFiles(ets);
        QVERIFY2(check.ok(), check.toJson().dump().c_str());
    }

    void targetNames()
    {
        QCOMPARE(etTargetFromName("astra-sim"), std::optional<EtTarget>(EtTarget::AstraSim));
        QCOMPARE(etTargetFromName("chakra"), std::optional<EtTarget>(EtTarget::Chakra));
        QVERIFY(!etTargetFromName("ns3"));
        QCOMPARE(etTargetName(EtTarget::AstraSim), std::string_view("astra-sim"));
    }
};

QTEST_GUILESS_MAIN(TestAstraSimExport)
#include "test_astrasim_export.moc"
