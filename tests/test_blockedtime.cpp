// Blocked time becomes dependencies (docs/astra-sim-export.md, "Blocked time"; export/blockedtime.h):
// which GPU op each kind of blocking call waits for (a stream, device and event synchronize, a
// blocking copy, an implicit sync), the node split at the call (the time after it goes to the op
// that continues), and the CPU durations and dependencies the astra-sim target writes — on pairs
// built here whose answers are worked out by hand.

#include "testsupport.h"

#include "hostetnode.h"

#include "export/blockedtime.h"
#include "export/exporter.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace linkscope::core;

namespace {

constexpr int kPid = 4242;
constexpr int kTid = 1001;

struct CpuOp {
    int id;
    std::string name;
    int parent;   // 2: the thread root
    long ts, dur; // µs
};

struct Runtime {
    std::string name;
    long ts, dur;
    long correlation; // -1: none
};

struct GpuOp {
    std::string name;
    std::string cat; // kernel, gpu_memcpy
    int stream;
    long ts, dur;
    long correlation;
};

// A one-thread pair: a host ET whose nodes are the CPU ops (rf_id = id) and its Kineto trace.
void writePair(const std::vector<CpuOp> &ops, const std::vector<Runtime> &calls, const std::vector<GpuOp> &gpu,
               const std::string &hostPath, const std::string &kinetoPath)
{
    auto node = [](int id, const std::string &name, int parent, int tid = 1) {
        return linkscope::test::hostEtNode(id, name, parent, tid);
    };
    nlohmann::json nodes = nlohmann::json::array();
    nodes.push_back(node(1, "[pytorch|profiler|execution_trace|process]", 0, 0));
    nodes.push_back(node(2, "[pytorch|profiler|execution_trace|thread]", 1));
    for (const CpuOp &op : ops)
        nodes.push_back(node(op.id, op.name, op.parent));
    const nlohmann::json host = {{"schema", "1.1.1-chakra.0.0.4"},
                                 {"pid", kPid},
                                 {"time", "2026-12-01 10:00:00"},
                                 {"start_ts", 0},
                                 {"finish_ts", 2000},
                                 {"nodes", nodes}};
    nlohmann::json events = nlohmann::json::array();
    for (const CpuOp &op : ops)
        events.push_back({{"ph", "X"},
                          {"cat", op.name.starts_with("ProfilerStep") ? "user_annotation" : "cpu_op"},
                          {"name", op.name},
                          {"pid", kPid},
                          {"tid", kTid},
                          {"ts", op.ts},
                          {"dur", op.dur},
                          {"args", {{"External id", op.id}, {"Record function id", op.id}}}});
    for (const Runtime &c : calls) {
        nlohmann::json args = nlohmann::json::object();
        if (c.correlation >= 0)
            args["correlation"] = c.correlation;
        events.push_back({{"ph", "X"},
                          {"cat", "cuda_runtime"},
                          {"name", c.name},
                          {"pid", kPid},
                          {"tid", kTid},
                          {"ts", c.ts},
                          {"dur", c.dur},
                          {"args", args}});
    }
    for (const GpuOp &g : gpu)
        events.push_back({{"ph", "X"},
                          {"cat", g.cat},
                          {"name", g.name},
                          {"pid", 0},
                          {"tid", g.stream},
                          {"ts", g.ts},
                          {"dur", g.dur},
                          {"args", {{"correlation", g.correlation}, {"device", 0}, {"stream", g.stream}}}});
    const nlohmann::json kineto = {{"schemaVersion", 1}, {"traceEvents", events}};
    std::ofstream(hostPath) << host.dump(1);
    std::ofstream(kinetoPath) << kineto.dump(1);
}

struct Linked {
    HostTrace host;
    DeviceTrace device;
    LinkSet links;
    // call name → names of the GPU ops it waits for, and the kind
    std::map<std::string, std::set<std::string>> awaited;
    std::map<std::string, BlockingKind> kind;
};

Linked link(const std::string &hostPath, const std::string &kinetoPath)
{
    Linked l{readHostTrace(hostPath), readKinetoTrace(kinetoPath), {}, {}, {}};
    l.links = linkTraces(l.device, &l.host, {});
    if (l.links.blocking)
        for (const BlockingWait &w : *l.links.blocking) {
            const std::string call(l.device.name(l.device.event(w.call)));
            l.awaited[call].insert(std::string(l.device.name(l.device.event(w.awaited))));
            l.kind[call] = w.kind;
        }
    return l;
}

struct Exported {
    ExportReport report;
    std::map<std::string, std::uint64_t> durationOf;     // by node name
    std::map<std::string, std::set<std::string>> depsOf; // node name → names of its data deps
};

Exported exportAstra(Linked &l, const std::string &etPath, bool blockedAsDeps = true)
{
    ExportRequest request;
    request.outputs["et"] = etPath;
    request.chakra.target = EtTarget::AstraSim;
    request.chakra.blockedAsDependencies = blockedAsDeps;
    Exported out;
    out.report = exportLinkedPair(l.host, l.device, l.links, request);
    const ChakraTrace trace = readChakraEt(etPath);
    std::map<std::uint64_t, std::string> nameOf;
    for (const auto &n : trace.nodes)
        nameOf[n.id()] = n.name();
    for (const auto &n : trace.nodes) {
        out.durationOf[n.name()] = n.duration_micros();
        for (auto d : n.data_deps())
            out.depsOf[n.name()].insert(nameOf[d]);
    }
    return out;
}

// One step (µs): a [10,100) launches k1 (stream 7, [50,600)); b [100,700) blocks in a stream sync
// [110,610) that waits for k1; c [710,800) continues. ProfilerStep#1 [0,810).
void streamSyncPair(const std::string &host, const std::string &kineto)
{
    writePair({{10, "ProfilerStep#1", 2, 0, 810},
               {11, "aten::a", 10, 10, 90},
               {12, "aten::b", 10, 100, 600},
               {13, "aten::c", 10, 710, 90}},
              {{"cudaLaunchKernel", 20, 10, 1}, {"cudaStreamSynchronize", 110, 500, -1}, {"cudaLaunchKernel", 720, 10, 2}},
              {{"k1", "kernel", 7, 50, 550, 1}, {"k2", "kernel", 7, 740, 20, 2}}, host, kineto);
}

} // namespace

class TestBlockedTime : public QObject {
    Q_OBJECT

private slots:
    void streamSyncWaitsForLastOpOfItsStream()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("h.json").toStdString(), kineto = dir.filePath("k.json").toStdString();
        streamSyncPair(host, kineto);
        Linked l = link(host, kineto);
        QCOMPARE(l.awaited["cudaStreamSynchronize"], std::set<std::string>({"k1"}));
        QCOMPARE(l.kind["cudaStreamSynchronize"], BlockingKind::StreamSync);

        // a runs until its launch returned (30): its time after that goes to b, so k1 starts where it
        // was launched. The blocked part [110,600) leaves the CPU; b keeps [100,110); its time after
        // the call [600,700) goes to c, which continues after it and waits for k1; c also gets the
        // gap [700,710) and ProfilerStep's tail [800,810).
        const Exported e = exportAstra(l, dir.filePath("a.et").toStdString());
        QCOMPARE(e.durationOf.at("ProfilerStep#1"), std::uint64_t(10));
        QCOMPARE(e.durationOf.at("aten::a"), std::uint64_t(20));
        QCOMPARE(e.durationOf.at("aten::b"), std::uint64_t(80));
        QCOMPARE(e.durationOf.at("aten::c"), std::uint64_t(210));
        QVERIFY(e.depsOf.at("aten::c").count("k1"));
        const BlockedTimeStats &b = e.report.chakra.blocked;
        const BlockedKindStats &s = b.kinds[static_cast<std::size_t>(BlockingKind::StreamSync)];
        QCOMPARE(s.calls, std::size_t(1));
        QCOMPARE(s.callNs, Nanos(500'000));
        QCOMPARE(s.removedNs, Nanos(490'000));
        QCOMPARE(b.keptNs(), Nanos(10'000)); // the call's return after k1 ended
        QCOMPARE(e.report.chakra.cpuDurationMicros, std::uint64_t(810 - 490));

        // Kept in (the switch off): b holds the wait, the replay adds up to the measured span.
        const Exported kept = exportAstra(l, dir.filePath("b.et").toStdString(), false);
        QCOMPARE(kept.durationOf.at("aten::b"), std::uint64_t(670));
        QCOMPARE(kept.report.chakra.cpuDurationMicros, std::uint64_t(810));
    }

    void deviceSyncWaitsForEveryStream()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("h.json").toStdString(), kineto = dir.filePath("k.json").toStdString();
        writePair({{10, "ProfilerStep#1", 2, 0, 900},
                   {11, "aten::a", 10, 10, 90},
                   {12, "aten::sync", 10, 100, 600},
                   {13, "aten::c", 10, 710, 90}},
                  {{"cudaLaunchKernel", 20, 10, 1},
                   {"cudaLaunchKernel", 40, 10, 2},
                   {"cudaLaunchKernel", 60, 10, 3},
                   {"cudaDeviceSynchronize", 110, 500, -1},
                   {"cudaLaunchKernel", 720, 10, 4}},
                  {{"k1", "kernel", 7, 50, 100, 1},
                   {"k2", "kernel", 7, 160, 200, 2},
                   {"k3", "kernel", 8, 80, 520, 3},
                   {"k4", "kernel", 7, 740, 20, 4}},
                  host, kineto);
        Linked l = link(host, kineto);
        // The last op launched before the call on each stream: k2 (not k1) on 7, k3 on 8.
        QCOMPARE(l.awaited["cudaDeviceSynchronize"], std::set<std::string>({"k2", "k3"}));
        const Exported e = exportAstra(l, dir.filePath("a.et").toStdString());
        QVERIFY(e.depsOf.at("aten::c").count("k2") && e.depsOf.at("aten::c").count("k3"));
        // Blocked until the later of the two (k3 ends at 600).
        QCOMPARE(e.report.chakra.blocked.kinds[static_cast<std::size_t>(BlockingKind::DeviceSync)].removedNs, Nanos(490'000));
    }

    void eventSyncWaitsForTheOpBeforeItsRecord()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("h.json").toStdString(), kineto = dir.filePath("k.json").toStdString();
        // k1 launched, event recorded, k2 launched after the record: the event sync waits for k1 only.
        writePair({{10, "ProfilerStep#1", 2, 0, 900},
                   {11, "aten::a", 10, 10, 90},
                   {12, "aten::wait", 10, 100, 400},
                   {13, "aten::c", 10, 600, 90}},
                  {{"cudaLaunchKernel", 20, 5, 1},
                   {"cudaEventRecord", 30, 5, 9},
                   {"cudaLaunchKernel", 40, 5, 2},
                   {"cudaEventSynchronize", 110, 300, -1},
                   {"cudaLaunchKernel", 610, 10, 3}},
                  {{"k1", "kernel", 7, 50, 350, 1}, {"k2", "kernel", 7, 400, 400, 2}, {"k3", "kernel", 7, 800, 20, 3}}, host,
                  kineto);
        Linked l = link(host, kineto);
        QCOMPARE(l.awaited["cudaEventSynchronize"], std::set<std::string>({"k1"}));
        QCOMPARE(l.kind["cudaEventSynchronize"], BlockingKind::EventSync);
        const Exported e = exportAstra(l, dir.filePath("a.et").toStdString());
        QCOMPARE(e.report.chakra.blocked.kinds[static_cast<std::size_t>(BlockingKind::EventSync)].removedNs, Nanos(290'000));
    }

    void blockingCopiesWaitForThemselves()
    {
        QTemporaryDir dir;
        const std::string host = dir.filePath("h.json").toStdString(), kineto = dir.filePath("k.json").toStdString();
        // A synchronous cudaMemcpy, a device-to-pageable cudaMemcpyAsync (blocking) and a
        // device-to-pinned one (not blocking), then a cudaFree (an implicit device sync).
        writePair({{10, "ProfilerStep#1", 2, 0, 1000},
                   {11, "aten::copy_", 10, 10, 190},
                   {12, "aten::item", 10, 200, 200},
                   {13, "aten::to", 10, 400, 100},
                   {14, "aten::free", 10, 500, 200},
                   {15, "aten::c", 10, 800, 100}},
                  {{"cudaMemcpy", 20, 170, 1},
                   {"cudaMemcpyAsync", 210, 180, 2},
                   {"cudaMemcpyAsync", 410, 20, 3},
                   {"cudaLaunchKernel", 440, 10, 4},
                   {"cudaFree", 510, 180, -1}},
                  {{"Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 7, 30, 150, 1},
                   {"Memcpy DtoH (Device -> Pageable)", "gpu_memcpy", 7, 220, 160, 2},
                   {"Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", 7, 420, 10, 3},
                   {"k4", "kernel", 7, 460, 220, 4}},
                  host, kineto);
        Linked l = link(host, kineto);
        QCOMPARE(l.awaited["cudaMemcpy"], std::set<std::string>({"Memcpy HtoD (Pageable -> Device)"}));
        QCOMPARE(l.kind["cudaMemcpy"], BlockingKind::BlockingCopy);
        QCOMPARE(l.awaited["cudaMemcpyAsync"], std::set<std::string>({"Memcpy DtoH (Device -> Pageable)"}));
        QCOMPARE(l.awaited["cudaFree"], std::set<std::string>({"k4"}));
        QCOMPARE(l.kind["cudaFree"], BlockingKind::ImplicitSync);
        // Recorded, not drawn: the linker's edges (and so the Chakra target) are what they were; the
        // astra-sim target makes these dependencies itself.
        std::size_t syncEdges = 0;
        for (const Edge &edge : l.links.edges)
            syncEdges += edge.kind == EdgeKind::Sync ? 1 : 0;
        QCOMPARE(syncEdges, std::size_t(0));
        const Exported e = exportAstra(l, dir.filePath("a.et").toStdString());
        QCOMPARE(e.report.chakra.blocked.kinds[static_cast<std::size_t>(BlockingKind::BlockingCopy)].calls, std::size_t(2));
        // [20,180) and [210,380): 160 + 170 µs.
        QCOMPARE(e.report.chakra.blocked.kinds[static_cast<std::size_t>(BlockingKind::BlockingCopy)].removedNs, Nanos(330'000));
        QCOMPARE(e.report.chakra.blocked.kinds[static_cast<std::size_t>(BlockingKind::ImplicitSync)].removedNs, Nanos(170'000));
        QVERIFY(e.depsOf.at("aten::item").count("Memcpy HtoD (Pageable -> Device)"));
        QVERIFY(e.depsOf.at("aten::to").count("Memcpy DtoH (Device -> Pageable)"));
        QVERIFY(e.depsOf.at("aten::c").count("k4"));
    }

    // Intervals of one thread are merged; an empty one disappears.
    void normalise()
    {
        BlockedIntervals b;
        b[ThreadIndex(1)] = {{50, 60}, {10, 20}, {15, 30}, {40, 40}};
        normaliseIntervals(b);
        QCOMPARE(b[ThreadIndex(1)].size(), std::size_t(2));
        QCOMPARE(b[ThreadIndex(1)][0].begin, Nanos(10));
        QCOMPARE(b[ThreadIndex(1)][0].end, Nanos(30));
        QCOMPARE(b[ThreadIndex(1)][1].begin, Nanos(50));
    }
};

QTEST_GUILESS_MAIN(TestBlockedTime)
#include "test_blockedtime.moc"
