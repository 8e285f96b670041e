// The host execution trace reader on real public traces.
//
// Expected values were computed independently with python3 (stdlib json), e.g.
//   python3 -c "import gzip,json; d=json.load(gzip.open(P)); ids={n['id']:n for n in d['nodes']};
//     par=lambda n: n.get('ctrl_deps', n.get('parent',-1));
//     print(d['schema'], len(ids), [i for i,n in ids.items() if par(n) in (-1,i) or par(n) not in ids])"
// (the script is /tmp/rd/expect.py in the session that wrote this test; its rules are the ones
// above: a root is a node whose parent is absent, itself, or not in the file).

#include "io/json/chunkstops.h"
#include "io/tracereader.h"
#include "testsupport.h"
#include "tracefixtures.h"

#include <QtTest>

using namespace linkscope::core;
using linkscope::test::tracePath;

namespace {

std::string attrText(const HostTrace &t, StringId id) { return std::string(t.strings.at(id)); }

void checkStructure(const HostTrace &t)
{
    // Sorted by id, index consistent, CSR children sorted by id and pointing back at the parent.
    for (std::size_t i = 1; i < t.nodes.size(); ++i)
        QVERIFY(t.nodes[i - 1].id < t.nodes[i].id);
    QCOMPARE(t.indexById.size(), t.nodes.size());
    QCOMPARE(t.childBegin.size(), t.nodes.size() + 1);
    std::size_t withParent = 0;
    for (HostNodeIndex i{0}; i.in(t.nodes.size()); ++i) {
        withParent += t.node(i).parent.valid();
        for (std::uint32_t c = t.childBegin[i.get()]; c < t.childBegin[i.get() + 1]; ++c) {
            QCOMPARE(t.node(t.childList[c]).parent, i);
            if (c > t.childBegin[i.get()])
                QVERIFY(t.node(t.childList[c - 1]).id < t.node(t.childList[c]).id);
        }
    }
    QCOMPARE(t.childList.size(), withParent);
    QCOMPARE(t.roots.size() + withParent, t.nodes.size());
}

// A nested-layout host ET of `count` op nodes (about 300 bytes each, so a few hundred KiB: the reader
// parses it in several windows) plus the process root, written last as the observer does. Node i has
// id 2 + (i * 7919) % count (ids out of file order), name "op_<i % 5>", rf_id 100 + i, tid i % 3,
// and an op_schema holding "}, {" so that separators inside values are met. Node 1000 writes its
// rf_id attr value before the name; node 1500 spells "name" and its value with \u escapes.
struct GeneratedEt {
    std::string text;
    struct Node {
        std::int64_t id;
        std::size_t rawBegin, rawEnd; // the node object
        std::string values, attrs;    // as written
    };
    std::vector<Node> nodes;
};

GeneratedEt generatedEt(int count)
{
    GeneratedEt et;
    std::string &s = et.text;
    s = "{\n  \"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 7,\n  \"nodes\": [";
    for (int i = 0; i < count; ++i) {
        const std::int64_t id = 2 + (std::int64_t(i) * 7919) % count;
        const std::string values = "[[" + std::to_string(i) + "," + std::to_string(i + 1) + ",0,128,4,\"cuda:0\"]]";
        const std::string rf = i == 1000 ? R"({"value": 4242, "type": "uint64", "name": "rf_id"})"
                                         : R"({"name": "rf_id", "type": "uint64", "value": )" + std::to_string(100 + i) + "}";
        const std::string attrs = "[" + rf + R"(, {"name": "tid", "type": "uint64", "value": )" + std::to_string(i % 3)
                                  + R"(}, {"name": "op_schema", "type": "string", "value": "s}, {x)" + std::to_string(i % 2)
                                  + "\"}]";
        const std::string name = i == 1500 ? R"("n\u0061me": "esc\u00e9")" : "\"name\": \"op_" + std::to_string(i % 5) + "\"";
        s += i == 0 ? "\n    " : ",\n    ";
        const std::size_t begin = s.size();
        s += "{\n      \"id\": " + std::to_string(id) + ", " + name
             + ", \"ctrl_deps\": 1,\n      \"inputs\": {\"values\": " + values
             + ", \"shapes\": [[128]], \"types\": [\"Tensor(float)\"]},\n      \"outputs\": {\"values\": [], \"shapes\": [], "
               "\"types\": []},\n      \"attrs\": "
             + attrs + "\n    }";
        et.nodes.push_back({id, begin, s.size(), values, attrs});
    }
    s += ",\n    {\"id\": 1, \"name\": \"[pytorch|profiler|execution_trace|process]\", \"ctrl_deps\": -1}\n  ],\n  "
         "\"finish_ts\": 9\n}\n";
    return et;
}

std::string loadErrorOf(const std::string &text, std::uint64_t &offset)
{
    try {
        parseHostTrace(text, "generated.json");
    } catch (const LoadError &e) {
        offset = e.offset();
        return e.detail();
    }
    return {};
}
} // namespace

class TestHostReader : public QObject {
    Q_OBJECT

private slots:
    void gzipFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<bool>("flat");
        QTest::addColumn<qint64>("pid");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("rootChildren");
        QTest::addColumn<int>("commNodes");
        QTest::addColumn<qint64>("maxId");

        QTest::newRow("hta simple add 1.0.1") << "hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz"
                                              << "1.0.1" << true << qint64(563677) << 38 << 1 << 0 << qint64(58);
        QTest::newRow("megatron 1.0.1") << "astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz"
                                        << "1.0.1" << true << qint64(2590092) << 5424 << 1 << 0 << qint64(8603);
        QTest::newRow("resnet 1.0.2") << "astrasim_resnet_2rank_host_et_1.0.2/eg.rank_0.pt.trace.json.gz"
                                      << "1.0.2-chakra.0.0.4" << false << qint64(3974) << 4801 << 2 << 0 << qint64(8157);
        QTest::newRow("resnet 1.1.0") << "param_host_et_only/resnet_2gpu_et_1.1.0.json.gz"
                                      << "1.1.0-chakra.0.0.4" << false << qint64(2254958) << 14392 << 2 << 27 << qint64(16866);
        QTest::newRow("pt2 1.1.1") << "param_host_et_only/pt2_et_1.1.1.json.gz"
                                   << "1.1.1-chakra.0.0.4" << false << qint64(793657) << 20 << 1 << 0 << qint64(29);
    }

    void gzipFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, schema);
        QFETCH(bool, flat);
        QFETCH(qint64, pid);
        QFETCH(int, nodes);
        QFETCH(int, rootChildren);
        QFETCH(int, commNodes);
        QFETCH(qint64, maxId);
        LINKSCOPE_REQUIRE_TRACES(file.toStdString());
        const HostTrace t = readHostTrace(tracePath(file.toStdString()));
        QCOMPARE(QString::fromStdString(t.schema), schema);
        QCOMPARE(t.layout, flat ? HostLayout::Flat : HostLayout::Nested);
        QCOMPARE(t.pid, pid);
        QCOMPARE(int(t.nodes.size()), nodes);
        QCOMPARE(t.roots.size(), std::size_t(1));
        const HostNode &root = t.node(t.roots[0]);
        QCOMPARE(root.id, std::int64_t(1));
        QCOMPARE(int(t.childCount(t.roots[0])), rootChildren);
        QCOMPARE(int(t.commAttrs.size()), commNodes);
        QCOMPARE(t.nodes.back().id, maxId);
        QVERIFY(!t.recoveredTruncation);
        QVERIFY2(t.warnings.empty(), t.warnings.empty() ? "" : t.warnings.front().toString().c_str());
        QVERIFY(t.wasGzip);
        checkStructure(t);
    }

    void flatNodeFields()
    {
        // Node 5: aten::empty, rf_id 3, parent 4, tid 1, scope 0, inputs [[256,256],6,"<None>",...] (as written).
        const HostTrace t = readHostTrace(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz"));
        QCOMPARE(t.time, std::string("2023-07-14 11:53:07"));
        QCOMPARE(t.startTs, std::int64_t(6278907328));
        QCOMPARE(t.finishTs, std::int64_t(6278928026));
        const HostNode *n = t.findById(5);
        QVERIFY(n);
        QCOMPARE(t.name(*n), std::string_view("aten::empty"));
        QCOMPARE(n->rfId, std::uint64_t(3));
        QCOMPARE(n->parentId, std::int64_t(4));
        QCOMPARE(t.node(n->parent).id, std::int64_t(4));
        QCOMPARE(n->tid, std::int64_t(1));
        QCOMPARE(n->scope, 0);
        QVERIFY(t.strings.at(n->opSchema).starts_with("aten::empty.memory_format("));
        QCOMPARE(t.text(n->inputs.values), std::string("[[256,256],6,\"<None>\",\"cuda\",false,\"<None>\"]"));
        QVERIFY(t.text(n->inputs.shapes).starts_with("[[["));
        QVERIFY(t.text(n->inputs.types).starts_with("["));
        QVERIFY(t.text(n->raw).starts_with("{"));
        QVERIFY(t.text(n->raw).ends_with("}"));
        QVERIFY(n->attrs.empty());
        // Process root: id 1, written last, "parent": 1 (itself) → a root, not a missing parent.
        const HostNode *root = t.findById(1);
        QVERIFY(root && root->parent.isNone() && !root->parentMissing);
        QCOMPARE(root->scope, kUserScope);
    }

    void nestedCommAttrs()
    {
        // First record_param_comms (id 437): rf_id 115, broadcast, Float, 53120 elements, pg "0"
        // "default_pg", pg_size 2, global_rank_start 0, stride 1.
        LINKSCOPE_REQUIRE_TRACES("param_host_et_only/resnet_2gpu_et_1.1.0.json.gz");
        const HostTrace t = readHostTrace(tracePath("param_host_et_only/resnet_2gpu_et_1.1.0.json.gz"));
        const HostNode *n = t.findById(437);
        QVERIFY(n);
        QCOMPARE(t.name(*n), std::string_view("record_param_comms"));
        QCOMPARE(n->rfId, std::uint64_t(115));
        QVERIFY(n->comm.valid());
        const HostCommAttrs &c = t.commAttrs[n->comm.get()];
        QCOMPARE(attrText(t, c.collectiveName), std::string("broadcast"));
        QCOMPARE(attrText(t, c.dtype), std::string("Float"));
        QCOMPARE(attrText(t, c.pgName), std::string("0"));
        QCOMPARE(attrText(t, c.pgDesc), std::string("default_pg"));
        QCOMPARE(c.inMsgNelems, std::int64_t(53120));
        QCOMPARE(c.outMsgNelems, std::int64_t(53120));
        QCOMPARE(c.pgSize, std::int64_t(2));
        QCOMPARE(c.globalRankStart, std::int64_t(0));
        QCOMPARE(c.globalRankStride, std::int64_t(1));
        QVERIFY(t.text(n->attrs).starts_with("[{"));
        QVERIFY(t.text(n->inputs.values).starts_with("["));
        QVERIFY(n->inputs.strides.empty()); // 1.1.0 has no strides
    }

    void pt2KernelBackend()
    {
        // Two nodes have kernel_backend "triton"; 1.1.1 adds inputs.strides.
        const HostTrace t = readHostTrace(tracePath("param_host_et_only/pt2_et_1.1.1.json.gz"));
        int triton = 0;
        for (const auto &n : t.nodes) {
            if (t.strings.at(n.kernelBackend) == "triton") {
                ++triton;
                QVERIFY(!t.strings.at(n.kernelFile).empty());
            }
            QVERIFY(!n.inputs.strides.empty());
        }
        QCOMPARE(triton, 2);
        const HostNode *n = t.findById(5);
        QCOMPARE(t.name(*n), std::string_view("TorchDynamo Cache Lookup"));
        QCOMPARE(n->rfId, std::uint64_t(3));
        QCOMPARE(n->parentId, std::int64_t(4));
    }

    void archives()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LINKSCOPE_REQUIRE_TRACES("chakra_repo_tests/1.0.2-chakra.0.0.4.tgz", "param_dlrm_8rank_pair/dlrm_pytorch_et.tar.gz",
                                 "param_host_et_only/resnet_1gpu_et.json.tar.gz");
        QVERIFY(linkscope::test::extractTar(tracePath("chakra_repo_tests/1.0.2-chakra.0.0.4.tgz"), dir));
        QVERIFY(linkscope::test::extractTar(tracePath("param_dlrm_8rank_pair/dlrm_pytorch_et.tar.gz"), dir));
        QVERIFY(linkscope::test::extractTar(tracePath("param_host_et_only/resnet_1gpu_et.json.tar.gz"), dir));

        // Chakra's own test input: 263 nodes, first record_param_comms id 30 (rf_id 19) whose
        // child nccl:all_gather (id 31) is USER_SCOPE.
        const HostTrace chakra = readHostTrace(linkscope::test::inDir(dir, "1.0.2-chakra.0.0.4.json"));
        QCOMPARE(chakra.schema, std::string("1.0.2-chakra.0.0.4"));
        QCOMPARE(chakra.layout, HostLayout::Nested);
        QCOMPARE(chakra.pid, std::int64_t(788625));
        QCOMPARE(chakra.nodes.size(), std::size_t(263));
        QCOMPARE(chakra.roots.size(), std::size_t(1));
        const HostNode *rpc = chakra.findById(30);
        QCOMPARE(chakra.name(*rpc), std::string_view("record_param_comms"));
        QCOMPARE(rpc->rfId, std::uint64_t(19));
        QCOMPARE(rpc->parentId, std::int64_t(24));
        const HostNode *nccl = chakra.findById(31);
        QCOMPARE(chakra.name(*nccl), std::string_view("nccl:all_gather"));
        QCOMPARE(nccl->scope, kUserScope);
        QCOMPARE(&chakra.node(nccl->parent), rpc);
        QVERIFY(!chakra.wasGzip);
        checkStructure(chakra);

        // PARAM DLRM rank 0: 1.0.1, 1,675 nodes, execution_graph-era root with 2 children.
        const HostTrace dlrm = readHostTrace(linkscope::test::inDir(dir, "dlrm_pytorch_et/dlrm_eg_0.json"));
        QCOMPARE(dlrm.layout, HostLayout::Flat);
        QCOMPARE(dlrm.nodes.size(), std::size_t(1675));
        QCOMPARE(dlrm.name(dlrm.node(dlrm.roots[0])), std::string_view("[pytorch|profiler|execution_graph|process]"));
        QCOMPARE(dlrm.childCount(dlrm.roots[0]), std::size_t(2));
        QCOMPARE(dlrm.findById(606)->rfId, std::uint64_t(447));
        checkStructure(dlrm);

        // resnet 1.1.1 (14 MB): 14,392 nodes, 27 record_param_comms with comm attrs (pg_size 1).
        const HostTrace resnet = readHostTrace(linkscope::test::inDir(dir, "resnet_1gpu_et.json"));
        QCOMPARE(resnet.schema, std::string("1.1.1-chakra.0.0.4"));
        QCOMPARE(resnet.nodes.size(), std::size_t(14392));
        QCOMPARE(resnet.commAttrs.size(), std::size_t(27));
        QCOMPARE(resnet.commOf(*resnet.findById(437))->pgSize, std::int64_t(1));
        QCOMPARE(resnet.nodes.back().id, std::int64_t(16955));
        checkStructure(resnet);
    }

    void windowedNodes()
    {
        const GeneratedEt et = generatedEt(3000);
        QVERIFY(et.text.size() > 800000);
        const HostTrace t = parseHostTrace(et.text, "generated.json");
        QVERIFY2(t.warnings.empty(), t.warnings.empty() ? "" : t.warnings.front().message.c_str());
        QCOMPARE(t.nodes.size(), std::size_t(3001));
        QCOMPARE(t.layout, HostLayout::Nested);
        QCOMPARE(t.finishTs, std::int64_t(9));
        checkStructure(t);
        for (int i = 0; i < 3000; ++i) {
            const auto &w = et.nodes[i];
            const HostNode *n = t.findById(w.id);
            QVERIFY(n);
            QCOMPARE(std::uint64_t(n->raw.offset), std::uint64_t(w.rawBegin)); // a copy: Span is packed, offset may be unaligned
            QCOMPARE(std::size_t(n->raw.length), w.rawEnd - w.rawBegin);
            QCOMPARE(t.text(n->inputs.values), std::string(w.values));
            QCOMPARE(t.text(n->inputs.shapes), std::string("[[128]]"));
            QCOMPARE(t.text(n->attrs), std::string(w.attrs));
            QCOMPARE(n->rfId, std::uint64_t(i == 1000 ? 4242 : 100 + i));
            QCOMPARE(n->tid, std::int64_t(i % 3));
            QCOMPARE(n->parentId, std::int64_t(1));
            QCOMPARE(attrText(t, n->opSchema), "s}, {x" + std::to_string(i % 2));
            QCOMPARE(attrText(t, n->name), i == 1500 ? std::string("esc\u00e9") : "op_" + std::to_string(i % 5));
        }
    }

    void errorsInsideWindows()
    {
        // Errors far from the end of a file read in windows: the same message and byte offset as the
        // node-by-node scanner gives, including for values the reader only keeps as raw text.
        const GeneratedEt et = generatedEt(3000);
        struct Case {
            const char *what;
            std::string from, to; // first occurrence of `from` at or after node 2200 becomes `to`
            std::size_t badByte;  // position of the offending byte within `to`
            const char *message;
        };
        const std::vector<Case> cases = {
            {"missing comma in raw values", "[[2200,2201,", "[[2200 2201,", 7, "expected ',' or ']' in an array, found '2'"},
            {"leading zero in raw shapes", "\"shapes\": [[128]]", "\"shapes\": [[0128]]", 13,
             "expected ',' or ']' in an array, found '1'"},
            {"bad escape in a string", "\"s}, {x", "\"s}, {\\x", 6, "invalid escape sequence in string"},
            {"missing comma between nodes", "\n    },\n    {", "\n    }\n    {", 11,
             "expected ',' or ']' after a node in \"nodes\""},
        };
        for (const Case &c : cases) {
            std::string text = et.text;
            const std::size_t at = text.find(c.from, et.nodes[2200].rawBegin);
            QVERIFY(at != std::string::npos);
            text.replace(at, c.from.size(), c.to);
            std::uint64_t offset = 0;
            const std::string message = loadErrorOf(text, offset);
            QVERIFY2(message.find(c.message) != std::string::npos, (std::string(c.what) + ": " + message).c_str());
            QCOMPARE(offset, std::uint64_t(at + c.badByte));
        }
    }

    void chunksOfOneNodePerLine()
    {
        // Linkscope's ET+ layout: one node per line, its attrs a list of objects on that line
        // ("}, {" inside the node). Each node's attrs come first and a long value after them, so an
        // even split point nearly always falls after an attrs separator of its line: a cut there
        // (what the readers chose before: the last "}, {" before the split point) lies inside a node,
        // the chunk before it fails only once it has read the whole chunk, and the array is read
        // again on one thread. Every cut must be between two lines' nodes.
        std::string text = "{\"schema\": \"1.0.3-chakra.0.0.4\", \"nodes\":[\n";
        const std::size_t first = text.size();
        const int nodes = 4000;
        for (int i = 0; i < nodes; ++i) {
            text += "{\"id\":" + std::to_string(i + 1)
                    + ",\"name\":\"op\",\"ctrl_deps\":1,\"attrs\":[{\"name\": \"rf_id\", "
                      "\"type\": \"uint64\", \"value\": "
                    + std::to_string(i)
                    + "}, {\"name\": \"tid\", \"type\": \"uint64\", "
                      "\"value\": 1}],\"inputs\":{\"values\":[\""
                    + std::string(200 + i % 7, 'x') + "\"]}}";
            text += i + 1 < nodes ? ",\n" : "\n";
        }
        text += "], \"finish_ts\": 9}\n";
        const ReaderThreads four{4, 1};
        const auto betweenNodes = [&](std::size_t stop) { return text.compare(stop, 8, ",\n{\"id\":") == 0; };
        for (const io::ChunkSeparators kind : {io::ChunkSeparators::LineBreak, io::ChunkSeparators::Whitespace}) {
            const std::vector<std::size_t> stops = io::chunkStops(text, first, four, kind);
            QCOMPARE(stops.size(), std::size_t(4));
            QCOMPARE(stops.back(), std::string::npos);
            for (std::size_t k = 0; k + 1 < stops.size(); ++k)
                QVERIFY2(betweenNodes(stops[k]), text.substr(stops[k] - 40, 60).c_str());
        }
        // The separators the readers used to take (the last "}, {" before each split point): one
        // inside a node at least, so the text tells the two apart.
        int insideNode = 0;
        for (std::size_t k = 1; k < 4; ++k) {
            const std::size_t old = io::lastElementSeparator(text, first, first + (text.size() - first) / 4 * k);
            QVERIFY(old != std::string::npos);
            insideNode += betweenNodes(old) ? 0 : 1;
        }
        QVERIFY(insideNode > 0);

        // And the read: four chunks, the same trace as one thread's.
        const ReaderThreads saved = readerThreads();
        setReaderThreads(ReaderThreads{1, 16u << 20});
        const HostTrace one = parseHostTrace(text, "one-per-line.json");
        setReaderThreads(four);
        const HostTrace parallel = parseHostTrace(text, "one-per-line.json");
        setReaderThreads(saved);
        QCOMPARE(parallel.nodes.size(), std::size_t(nodes));
        QVERIFY(parallel.warnings.empty());
        for (std::size_t i = 0; i < one.nodes.size(); ++i) {
            QCOMPARE(parallel.nodes[i].id, one.nodes[i].id);
            QCOMPARE(parallel.nodes[i].rfId, one.nodes[i].rfId);
            QCOMPARE(std::uint64_t(parallel.nodes[i].raw.offset), std::uint64_t(one.nodes[i].raw.offset));
        }
    }

    void chunksOfOneLine()
    {
        // Nodes on one line, "}, {" between them as inside them: a host ET is then read on one
        // thread (a cut there may be inside a node); a Kineto array, whose events hold no lists of
        // objects, is still cut.
        std::string text = "{\"nodes\": [";
        const std::size_t first = text.size();
        for (int i = 0; i < 2000; ++i)
            text += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(i + 1)
                    + ", \"attrs\": [{\"name\": \"rf_id\", \"value\": 1}, {\"name\": \"tid\", \"value\": 1}]}";
        text += "]}";
        const ReaderThreads two{2, 1};
        QVERIFY(io::chunkStops(text, first, two, io::ChunkSeparators::LineBreak).empty());
        QCOMPARE(io::chunkStops(text, first, two, io::ChunkSeparators::Whitespace).size(), std::size_t(2));
    }

    void etPlusReadsAsHost()
    {
        // PARAM-era ET+ (host nodes + 261 GPU nodes merged in), rank 0: 1,936 nodes.
        const HostTrace t = readHostTrace(tracePath("astrasim_dlrm_etplus_8rank/dlrm_eg_0_plus.json.gz"));
        QCOMPARE(t.nodes.size(), std::size_t(1936));
        QCOMPARE(t.layout, HostLayout::Flat);
        checkStructure(t);
    }
};

QTEST_GUILESS_MAIN(TestHostReader)
#include "test_hostreader.moc"
