// Corrections at the core level: keys that survive a reload, apply/undo, bulk edits, the sidecar
// (save → load → re-apply, stale edits, input mismatch, malformed files), parent diffs, SHA-256.

#include "edit/correction.h"
#include "edit/sha256.h"
#include "edit/sidecar.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace linkscope::core;

namespace {

// The worked example of docs/linking.md (Chakra issue #196), plus a CUDA graph launch
// (one correlation, three kernels), a memcpy, a second thread and an orphan kernel.
struct Fixture {
    DeviceTrace device;
    HostTrace host;
    LinkSet links;

    // Event indices (file order).
    static constexpr EventIndex RecordParamComms{0}, NcclAllGather{1}, LaunchNccl{2},
        NcclKernel{3},                                                                   // docs/linking.md, thread 1331
        GraphStep{4}, GraphLaunch{5}, GraphKernel0{6}, GraphKernel1{7}, GraphKernel2{8}, // CUDA graph, thread 1331
        CopyOp{9}, CopyLaunch{10}, Memcpy{11},                                           // thread 1400
        PythonFrame{12}, OrphanKernel{13};
    static constexpr std::size_t EventCount = 14;

    EventIndex add(std::string_view name, std::string_view cat, std::int64_t pid, std::int64_t tid, Nanos ts, Nanos dur)
    {
        DeviceEvent e;
        e.name = device.strings.intern(name);
        e.categoryText = device.strings.intern(cat);
        e.category = categoryFromName(cat);
        e.phase = Phase::Complete;
        e.thread = device.threads.intern({TraceId{pid, false}, TraceId{tid, false}});
        e.ts = ts;
        e.dur = dur;
        device.events.push_back(e);
        return EventIndex::at(device.events.size() - 1);
    }

    Fixture()
    {
        device.path = "seed.json";
        const std::int64_t hostPid = 4242;
        auto &ev = device.events;
        add("record_param_comms", "cpu_op", hostPid, 1331, 100'000, 50'000);
        ev.back().externalId = 17, ev.back().rfId = 19, ev.back().evIdx = 40;
        add("nccl:_all_gather_base", "user_annotation", hostPid, 1331, 110'000, 30'000);
        ev.back().externalId = 18, ev.back().rfId = 20, ev.back().evIdx = 41;
        add("cuLaunchKernelEx", "cuda_driver", hostPid, 1331, 120'000, 5'000);
        ev.back().externalId = 17, ev.back().correlation = 5000;
        add("ncclDevKernel_AllGather_RING_LL", "kernel", 0, 20, 130'000, 50'000);
        ev.back().externalId = 17, ev.back().correlation = 5000, ev.back().stream = 20, ev.back().device = 0;

        add("graph_step", "cpu_op", hostPid, 1331, 200'000, 40'000);
        ev.back().externalId = 30, ev.back().rfId = 33, ev.back().evIdx = 50;
        add("cudaGraphLaunch", "cuda_runtime", hostPid, 1331, 205'000, 3'000);
        ev.back().correlation = 6000;
        // Kernels of one graph launch share the correlation; the file lists them out of time order.
        add("graph_kernel_b", "kernel", 0, 7, 215'000, 1'000);
        ev.back().correlation = 6000, ev.back().stream = 7;
        add("graph_kernel_a", "kernel", 0, 7, 210'000, 1'000);
        ev.back().correlation = 6000, ev.back().stream = 7;
        add("graph_kernel_b", "kernel", 0, 7, 220'000, 1'000);
        ev.back().correlation = 6000, ev.back().stream = 7;

        add("aten::copy_", "cpu_op", hostPid, 1400, 300'000, 20'000);
        ev.back().externalId = 40, ev.back().rfId = 44, ev.back().evIdx = 60;
        add("cudaMemcpyAsync", "cuda_runtime", hostPid, 1400, 305'000, 2'000);
        ev.back().correlation = 7000;
        add("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 0, 7, 310'000, 4'000);
        ev.back().correlation = 7000, ev.back().stream = 7;

        // No rf_id, no Ev Idx: keyed by (pid, tid, ts).
        add("train.py(12): step", "python_function", hostPid, 1400, 290'000, 40'000);
        add("orphan_kernel", "kernel", 0, 7, 400'000, 1'000);
        ev.back().stream = 7; // no correlation at all
        QCOMPARE(device.events.size(), std::size_t(EventCount));

        // Host ET: node 30 record_param_comms → 31 nccl:_all_gather_base (Chakra's test trace
        // nests them so), 40 graph_step, 50 aten::copy_.
        host.path = "seed_host.json";
        auto addNode = [&](std::int64_t id, std::int64_t parentId, std::string_view name, std::uint64_t rf) {
            HostNode n;
            n.id = id;
            n.parentId = parentId;
            n.name = host.strings.intern(name);
            n.rfId = rf;
            host.indexById[id] = HostNodeIndex::at(host.nodes.size());
            host.nodes.push_back(n);
        };
        addNode(30, 1, "record_param_comms", 19);
        addNode(31, 30, "nccl:_all_gather_base", 20);
        addNode(40, 1, "graph_step", 33);
        addNode(50, 1, "aten::copy_", 44);

        // The links as the external-id policy makes them (docs/linking.md: Chakra HEAD picks record_param_comms).
        links.policy = Policy::ExternalId;
        std::vector<HostNodeIndex> hostOfEvent(EventCount, kNone);
        hostOfEvent[RecordParamComms.get()] = HostNodeIndex(0);
        hostOfEvent[NcclAllGather.get()] = HostNodeIndex(1);
        hostOfEvent[GraphStep.get()] = HostNodeIndex(2);
        hostOfEvent[CopyOp.get()] = HostNodeIndex(3);
        links.hostOfEvent = hostOfEvent;
        links.eventOfHost = std::vector<EventIndex>{RecordParamComms, NcclAllGather, GraphStep, CopyOp};
        std::vector<GpuLinkIndex> gpuLinkOf(EventCount, kNone);
        auto link = [&](EventIndex gpu, EventIndex launch, EventIndex parent, ParentRule rule) {
            GpuLink l;
            l.gpuEvent = gpu;
            l.launch = launch;
            l.launchMatch = launch.isNone() ? LaunchMatch::None : LaunchMatch::Correlation;
            l.parent = parent;
            l.hostNode = parent.isNone() ? HostNodeIndex(kNone) : hostOfEvent[parent.get()];
            l.rule = rule;
            l.confidence = parent.isNone() ? 0.0f : 0.8f;
            l.orphan = parent.isNone() ? OrphanReason::NoCorrelation : OrphanReason::None;
            gpuLinkOf[gpu.get()] = GpuLinkIndex::at(links.gpuLinks.size());
            links.gpuLinks.push_back(l);
        };
        link(NcclKernel, LaunchNccl, RecordParamComms, ParentRule::ExternalId);
        link(GraphKernel0, GraphLaunch, GraphStep, ParentRule::ExternalId);
        link(GraphKernel1, GraphLaunch, GraphStep, ParentRule::ExternalId);
        link(GraphKernel2, GraphLaunch, GraphStep, ParentRule::ExternalId);
        link(Memcpy, CopyLaunch, CopyOp, ParentRule::ExternalId);
        link(OrphanKernel, kNone, kNone, ParentRule::None);
        links.gpuLinkOf = gpuLinkOf;
        links.edges = std::vector<Edge>{
            {LaunchNccl, NcclKernel, EdgeKind::Launch},          {GraphLaunch, GraphKernel0, EdgeKind::Launch},
            {GraphKernel1, GraphKernel0, EdgeKind::StreamOrder}, {NcclKernel, CopyOp, EdgeKind::Sync},
            {GraphLaunch, GraphKernel1, EdgeKind::Launch},       {RecordParamComms, CopyOp, EdgeKind::InterThread},
            {Memcpy, GraphKernel2, EdgeKind::StreamOrder},
        };
        Finding nccl;
        nccl.kind = FindingKind::NcclParentIsRecordParamComms;
        nccl.event = NcclKernel;
        nccl.suggestedParent = NcclAllGather;
        Finding orphan;
        orphan.kind = FindingKind::OrphanGpuOp;
        orphan.event = OrphanKernel;
        // Made by hand, without the linker's evidence: the findings stay as given (trace-wide here).
        links.findings = FindingList({nccl, orphan}, {}, {}, {});
    }
};

EventIndex parentOf(const LinkSet &links, EventIndex gpuEvent) { return links.gpuLinks[links.gpuLinkOf[gpuEvent]].parent; }

// Edges compared as a multiset: removal refills slots from the end, so order is not kept.
std::vector<std::tuple<EventIndex, EventIndex, int>> edgeSet(const LinkSet &links)
{
    std::vector<std::tuple<EventIndex, EventIndex, int>> out;
    for (const Edge &e : links.edges)
        out.emplace_back(e.from, e.to, static_cast<int>(e.kind));
    std::sort(out.begin(), out.end());
    return out;
}

bool sameLinks(const LinkSet &a, const LinkSet &b)
{
    if (a.gpuLinks.size() != b.gpuLinks.size())
        return false;
    for (std::size_t i = 0; i < a.gpuLinks.size(); ++i) {
        const GpuLink &x = a.gpuLinks[i], &y = b.gpuLinks[i];
        if (x.gpuEvent != y.gpuEvent || x.parent != y.parent || x.hostNode != y.hostNode || x.rule != y.rule
            || x.orphan != y.orphan || x.confidence != y.confidence)
            return false;
    }
    return edgeSet(a) == edgeSet(b);
}

using linkscope::test::readFile;

void writeFile(const std::string &path, const std::string &content)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

} // namespace

class TestCorrections : public QObject {
    Q_OBJECT

private slots:
    void sha256Vectors_data();
    void sha256Vectors();
    void sha256PiecesMatchWhole();
    void fingerprintOfFile();

    void keysRoundTrip();
    void keysOfGraphKernelsFollowTime();
    void seedReparentUnderExternalIdPolicy();
    void undoRestoresEveryStep();
    void logPrefixEqualsUndo();
    void restoreAndDetach();
    void edgeEditsAndUndo();
    void rejectedEdits();
    void annotationsAndReviews();
    void bulkSuggestionIsOneStep();

    void sidecarRoundTrip();
    void staleEditsReported();
    void inputMismatchReportedAndFileUntouched();
    void malformedSidecars_data();
    void malformedSidecars();
    void failedSaveKeepsPreviousFile();
    void diffOfParents();
};

void TestCorrections::sha256Vectors_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("expected");
    // FIPS 180-2 appendix B (B.1, B.2), the empty string, and NIST's 896-bit message;
    // each also checked with python3 hashlib.sha256.
    QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                              << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    QTest::newRow("896 bits") << QByteArray(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                              << "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
    QTest::newRow("million a") << QByteArray(1'000'000, 'a')
                               << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
}

void TestCorrections::sha256Vectors()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(sha256Hex(std::string_view(input.constData(), std::size_t(input.size())))), expected);
    // The same bytes fed in pieces of 1, 2, 3, ... bytes.
    Sha256 pieces;
    for (qsizetype at = 0, piece = 1; at < input.size(); at += piece, ++piece)
        pieces.update(input.constData() + at, std::size_t(std::min(piece, input.size() - at)));
    QCOMPARE(QString::fromStdString(Sha256::toHex(pieces.finish())), expected);
}

void TestCorrections::sha256PiecesMatchWhole()
{
    // Every length 0..300 fed in uneven pieces equals the one-call digest, so the streaming state
    // carries partial blocks across every block boundary.
    std::string data(300, '\0');
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>((i * 131 + 7) & 0xff);
    for (std::size_t length = 0; length <= data.size(); ++length) {
        Sha256 streamed;
        for (std::size_t at = 0, piece = 1; at < length; at += piece, piece = piece % 70 + 13)
            streamed.update(data.data() + at, std::min(piece, length - at));
        QCOMPARE(Sha256::toHex(streamed.finish()), sha256Hex(std::string_view(data.data(), length)));
    }
}

void TestCorrections::fingerprintOfFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string data(1'000'003, '\0');
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>((i * 7) % 251);
    const std::string path = dir.filePath("data.bin").toStdString();
    writeFile(path, data);
    std::uint64_t lastDone = 0;
    const FileFingerprint f = fingerprintFile(path, [&](std::uint64_t done, std::uint64_t total) {
        lastDone = done;
        return total == data.size();
    });
    // python3 -c "import hashlib; print(hashlib.sha256(bytes((i*7)%251 for i in range(1000003))).hexdigest())"
    QCOMPARE(f.sha256, std::string("6e0aa3a3e4afdd717e6af8d151be7c532fce9607f2086e89d0136acffec3f3ae"));
    QCOMPARE(f.size, std::uint64_t(1'000'003));
    QCOMPARE(lastDone, std::uint64_t(1'000'003));
    QVERIFY_THROWS_EXCEPTION(Cancelled, fingerprintFile(path, [](std::uint64_t, std::uint64_t) { return false; }));
    QVERIFY_THROWS_EXCEPTION(LoadError, fingerprintFile(dir.filePath("absent.bin").toStdString()));
}

void TestCorrections::keysRoundTrip()
{
    Fixture fx;
    SubjectResolver resolver(fx.device, &fx.host);
    for (EventIndex i{0}; i.in(Fixture::EventCount); ++i) {
        const SubjectKey key = resolver.keyOfEvent(i);
        const auto resolved = resolver.resolve(key);
        QVERIFY2(resolved.ok(), resolved.problem.c_str());
        QCOMPARE(resolved.event, i);
    }
    // Which identity each kind of event gets.
    const SubjectKey kernel = resolver.keyOfEvent(Fixture::NcclKernel);
    QCOMPARE(kernel.kind, KeyKind::GpuOp);
    QCOMPARE(kernel.correlation, 5000);
    QCOMPARE(kernel.pid.number, 0);
    const SubjectKey comms = resolver.keyOfEvent(Fixture::RecordParamComms);
    QCOMPARE(comms.kind, KeyKind::CpuOp);
    QCOMPARE(comms.rfId, std::uint64_t(19));
    QCOMPARE(comms.pid.number, 4242);
    const SubjectKey python = resolver.keyOfEvent(Fixture::PythonFrame);
    QCOMPARE(python.rfId, std::uint64_t(0));
    QCOMPARE(python.evIdx, kNoId);
    QCOMPARE(python.ts, Nanos(290'000));
    QCOMPARE(python.tid.number, 1400);
    QCOMPARE(resolver.keyOfEvent(Fixture::CopyLaunch).kind, KeyKind::Runtime);
    // A host node by its ET id.
    const SubjectKey node = resolver.keyOfHostNode(HostNodeIndex(1));
    QCOMPARE(node.hostId, 31);
    QCOMPARE(resolver.resolve(node).hostNode, HostNodeIndex(1));

    // Keys equal field by field when made from a second copy of the same trace (a reload).
    Fixture reloaded;
    SubjectResolver again(reloaded.device, &reloaded.host);
    for (EventIndex i{0}; i.in(Fixture::EventCount); ++i)
        QVERIFY(again.keyOfEvent(i) == resolver.keyOfEvent(i));
}

void TestCorrections::keysOfGraphKernelsFollowTime()
{
    Fixture fx;
    SubjectResolver resolver(fx.device, &fx.host);
    // The three kernels of correlation 6000 start at 215, 210, 220 µs (file order): ordinals by time.
    QCOMPARE(resolver.keyOfEvent(Fixture::GraphKernel1).ordinal, 0u);
    QCOMPARE(resolver.keyOfEvent(Fixture::GraphKernel0).ordinal, 1u);
    QCOMPARE(resolver.keyOfEvent(Fixture::GraphKernel2).ordinal, 2u);
    SubjectKey fourth = resolver.keyOfEvent(Fixture::GraphKernel2);
    fourth.ordinal = 3;
    const auto missing = resolver.resolve(fourth);
    QVERIFY(!missing.ok());
    QVERIFY(missing.problem.find("only 3 op(s)") != std::string::npos);
}

void TestCorrections::seedReparentUnderExternalIdPolicy()
{
    Fixture fx;
    // Under the external-id policy the NCCL kernel hangs off record_param_comms (issue #196).
    QCOMPARE(parentOf(fx.links, Fixture::NcclKernel), Fixture::RecordParamComms);
    LinkEditor editor(fx.links, fx.device, &fx.host);
    const Edit edit = editor.reparent(Fixture::NcclKernel, Fixture::NcclAllGather);
    QCOMPARE(edit.target.rfId, std::uint64_t(20));
    const auto outcomes = editor.apply({"Re-parent the NCCL kernel", {edit}});
    QCOMPARE(outcomes.size(), std::size_t(1));
    QCOMPARE(outcomes[0].status, EditStatus::Applied);
    const GpuLink &link = fx.links.gpuLinks[fx.links.gpuLinkOf[Fixture::NcclKernel]];
    QCOMPARE(link.parent, Fixture::NcclAllGather);
    QCOMPARE(link.hostNode, HostNodeIndex(1)); // ET node 31
    QCOMPARE(link.rule, ParentRule::Manual);
    QCOMPARE(link.orphan, OrphanReason::None);
    QVERIFY(editor.isCorrected(fx.links.gpuLinkOf[Fixture::NcclKernel]));
    QCOMPARE(editor.linkerChoice(fx.links.gpuLinkOf[Fixture::NcclKernel]).parent, Fixture::RecordParamComms);
    // The launch and the launch edge are not the parent's business.
    QCOMPARE(link.launch, Fixture::LaunchNccl);
}

void TestCorrections::undoRestoresEveryStep()
{
    Fixture fx;
    const Fixture pristine;
    LinkEditor editor(fx.links, fx.device, &fx.host);
    editor.apply({"a", {editor.reparent(Fixture::NcclKernel, Fixture::NcclAllGather)}});
    editor.apply({"b", {editor.detach(Fixture::Memcpy)}});
    editor.apply({"c", {editor.removeEdge(Fixture::NcclKernel, Fixture::CopyOp, EdgeKind::Sync)}});
    QCOMPARE(editor.appliedEntries(), std::size_t(3));
    QVERIFY(!sameLinks(fx.links, pristine.links));
    QVERIFY(editor.undoLast());
    QVERIFY(editor.undoLast());
    QVERIFY(editor.undoLast());
    QVERIFY(!editor.undoLast());
    QVERIFY(sameLinks(fx.links, pristine.links));
    QCOMPARE(fx.links.edges.size(), pristine.links.edges.size());
}

void TestCorrections::logPrefixEqualsUndo()
{
    // Applying the first k entries of a log equals applying all and undoing the last n − k.
    Fixture base;
    LinkEditor maker(base.links, base.device, &base.host);
    CorrectionLog log;
    log.entries.push_back({"reparent", {maker.reparent(Fixture::NcclKernel, Fixture::NcclAllGather)}});
    log.entries.push_back({"detach", {maker.detach(Fixture::GraphKernel0)}});
    log.entries.push_back({"add sync", {maker.addEdge(Fixture::GraphKernel2, Fixture::CopyOp, EdgeKind::Sync)}});
    log.entries.push_back(
        {"remove inter-thread", {maker.removeEdge(Fixture::RecordParamComms, Fixture::CopyOp, EdgeKind::InterThread)}});
    log.entries.push_back({"restore", {maker.restore(Fixture::NcclKernel)}});

    for (std::size_t k = 0; k <= log.entries.size(); ++k) {
        Fixture prefix;
        const ApplyResult result = applyCorrections(log, prefix.links, prefix.device, &prefix.host, k);
        QCOMPARE(result.outcomes.size(), k);
        QCOMPARE(result.count(EditStatus::Applied), k);

        Fixture full;
        LinkEditor editor(full.links, full.device, &full.host);
        for (std::size_t i = 0; i < log.entries.size(); ++i)
            editor.apply(log.entries[i], i);
        for (std::size_t i = log.entries.size(); i > k; --i)
            QVERIFY(editor.undoLast());
        QVERIFY2(sameLinks(prefix.links, full.links), qPrintable(QStringLiteral("prefix %1").arg(k)));
    }

    // The values themselves, after the whole log.
    Fixture all;
    applyCorrections(log, all.links, all.device, &all.host);
    QCOMPARE(parentOf(all.links, Fixture::NcclKernel), Fixture::RecordParamComms); // restored
    QCOMPARE(all.links.gpuLinks[all.links.gpuLinkOf[Fixture::NcclKernel]].rule, ParentRule::ExternalId);
    QCOMPARE(all.links.gpuLinks[all.links.gpuLinkOf[Fixture::GraphKernel0]].orphan, OrphanReason::Detached);
    const auto edges = edgeSet(all.links);
    QVERIFY(std::count(edges.begin(), edges.end(), std::make_tuple(Fixture::GraphKernel2, Fixture::CopyOp, int(EdgeKind::Sync)))
            == 1);
    QVERIFY(std::count(edges.begin(), edges.end(),
                       std::make_tuple(Fixture::RecordParamComms, Fixture::CopyOp, int(EdgeKind::InterThread)))
            == 0);
    QCOMPARE(all.links.edges.size(), Fixture().links.edges.size());
}

void TestCorrections::restoreAndDetach()
{
    Fixture fx;
    LinkEditor editor(fx.links, fx.device, &fx.host);
    // Restoring a link nobody changed does nothing, and says so.
    auto outcome = editor.apply({"r", {editor.restore(Fixture::Memcpy)}});
    QCOMPARE(outcome[0].status, EditStatus::Unchanged);
    editor.apply({"d", {editor.detach(Fixture::Memcpy)}});
    const GpuLink &link = fx.links.gpuLinks[fx.links.gpuLinkOf[Fixture::Memcpy]];
    QCOMPARE(link.parent, kNone);
    QCOMPARE(link.hostNode, kNone);
    QCOMPARE(link.orphan, OrphanReason::Detached);
    QCOMPARE(link.rule, ParentRule::Manual);
    outcome = editor.apply({"r", {editor.restore(Fixture::Memcpy)}});
    QCOMPARE(outcome[0].status, EditStatus::Applied);
    QCOMPARE(link.parent, Fixture::CopyOp);
    QCOMPARE(link.hostNode, HostNodeIndex(3));
    QCOMPARE(link.rule, ParentRule::ExternalId);
    QCOMPARE(link.orphan, OrphanReason::None);
    // Re-parenting the orphan kernel (no correlation at all: keyed by ordinal among pid 0's
    // uncorrelated GPU ops) attaches it.
    outcome = editor.apply({"attach", {editor.reparent(Fixture::OrphanKernel, Fixture::CopyOp)}});
    QCOMPARE(outcome[0].status, EditStatus::Applied);
    QCOMPARE(parentOf(fx.links, Fixture::OrphanKernel), Fixture::CopyOp);
    QCOMPARE(fx.links.gpuLinks[fx.links.gpuLinkOf[Fixture::OrphanKernel]].orphan, OrphanReason::None);
}

void TestCorrections::edgeEditsAndUndo()
{
    Fixture fx;
    const auto before = fx.links.edges;
    LinkEditor editor(fx.links, fx.device, &fx.host);
    // Remove an edge from the middle: the last edge refills its slot.
    editor.apply({"rm", {editor.removeEdge(Fixture::NcclKernel, Fixture::CopyOp, EdgeKind::Sync)}});
    QCOMPARE(fx.links.edges.size(), before.size() - 1);
    QCOMPARE(fx.links.edges[3].from, Fixture::Memcpy);
    // Removing it again: it is not there.
    auto outcome = editor.apply({"rm again", {editor.removeEdge(Fixture::NcclKernel, Fixture::CopyOp, EdgeKind::Sync)}});
    QCOMPARE(outcome[0].status, EditStatus::Stale);
    // Add one, add it twice, remove the inter-thread edge that now sits elsewhere.
    editor.apply({"add", {editor.addEdge(Fixture::Memcpy, Fixture::GraphStep, EdgeKind::Sync)}});
    outcome = editor.apply({"add twice", {editor.addEdge(Fixture::Memcpy, Fixture::GraphStep, EdgeKind::Sync)}});
    QCOMPARE(outcome[0].status, EditStatus::Unchanged);
    editor.apply({"rm it", {editor.removeEdge(Fixture::RecordParamComms, Fixture::CopyOp, EdgeKind::InterThread)}});
    editor.apply({"rm added", {editor.removeEdge(Fixture::Memcpy, Fixture::GraphStep, EdgeKind::Sync)}});
    QCOMPARE(fx.links.edges.size(), before.size() - 2);
    while (editor.undoLast()) { }
    // Undo puts every edge back in its original slot.
    QCOMPARE(fx.links.edges.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(fx.links.edges[i].from, before[i].from);
        QCOMPARE(fx.links.edges[i].to, before[i].to);
        QCOMPARE(fx.links.edges[i].kind, before[i].kind);
    }
}

void TestCorrections::rejectedEdits()
{
    Fixture fx;
    LinkEditor editor(fx.links, fx.device, &fx.host);
    // Parent must be a CPU op; the subject must be a GPU op; launch/stream-order edges are the
    // linker's, not the user's.
    const auto outcomes = editor.apply(
        {"bad",
         {editor.reparent(Fixture::NcclKernel, Fixture::LaunchNccl), editor.reparent(Fixture::NcclKernel, Fixture::PythonFrame),
          editor.reparent(Fixture::RecordParamComms, Fixture::NcclAllGather),
          editor.addEdge(Fixture::LaunchNccl, Fixture::GraphKernel0, EdgeKind::Launch),
          editor.addEdge(Fixture::NcclKernel, Fixture::CopyOp, EdgeKind::InterThread),
          editor.addEdge(Fixture::CopyOp, Fixture::CopyOp, EdgeKind::InterThread)}});
    QCOMPARE(outcomes.size(), std::size_t(6));
    for (const EditOutcome &o : outcomes) {
        QCOMPARE(o.status, EditStatus::Rejected);
        QVERIFY(!o.reason.empty());
    }
    QVERIFY(sameLinks(fx.links, Fixture().links));
}

void TestCorrections::annotationsAndReviews()
{
    Fixture fx;
    LinkEditor editor(fx.links, fx.device, &fx.host);
    editor.apply({"flag", {editor.flag(Fixture::NcclKernel, "should be under nccl:*")}});
    editor.apply({"reflag", {editor.flag(Fixture::NcclKernel, "see issue #196")}});
    editor.apply({"accept", {editor.accept(Fixture::Memcpy)}});
    editor.apply({"note", {editor.note(Fixture::GraphStep, "graph replay")}});
    editor.apply({"reviewed", {editor.markReviewed(fx.links.findings[1], "known orphan")}});
    const ReviewState &review = editor.review();
    QCOMPARE(review.flags.at(Fixture::NcclKernel), std::string("see issue #196"));
    QVERIFY(review.accepted.count(Fixture::Memcpy));
    QCOMPARE(review.notes.at(Fixture::GraphStep), std::string("graph replay"));
    QVERIFY(review.isReviewed(fx.links.findings[1]));
    QVERIFY(!review.isReviewed(fx.links.findings[0]));
    editor.undoLast();
    editor.undoLast();
    editor.undoLast();
    QVERIFY(!review.isReviewed(fx.links.findings[1]));
    QVERIFY(review.notes.empty());
    QVERIFY(review.accepted.empty());
    QCOMPARE(review.flags.at(Fixture::NcclKernel), std::string("see issue #196"));
    editor.undoLast(); // the second flag gives way to the first
    QCOMPARE(review.flags.at(Fixture::NcclKernel), std::string("should be under nccl:*"));
    editor.undoLast();
    QVERIFY(review.flags.empty());
}

void TestCorrections::bulkSuggestionIsOneStep()
{
    Fixture fx;
    // A second NCCL-style finding on the memcpy, suggesting the copy's parent be the python frame's
    // CPU neighbour graph_step (any CPU op will do for the test).
    Finding extra;
    extra.kind = FindingKind::NcclParentIsRecordParamComms;
    extra.event = Fixture::Memcpy;
    extra.suggestedParent = Fixture::GraphStep;
    std::vector<Finding> findings = fx.links.findings.toVector();
    findings.push_back(extra);
    fx.links.findings = FindingList(std::move(findings), {}, {}, {});
    LinkEditor editor(fx.links, fx.device, &fx.host);
    const LogEntry bulk = editor.applySuggestions(FindingKind::NcclParentIsRecordParamComms);
    QCOMPARE(bulk.edits.size(), std::size_t(2));
    QVERIFY(editor.applySuggestions(FindingKind::OrphanGpuOp).edits.empty()); // no suggested parent
    const auto outcomes = editor.apply(bulk);
    QCOMPARE(outcomes.size(), std::size_t(2));
    QCOMPARE(parentOf(fx.links, Fixture::NcclKernel), Fixture::NcclAllGather);
    QCOMPARE(parentOf(fx.links, Fixture::Memcpy), Fixture::GraphStep);
    QCOMPARE(editor.appliedEntries(), std::size_t(1));
    QVERIFY(editor.undoLast());
    QCOMPARE(parentOf(fx.links, Fixture::NcclKernel), Fixture::RecordParamComms);
    QCOMPARE(parentOf(fx.links, Fixture::Memcpy), Fixture::CopyOp);

    // A suggestion already in force (the GPU op is on the suggested parent) gives no no-op edit.
    Fixture done;
    Finding already;
    already.kind = FindingKind::LaunchOutsideParent;
    already.event = Fixture::Memcpy;
    already.suggestedParent = parentOf(done.links, Fixture::Memcpy);
    std::vector<Finding> doneFindings = done.links.findings.toVector();
    doneFindings.push_back(already);
    done.links.findings = FindingList(std::move(doneFindings), {}, {}, {});
    LinkEditor doneEditor(done.links, done.device, &done.host);
    for (const Edit &edit : doneEditor.applySuggestions(FindingKind::LaunchOutsideParent).edits)
        QVERIFY(!(edit.subject == doneEditor.resolver().keyOfEvent(Fixture::Memcpy)));
}

void TestCorrections::sidecarRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Fixture fx;
    LinkEditor maker(fx.links, fx.device, &fx.host);
    Sidecar sidecar;
    sidecar.generator = "test";
    sidecar.device = {"/traces/seed.json", 1234, std::string(64, 'a')};
    sidecar.host = FileFingerprint{"/traces/seed_host.json", 99, std::string(64, 'b')};
    sidecar.policy = Policy::ExternalId;
    sidecar.interThreadDeps = true;
    sidecar.log.entries.push_back({"reparent", {maker.reparent(Fixture::NcclKernel, Fixture::NcclAllGather)}});
    sidecar.log.entries.push_back({"bulk",
                                   {maker.detach(Fixture::GraphKernel1), maker.reparent(Fixture::OrphanKernel, Fixture::CopyOp),
                                    maker.flag(Fixture::Memcpy, "ünïcode note \"quoted\"")}});
    sidecar.log.entries.push_back({"edges",
                                   {maker.addEdge(Fixture::GraphKernel2, Fixture::PythonFrame, EdgeKind::Sync),
                                    maker.removeEdge(Fixture::RecordParamComms, Fixture::CopyOp, EdgeKind::InterThread)}});
    sidecar.log.entries.push_back(
        {"review", {maker.markReviewed(fx.links.findings[1], "ok"), maker.accept(Fixture::GraphKernel0)}});
    sidecar.log.entries.push_back({"host review", {[&] {
                                       Edit e;
                                       e.kind = EditKind::MarkReviewed;
                                       e.finding = FindingKind::EtParentMissing;
                                       e.subject = maker.resolver().keyOfHostNode(HostNodeIndex(2));
                                       return e;
                                   }()}});

    const std::string path = defaultSidecarPath(dir.filePath("seed.json").toStdString());
    QVERIFY(path.size() > 15 && path.substr(path.size() - 15) == ".linkscope.json");
    saveSidecar(sidecar, path);
    // No temporary file is left behind.
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), std::filesystem::directory_iterator()),
             1);

    const Sidecar loaded = loadSidecar(path);
    QVERIFY(loaded.log == sidecar.log);
    QCOMPARE(loaded.device.sha256, sidecar.device.sha256);
    QCOMPARE(loaded.host->path, sidecar.host->path);
    QCOMPARE(loaded.policy, Policy::ExternalId);
    QVERIFY(loaded.interThreadDeps);
    // The document says what it is.
    const auto json = nlohmann::json::parse(readFile(path));
    QCOMPARE(json["format"].get<std::string>(), std::string("linkscope-corrections"));
    QCOMPARE(json["version"].get<int>(), 1);
    QCOMPARE(json["entries"][0]["edits"][0]["target"]["rf_id"].get<std::uint64_t>(), std::uint64_t(20));

    // Re-applying the loaded log to a fresh copy of the traces gives the links of applying the
    // original log to another fresh copy.
    Fixture a, b;
    const ApplyResult ra = applyCorrections(sidecar.log, a.links, a.device, &a.host);
    const ApplyResult rb = applyCorrections(loaded.log, b.links, b.device, &b.host);
    QCOMPARE(ra.count(EditStatus::Applied), sidecar.log.editCount());
    QCOMPARE(rb.count(EditStatus::Applied), sidecar.log.editCount());
    QVERIFY(sameLinks(a.links, b.links));
    QCOMPARE(parentOf(b.links, Fixture::NcclKernel), Fixture::NcclAllGather);
    QCOMPARE(parentOf(b.links, Fixture::OrphanKernel), Fixture::CopyOp);
    QCOMPARE(b.links.gpuLinks[b.links.gpuLinkOf[Fixture::GraphKernel1]].orphan, OrphanReason::Detached);
}

void TestCorrections::staleEditsReported()
{
    Fixture fx;
    LinkEditor maker(fx.links, fx.device, &fx.host);
    CorrectionLog log;
    Edit gone = maker.reparent(Fixture::NcclKernel, Fixture::NcclAllGather);
    gone.subject.correlation = 999999; // a kernel the trace no longer has
    Edit renamed = maker.detach(Fixture::Memcpy);
    renamed.subject.name = "Memcpy DtoH"; // the event there now has another name
    Edit goneTarget = maker.reparent(Fixture::GraphKernel0, Fixture::GraphStep);
    goneTarget.target.rfId = 123456;
    Edit good = maker.reparent(Fixture::NcclKernel, Fixture::NcclAllGather);
    log.entries.push_back({"mixed", {gone, renamed, good, goneTarget}});

    const ApplyResult result = applyCorrections(log, fx.links, fx.device, &fx.host);
    QCOMPARE(result.outcomes.size(), std::size_t(4));
    QCOMPARE(result.count(EditStatus::Stale), std::size_t(3));
    QCOMPARE(result.count(EditStatus::Applied), std::size_t(1));
    const auto problems = result.problems();
    QCOMPARE(problems.size(), std::size_t(3));
    QCOMPARE(problems[0].edit, std::size_t(0));
    QVERIFY(problems[0].reason.find("no GPU op with that correlation") != std::string::npos);
    QCOMPARE(problems[1].edit, std::size_t(1));
    QVERIFY(problems[1].reason.find("now named 'Memcpy HtoD (Pageable -> Device)'") != std::string::npos);
    QCOMPARE(problems[2].edit, std::size_t(3));
    QVERIFY(problems[2].reason.find("new parent") != std::string::npos);
    QVERIFY(problems[2].reason.find("Record function id") != std::string::npos);
    // The good edit still applied; the stale ones changed nothing.
    QCOMPARE(parentOf(fx.links, Fixture::NcclKernel), Fixture::NcclAllGather);
    QCOMPARE(parentOf(fx.links, Fixture::Memcpy), Fixture::CopyOp);
    QCOMPARE(parentOf(fx.links, Fixture::GraphKernel0), Fixture::GraphStep);
    QCOMPARE(fx.links.gpuLinks[fx.links.gpuLinkOf[Fixture::GraphKernel0]].rule, ParentRule::ExternalId);

    // Device-only (no host trace): host-node subjects are stale, not dropped.
    Fixture deviceOnly;
    CorrectionLog hostLog;
    Edit review;
    review.kind = EditKind::MarkReviewed;
    review.finding = FindingKind::EtParentMissing;
    review.subject = maker.resolver().keyOfHostNode(HostNodeIndex(0));
    hostLog.entries.push_back({"r", {review}});
    const ApplyResult noHost = applyCorrections(hostLog, deviceOnly.links, deviceOnly.device, nullptr);
    QCOMPARE(noHost.count(EditStatus::Stale), std::size_t(1));
    QVERIFY(noHost.problems()[0].reason.find("no host trace") != std::string::npos);
}

void TestCorrections::inputMismatchReportedAndFileUntouched()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string devicePath = dir.filePath("trace.json").toStdString();
    writeFile(devicePath, "{\"traceEvents\": []}");
    Sidecar sidecar;
    sidecar.device = fingerprintFile(devicePath);
    // python3 -c "import hashlib; print(hashlib.sha256(b'{\"traceEvents\": []}').hexdigest())"
    QCOMPARE(sidecar.device.sha256, std::string("3c0892699e7cf0d0e96e61b80ac16371685e409c49e227aa7f2d67d71592f472"));
    QCOMPARE(sidecar.device.size, std::uint64_t(19));
    const std::string sidecarPath = defaultSidecarPath(devicePath);
    saveSidecar(sidecar, sidecarPath);
    const std::string savedText = readFile(sidecarPath);
    const auto savedTime = std::filesystem::last_write_time(sidecarPath);

    QVERIFY(checkInputs(loadSidecar(sidecarPath), fingerprintFile(devicePath), std::nullopt).matches);

    // Same size, different bytes: the hash tells.
    writeFile(devicePath, "{\"traceEvents\": {}}");
    InputCheck check = checkInputs(loadSidecar(sidecarPath), fingerprintFile(devicePath), std::nullopt);
    QVERIFY(!check.matches);
    QCOMPARE(check.problems.size(), std::size_t(1));
    QVERIFY(check.problems[0].find("SHA-256") != std::string::npos);
    // Different size.
    writeFile(devicePath, "{\"traceEvents\": [ ]}");
    check = checkInputs(loadSidecar(sidecarPath), fingerprintFile(devicePath), std::nullopt);
    QVERIFY(!check.matches);
    QVERIFY(check.problems[0].find("bytes") != std::string::npos);
    // A host trace the sidecar never saw.
    writeFile(devicePath, "{\"traceEvents\": []}");
    check = checkInputs(loadSidecar(sidecarPath), fingerprintFile(devicePath),
                        FileFingerprint{"host.json", 3, std::string(64, '0')});
    QVERIFY(!check.matches);
    QVERIFY(check.problems[0].find("without a host trace") != std::string::npos);

    // Reading and checking never writes the sidecar.
    QCOMPARE(readFile(sidecarPath), savedText);
    QVERIFY(std::filesystem::last_write_time(sidecarPath) == savedTime);
}

void TestCorrections::malformedSidecars_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expectedMessage");
    QTest::addColumn<qint64>("expectedOffset"); // -1: no offset (a semantic error names a JSON pointer)
    const QString device = R"("inputs": {"device": {"path": "t.json", "size": 1, "sha256": "%1"}})";
    const QString okDevice = device.arg(QString(64, QLatin1Char('a')));
    const QString head = QStringLiteral(
                             R"({"format": "linkscope-corrections", "version": 1, %1, "link_options": {"policy": "nesting"}, )")
                             .arg(okDevice);

    // 41 bytes, cut inside a string: the error points at the end of the input.
    QTest::newRow("truncated") << QStringLiteral(R"({"format": "linkscope-corrections", "vers)") << "malformed JSON"
                               << qint64(41);
    QTest::newRow("bad token") << QStringLiteral(R"({"format": "linkscope-corrections", "version": x})") << "malformed JSON"
                               << qint64(47); // python3: s.index("x") == 47
    QTest::newRow("not an object") << "[1, 2]"
                                   << "expected a JSON object" << qint64(-1);
    QTest::newRow("another format") << R"({"format": "chrome-trace", "version": 1})"
                                    << "not a Linkscope corrections file" << qint64(-1);
    QTest::newRow("newer version") << R"({"format": "linkscope-corrections", "version": 2})"
                                   << "newer Linkscope" << qint64(-1);
    QTest::newRow("bad hash")
        << QStringLiteral(
               R"({"format": "linkscope-corrections", "version": 1, %1, "link_options": {"policy": "nesting"}, "entries": []})")
               .arg(device.arg("xyz"))
        << "/inputs/device/sha256: expected 64 hexadecimal digits" << qint64(-1);
    QTest::newRow("unknown policy") << QString(head).replace("\"nesting\"", "\"closest\"") + R"("entries": []})"
                                    << "/link_options/policy: unknown policy 'closest'" << qint64(-1);
    QTest::newRow("unknown edit kind")
        << head + R"("entries": [{"label": "x", "edits": [{"kind": "teleport", "subject": {"kind": "trace"}}]}]})"
        << "/entries/0/edits/0/kind: unknown edit kind 'teleport'" << qint64(-1);
    QTest::newRow("subject without name")
        << head + R"("entries": [{"edits": [{"kind": "detach", "subject": {"kind": "gpu_op", "pid": 0, "correlation": 5}}]}]})"
        << "/entries/0/edits/0/subject: missing \"name\"" << qint64(-1);
    QTest::newRow("edge kind")
        << head
               + R"("entries": [{"edits": [{"kind": "add_edge", "subject": {"kind": "trace"}, "target": {"kind": "trace"}, "edge": "magic"}]}]})"
        << "/entries/0/edits/0/edge: unknown edge kind 'magic'" << qint64(-1);
    QTest::newRow("pid type")
        << head
               + R"("entries": [{"edits": [{"kind": "detach", "subject": {"kind": "gpu_op", "pid": 1.5, "correlation": 5, "name": "k"}}]}]})"
        << "/entries/0/edits/0/subject/pid: expected an integer or a string" << qint64(-1);
}

void TestCorrections::malformedSidecars()
{
    QFETCH(QString, text);
    QFETCH(QString, expectedMessage);
    QFETCH(qint64, expectedOffset);
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.linkscope.json").toStdString();
    writeFile(path, text.toStdString());
    try {
        loadSidecar(path);
        QFAIL("loaded a malformed sidecar");
    } catch (const LoadError &e) {
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(path));
        QVERIFY2(QString::fromUtf8(e.what()).contains(expectedMessage), e.what());
        if (expectedOffset < 0)
            QCOMPARE(e.offset(), kUnknownOffset);
        else
            QCOMPARE(qint64(e.offset()), expectedOffset);
    }
    QCOMPARE(QString::fromStdString(readFile(path)), text); // never rewritten
}

void TestCorrections::failedSaveKeepsPreviousFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Sidecar sidecar;
    sidecar.device = {"t.json", 1, std::string(64, 'c')};
    const std::string path = dir.filePath("t.json.linkscope.json").toStdString();
    saveSidecar(sidecar, path);
    const std::string first = readFile(path);
    // Overwrite with a longer log: replaced whole.
    sidecar.log.entries.push_back({"n", {[] {
                                       Edit e;
                                       e.kind = EditKind::Note;
                                       e.subject = SubjectResolver::traceKey();
                                       e.note = "hello";
                                       return e;
                                   }()}});
    saveSidecar(sidecar, path);
    QVERIFY(loadSidecar(path).log == sidecar.log);
    // A folder that does not exist: the save fails loudly.
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, saveSidecar(sidecar, dir.filePath("missing/x.linkscope.json").toStdString()));
    // A read-only folder (unless running as root, which may write anyway): previous file intact.
    const std::string second = readFile(path);
    std::filesystem::permissions(dir.path().toStdString(),
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    bool threw = false;
    try {
        saveSidecar(Sidecar{}, path);
    } catch (const std::runtime_error &) {
        threw = true;
    }
    std::filesystem::permissions(dir.path().toStdString(), std::filesystem::perms::owner_all);
    if (threw)
        QCOMPARE(readFile(path), second);
    QVERIFY(first != second);
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), std::filesystem::directory_iterator()),
             1);
}

void TestCorrections::diffOfParents()
{
    Fixture before;
    Fixture after;
    applyCorrections({{{"x",
                        {LinkEditor(after.links, after.device, &after.host).reparent(Fixture::NcclKernel, Fixture::NcclAllGather),
                         LinkEditor(after.links, after.device, &after.host).detach(Fixture::Memcpy)}}}},
                     after.links, after.device, &after.host);
    const ParentDiff diff = diffParents(before.links, after.links);
    QCOMPARE(diff.compared, std::size_t(6));
    QCOMPARE(diff.changes.size(), std::size_t(2));
    QCOMPARE(diff.changes[0].gpuEvent, Fixture::NcclKernel);
    QCOMPARE(diff.changes[0].before, Fixture::RecordParamComms);
    QCOMPARE(diff.changes[0].after, Fixture::NcclAllGather);
    QCOMPARE(diff.changes[1].gpuEvent, Fixture::Memcpy);
    QCOMPARE(diff.changes[1].after, kNone);
    QCOMPARE(diff.changes[1].orphanAfter, OrphanReason::Detached);
    QVERIFY(diffParents(before.links, before.links).changes.empty());
    LinkSet fewer;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, diffParents(before.links, fewer));
}

QTEST_GUILESS_MAIN(TestCorrections)
#include "test_corrections.moc"
