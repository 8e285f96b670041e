// Chakra protobuf .et: reading the public examples, round trips, validation, malformed input,
// atomic writes, and the `linkscope dump` command.
//
// Expected figures come from an independent protobuf wire-format decoder in python3 (stdlib only,
// ~60 lines: varint framing, field 3 = type, fields 4/5 = packed ctrl/data deps, Kahn over the ids),
// run on the same files, e.g. chakra.0.et → 3664 nodes, types {COMP_NODE: 3643, COMM_COLL_NODE: 21},
// data_deps edges 181878, ctrl_deps edges 3664 of which 1277 name absent nodes, data_deps acyclic.

#include "testsupport.h"

#include "commands/commands.h"
#include "export/chakra/etformat.h"
#include "io/file/atomicfile.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>

#include <fstream>
#include <sstream>

using namespace linkscope::core;
using linkscope::test::tracePath;

namespace {

using linkscope::test::readFile;

ChakraProtoMsg::Node makeNode(std::uint64_t id, const std::string &name, std::vector<std::uint64_t> dataDeps,
                              std::vector<std::uint64_t> ctrlDeps = {})
{
    ChakraProtoMsg::Node node;
    node.set_id(id);
    node.set_name(name);
    node.set_type(ChakraProtoMsg::COMP_NODE);
    for (auto d : dataDeps)
        node.add_data_deps(d);
    for (auto d : ctrlDeps)
        node.add_ctrl_deps(d);
    return node;
}

const ChakraProtoMsg::AttributeProto *findAttr(const ChakraProtoMsg::Node &node, const std::string &name)
{
    for (const auto &attr : node.attr())
        if (attr.name() == name)
            return &attr;
    return nullptr;
}

QStringList filesUnder(const QString &dir, const QString &pattern)
{
    QStringList out;
    QDirIterator it(dir, {pattern}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    out.sort();
    return out;
}

int countEntries(const QString &dir)
{
    return static_cast<int>(QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).size());
}

} // namespace

class TestEtFormat : public QObject {
    Q_OBJECT
private slots:
    void everyAstrasimExampleRoundTripsByteForByte()
    {
        const QStringList files = filesUnder(QString::fromStdString(tracePath("astrasim_chakra_et_examples")),
                                             QStringLiteral("*.et"));
        QCOMPARE(files.size(), 40); // 32 microbenchmarks + 8 custom all-reduce (SOURCE.md)
        for (const QString &file : files) {
            const std::string path = file.toStdString();
            const ChakraTrace trace = readChakraEt(path);
            QVERIFY2(!trace.wasGzip, qPrintable(file));
            // Python's protobuf serialises fields in number order as C++ does, and the files are
            // sorted by id: re-serialising must reproduce the file exactly.
            QVERIFY2(serializeChakraEt(trace) == readFile(path), qPrintable(file));
            const EtValidation validation = validateEt(trace.nodes);
            QVERIFY2(validation.ok(), qPrintable(file + QStringLiteral(": ") + QString::fromStdString(validation.message())));
        }
    }

    void microbenchmarkNodeHasItsCollective()
    {
        const ChakraTrace allGather = readChakraEt(
            tracePath("astrasim_chakra_et_examples/microbenchmarks/all_gather/8npus_1MB/all_gather.0.et"));
        QCOMPARE(allGather.metadata.version(), std::string("0.0.4"));
        QCOMPARE(allGather.nodes.size(), std::size_t(1));
        QCOMPARE(int(allGather.nodes[0].type()), int(ChakraProtoMsg::COMM_COLL_NODE));
        const auto *commType = findAttr(allGather.nodes[0], "comm_type");
        QVERIFY(commType);
        QCOMPARE(int(commType->value_case()), int(ChakraProtoMsg::AttributeProto::kInt64Val));
        QCOMPARE(commType->int64_val(), std::int64_t(ChakraProtoMsg::ALL_GATHER));

        const ChakraTrace reduceScatter = readChakraEt(
            tracePath("astrasim_chakra_et_examples/microbenchmarks/reduce_scatter/8npus_1MB/reduce_scatter.3.et"));
        QCOMPARE(findAttr(reduceScatter.nodes[0], "comm_type")->int64_val(), std::int64_t(ChakraProtoMsg::REDUCE_SCATTER));
    }

    void customAllReduceSummary()
    {
        const ChakraTrace trace = readChakraEt(
            tracePath("astrasim_chakra_et_examples/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et"));
        const nlohmann::json summary = summarizeEt(trace);
        QCOMPARE(summary["nodes"].get<int>(), 35);
        QCOMPARE(summary["node_types"]["COMM_SEND_NODE"].get<int>(), 14);
        QCOMPARE(summary["node_types"]["COMM_RECV_NODE"].get<int>(), 14);
        QCOMPARE(summary["node_types"]["COMP_NODE"].get<int>(), 7);
        QCOMPARE(summary["edges"]["data_deps"].get<int>(), 34);
        QCOMPARE(summary["attributes"]["comm_src"].begin().key(), std::string("int32_val"));
        QCOMPARE(summary["metadata"]["schema"].get<std::string>(), std::string("1.0.2-chakra.0.0.4"));
        // The 26 kB MSCCL XML in "input_file" is named, not printed.
        const std::string inputFile = summary["metadata"]["input_file"].get<std::string>();
        QVERIFY2(inputFile.size() < 220 && inputFile.rfind("<algo name=", 0) == 0, inputFile.c_str());
        QVERIFY(summary["validation"]["ok"].get<bool>());
    }

    void chakraRepoFeederTraceFromArchive()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LINKSCOPE_REQUIRE_TRACES("chakra_repo_tests/feeder_tests_trace.tar.gz");
        QProcess tar;
        tar.start(QStringLiteral("tar"),
                  {QStringLiteral("-xzf"), QString::fromStdString(tracePath("chakra_repo_tests/feeder_tests_trace.tar.gz")),
                   QStringLiteral("-C"), dir.path()});
        QVERIFY(tar.waitForFinished(60000));
        QCOMPARE(tar.exitCode(), 0);
        const std::string path = dir.filePath(QStringLiteral("tests/data/chakra.0.et")).toStdString();
        const ChakraTrace trace = readChakraEt(path);
        QCOMPARE(trace.nodes.size(), std::size_t(3664));
        const nlohmann::json summary = summarizeEt(trace);
        // The streaming summary (dependency arrays only) says exactly the same.
        QVERIFY(summarizeEtFile(path) == summary);
        QCOMPARE(summary["node_types"]["COMP_NODE"].get<int>(), 3643);
        QCOMPARE(summary["node_types"]["COMM_COLL_NODE"].get<int>(), 21);
        QCOMPARE(summary["metadata"]["schema"].get<std::string>(), std::string("1.0.1"));
        // The old converter wrote ctrl_deps to nodes it had dropped; data_deps are sound.
        const EtValidation validation = validateEt(trace.nodes);
        QCOMPARE(validation.dataDepEdges, std::size_t(181878));
        QCOMPARE(validation.ctrlDepEdges, std::size_t(3664));
        QCOMPARE(validation.missingDataDeps, std::size_t(0));
        QCOMPARE(validation.missingCtrlDeps, std::size_t(1277));
        QVERIFY(validation.cycle.empty() || validation.cycleField == "ctrl_deps");
        QVERIFY(!validation.ok());

        // Node-by-node round trip through the writer (gzip) and the reader.
        QTemporaryDir out;
        const std::string copy = out.filePath(QStringLiteral("copy.et.gz")).toStdString();
        ChakraTrace fixed = trace;
        for (auto &node : fixed.nodes)
            node.clear_ctrl_deps(); // the writer refuses dangling ctrl_deps
        writeChakraEt(copy, fixed, EtWriteOptions{true, true});
        const ChakraTrace back = readChakraEt(copy);
        QVERIFY(back.wasGzip);
        QCOMPARE(back.nodes.size(), fixed.nodes.size());
        for (std::size_t i = 0; i < fixed.nodes.size(); ++i)
            QVERIFY2(back.nodes[i].SerializeAsString() == fixed.nodes[i].SerializeAsString(),
                     qPrintable(QString::number(fixed.nodes[i].id())));
        QCOMPARE(back.metadata.SerializeAsString(), fixed.metadata.SerializeAsString());
    }

    // The feeder's JSON workload graphs (json_trace.tar.gz) are not protobuf: a clear refusal, at byte 0.
    void feederJsonGraphIsNotTakenForAnEt()
    {
        LINKSCOPE_REQUIRE_TRACES("chakra_repo_tests/json_trace.tar.gz");
        QTemporaryDir dir;
        QProcess tar;
        tar.start(QStringLiteral("tar"),
                  {QStringLiteral("-xzf"), QString::fromStdString(tracePath("chakra_repo_tests/json_trace.tar.gz")),
                   QStringLiteral("-C"), dir.path()});
        QVERIFY(tar.waitForFinished(60000));
        QCOMPARE(tar.exitCode(), 0);
        for (const char *name : {"jsonData/small_chakra.0.json", "jsonData/chakra.0.json"}) {
            const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
            try {
                readChakraEt(path);
                QFAIL("a JSON file was read as .et");
            } catch (const LoadError &e) {
                QCOMPARE(e.file(), path);
                QCOMPARE(e.offset(), std::uint64_t(0));
                QVERIFY(QString::fromStdString(e.detail()).contains(QStringLiteral("JSON")));
            }
        }
    }

    void cycleIsRefusedWithItsNodesNamed()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("cycle.et")).toStdString();
        writeFileAtomically(path, "previous contents");
        ChakraTrace trace;
        trace.metadata.set_version("test");
        trace.nodes = {makeNode(1, "aten::lift_fresh", {3}), makeNode(2, "aten::randint", {1}), makeNode(3, "aten::copy_", {2}),
                       makeNode(4, "aten::mm", {})};
        const EtValidation validation = validateEt(trace.nodes);
        QCOMPARE(validation.cycleField, std::string("data_deps"));
        QCOMPARE(validation.cycle.size(), std::size_t(4)); // three nodes, the first repeated
        QCOMPARE(validation.cycle.front(), validation.cycle.back());
        QCOMPARE(validation.nodesOnCycles, std::size_t(3));
        try {
            writeChakraEt(path, trace);
            QFAIL("a cyclic graph was written");
        } catch (const ExportError &e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(QStringLiteral("1 (aten::lift_fresh)")), qPrintable(what));
            QVERIFY2(what.contains(QStringLiteral("2 (aten::randint)")), qPrintable(what));
            QVERIFY2(what.contains(QStringLiteral("3 (aten::copy_)")), qPrintable(what));
            QVERIFY2(!what.contains(QStringLiteral("aten::mm")), qPrintable(what));
        }
        QCOMPARE(readFile(path), std::string("previous contents"));
        QCOMPARE(countEntries(dir.path()), 1); // no temporary file left behind

        // A file holding that graph: the streaming summary names the cycle, names re-read from the file.
        const std::string cyclic = dir.filePath(QStringLiteral("cyclic.et")).toStdString();
        writeFileAtomically(cyclic, serializeChakraEt(trace));
        const nlohmann::json summary = summarizeEtFile(cyclic);
        QVERIFY(!summary["validation"]["ok"].get<bool>());
        QCOMPARE(summary["validation"]["nodes_on_cycles"].get<int>(), 3);
        const std::string message = summary["validation"]["message"].get<std::string>();
        QVERIFY2(message.find("2 (aten::randint)") != std::string::npos, message.c_str());
    }

    void selfDependencyAndLongChainAreHandledIteratively()
    {
        std::vector<ChakraProtoMsg::Node> nodes = {makeNode(5, "self", {5})};
        EtValidation v = validateEt(nodes);
        QCOMPARE(v.cycle, (std::vector<std::uint64_t>{5, 5}));

        // A 300k-node chain would overflow a recursive DFS (as chakra_converter's does).
        nodes.clear();
        for (std::uint64_t i = 0; i < 300000; ++i)
            nodes.push_back(makeNode(i, "op", i ? std::vector<std::uint64_t>{i - 1} : std::vector<std::uint64_t>{},
                                     i ? std::vector<std::uint64_t>{i - 1} : std::vector<std::uint64_t>{}));
        v = validateEt(nodes);
        QVERIFY(v.ok());
        nodes[0].add_data_deps(299999);
        v = validateEt(nodes);
        QCOMPARE(v.nodesOnCycles, std::size_t(300000));
        QCOMPARE(v.cycle.size(), std::size_t(300001));
    }

    void missingAndDuplicateIdsAreNamed()
    {
        std::vector<ChakraProtoMsg::Node> nodes = {makeNode(1, "a", {}), makeNode(2, "b", {7}), makeNode(2, "c", {}, {9})};
        const EtValidation v = validateEt(nodes);
        QCOMPARE(v.duplicateIds.size(), std::size_t(1));
        QCOMPARE(v.missingDataDeps, std::size_t(1));
        QCOMPARE(v.missingCtrlDeps, std::size_t(1));
        const QString message = QString::fromStdString(v.message());
        QVERIFY2(message.contains(QStringLiteral("data_deps names 7")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("ctrl_deps names 9")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("id 2 (b) appears 2 times")), qPrintable(message));
    }

    void malformedInputNamesFileAndOffset()
    {
        ChakraTrace trace;
        trace.metadata.set_version("1");
        trace.nodes = {makeNode(1, "first", {}), makeNode(2, "second", {1})};
        const std::string good = serializeChakraEt(trace);
        const std::size_t secondNodeAt = good.size() - (trace.nodes[1].ByteSizeLong() + 1);

        // Cut inside the second node: the error points at that message's length prefix.
        try {
            parseChakraEt(good.substr(0, good.size() - 3), "cut.et");
            QFAIL("truncated file accepted");
        } catch (const LoadError &e) {
            QCOMPARE(e.file(), std::string("cut.et"));
            QCOMPARE(e.offset(), std::uint64_t(secondNodeAt));
        }
        // A length prefix that never ends.
        try {
            parseChakraEt(good + std::string(3, '\xff'), "prefix.et");
            QFAIL("dangling varint accepted");
        } catch (const LoadError &e) {
            QCOMPARE(e.offset(), std::uint64_t(good.size()));
        }
        // Bytes that are not a Node (field 1 with wire type 7 does not exist).
        try {
            parseChakraEt(good + std::string("\x02\x0f\x00", 3), "garbage.et");
            QFAIL("garbage accepted");
        } catch (const LoadError &e) {
            QCOMPARE(e.offset(), std::uint64_t(good.size()));
            QVERIFY(QString::fromStdString(e.detail()).contains(QStringLiteral("Node")));
        }
        QVERIFY_THROWS_EXCEPTION(LoadError, parseChakraEt(std::string(), "empty.et"));
        QVERIFY_THROWS_EXCEPTION(LoadError, parseChakraEt("{\"schema\": 1}", "json.et"));
        // A corrupt gzip stream.
        QTemporaryDir dir;
        const std::string gz = dir.filePath(QStringLiteral("t.et.gz")).toStdString();
        writeFileAtomically(gz, good, Compression::Gzip);
        std::string bytes = readFile(gz);
        bytes.resize(bytes.size() / 2);
        QVERIFY_THROWS_EXCEPTION(LoadError, parseChakraEt(bytes, "halfgz.et"));
        QVERIFY_THROWS_EXCEPTION(LoadError, readChakraEt(dir.filePath(QStringLiteral("absent.et")).toStdString()));
        // Intact gzip reads back the same nodes.
        const ChakraTrace back = readChakraEt(gz);
        QVERIFY(back.wasGzip);
        QCOMPARE(back.nodes.size(), std::size_t(2));
        QCOMPARE(back.nodes[1].data_deps(0), std::uint64_t(1));
    }

    void failedWriteLeavesNoFile()
    {
        QTemporaryDir dir;
        const std::string missingDir = dir.filePath(QStringLiteral("no/such/dir/out.et")).toStdString();
        QVERIFY_THROWS_EXCEPTION(WriteError, writeFileAtomically(missingDir, "x"));
        const std::string path = dir.filePath(QStringLiteral("abandoned.json")).toStdString();
        {
            AtomicFile file(path);
            file.write("half of it");
            // The temporary file is unnamed (O_TMPFILE) until commit(): nothing to see, nothing left
            // behind by a process killed here.
            QCOMPARE(countEntries(dir.path()), 0);
        } // destroyed without commit()
        QCOMPARE(countEntries(dir.path()), 0);
        writeFileAtomically(path, "whole");
        QCOMPARE(readFile(path), std::string("whole"));
        QCOMPARE(countEntries(dir.path()), 1);
    }

    void dumpCommandPrintsJsonAndSummary()
    {
        const std::string path = tracePath("astrasim_chakra_et_examples/microbenchmarks/all_reduce/8npus_1MB/all_reduce.0.et");
        std::ostringstream out, err;
        QCOMPARE(linkscope::cli::runDump({path, "--array"}, out, err), 0);
        const nlohmann::json dumped = nlohmann::json::parse(out.str());
        QCOMPARE(dumped.size(), std::size_t(2));
        QCOMPARE(dumped[0]["version"].get<std::string>(), std::string("0.0.4"));
        QCOMPARE(dumped[1]["type"].get<std::string>(), std::string("COMM_COLL_NODE"));

        std::ostringstream plain, err2;
        QCOMPARE(linkscope::cli::runDump({path}, plain, err2), 0);
        QVERIFY(plain.str().find("\"COMM_COLL_NODE\"") != std::string::npos);

        std::ostringstream summary, err3;
        QCOMPARE(linkscope::cli::runDump({path, "--summary"}, summary, err3), 0);
        const nlohmann::json s = nlohmann::json::parse(summary.str());
        QCOMPARE(s["comm_types"]["ALL_REDUCE"].get<int>(), 1);

        std::ostringstream out4, err4;
        QCOMPARE(linkscope::cli::runDump({tracePath("astrasim_chakra_et_examples/SOURCE.md")}, out4, err4), 1);
        QVERIFY2(err4.str().find("SOURCE.md") != std::string::npos, err4.str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestEtFormat)
#include "test_etformat.moc"
