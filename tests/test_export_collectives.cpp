// How GPU ops become Chakra communication nodes: the collective's own metadata before kernel names,
// send/recv peers as int32 attrs, nccl:coalesced groups, and no abort on an unknown collective
// (core/collective/classify.h: the collective's metadata before kernel names). The pair is built in memory; every expected value below
// follows from the fixture by the rules of docs/astra-sim-export.md (e.g. comm_size = numel × itemsize of the
// parent op's tensor inputs: 256 × 2 bytes for a Half tensor of 256 elements).

#include "testsupport.h"

#include "collective/classify.h"
#include "export/chakra/chakrakind.h"
#include "export/exporter.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <map>
#include <sstream>

using namespace linkscope::core;

namespace {

struct Op {
    int id;
    const char *name;
    int parent;
    int rf;
    const char *inputs; // {"values":…, "shapes":…, "types":…}
};

// One CPU thread (pid 7, tid 70) on rank 0 of 2; each op launches at most one kernel on stream 9.
struct Launch {
    int rf; // the launching op
    const char *kernel;
    const char *extraArgs; // Kineto collective args on the kernel ("" for none)
};

std::string hostJson(const std::vector<Op> &ops)
{
    std::ostringstream out;
    out << R"({"schema":"1.1.1-chakra.0.0.4","pid":7,"time":"t","start_ts":1,"finish_ts":2,"nodes":[)";
    out << R"({"id":1,"name":"[pytorch|profiler|execution_trace|process]","ctrl_deps":1,"inputs":{"values":[],"shapes":[],"types":[]},"outputs":{"values":[],"shapes":[],"types":[]},"attrs":[{"name":"rf_id","type":"uint64","value":0},{"name":"fw_parent","type":"uint64","value":0},{"name":"seq_id","type":"int64","value":-1},{"name":"scope","type":"uint64","value":7},{"name":"tid","type":"uint64","value":0},{"name":"fw_tid","type":"uint64","value":0},{"name":"op_schema","type":"string","value":""}]},)";
    out << R"({"id":2,"name":"[pytorch|profiler|execution_trace|thread]","ctrl_deps":1,"inputs":{"values":[],"shapes":[],"types":[]},"outputs":{"values":[],"shapes":[],"types":[]},"attrs":[{"name":"rf_id","type":"uint64","value":0},{"name":"fw_parent","type":"uint64","value":0},{"name":"seq_id","type":"int64","value":-1},{"name":"scope","type":"uint64","value":7},{"name":"tid","type":"uint64","value":1},{"name":"fw_tid","type":"uint64","value":0},{"name":"op_schema","type":"string","value":""}]})";
    for (const Op &op : ops)
        out << R"(,{"id":)" << op.id << R"(,"name":")" << op.name << R"(","ctrl_deps":)" << op.parent << R"(,"inputs":)"
            << op.inputs << R"(,"outputs":{"values":[],"shapes":[],"types":[]},"attrs":[{"name":"rf_id","type":"uint64","value":)"
            << op.rf
            << R"(},{"name":"fw_parent","type":"uint64","value":0},{"name":"seq_id","type":"int64","value":-1},{"name":"scope","type":"uint64","value":0},{"name":"tid","type":"uint64","value":1},{"name":"fw_tid","type":"uint64","value":0},{"name":"op_schema","type":"string","value":""}]})";
    out << "]}";
    return out.str();
}

// Ops nest by the host tree: a parent spans its children. Times are µs; each op i gets
// [start, start + span) computed from its depth so nesting holds.
std::string kinetoJson(const std::vector<Op> &ops, const std::vector<Launch> &launches)
{
    std::ostringstream out;
    out << R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":0,"world_size":2},"traceEvents":[)";
    bool first = true;
    auto sep = [&]() {
        out << (first ? "" : ",");
        first = false;
    };
    // Top-level ops get 1000 µs slots; a child sits 10 µs inside its parent on each side.
    std::map<int, std::pair<int, int>> span; // id → (start, end)
    int slot = 0;
    for (const Op &op : ops) {
        std::pair<int, int> s;
        if (op.parent == 2) {
            ++slot;
            s = {1000 * slot, 1000 * slot + 900};
        } else {
            const auto p = span.at(op.parent);
            s = {p.first + 10, p.second - 10};
        }
        span[op.id] = s;
        sep();
        out << R"({"ph":"X","cat":")" << (std::string(op.name).rfind("nccl:", 0) == 0 ? "user_annotation" : "cpu_op")
            << R"(","name":")" << op.name << R"(","pid":7,"tid":70,"ts":)" << s.first << R"(,"dur":)" << (s.second - s.first)
            << R"(,"args":{"External id":)" << op.rf << R"(,"Record function id":)" << op.rf << "}}";
    }
    int correlation = 100;
    for (const Launch &l : launches) {
        int launcher = -1;
        for (const Op &op : ops)
            if (op.rf == l.rf)
                launcher = op.id;
        const auto s = span.at(launcher);
        ++correlation;
        sep();
        // The launch sits in the innermost op's first 5 µs (children start 10 µs in).
        out << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":70,"ts":)" << s.first + 1
            << R"(,"dur":2,"args":{"correlation":)" << correlation << "}}";
        sep();
        out << R"({"ph":"X","cat":"kernel","name":")" << l.kernel << R"(","pid":0,"tid":9,"ts":)" << s.first + 5
            << R"(,"dur":3,"args":{"device":0,"stream":9,"correlation":)" << correlation << l.extraArgs << "}}";
    }
    out << "]}";
    return out.str();
}

struct Converted {
    ChakraConversion conversion;
    std::vector<Diagnostic> graphWarnings;
};

Converted convert(const std::vector<Op> &ops, const std::vector<Launch> &launches)
{
    const HostTrace host = parseHostTrace(hostJson(ops), "host.json");
    const DeviceTrace device = parseKinetoTrace(kinetoJson(ops, launches), "kineto.json");
    const LinkSet links = linkTraces(device, &host, {});
    const EtPlusGraph graph = buildEtPlusGraph(host, device, links);
    return {convertToChakra(graph, host, device, links), graph.warnings};
}

const ChakraProtoMsg::Node &kernelNode(const ChakraTrace &trace, int nth)
{
    int seen = 0;
    for (const auto &node : trace.nodes)
        for (const auto &a : node.attr())
            if (a.name() == "is_cpu_op" && !a.bool_val() && seen++ == nth)
                return node;
    throw std::runtime_error("no such kernel node");
}

const ChakraProtoMsg::AttributeProto *attr(const ChakraProtoMsg::Node &node, const char *name)
{
    for (const auto &a : node.attr())
        if (a.name() == name)
            return &a;
    return nullptr;
}

constexpr const char *kHalf256 = R"J({"values":[[40,41,0,256,2,"cuda:0"]],"shapes":[[256]],"types":["Tensor(c10::Half)"]})J";
constexpr const char *kNoInputs = R"({"values":[],"shapes":[],"types":[]})";

} // namespace

class TestExportCollectives : public QObject {
    Q_OBJECT
private slots:
    void namesMapToCollectives_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("kind"); // -1: none
        QTest::newRow("kernel all-reduce") << "ncclDevKernel_AllReduce_Sum_f16_RING_LL" << int(CallKind::AllReduce);
        QTest::newRow("legacy kernel") << "ncclKernel_AllGather_RING_LL_Sum_int8_t" << int(CallKind::AllGather);
        QTest::newRow("reduce-scatter op") << "nccl:_reduce_scatter_base" << int(CallKind::ReduceScatter);
        QTest::newRow("plain reduce kernel") << "ncclDevKernel_Reduce_Sum_f32_RING_LL" << int(CallKind::Reduce);
        QTest::newRow("kineto name") << "allgather_into_tensor_coalesced" << int(CallKind::AllGather);
        QTest::newRow("all_to_all") << "nccl:all_to_all" << int(CallKind::AllToAll);
        QTest::newRow("sendrecv kernel") << "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"
                                         << int(CallKind::Unknown);
        QTest::newRow("send") << "nccl:send" << int(CallKind::Send);
        QTest::newRow("recv") << "recv" << int(CallKind::Recv);
        QTest::newRow("broadcast") << "nccl:broadcast" << int(CallKind::Broadcast);
        QTest::newRow("barrier") << "barrier" << int(CallKind::Barrier);
        QTest::newRow("rccl generic") << "ncclDevKernel_Generic" << -1;
        QTest::newRow("coalesced") << "nccl:coalesced" << -1;
    }

    void namesMapToCollectives()
    {
        QFETCH(QString, name);
        QFETCH(int, kind);
        const auto found = collectiveKindFromName(name.toStdString());
        QCOMPARE(found ? int(*found) : -1, kind);
    }

    void everyKindIsWrittenAndReadBackAsItself()
    {
        // The one mapping between a kind and Chakra's node type / comm_type, both ways.
        for (std::size_t k = 0; k < kCallKindCount; ++k) {
            const auto kind = static_cast<CallKind>(k);
            const ChakraCommNode node = chakraCommNodeOf(kind);
            QCOMPARE(callKindOfChakraNode(node.type, node.commType), kind);
            QCOMPARE(node.type == ChakraProtoMsg::COMM_COLL_NODE, !isP2P(kind) && kind != CallKind::Unknown);
            QCOMPARE(node.commType >= 0, node.type == ChakraProtoMsg::COMM_COLL_NODE);
        }
        QCOMPARE(int(chakraCommNodeOf(CallKind::Unknown).type), int(ChakraProtoMsg::COMP_NODE));
        QCOMPARE(chakraCommNodeOf(CallKind::ReduceScatter).commType, std::int64_t(ChakraProtoMsg::REDUCE_SCATTER));
        QCOMPARE(callKindOfChakraNode(ChakraProtoMsg::COMM_COLL_NODE, -1), CallKind::Unknown);
        QCOMPARE(callKindOfChakraNode(ChakraProtoMsg::COMP_NODE, 0), CallKind::Unknown);
    }

    void sendAndRecvCarryTheirPeers()
    {
        // nccl:send / nccl:recv launch SendRecv kernels whose Kineto args name the peer and sequence.
        const std::vector<Op> ops = {{10, "nccl:send", 2, 11, kHalf256}, {20, "nccl:recv", 2, 21, kHalf256}};
        const std::vector<Launch> launches = {
            {11, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
             R"(,"Collective name":"send","Dst Rank":1,"Seq":5,"Process Group Name":"2","dtype":"Half","In msg nelems":256)"},
            {21, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
             R"(,"Collective name":"recv","Src Rank":1,"Seq":6,"Process Group Name":"2","dtype":"Half","Out msg nelems":256)"},
        };
        const Converted c = convert(ops, launches);
        const auto &send = kernelNode(c.conversion.trace, 0);
        const auto &recv = kernelNode(c.conversion.trace, 1);
        QCOMPARE(int(send.type()), int(ChakraProtoMsg::COMM_SEND_NODE));
        QCOMPARE(int(recv.type()), int(ChakraProtoMsg::COMM_RECV_NODE));
        // int32 peers and tag, int64 size, string pg_name: the feeder's value types.
        QCOMPARE(int(attr(send, "comm_dst")->value_case()), int(ChakraProtoMsg::AttributeProto::kInt32Val));
        QCOMPARE(attr(send, "comm_src")->int32_val(), 0); // this rank (distributedInfo)
        QCOMPARE(attr(send, "comm_dst")->int32_val(), 1);
        QCOMPARE(attr(send, "comm_tag")->int32_val(), 5);
        QCOMPARE(attr(recv, "comm_src")->int32_val(), 1);
        QCOMPARE(attr(recv, "comm_dst")->int32_val(), 0);
        QCOMPARE(attr(recv, "comm_tag")->int32_val(), 6);
        QCOMPARE(int(attr(send, "comm_size")->value_case()), int(ChakraProtoMsg::AttributeProto::kInt64Val));
        QCOMPARE(attr(send, "comm_size")->int64_val(), std::int64_t(256 * 2));
        QCOMPARE(attr(send, "pg_name")->string_val(), std::string("2"));
        QCOMPARE(c.conversion.stats.commSend, std::size_t(1));
        QCOMPARE(c.conversion.stats.commRecv, std::size_t(1));
    }

    void kernelNamesDoNotOverruleTheCollectivesMetadata()
    {
        // A kernel named like an all-reduce whose collective args say broadcast is a broadcast; with
        // no args, the enclosing nccl:* op names it; only then the kernel name.
        const std::vector<Op> ops = {{10, "c10d::broadcast_", 2, 11, kHalf256},
                                     {20, "nccl:all_gather", 2, 21, kHalf256},
                                     {30, "aten::something", 2, 31, kHalf256}};
        const std::vector<Launch> launches = {
            {11, "ncclDevKernel_AllReduce_Sum_f16_RING_LL", R"(,"Collective name":"broadcast")"},
            {21, "ncclDevKernel_Broadcast_RING_LL", ""},
            {31, "ncclDevKernel_ReduceScatter_Sum_f16_RING_LL", ""},
        };
        const Converted c = convert(ops, launches);
        QCOMPARE(attr(kernelNode(c.conversion.trace, 0), "comm_type")->int64_val(), std::int64_t(ChakraProtoMsg::BROADCAST));
        QCOMPARE(attr(kernelNode(c.conversion.trace, 1), "comm_type")->int64_val(), std::int64_t(ChakraProtoMsg::ALL_GATHER));
        QCOMPARE(attr(kernelNode(c.conversion.trace, 2), "comm_type")->int64_val(), std::int64_t(ChakraProtoMsg::REDUCE_SCATTER));
    }

    void coalescedGroupsAreClassifiedByTheirMembers()
    {
        // nccl:coalesced with only sends → COMM_SEND; with sends and recvs → all-to-all (as NCCL does it).
        const std::vector<Op> ops = {{10, "nccl:coalesced", 2, 11, kHalf256}, {12, "nccl:send", 10, 13, kHalf256},
                                     {14, "nccl:send", 10, 15, kHalf256},     {20, "nccl:coalesced", 2, 21, kHalf256},
                                     {22, "nccl:send", 20, 23, kHalf256},     {24, "nccl:recv", 20, 25, kHalf256}};
        // The kernels are launched by the groups themselves (after their members).
        const std::vector<Launch> launches = {{11, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", ""},
                                              {21, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", ""}};
        const Converted c = convert(ops, launches);
        QCOMPARE(int(kernelNode(c.conversion.trace, 0).type()), int(ChakraProtoMsg::COMM_SEND_NODE));
        const auto &mixed = kernelNode(c.conversion.trace, 1);
        QCOMPARE(int(mixed.type()), int(ChakraProtoMsg::COMM_COLL_NODE));
        QCOMPARE(attr(mixed, "comm_type")->int64_val(), std::int64_t(ChakraProtoMsg::ALL_TO_ALL));
    }

    void unknownCollectiveIsReportedNotFatal()
    {
        // RCCL's generic kernel under an op that names no collective: chakra_converter raises
        // ValueError here; we keep the node (its time still counts) and say so.
        const std::vector<Op> ops = {{10, "aten::custom_comm", 2, 11, kNoInputs}};
        const std::vector<Launch> launches = {{11, "ncclDevKernel_Generic", ""}};
        const Converted c = convert(ops, launches);
        const auto &node = kernelNode(c.conversion.trace, 0);
        QCOMPARE(int(node.type()), int(ChakraProtoMsg::COMP_NODE));
        QCOMPARE(attr(node, "unclassified_collective")->string_val(), std::string("ncclDevKernel_Generic"));
        QCOMPARE(node.duration_micros(), std::uint64_t(3));
        QCOMPARE(c.conversion.stats.unclassifiedCollectives, std::size_t(1));
        bool warned = false;
        for (const Diagnostic &d : c.conversion.warnings)
            warned = warned || d.message.find("ncclDevKernel_Generic") != std::string::npos;
        QVERIFY(warned);
    }
};

QTEST_GUILESS_MAIN(TestExportCollectives)
#include "test_export_collectives.moc"
