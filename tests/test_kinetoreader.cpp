// The Kineto reader on real public traces.
//
// Expected values were computed independently with python3 (stdlib json + decimal), e.g.
//   python3 -c "import gzip,json,collections; d=json.load(gzip.open(P)); ev=[e for e in d['traceEvents']
//     if e.get('ph')=='M' or 'ts' in e]; print(len(ev), collections.Counter(e.get('cat','') for e in ev))"
// with times converted as int(Decimal(str(ts)) * 1000) (ns, truncated). "threads" counts distinct
// (pid, tid) of thread_name metadata; "streams" distinct (args.device, args.stream) over
// kernel/gpu_memcpy/gpu_memset; "collectives" events whose args carry any collective key
// (Collective name, In/Out msg nelems, Group size, dtype, Process Group Name/Description,
// Src/Dst Rank, Seq); "rf" events with a non-zero "Record function id".

#include "io/formats.h"
#include "io/tracereader.h"
#include "readerdigest.h"
#include "testsupport.h"
#include "tracefixtures.h"

#include <QtTest>

#include <cstdio>
#include <limits>

#include <map>
#include <set>

using namespace linkscope::core;
using linkscope::test::tracePath;

namespace {

void writeFile(const std::string &path, const std::string &text)
{
    std::FILE *f = std::fopen(path.c_str(), "wb");
    QVERIFY(f);
    QCOMPARE(std::fwrite(text.data(), 1, text.size(), f), text.size());
    std::fclose(f);
}

struct KinetoCounts {
    std::size_t events = 0;
    std::map<std::string, std::size_t> byCategoryText;
    std::size_t metadata = 0;
    std::size_t threads = 0;
    std::size_t streams = 0;
    std::size_t collectives = 0;
    std::size_t withRfId = 0;
    std::size_t flows = 0;
};

KinetoCounts countsOf(const DeviceTrace &t)
{
    KinetoCounts c;
    c.events = t.events.size();
    std::set<std::pair<std::int64_t, std::int64_t>> streams;
    for (const auto &e : t.events) {
        ++c.byCategoryText[std::string(t.strings.at(e.categoryText))];
        c.metadata += e.phase == Phase::Metadata;
        c.collectives += e.hasCollective();
        c.withRfId += e.rfId != 0;
        c.flows += e.category == EventCategory::Flow;
        if (isGpuOpCategory(e.category))
            streams.insert({e.device, e.stream});
    }
    c.threads = t.threadNames.size();
    c.streams = streams.size();
    return c;
}

const DeviceEvent *firstOf(const DeviceTrace &t, EventCategory cat)
{
    for (const auto &e : t.events)
        if (e.category == cat)
            return &e;
    return nullptr;
}

} // namespace

class TestKinetoReader : public QObject {
    Q_OBJECT

private slots:
    void counts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("cpuOp");
        QTest::addColumn<int>("userAnnotation");
        QTest::addColumn<int>("runtime");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("memcpy");
        QTest::addColumn<int>("memset");
        QTest::addColumn<int>("flowEvents"); // ac2g + fwdbwd
        QTest::addColumn<int>("metadata");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("streams");
        QTest::addColumn<int>("collectives");
        QTest::addColumn<int>("withRfId");

        QTest::newRow("hta simple add") << "hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz" << 111 << 28 << 8 << 15
                                        << 4 << 0 << 0 << 19 << 34 << 2 << 1 << 0 << 0;
        QTest::newRow("megatron rank 0") << "astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz" << 14245 << 5337 << 87
                                         << 3494 << 690 << 6 << 81 << 4391 << 36 << 3 << 2 << 0 << 0;
        QTest::newRow("hta nccl_data") << "hta_kineto_nccl/nccl_data.json.gz" << 40573 << 14346 << 42 << 8740 << 2700 << 960
                                       << 114 << (12514 + 1086) << 38 << 4 << 2 << 48 << 14388;
        QTest::newRow("hta ns resolution") << "hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz" << 68692 << 23910
                                           << 70 << 15329 << 4350 << 1600 << 145 << (21424 + 1810) << 36 << 3 << 1 << 45 << 0;
        QTest::newRow("hta rocm") << "hta_kineto_nccl/mi250_minitoy_train_ROCm6_2_kineto.json.gz" << 220 << 70 << 3 << 21 << 14
                                  << 2 << 0 << (37 + 8) << 60 << 3 << 1 << 0 << 73;
    }

    void counts()
    {
        QFETCH(QString, file);
        QFETCH(int, events);
        QFETCH(int, cpuOp);
        QFETCH(int, userAnnotation);
        QFETCH(int, runtime);
        QFETCH(int, kernel);
        QFETCH(int, memcpy);
        QFETCH(int, memset);
        QFETCH(int, flowEvents);
        QFETCH(int, metadata);
        QFETCH(int, threads);
        QFETCH(int, streams);
        QFETCH(int, collectives);
        QFETCH(int, withRfId);
        LINKSCOPE_REQUIRE_TRACES(file.toStdString());
        const DeviceTrace t = readKinetoTrace(tracePath(file.toStdString()));
        KinetoCounts c = countsOf(t);
        QCOMPARE(int(c.events), events);
        QCOMPARE(int(c.byCategoryText["cpu_op"]), cpuOp);
        QCOMPARE(int(c.byCategoryText["user_annotation"]), userAnnotation);
        QCOMPARE(int(c.byCategoryText["cuda_runtime"]), runtime);
        QCOMPARE(int(c.byCategoryText["kernel"]), kernel);
        QCOMPARE(int(c.byCategoryText["gpu_memcpy"]), memcpy);
        QCOMPARE(int(c.byCategoryText["gpu_memset"]), memset);
        QCOMPARE(int(c.flows), flowEvents);
        QCOMPARE(int(c.metadata), metadata);
        QCOMPARE(int(c.threads), threads);
        QCOMPARE(int(c.streams), streams);
        QCOMPARE(int(t.collectives.size()), collectives);
        QCOMPARE(int(c.collectives), collectives);
        QCOMPARE(int(c.withRfId), withRfId);
        QVERIFY(t.wasGzip);
        QVERIFY(t.argsStore);
        QVERIFY(t.argsStore->inMemoryText()); // gzip: the args are copied out
        QVERIFY(t.argsStore->sizeBytes() < t.sourceBytes);
        QCOMPARE(t.schemaVersion, std::int64_t(1));
        QVERIFY2(t.warnings.empty() || file.contains("ROCm"), t.warnings.empty() ? "" : t.warnings.front().toString().c_str());
    }

    void simpleAddDetails()
    {
        const DeviceTrace t = readKinetoTrace(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz"));
        // First event "[param|cuda]" ts 1689360788493697 µs; first kernel ts 1689360808083239 dur 5, corr 22, stream 7.
        QCOMPARE(t.name(t.events.front()), std::string_view("[param|cuda]"));
        QCOMPARE(t.events.front().ts, Nanos(1689360788493697000));
        QCOMPARE(t.events.front().externalId, std::int64_t(1));
        QCOMPARE(t.events.front().evIdx, std::int64_t(0));
        QCOMPARE(t.argsJson(t.events.front()).front(), '{');
        QVERIFY(t.argsJson(t.events.front()).find("\"External id\": 1") != std::string_view::npos);
        const DeviceEvent *k = firstOf(t, EventCategory::Kernel);
        QVERIFY(k);
        QCOMPARE(k->ts, Nanos(1689360808083239000));
        QCOMPARE(k->dur, Nanos(5000));
        QCOMPARE(k->correlation, std::int64_t(22));
        QCOMPARE(k->stream, std::int64_t(7));
        QCOMPARE(k->device, 0);
        QCOMPARE(k->phase, Phase::Complete);
        QCOMPARE(t.devices.size(), std::size_t(8));
        QCOMPARE(t.devices[0].name, std::string("NVIDIA A100-PG509-200"));
        QCOMPARE(t.devices[0].numSms, std::int64_t(108));
        QCOMPARE(t.devices[0].totalGlobalMem, std::int64_t(42297524224));
        QVERIFY(t.distributed.has_value());
        QCOMPARE(t.distributed->rank, std::int64_t(0));
        // The "Record Window End" instant has pid "" and tid "": string ids.
        const DeviceEvent &last = t.events.back();
        QCOMPARE(last.phase, Phase::Instant);
        QVERIFY(t.threadKey(last).pid.isString);
        QCOMPARE(t.idText(t.threadKey(last).pid), std::string());
        std::size_t flowStarts = 0, flowFinishes = 0;
        for (const auto &e : t.events) {
            flowStarts += e.phase == Phase::FlowStart;
            flowFinishes += e.phase == Phase::FlowFinish;
            if (e.phase == Phase::FlowStart)
                QVERIFY(e.flowId >= 0);
        }
        QCOMPARE(flowStarts, std::size_t(9));
        QCOMPARE(flowFinishes, std::size_t(10));
    }

    void nsResolutionTimes()
    {
        // Fractional microseconds ("1712195495519689.047") must become exact ns; first kernel
        // ts 1712195495505582.988 dur 4.928, correlation 135071.
        LINKSCOPE_REQUIRE_TRACES("hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
        const DeviceTrace t = readKinetoTrace(tracePath("hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
        QCOMPARE(t.events.front().ts, Nanos(1712195495519689047));
        const DeviceEvent *k = firstOf(t, EventCategory::Kernel);
        QVERIFY(k);
        QCOMPARE(k->ts, Nanos(1712195495505582988));
        QCOMPARE(k->dur, Nanos(4928));
        QCOMPARE(k->correlation, std::int64_t(135071));
        QVERIFY(t.distributed);
        QCOMPARE(t.distributed->ncclVersion, std::string("2.17.1"));
        QCOMPARE(t.distributed->worldSize, std::int64_t(1));
        // First collective: record_param_comms allreduce, Float, 2049000 elements, group size 1.
        QVERIFY(!t.collectives.empty());
        EventIndex coll;
        for (EventIndex i{0}; i.in(t.events.size()); ++i)
            if (t.event(i).hasCollective()) {
                coll = i;
                break;
            }
        QVERIFY(coll.valid());
        QCOMPARE(t.name(t.event(coll)), std::string_view("record_param_comms"));
        QVERIFY(t.collectiveOf(coll));
        const CollectiveArgs &a = *t.collectiveOf(coll);
        QCOMPARE(t.strings.at(a.collectiveName), std::string_view("allreduce"));
        QCOMPARE(t.strings.at(a.dtype), std::string_view("Float"));
        QCOMPARE(a.inMsgNelems, std::int64_t(2049000));
        QCOMPARE(a.outMsgNelems, std::int64_t(2049000));
        QCOMPARE(a.groupSize, std::int64_t(1));
    }

    void ncclDataDetails()
    {
        const DeviceTrace t = readKinetoTrace(tracePath("hta_kineto_nccl/nccl_data.json.gz"));
        // baseTimeNanoseconds 1711964646000000000; first event ts 4458676522690.655 µs (relative).
        QVERIFY(t.baseTimeNs);
        QCOMPARE(*t.baseTimeNs, Nanos(1711964646000000000));
        QCOMPARE(t.events.front().ts, Nanos(4458676522690655));
        EventIndex coll;
        for (EventIndex i{0}; i.in(t.events.size()); ++i)
            if (t.event(i).hasCollective()) {
                coll = i;
                break;
            }
        QVERIFY(coll.valid());
        QVERIFY(t.collectiveOf(coll));
        const CollectiveArgs &a = *t.collectiveOf(coll);
        QCOMPARE(t.strings.at(a.processGroupName), std::string_view("0"));
        QCOMPARE(t.strings.at(a.processGroupDesc), std::string_view("default_pg"));
        QCOMPARE(a.groupSize, std::int64_t(2));
        QVERIFY(t.distributed);
        QCOMPARE(t.distributed->backend, std::string("nccl"));
        QCOMPARE(t.distributed->worldSize, std::int64_t(2));
        // Two CPU threads (main 2910249, autograd 2919752), each with a thread_name.
        int cpuThreads = 0;
        for (const auto &[key, name] : t.threadNames)
            cpuThreads += !key.pid.isString && key.pid.value == 2910249;
        QCOMPARE(cpuThreads, 2);
    }

    void rocmHexStream()
    {
        // ROCm writes "stream": "0x0" on runtime events and 0 on kernels; both are stream 0.
        const DeviceTrace t = readKinetoTrace(tracePath("hta_kineto_nccl/mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
        QVERIFY(t.baseTimeNs);
        QCOMPARE(*t.baseTimeNs, Nanos(1735632360000000000));
        QCOMPARE(t.devices.size(), std::size_t(4));
        QVERIFY(!t.distributed);
        std::size_t stream0 = 0;
        for (const auto &e : t.events)
            stream0 += e.stream == 0;
        QCOMPARE(stream0, std::size_t(32));
        const DeviceEvent *k = firstOf(t, EventCategory::Kernel);
        QVERIFY(k);
        QCOMPARE(k->ts, Nanos(4203669603771648));
        QCOMPARE(k->dur, Nanos(6880));
        QCOMPARE(k->correlation, std::int64_t(118));
    }

    void dlrmFromTarArchive()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LINKSCOPE_REQUIRE_TRACES("param_dlrm_8rank_pair/dlrm_kineto.tar.gz");
        QVERIFY(linkscope::test::extractTar(tracePath("param_dlrm_8rank_pair/dlrm_kineto.tar.gz"), dir));
        const DeviceTrace t = readKinetoTrace(
            linkscope::test::inDir(dir, "dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json"));
        QVERIFY(!t.wasGzip);
        KinetoCounts c = countsOf(t);
        // 3,290 events: cpu_op 1,633, ac2g 786, cuda_runtime 525, kernel 245, user_annotation 40,
        // gpu_memcpy 16; 6 named threads, 4 (device, stream) pairs.
        QCOMPARE(c.events, std::size_t(3290));
        QCOMPARE(c.byCategoryText["cpu_op"], std::size_t(1633));
        QCOMPARE(c.byCategoryText["ac2g"], std::size_t(786));
        QCOMPARE(c.byCategoryText["kernel"], std::size_t(245));
        QCOMPARE(c.threads, std::size_t(6));
        QCOMPARE(c.streams, std::size_t(4));
        const DeviceEvent *k = firstOf(t, EventCategory::Kernel);
        QCOMPARE(k->ts, Nanos(1694128201428473000));
        QCOMPARE(k->correlation, std::int64_t(40875));
        QVERIFY(t.distributed);
        QCOMPARE(t.distributed->worldSize, std::int64_t(8));
    }

    void gzipAndPlainAgree()
    {
        // The same bytes, plain, single-member gzip and two concatenated gzip members.
        const std::string path = tracePath("astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz");
        const QByteArray plain = linkscope::test::gunzipFile(path);
        QVERIFY(plain.size() > 1000000);
        const QByteArray twoMembers = linkscope::test::gzipBytes(plain.left(plain.size() / 2))
                                      + linkscope::test::gzipBytes(plain.mid(plain.size() / 2));
        const DeviceTrace a = parseKinetoTrace(plain.toStdString(), "plain");
        const DeviceTrace b = readKinetoTrace(path);
        const DeviceTrace c = parseKinetoTrace(twoMembers.toStdString(), "two members");
        QVERIFY(!a.wasGzip);
        QVERIFY(c.wasGzip);
        QCOMPARE(a.events.size(), std::size_t(14245));
        QCOMPARE(b.events.size(), a.events.size());
        QCOMPARE(c.events.size(), a.events.size());
        QCOMPARE(*c.argsStore->inMemoryText(), *a.argsStore->inMemoryText());
        QCOMPARE(*b.argsStore->inMemoryText(), *a.argsStore->inMemoryText());
        for (std::size_t i = 0; i < a.events.size(); ++i) {
            QCOMPARE(b.events[i].ts, a.events[i].ts);
            QCOMPARE(c.events[i].args.offset, a.events[i].args.offset);
            QCOMPARE(c.events[i].correlation, a.events[i].correlation);
        }
    }

    void plainFileArgsReadBack()
    {
        // A plain file is mapped and streamed: the args are read back from the file by position, and
        // must equal what the in-memory path (which copies them out) returns, event for event.
        const QByteArray plain = linkscope::test::gunzipFile(
            tracePath("astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz"));
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("k.json")).toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(plain), plain.size());
        }
        const DeviceTrace fromFile = readKinetoTrace(path);
        const DeviceTrace fromMemory = parseKinetoTrace(plain.toStdString(), "memory");
        QVERIFY(fromFile.argsStore);
        QVERIFY(!fromFile.argsStore->inMemoryText()); // nothing copied
        QCOMPARE(fromFile.argsStore->sizeBytes(), std::uint64_t(plain.size()));
        QCOMPARE(fromFile.events.size(), fromMemory.events.size());
        ArgsReader sequential(fromFile.argsStore.get());
        std::size_t withArgs = 0;
        for (std::size_t i = 0; i < fromFile.events.size(); ++i) {
            const std::string expected = fromMemory.argsJson(fromMemory.events[i]);
            QCOMPARE(fromFile.argsJson(fromFile.events[i]), expected);
            QCOMPARE(std::string(sequential.read(fromFile.events[i].args)), expected);
            withArgs += !expected.empty();
        }
        // python3: sum(isinstance(e.get('args'), dict) for e in traceEvents) == 9852 (of 14245 events)
        QCOMPARE(withArgs, std::size_t(9852));
        QVERIFY(fromFile.argsUnavailableReason().empty());

        // Rewritten in place after loading: reported, never read as args.
        const DeviceEvent &first = fromFile.events.front();
        QVERIFY(!first.args.empty());
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::Append));
            QVERIFY(f.write(" ") == 1);
        }
        QVERIFY(fromFile.argsJson(first).empty());
        QVERIFY2(fromFile.argsUnavailableReason().find("changed on disk") != std::string::npos,
                 fromFile.argsUnavailableReason().c_str());
        // Truncated: still no crash, still reported.
        QVERIFY(QFile::resize(QString::fromStdString(path), 100));
        QVERIFY(fromFile.argsJson(fromFile.events.back()).empty());
        ArgsReader afterTruncation(fromFile.argsStore.get());
        QVERIFY(afterTruncation.read(fromFile.events.back().args).empty());
        QVERIFY(!fromFile.argsUnavailableReason().empty());
    }

    void replacedFileStaysReadable()
    {
        // Replaced by rename (how most tools rewrite a file): the loaded trace still reads its own bytes.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("k.json"));
        const QByteArray text = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,)"
                                R"("args":{"correlation":5,"stream":7}}]})";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const DeviceTrace t = readKinetoTrace(path.toStdString());
        QCOMPARE(t.argsJson(t.events.at(0)), std::string(R"({"correlation":5,"stream":7})"));
        const QString other = dir.filePath(QStringLiteral("other.json"));
        {
            QFile f(other);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{}");
        }
        QVERIFY(std::rename(other.toStdString().c_str(), path.toStdString().c_str()) == 0);
        QCOMPARE(t.argsJson(t.events.at(0)), std::string(R"({"correlation":5,"stream":7})"));
    }

    // DeviceEvent is 96 bytes: (pid, tid) in a per-trace table, graph id and collective args beside
    // the events. Every value a file can hold still reads back exactly, with any thread count.
    void extremeValuesReadBackExactly()
    {
        const std::string block =
            R"({"ph":"X","cat":"cpu_op","name":"a","pid":9223372036854775807,"tid":-9223372036854775808,"ts":1,"dur":2,)"
            R"("args":{"External id":9223372036854775807,"correlation":-9223372036854775808,"Ev Idx":-9223372036854775807,)"
            R"("Record function id":9223372036854775807,"stream":-9223372036854775808}},)"
            R"({"ph":"X","cat":"kernel","name":"k","pid":"Spans","tid":"stream 7","ts":3,"dur":1,)"
            R"("args":{"device":2147483647,"stream":9223372036854775807,"graph id":9223372036854775807,)"
            R"("Collective name":"allreduce","Group size":9223372036854775807,"Seq":-9223372036854775808}},)"
            R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":0,"ts":4,"dur":1,)"
            R"("args":{"device":-2147483648,"graph id":-9223372036854775808}},)"
            R"({"ph":"X","cat":"kernel","name":"skipped","pid":1,"tid":1,"args":{"Collective name":"x","graph id":5}},)"
            R"({"ph":"s","cat":"ac2g","name":"ac2g","id":-9223372036854775808,"pid":1.5,"tid":2,"ts":5},)"
            R"({"ph":"X","cat":"kernel","name":"wide","pid":1,"tid":1,"ts":6,"dur":0,"args":{"device":2147483648}},)";
        std::string text = R"({"traceEvents":[)";
        constexpr int kBlocks = 40;
        for (int i = 0; i < kBlocks; ++i)
            text += block;
        text += R"({"ph":"X","cat":"cpu_op","name":"last","pid":1,"tid":1,"ts":7,"dur":1}]})";

        const DeviceTrace t = parseKinetoTrace(text, "extreme.json");
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
        QCOMPARE(t.events.size(), std::size_t(5 * kBlocks + 1)); // the event without ts is skipped
        for (int b = 0; b < kBlocks; ++b) {
            const auto at = static_cast<std::size_t>(5 * b); // the block's first event
            const DeviceEvent &a = t.events[at];
            QCOMPARE(t.threadKey(a), (ThreadKey{TraceId{kMax, false}, TraceId{kMin, false}}));
            QCOMPARE(a.externalId, kMax);
            QCOMPARE(a.correlation, kMin);
            QCOMPARE(a.evIdx, kMin + 1);
            QCOMPARE(a.rfId, std::uint64_t(kMax));
            QCOMPARE(a.stream, kMin);
            QVERIFY(!a.hasCollective() && !a.hasGraphId() && !t.collectiveOf(EventIndex::at(at)));
            QCOMPARE(t.graphIdOf(EventIndex::at(at)), kNoId);

            const DeviceEvent &k = t.events[at + 1];
            QVERIFY(t.threadKey(k).pid.isString && t.threadKey(k).tid.isString);
            QCOMPARE(t.idText(t.threadKey(k).pid), std::string("Spans"));
            QCOMPARE(t.idText(t.threadKey(k).tid), std::string("stream 7"));
            QCOMPARE(k.device, std::int32_t(2147483647));
            QCOMPARE(k.stream, kMax);
            QVERIFY(k.hasGraphId() && k.hasCollective());
            QCOMPARE(t.graphIdOf(EventIndex::at(at + 1)), kMax);
            QVERIFY(t.collectiveOf(EventIndex::at(at + 1)));
            QCOMPARE(t.strings.at(t.collectiveOf(EventIndex::at(at + 1))->collectiveName), std::string_view("allreduce"));
            QCOMPARE(t.collectiveOf(EventIndex::at(at + 1))->groupSize, kMax);
            QCOMPARE(t.collectiveOf(EventIndex::at(at + 1))->seq, kMin);

            const DeviceEvent &k2 = t.events[at + 2];
            QCOMPARE(t.threadKey(k2), ThreadKey{});
            QCOMPARE(k2.thread, ThreadIndex(0));
            QCOMPARE(k2.device, std::int32_t(-2147483648));
            QCOMPARE(t.graphIdOf(EventIndex::at(at + 2)), kMin);
            QVERIFY(!k2.hasCollective());

            // The skipped event's collective args and graph id belong to no event.
            const DeviceEvent &flow = t.events[at + 3];
            QCOMPARE(flow.phase, Phase::FlowStart);
            QCOMPARE(flow.flowId, kMin);
            QVERIFY(!flow.hasCollective() && !flow.hasGraphId());
            QCOMPARE(t.idText(t.threadKey(flow).pid), std::string("1.5")); // not an integer: kept as text
            QVERIFY(t.threadKey(flow).pid.isString);

            // A device beyond 32 bits does not fit the field: a warning, not a silently wrong device.
            QCOMPARE(t.events[at + 4].device, std::int32_t(-1));
        }
        QCOMPARE(t.collectives.size(), std::size_t(kBlocks));
        QCOMPARE(t.graphIds.size(), std::size_t(2 * kBlocks));
        // (0,0) first, then the others in order of first use; one entry per distinct (pid, tid).
        QCOMPARE(t.threads.size(), std::size_t(5));
        QCOMPARE(t.threads.at(ThreadIndex(0)), ThreadKey{});
        QCOMPARE(t.threads.at(ThreadIndex(1)), (ThreadKey{TraceId{kMax, false}, TraceId{kMin, false}}));
        QCOMPARE(t.threads.at(t.events.back().thread), (ThreadKey{TraceId{1, false}, TraceId{1, false}}));
        std::size_t deviceWarnings = 0;
        for (const Diagnostic &w : t.warnings)
            deviceWarnings += w.message.find("\"device\" 2147483648 is out of the 32-bit range") != std::string::npos;
        QVERIFY(deviceWarnings >= 1); // repeats of one message are summarised

        // The same trace, events, side tables and warnings whatever the thread count.
        const ReaderThreads original = readerThreads();
        const std::string one = linkscope::test::readerDigest(t);
        for (const ReaderThreads split : {ReaderThreads{2, 2048}, ReaderThreads{3, 1500}, ReaderThreads{8, 512}}) {
            setReaderThreads(split);
            const std::string many = linkscope::test::readerDigest(parseKinetoTrace(text, "extreme.json"));
            setReaderThreads(original);
            QCOMPARE(many, one);
        }
    }

    void syncArgsRead()
    {
        // cuda_sync events name what they wait on; the reader keeps it so linking never reads args.
        const std::string text = R"({"traceEvents":[
            {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"correlation":5,"stream":7}},
            {"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":7,"ts":3,"dur":2,
             "args":{"correlation":9,"device":0,"stream":-1,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":8}},
            {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":5,"dur":2,"args":{"stream":7}},
            {"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":9,"ts":6,"dur":0,
             "args":{"wait_on_stream":"7","wait_on_cuda_event_record_corr_id":12}}
        ]})";
        const DeviceTrace t = parseKinetoTrace(text, "sync.json");
        QCOMPARE(t.syncArgs.size(), std::size_t(2));
        QVERIFY(!t.syncArgsOf(EventIndex(0)));
        QVERIFY(!t.syncArgsOf(EventIndex(2)));
        const SyncArgs *event = t.syncArgsOf(EventIndex(1));
        QVERIFY(event);
        QCOMPARE(event->waitOnStream, std::int64_t(7));
        QCOMPARE(event->recordCorrelation, std::int64_t(8));
        const SyncArgs *wait = t.syncArgsOf(EventIndex(3));
        QVERIFY(wait);
        QCOMPARE(wait->waitOnStream, std::int64_t(7));
        QCOMPARE(wait->recordCorrelation, std::int64_t(12));
    }

    void progressAndCancel()
    {
        LINKSCOPE_REQUIRE_TRACES("hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
        const std::string path = tracePath("hta_kineto_large/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
        std::uint64_t last = 0, lastTotal = 0;
        int calls = 0;
        bool monotonic = true;
        readKinetoTrace(path, [&](std::uint64_t done, std::uint64_t total) {
            monotonic = monotonic && done >= last && done <= total;
            last = done;
            lastTotal = total;
            ++calls;
            return true;
        });
        QVERIFY(calls > 2);
        QVERIFY(monotonic);
        QCOMPARE(last, lastTotal);
        int seen = 0;
        QVERIFY_THROWS_EXCEPTION(Cancelled, readKinetoTrace(path, [&](std::uint64_t, std::uint64_t) { return ++seen < 3; }));
    }

    void sniff()
    {
        QCOMPARE(sniffTraceKind(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz")), kKinetoKind);
        QCOMPARE(sniffTraceKind(tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz")), kHostEtKind);
        QCOMPARE(sniffTraceKind(tracePath("astrasim_dlrm_etplus_8rank/dlrm_eg_0_plus.json.gz")), kEtPlusKind);
        QCOMPARE(sniffTraceKind(tracePath("astrasim_chakra_et_examples/microbenchmarks/all_reduce/8npus_1MB/all_reduce.0.et")),
                 kChakraEtKind);
    }

    void sniffEtPlusByItsEnd()
    {
        // A plain ET+ whose GPU nodes (the ones with "ph"/"cat") come after 12 MiB of host nodes is
        // told from a plain host ET of the same size by the end of the file, read on its own.
        QTemporaryDir dir;
        std::string hostNodes = "{\"schema\": \"1.0.1\", \"nodes\": [";
        for (int i = 1; hostNodes.size() < (12u << 20); ++i)
            hostNodes += std::string(i > 1 ? ",\n" : "") + "{\"id\": " + std::to_string(i)
                         + ", \"name\": \"aten::op\", \"ctrl_deps\": 1, \"inputs\": [], \"outputs\": [], \"attrs\": []}";
        const std::string host = dir.filePath(QStringLiteral("host.json")).toStdString();
        const std::string plus = dir.filePath(QStringLiteral("plus.json")).toStdString();
        writeFile(host, hostNodes + "]}");
        writeFile(plus, hostNodes
                            + ",\n{\"id\": 99999999, \"name\": \"ampere_sgemm\", \"ph\": \"X\", \"cat\": \"kernel\", "
                              "\"inclusive_dur\": 5, \"exclusive_dur\": 5}]}");
        QCOMPARE(sniffTraceKind(host), kHostEtKind);
        QCOMPARE(sniffTraceKind(plus), kEtPlusKind);
    }
};

QTEST_GUILESS_MAIN(TestKinetoReader)
#include "test_kinetoreader.moc"
