// Bad input: every case is built here in code, and each error names the file and the byte offset
// (in the decompressed text) of the problem; recoverable problems are warnings, never silent.

#include "io/tracereader.h"
#include "testsupport.h"
#include "tracefixtures.h"

#include <QtTest>

#include <functional>

using namespace linkscope::core;

// Declared before any raw string literal: moc does not tokenize those.
class TestMalformed : public QObject {
    Q_OBJECT

private slots:
    void kinetoErrors_data();
    void kinetoErrors();
    void deepNesting();
    void gzipErrors();
    void kinetoWarnings();
    void kinetoTopLevelVariants();
    void kinetoWindowBoundaries();
    void kinetoMappedFileEdges();
    void kinetoNumbersOutOfRange();
    void hostErrors_data();
    void hostErrors();
    void hostTruncationRecovered();
    void hostRecoverableProblems();
    void hostMissingSchemaAndMixedLayout();
};

namespace {

// Runs `load` and returns the LoadError it throws (fails the test if it does not throw one).
LoadError expectLoadError(const std::function<void()> &load)
{
    try {
        load();
    } catch (const LoadError &e) {
        return e;
    } catch (const std::exception &e) {
        qWarning("unexpected exception: %s", e.what());
        return LoadError("", kUnknownOffset, "wrong exception type");
    }
    qWarning("no LoadError thrown");
    return LoadError("", kUnknownOffset, "nothing thrown");
}

bool hasWarning(const std::vector<Diagnostic> &warnings, const std::string &fragment)
{
    for (const auto &w : warnings)
        if (w.message.find(fragment) != std::string::npos)
            return true;
    return false;
}

std::string warningsText(const std::vector<Diagnostic> &warnings)
{
    std::string all;
    for (const auto &w : warnings)
        all += w.toString() + "\n";
    return all;
}

// Writes `bytes` to `name` in `dir` and returns the path (readKinetoTrace maps plain files, so the
// cases below also run through the mapped-file path, not only the in-memory one).
std::string writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &bytes)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qWarning("cannot write %s", qPrintable(path));
    return path.toStdString();
}

std::string kinetoEvent(int ts, const char *name = "op", const char *extra = "")
{
    return std::string(R"({"ph":"X","cat":"cpu_op","name":")") + name + R"(","pid":1,"tid":2,"ts":)" + std::to_string(ts)
           + R"(,"dur":1)" + extra + "}";
}

// A small nested-layout (1.0.2+) host ET: process root 1 (written last, as the observer does),
// thread root 2, ops 3..(2+ops) under 2.
std::string hostEt(int ops)
{
    std::string nodes;
    auto node = [](int id, int parent, const char *name) {
        return "{\"id\": " + std::to_string(id) + ", \"name\": \"" + name + "\", \"ctrl_deps\": " + std::to_string(parent)
               + R"(, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []},)"
               + R"( "attrs": [{"name": "rf_id", "type": "uint64", "value": )" + std::to_string(id) + "}]}";
    };
    nodes += node(2, 1, "[pytorch|profiler|execution_trace|thread]");
    for (int i = 0; i < ops; ++i)
        nodes += ",\n" + node(3 + i, 2, "aten::op");
    nodes += ",\n" + node(1, 1, "[pytorch|profiler|execution_trace|process]");
    return R"({"schema": "1.0.2-chakra.0.0.4", "pid": 7, "time": "t", "start_ts": 1, "nodes": [)" + nodes
           + "], \"finish_ts\": 2}";
}

} // namespace

void TestMalformed::kinetoErrors_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<QString>("message");

    QTest::newRow("empty file") << QByteArray() << qint64(0) << "empty file";
    QTest::newRow("only whitespace") << QByteArray(" \n\t ") << qint64(4) << "only whitespace";
    QTest::newRow("not json") << QByteArray("hello") << qint64(0) << "not a JSON document";
    {
        // The second ',' of ",," is at byte 36.
        const QByteArray text = R"({"traceEvents": [{"ph":"X","ts":1,,"dur":2}]})";
        QTest::newRow("double comma") << text << qint64(text.indexOf(",,") + 1) << "expected a member name";
    }
    {
        const QByteArray text = QByteArray("{\"traceEvents\": [") + kinetoEvent(1).c_str() + ",{\"ph\":\"X\",\"ts\"";
        QTest::newRow("truncated") << text << qint64(text.size()) << "the file is truncated";
    }
    {
        const QByteArray text = QByteArray("{\"traceEvents\": [") + kinetoEvent(1).c_str() + "] ";
        QTest::newRow("truncated after the array") << text << qint64(text.size()) << "the file is truncated";
    }
    QTest::newRow("host ET given as Kineto") << QByteArray(hostEt(1).c_str()) << qint64(0)
                                             << "looks like a host execution trace (has \"nodes\"), expected a Kineto trace";
    QTest::newRow("no traceEvents") << QByteArray(R"({"schemaVersion": 1})") << qint64(0) << "no \"traceEvents\" array";
    {
        const QByteArray text = R"({"traceEvents": {"ph": "X"}})";
        QTest::newRow("traceEvents not an array") << text << qint64(text.indexOf('{', 1)) << "\"traceEvents\" is not an array";
    }
    {
        const QByteArray text = R"({"traceEvents": [{"ph":"X","ts":1}] "x": 1})";
        QTest::newRow("missing comma at top level") << text << qint64(text.indexOf("\"x\"")) << "expected ',' or '}'";
    }
    {
        const QByteArray text = R"({"traceEvents": [{"ph":"X","name":"a\qb","ts":1}]})";
        QTest::newRow("bad escape") << text << qint64(text.indexOf("\\q")) << "invalid escape";
    }
    {
        // Invalid UTF-8 passes the structural scan; simdjson rejects it and the element is named.
        QByteArray text = R"({"traceEvents": [{"ph":"X","ts":1}, {"ph":"X","name":"a?b","ts":2}]})";
        text[text.indexOf("a?b") + 1] = char(0xff);
        QTest::newRow("invalid utf-8") << text << qint64(text.indexOf("{\"ph\"", 20))
                                       << "invalid JSON in a \"traceEvents\" element";
    }
}

void TestMalformed::kinetoErrors()
{
    QFETCH(QByteArray, input);
    QFETCH(qint64, offset);
    QFETCH(QString, message);
    const LoadError e = expectLoadError([&] { parseKinetoTrace(input.toStdString(), "bad.json"); });
    QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("bad.json"));
    QVERIFY2(QString::fromStdString(e.detail()).contains(message), e.what());
    QCOMPARE(qint64(e.offset()), offset);
    // The message names the file and the offset.
    QVERIFY(std::string(e.what()).starts_with("bad.json: byte " + std::to_string(offset) + ": "));

    // The same from a file on disk (mapped, streamed): the same message and offset, naming the path.
    QTemporaryDir dir;
    const std::string path = writeFile(dir, "bad.json", input);
    const LoadError fromFile = expectLoadError([&] { readKinetoTrace(path); });
    QCOMPARE(fromFile.file(), path);
    QCOMPARE(fromFile.detail(), e.detail());
    QCOMPARE(fromFile.offset(), e.offset());
}

void TestMalformed::deepNesting()
{
    // 5,000 nested lists in args and in a host node: read without recursion, no stack overflow.
    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    const DeviceTrace t = parseKinetoTrace(R"({"traceEvents": [{"ph":"X","ts":1,"dur":1,"args":)" + deep + "}]}", "deep.json");
    QCOMPARE(t.events.size(), std::size_t(1));
    QVERIFY(hasWarning(t.warnings, "\"args\" is not an object"));
    const HostTrace h = parseHostTrace(R"({"schema": "1.0.1", "nodes": [{"id": 1, "name": "a", "inputs": )" + deep + "}]}",
                                       "deep.json");
    QCOMPARE(h.nodes.size(), std::size_t(1));
    QCOMPARE(h.text(h.nodes[0].inputs.values), deep);
}

void TestMalformed::gzipErrors()
{
    const QByteArray text = QByteArray("{\"traceEvents\": [") + kinetoEvent(1).c_str() + "]}";
    const QByteArray gz = linkscope::test::gzipBytes(text);
    QVERIFY(gz.size() > 20);
    // Cut in the middle of the deflate data.
    const LoadError cut = expectLoadError([&] { parseKinetoTrace(gz.left(gz.size() - 12).toStdString(), "cut.gz"); });
    QVERIFY2(cut.detail().find("gzip stream is truncated") != std::string::npos, cut.what());
    // Corrupt deflate data after a valid header.
    QByteArray corrupt = gz;
    for (int i = 12; i < corrupt.size() - 8; ++i)
        corrupt[i] = char(0xff);
    const LoadError bad = expectLoadError([&] { parseKinetoTrace(corrupt.toStdString(), "bad.gz"); });
    QVERIFY2(bad.detail().find("gzip") != std::string::npos, bad.what());
    // Valid gzip of bad JSON: the offset is in the decompressed text, and the message says so.
    const QByteArray badJson = linkscope::test::gzipBytes(R"({"traceEvents": [{"ph":"X",,}]})");
    const LoadError inside = expectLoadError([&] { parseKinetoTrace(badJson.toStdString(), "bad.json.gz"); });
    QCOMPARE(inside.offset(), std::uint64_t(QByteArray(R"({"traceEvents": [{"ph":"X",,}]})").indexOf(",,") + 1));
    QVERIFY2(inside.detail().find("decompressed") != std::string::npos, inside.what());
    // A file that does not exist.
    const LoadError missing = expectLoadError([&] { readKinetoTrace("/nonexistent/trace.json"); });
    QCOMPARE(missing.file(), std::string("/nonexistent/trace.json"));
    QVERIFY(missing.detail().find("cannot open") != std::string::npos);
}

void TestMalformed::kinetoWarnings()
{
    // Each recoverable problem is a warning with a count and the offset of its first occurrence.
    const std::string text =
        std::string("{\"traceEvents\": [") + kinetoEvent(1) + ",\n" + R"({"ph":"X","name":"no ts","pid":1,"tid":2,"dur":1},)"
        + "\n" + R"({"ph":"X","name":"bad ts","pid":1,"tid":2,"ts":"abc","dur":1},)" + "\n"
        + R"({"ph":"X","name":7,"pid":1,"tid":2,"ts":3,"dur":1},)" + "\n"
        + R"({"ph":"X","name":"neg","pid":1,"tid":2,"ts":4,"dur":-5},)" + "\n" + R"(42,)" + "\n"
        + R"({"ph":"X","name":"no dur","pid":{"a":1},"tid":2,"ts":5},)" + "\n"
        + R"({"ph":"X","name":"quoted","pid":"Spans","tid":"stream 7","ts":"12.3456789","dur":1.5e3,"args":{"External id":"12","correlation":7.0}})"
        + "]} trailing";
    const DeviceTrace t = parseKinetoTrace(text, "w.json");
    // Kept: kinetoEvent(1), name 7, neg, no dur, quoted = 5; skipped with a warning: no ts, bad ts, 42.
    QCOMPARE(t.events.size(), std::size_t(5));
    const std::string all = warningsText(t.warnings);
    QVERIFY2(hasWarning(t.warnings, "2 × event without a valid \"ts\"; skipped"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "\"ts\" is not a decimal number"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "\"name\" is not a string"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "negative \"dur\"; set to 0"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "element of \"traceEvents\" is not an object; skipped"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "\"pid\" is neither a number nor a string"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "without a valid \"dur\""), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "bytes after the end of the JSON document"), all.c_str());
    for (const auto &w : t.warnings) {
        QCOMPARE(w.file, std::string("w.json"));
        QVERIFY(w.offset != kUnknownOffset);
    }
    // The "no ts" warning points at that event.
    for (const auto &w : t.warnings)
        if (w.message.find("without a valid \"ts\"") != std::string::npos)
            QCOMPARE(w.offset, std::uint64_t(text.find("{\"ph\":\"X\",\"name\":\"no ts\"")));
    const DeviceEvent &neg = t.events[2];
    QCOMPARE(neg.dur, Nanos(0));
    const DeviceEvent &quoted = t.events[4];
    QCOMPARE(quoted.ts, Nanos(12345));    // "12.3456789" µs, sub-ns digits truncated
    QCOMPARE(quoted.dur, Nanos(1500000)); // 1.5e3 µs
    QVERIFY(t.threadKey(quoted).pid.isString);
    QCOMPARE(t.idText(t.threadKey(quoted).pid), std::string("Spans"));
    QCOMPARE(t.idText(t.threadKey(quoted).tid), std::string("stream 7"));
    QCOMPARE(quoted.externalId, std::int64_t(12));
    QCOMPARE(quoted.correlation, std::int64_t(7));
    QCOMPARE(t.argsJson(quoted), std::string(R"({"External id":"12","correlation":7.0})"));
}

void TestMalformed::kinetoTopLevelVariants()
{
    // Chrome's JSON Array Format, metadata, and pg_config ranks as a list and as a string.
    const DeviceTrace arrayFormat = parseKinetoTrace("[" + kinetoEvent(5) + "," + kinetoEvent(6) + "]", "array.json");
    QCOMPARE(arrayFormat.events.size(), std::size_t(2));
    QCOMPARE(arrayFormat.events[1].ts, Nanos(6000));

    const std::string text =
        std::string(R"({"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,)")
        + R"("distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 4, "nccl_version": "2.21.5", "pg_config": [)"
        + R"({"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 4, "ranks": [0, 1, 2, 3]},)"
        + R"({"pg_name": "1", "pg_desc": "tp", "pg_size": 2, "ranks": "[2, 3]"}]},)"
        + R"("deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 85031714816, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],)"
        + R"("traceEvents": [{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},)"
        + R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},)"
        + R"({"name":"thread_sort_index","ph":"M","pid":1,"tid":2,"args":{"sort_index":5}},)" + kinetoEvent(1)
        + R"(,{"ph":"X","cat":"kernel","name":"nccl","pid":0,"tid":7,"ts":2,"dur":1,"args":{"device":0,"stream":7,"correlation":9,"graph id":3,"Collective name":"allreduce","Group size":4,"Process Group Name":"0","Src Rank":-1,"Dst Rank":2,"Seq":11,"In msg nelems":10,"Out msg nelems":20,"dtype":"Float","Record function id":99}})"
        + R"(,{"ph":"s","id":9,"pid":1,"tid":2,"ts":1,"cat":"ac2g","name":"ac2g"},{"ph":"f","id":9,"pid":0,"tid":7,"ts":2,"cat":"ac2g","name":"ac2g","bp":"e"})"
        + "], \"traceName\": \"x\"}";
    const DeviceTrace t = parseKinetoTrace(text, "full.json");
    QVERIFY2(t.warnings.empty(), warningsText(t.warnings).c_str());
    QCOMPARE(t.schemaVersion, std::int64_t(1));
    QCOMPARE(*t.baseTimeNs, Nanos(1700000000000000000));
    QCOMPARE(t.distributed->rank, std::int64_t(3));
    QCOMPARE(t.distributed->processGroups.size(), std::size_t(2));
    QCOMPARE(t.distributed->processGroups[0].ranks, (std::vector<std::int64_t>{0, 1, 2, 3}));
    QCOMPARE(t.distributed->processGroups[1].ranks, (std::vector<std::int64_t>{2, 3}));
    QCOMPARE(t.distributed->processGroups[0].backendConfig, std::string("cuda:nccl"));
    QCOMPARE(t.devices.at(0).numSms, std::int64_t(132));
    const ThreadKey main{TraceId{1, false}, TraceId{2, false}};
    QCOMPARE(t.threadNames.at(main), std::string("main"));
    QCOMPARE(t.processNames.at(TraceId{1, false}), std::string("python"));
    QCOMPARE(t.threadSortIndex.at(main), std::int64_t(5));
    const EventIndex kernel(4);
    const DeviceEvent &k = t.event(kernel);
    QCOMPARE(k.category, EventCategory::Kernel);
    QVERIFY(k.hasGraphId() && k.hasCollective());
    QCOMPARE(t.graphIdOf(kernel), std::int64_t(3));
    QCOMPARE(k.rfId, std::uint64_t(99));
    QVERIFY(t.collectiveOf(kernel) != nullptr);
    const CollectiveArgs &c = *t.collectiveOf(kernel);
    QCOMPARE(c.groupSize, std::int64_t(4));
    QCOMPARE(c.srcRank, std::int64_t(-1));
    QCOMPARE(c.dstRank, std::int64_t(2));
    QCOMPARE(c.seq, std::int64_t(11));
    QCOMPARE(c.inMsgNelems, std::int64_t(10));
    QCOMPARE(c.outMsgNelems, std::int64_t(20));
    QCOMPARE(t.strings.at(c.processGroupName), std::string_view("0"));
    QCOMPARE(t.events[5].phase, Phase::FlowStart);
    QCOMPARE(t.events[5].flowId, std::int64_t(9));
    QCOMPARE(t.events[6].phase, Phase::FlowFinish);
    QCOMPARE(t.events[6].category, EventCategory::Flow);
}

void TestMalformed::kinetoNumbersOutOfRange()
{
    // Found by fuzz_kinetoreader: an integer too large for int64 is parsed as a double, and casting
    // it was undefined behaviour (caught by UBSan in the sanitizer build). It is ignored, not wrapped.
    const std::string text =
        std::string(R"({"deviceProperties": [{"id": 7, "name": "GPU",)")
        + R"( "totalGlobalMem": 422975240000000000000000000000000224, "numSms": -1e300, "computeMajor": 8.0}],)"
        + R"("traceEvents": [)" + kinetoEvent(1) + "]}";
    const DeviceTrace t = parseKinetoTrace(text, "huge.json");
    QCOMPARE(t.devices.size(), std::size_t(1));
    QCOMPARE(t.devices[0].id, std::int64_t(7));
    QCOMPARE(t.devices[0].totalGlobalMem, std::int64_t(0));
    QCOMPARE(t.devices[0].numSms, std::int64_t(0));
    QCOMPARE(t.devices[0].computeMajor, std::int64_t(8));
    QCOMPARE(t.events.size(), std::size_t(1));
}

void TestMalformed::kinetoWindowBoundaries()
{
    // Larger than several parse windows, with names that contain "},{" and args holding lists
    // of objects: both are places where a naive event boundary search would cut.
    std::string text = "{\"traceEvents\": [\n";
    const int count = 60000;
    for (int i = 0; i < count; ++i) {
        if (i)
            text += i % 3 ? ",\n" : " , ";
        if (i % 7 == 0)
            text += kinetoEvent(i, "tricky},{\\\"name\\\": 1}, {x", R"(,"args":{"list":[{"a":1},{"b":[{}]}],"External id":1})");
        else
            text += kinetoEvent(i, "plain");
    }
    text += "\n], \"deviceProperties\": [{\"id\": 0},{\"id\": 1}]}";
    QVERIFY(text.size() > (8u << 20) / 2);
    const DeviceTrace t = parseKinetoTrace(text, "windows.json");
    QCOMPARE(t.events.size(), std::size_t(count));
    QVERIFY2(t.warnings.empty(), warningsText(t.warnings).c_str());
    for (int i = 0; i < count; ++i) {
        QCOMPARE(t.events[i].ts, Nanos(i) * 1000);
        if (i % 7 == 0) {
            QCOMPARE(t.name(t.events[i]), std::string_view("tricky},{\"name\": 1}, {x"));
            QVERIFY(t.argsJson(t.events[i]).starts_with("{\"list\""));
            QVERIFY(t.argsJson(t.events[i]).ends_with(":1}"));
        }
    }
    QCOMPARE(t.devices.size(), std::size_t(2));

    // From a file the text is mapped and its pages released window by window; deviceProperties comes
    // after the array. Everything must match the in-memory parse, args read back from the file.
    QTemporaryDir dir;
    const DeviceTrace mapped = readKinetoTrace(writeFile(dir, "windows.json", QByteArray::fromStdString(text)));
    QCOMPARE(mapped.events.size(), t.events.size());
    QVERIFY(mapped.argsStore && !mapped.argsStore->inMemoryText());
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        QCOMPARE(mapped.events[i].ts, t.events[i].ts);
        QCOMPARE(mapped.name(mapped.events[i]), t.name(t.events[i]));
        QCOMPARE(mapped.argsJson(mapped.events[i]), t.argsJson(t.events[i]));
    }
    QCOMPARE(mapped.devices.size(), std::size_t(2));
}

void TestMalformed::kinetoMappedFileEdges()
{
    // simdjson reads up to 64 bytes past the text: a mapped file whose last byte ends a page must
    // still be padded (the reader maps it in front of anonymous zero pages).
    QTemporaryDir dir;
    QByteArray text = QByteArray("{\"traceEvents\": [") + kinetoEvent(5, "edge", R"(,"args":{"External id":3})").c_str() + "]";
    text += QByteArray(8192 - text.size() - 1, ' ') + "}";
    QCOMPARE(text.size(), 8192);
    const DeviceTrace t = readKinetoTrace(writeFile(dir, "page.json", text));
    QCOMPARE(t.events.size(), std::size_t(1));
    QCOMPARE(t.events[0].externalId, std::int64_t(3));
    QCOMPARE(t.argsJson(t.events[0]), std::string(R"({"External id":3})"));

    // Cut at the page boundary: truncated, with the offset of the end.
    const LoadError cut = expectLoadError([&] { readKinetoTrace(writeFile(dir, "cut.json", text.left(4096))); });
    QCOMPARE(cut.offset(), std::uint64_t(4096));
    QVERIFY2(cut.detail().find("truncated") != std::string::npos, cut.what());

    // Empty and missing files.
    const LoadError empty = expectLoadError([&] { readKinetoTrace(writeFile(dir, "empty.json", QByteArray())); });
    QVERIFY2(empty.detail().find("empty file") != std::string::npos, empty.what());
    const std::string missing = dir.filePath(QStringLiteral("missing.json")).toStdString();
    const LoadError gone = expectLoadError([&] { readKinetoTrace(missing); });
    QCOMPARE(gone.file(), missing);
    QVERIFY2(gone.detail().find("cannot open") != std::string::npos, gone.what());
}

void TestMalformed::hostErrors_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty file") << QByteArray() << qint64(0) << "empty file";
    {
        const QByteArray text = QByteArray("{\"traceEvents\": [") + kinetoEvent(1).c_str() + "]}";
        QTest::newRow("Kineto given as host")
            << text << qint64(text.indexOf('['))
            << "looks like a Kineto trace (has \"traceEvents\"), expected a host execution trace";
    }
    QTest::newRow("no nodes") << QByteArray(R"({"schema": "1.0.1", "pid": 1})") << qint64(0) << "no \"nodes\" array";
    {
        const QByteArray text = R"({"schema": "1.0.1", "nodes": 5})";
        QTest::newRow("nodes not an array") << text << qint64(text.indexOf('5')) << "\"nodes\" is not an array";
    }
    {
        const QByteArray text = R"({"schema": "1.0.1", "pid": 1, "nodes": [{"id": 1, "name": "a"} {"id": 2}]})";
        QTest::newRow("missing comma between nodes") << text << qint64(text.indexOf("{\"id\": 2")) << "expected ',' or ']'";
    }
    {
        const QByteArray text = R"({"schema": "1.0.1", "pid)";
        QTest::newRow("truncated before nodes") << text << qint64(text.size()) << "the file is truncated";
    }
    QTest::newRow("protobuf bytes") << QByteArray("\x05\x0a\x03"
                                                  "0.1",
                                                  6)
                                    << qint64(0) << "not a JSON object";
}

void TestMalformed::hostErrors()
{
    QFETCH(QByteArray, input);
    QFETCH(qint64, offset);
    QFETCH(QString, message);
    const LoadError e = expectLoadError([&] { parseHostTrace(input.toStdString(), "host.json"); });
    QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("host.json"));
    QVERIFY2(QString::fromStdString(e.detail()).contains(message), e.what());
    QCOMPARE(qint64(e.offset()), offset);
}

void TestMalformed::hostTruncationRecovered()
{
    const std::string full = hostEt(10);
    const HostTrace whole = parseHostTrace(full, "whole.json");
    QCOMPARE(whole.nodes.size(), std::size_t(12));
    QVERIFY(!whole.recoveredTruncation);
    QVERIFY2(whole.warnings.empty(), warningsText(whole.warnings).c_str());

    // Cut inside the 6th op node (id 8): nodes 2..7 survive; the process root (written last) is
    // synthesized because the thread root names it as parent.
    const std::size_t cut = full.find("{\"id\": 8,") + 20;
    const HostTrace t = parseHostTrace(full.substr(0, cut), "crashed.json");
    QVERIFY(t.recoveredTruncation);
    QCOMPARE(t.nodes.size(), std::size_t(7)); // 2..7 + synthesized 1
    QCOMPARE(t.nodes.front().id, std::int64_t(1));
    QCOMPARE(t.name(t.nodes.front()), std::string_view("[pytorch|profiler|execution_trace|process]"));
    QCOMPARE(t.roots.size(), std::size_t(1));
    QCOMPARE(t.childCount(HostNodeIndex(0)), std::size_t(1)); // root → thread 2
    QCOMPARE(t.childCount(HostNodeIndex(1)), std::size_t(5)); // thread 2 → ops 3..7
    QVERIFY2(hasWarning(t.warnings, "cut off"), warningsText(t.warnings).c_str());
    QVERIFY(hasWarning(t.warnings, "synthesized the missing process root"));
    for (const auto &w : t.warnings)
        if (w.message.find("cut off") != std::string::npos)
            QCOMPARE(w.offset, std::uint64_t(full.find("{\"id\": 8,")));
    QCOMPARE(t.finishTs, std::int64_t(-1));

    // Cut after the nodes array, inside "finish_ts": every node is kept.
    const std::size_t late = full.find("\"finish_ts\"") + 5;
    const HostTrace l = parseHostTrace(full.substr(0, late), "late.json");
    QVERIFY(l.recoveredTruncation);
    QCOMPARE(l.nodes.size(), std::size_t(12));
    QVERIFY(!hasWarning(l.warnings, "synthesized"));

    // Cut right after a complete node and its comma.
    const std::size_t atComma = full.find(",\n{\"id\": 5,") + 2;
    const HostTrace c = parseHostTrace(full.substr(0, atComma), "comma.json");
    QVERIFY(c.recoveredTruncation);
    QCOMPARE(c.nodes.size(), std::size_t(1 + 3)); // 2, 3, 4 + synthesized 1
}

void TestMalformed::hostRecoverableProblems()
{
    const std::string text = R"({"schema": "1.0.1", "pid": 5, "nodes": [
  {"id": 3, "name": "first", "parent": 2, "rf_id": 1, "tid": 1},
  {"id": 3, "name": "duplicate", "parent": 2},
  {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "parent": 1},
  {"id": 9, "name": "orphan", "parent": 77},
  {"name": "no id", "parent": 2},
  {"id": "x", "name": "bad id"},
  {"id": 10, "name": "loop a", "parent": 11},
  {"id": 11, "name": "loop b", "parent": 10},
  {"id": 12, "name": "typed", "parent": 2, "rf_id": "abc", "scope": 7},
  {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "parent": 1}
]})";
    const HostTrace t = parseHostTrace(text, "odd.json");
    const std::string all = warningsText(t.warnings);
    QCOMPARE(t.layout, HostLayout::Flat);
    // Kept: 1, 2, 3 (first), 9, 10, 11, 12.
    QCOMPARE(t.nodes.size(), std::size_t(7));
    QCOMPARE(t.name(*t.findById(3)), std::string_view("first"));
    QVERIFY2(hasWarning(t.warnings, "1 node(s) repeat an id already used; the first node with each id is kept"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "node 9 → parent 77"), all.c_str());
    QVERIFY(t.findById(9)->parentMissing);
    QVERIFY2(hasWarning(t.warnings, "node without \"id\"; skipped"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "node \"id\" is not an integer; node skipped"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "parent loop"), all.c_str());
    QVERIFY2(hasWarning(t.warnings, "\"rf_id\" is not an integer"), all.c_str());
    QCOMPARE(t.findById(12)->rfId, std::uint64_t(0));
    QCOMPARE(t.findById(12)->scope, 7);
    // Roots: process 1, orphan 9, and one node of the 10↔11 loop.
    QCOMPARE(t.roots.size(), std::size_t(3));
    for (const auto &w : t.warnings)
        QCOMPARE(w.file, std::string("odd.json"));
}

void TestMalformed::hostMissingSchemaAndMixedLayout()
{
    const HostTrace t = parseHostTrace(R"({"nodes": [{"id": 1, "name": "a", "parent": 1},
        {"id": 2, "name": "b", "ctrl_deps": 1, "attrs": [{"name": "rf_id", "type": "uint64", "value": 4}]}]})",
                                       "mixed.json");
    QCOMPARE(t.nodes.size(), std::size_t(2));
    QVERIFY(hasWarning(t.warnings, "no \"schema\" key"));
    QVERIFY(hasWarning(t.warnings, "mix the flat (1.0.1) and nested (1.0.2+) layouts"));
    QCOMPARE(t.findById(2)->rfId, std::uint64_t(4));
    QCOMPARE(t.findById(2)->parent, HostNodeIndex(0));
}

QTEST_GUILESS_MAIN(TestMalformed)
#include "test_malformed.moc"
