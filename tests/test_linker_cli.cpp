// `linkscope link` in-process: options, aliases, summary, the links JSON Lines and the findings report,
// on the worked example of docs/linking.md written as real files.
#include "commands/commands.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using linkscope::cli::Args;
using linkscope::cli::runLink;

namespace {

// The worked example of docs/linking.md (times in µs) with a gpu_user_annotation and a memset launched outside
// every op (an orphan).
const char *kSeedKineto = R"json({"schemaVersion": 1, "traceEvents": [
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1331, "args": {"name": "thread 1331 (python)"}},
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1331, "ts": 100, "dur": 50,
  "args": {"External id": 17, "Record function id": 19, "Ev Idx": 40}},
 {"ph": "X", "cat": "user_annotation", "name": "nccl:_all_gather_base", "pid": 1, "tid": 1331, "ts": 110, "dur": 30,
  "args": {"External id": 18, "Record function id": 20, "Ev Idx": 41}},
 {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1331, "ts": 120, "dur": 5,
  "args": {"External id": 17, "correlation": 5000}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1331, "ts": 200, "dur": 5,
  "args": {"correlation": 5001}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "pid": 0, "tid": 20, "ts": 130, "dur": 50,
  "args": {"External id": 17, "correlation": 5000, "stream": 20, "device": 0}},
 {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 20, "ts": 210, "dur": 2,
  "args": {"correlation": 5001, "stream": 20, "device": 0}}

]})json";

const char *kSeedHost = R"json({"schema": "1.1.1-chakra.0.0.4", "pid": 1, "time": "2026-01-01 00:00:00", "start_ts": 1,
 "nodes": [
  {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
   "inputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "outputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}, {"name": "tid", "type": "uint64", "value": 1},
             {"name": "scope", "type": "uint64", "value": 7}]},
  {"id": 31, "name": "nccl:_all_gather_base", "ctrl_deps": 30,
   "inputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "outputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "attrs": [{"name": "rf_id", "type": "uint64", "value": 20}, {"name": "tid", "type": "uint64", "value": 1},
             {"name": "scope", "type": "uint64", "value": 7}]},
  {"id": 30, "name": "record_param_comms", "ctrl_deps": 2,
   "inputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "outputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "attrs": [{"name": "rf_id", "type": "uint64", "value": 19}, {"name": "tid", "type": "uint64", "value": 1},
             {"name": "scope", "type": "uint64", "value": 0}]},
  {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1,
   "inputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "outputs": {"values": [], "shapes": [], "types": [], "strides": []},
   "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}, {"name": "tid", "type": "uint64", "value": 0},
             {"name": "scope", "type": "uint64", "value": 7}]}
 ], "finish_ts": 2})json";

std::string writeFile(const QTemporaryDir &dir, const char *name, const char *content)
{
    const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
    std::ofstream(path) << content;
    return path;
}

using linkscope::test::readFile;

std::vector<nlohmann::json> readJsonLines(const std::string &path)
{
    std::vector<nlohmann::json> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        lines.push_back(nlohmann::json::parse(line));
    return lines;
}

} // namespace

class TestLinkerCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void linksFilePerPolicy_data();
    void linksFilePerPolicy();
    void deviceAloneWorks();
    void summaryCounts();
    void reportFile();
    void badArguments_data();
    void badArguments();
    void unreadableInputNamesTheFile();

private:
    QTemporaryDir dir_;
    std::string kineto_, host_;
};

void TestLinkerCli::initTestCase()
{
    QVERIFY(dir_.isValid());
    kineto_ = writeFile(dir_, "device.json", kSeedKineto);
    host_ = writeFile(dir_, "host.json", kSeedHost);
}

void TestLinkerCli::linksFilePerPolicy_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("parent");
    QTest::addColumn<int>("hostId");
    QTest::addColumn<QString>("rule");
    QTest::newRow("nesting") << "nesting"
                             << "nccl:_all_gather_base" << 31 << "nesting";
    QTest::newRow("external-id") << "external-id"
                                 << "record_param_comms" << 30 << "external_id";
    QTest::newRow("ev-idx") << "ev-idx"
                            << "nccl:_all_gather_base" << 31 << "latest_starting";
}

void TestLinkerCli::linksFilePerPolicy()
{
    QFETCH(QString, policy);
    QFETCH(QString, parent);
    QFETCH(int, hostId);
    QFETCH(QString, rule);
    const std::string links = dir_.filePath("links-" + policy + ".jsonl").toStdString();
    std::ostringstream out, err;
    // The chakra_trace_link spellings are accepted too.
    const int code = runLink({"--chakra-host-trace", host_, "--chakra-device-trace", kineto_, "--rank", "0", "--policy",
                              policy.toStdString(), "--links", links},
                             out, err);
    QCOMPARE(code, 0);
    const auto lines = readJsonLines(links);
    QCOMPARE(lines.size(), std::size_t(2));
    const nlohmann::json &k = lines[0];
    QCOMPARE(k["pid"].get<int>(), 0);
    QCOMPARE(k["device"].get<int>(), 0);
    QCOMPARE(k["stream"].get<int>(), 20);
    QCOMPARE(k["correlation"].get<int>(), 5000);
    QCOMPARE(k["name"].get<std::string>(), std::string("ncclDevKernel_AllGather_RING_LL"));
    QCOMPARE(k["ts_ns"].get<std::int64_t>(), std::int64_t(130000));
    QCOMPARE(QString::fromStdString(k["parent_name"].get<std::string>()), parent);
    QCOMPARE(k["parent_host_id"].get<int>(), hostId);
    QCOMPARE(QString::fromStdString(k["rule"].get<std::string>()), rule);
    QCOMPARE(k["policies"]["nesting"]["name"].get<std::string>(), std::string("nccl:_all_gather_base"));
    QCOMPARE(k["policies"]["nesting"]["ev_idx"].get<int>(), 41);
    QCOMPARE(k["policies"]["nesting"]["rf_id"].get<int>(), 20);
    QCOMPARE(k["policies"]["external-id"]["name"].get<std::string>(), std::string("record_param_comms"));
    QCOMPARE(k["policies"]["ev-idx"]["name"].get<std::string>(), std::string("nccl:_all_gather_base"));
    if (policy == "nesting") {
        QCOMPARE(k["parent_ts_ns"].get<std::int64_t>(), std::int64_t(110000));
        QCOMPARE(k["parent_ev_idx"].get<int>(), 41);
        QCOMPARE(k["parent_ext_id"].get<int>(), 18);
        QCOMPARE(k["parent_rf_id"].get<int>(), 20);
        QCOMPARE(k["confidence"].get<double>(), 1.0);
    }
    // The memset's launch at 200 µs is outside every op: an orphan, every parent key null.
    const nlohmann::json &m = lines[1];
    QCOMPARE(m["name"].get<std::string>(), std::string("Memset (Device)"));
    if (policy == "nesting") {
        QVERIFY(m["parent_name"].is_null());
        QVERIFY(m["parent_rf_id"].is_null());
        QVERIFY(m["parent_host_id"].is_null());
        QCOMPARE(m["orphan"].get<std::string>(), std::string("no_enclosing_op"));
        QCOMPARE(m["rule"].get<std::string>(), std::string("none"));
        QVERIFY(m["policies"]["nesting"].is_null());
    }
}

void TestLinkerCli::deviceAloneWorks()
{
    const std::string links = dir_.filePath("kineto-only.jsonl").toStdString();
    std::ostringstream out, err;
    QCOMPARE(runLink({"--device", kineto_, "--links", links}, out, err), 0);
    const auto lines = readJsonLines(links);
    QCOMPARE(lines.size(), std::size_t(2));
    QCOMPARE(lines[0]["parent_name"].get<std::string>(), std::string("nccl:_all_gather_base"));
    QVERIFY(lines[0]["parent_host_id"].is_null());
    QVERIFY(out.str().find("host join") == std::string::npos);
}

void TestLinkerCli::summaryCounts()
{
    // Nesting: the kernel is linked, the memset (launched at 200 µs, outside every op) is an orphan.
    std::ostringstream out, err;
    QCOMPARE(runLink({"--host", host_, "--device", kineto_}, out, err), 0);
    const std::string text = out.str();
    QVERIFY2(text.find("GPU ops: 2, linked to a parent: 1 (50.0%)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("host join: record_function_id") != std::string::npos, text.c_str());
    QVERIFY2(text.find("host ops with rf_id matched: 2 / 2 (100.0%)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("    no_enclosing_op       1") != std::string::npos, text.c_str());
    QVERIFY2(text.find("  orphan_gpu_op                       1") != std::string::npos, text.c_str());
    QVERIFY2(text.find("  nccl_parent_is_record_param_comms   0") != std::string::npos, text.c_str());
    QVERIFY2(text.find("launch 2 stream_order 1") != std::string::npos, text.c_str());
    // Against these links, Chakra 1.0 moves the NCCL kernel to record_param_comms; the rule before PR
    // #185 picks nccl:_all_gather_base as we do. The memset is ours an orphan too: not counted as dropped.
    QVERIFY2(text.find("  Chakra 1.0 (external-id): another parent for 1 GPU op (1 NCCL/RCCL kernel on "
                       "record_param_comms), drops 0, loses 0 of 0 sync edges\n")
                 != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("  before PR #185 (ev-idx): another parent for 0 GPU ops, drops 0, loses 0 of 0 sync edges\n")
                 != std::string::npos,
             text.c_str());
    // External id (Chakra HEAD): the kernel goes to record_param_comms, and the memset (no External id) to
    // the latest-starting op before its launch, the finished nccl:_all_gather_base: nothing is orphaned.
    std::ostringstream headOut, headErr;
    QCOMPARE(runLink({"--host", host_, "--device", kineto_, "--policy", "external-id"}, headOut, headErr), 0);
    const std::string head = headOut.str();
    QVERIFY2(head.find("GPU ops: 2, linked to a parent: 2 (100.0%)") != std::string::npos, head.c_str());
    QVERIFY2(head.find("  nccl_parent_is_record_param_comms   1") != std::string::npos, head.c_str());
    QVERIFY2(head.find("  launch_outside_parent               1") != std::string::npos, head.c_str());
}

void TestLinkerCli::reportFile()
{
    const std::string report = dir_.filePath("findings.json").toStdString();
    std::ostringstream out, err;
    QCOMPARE(runLink({"--host", host_, "--device", kineto_, "--policy", "external-id", "--report", report}, out, err), 0);
    const nlohmann::json j = nlohmann::json::parse(readFile(report));
    QCOMPARE(j["policy"].get<std::string>(), std::string("external-id"));
    QCOMPARE(j["summary"]["nccl_parent_is_record_param_comms"].get<int>(), 1);
    // Our links are Chakra 1.0's here; before PR #185 the kernel went to nccl:_all_gather_base, and
    // the memset, which we attach to that finished op, would be dropped (Chakra links no memsets).
    const auto &compared = j["compared_with_chakra"];
    QCOMPARE(compared["chakra_1_0"]["different_parent"].get<int>(), 0);
    QCOMPARE(compared["chakra_1_0"]["dropped"].get<int>(), 1);
    QCOMPARE(compared["chakra_1_0"]["dropped_by"]["memset"].get<int>(), 1);
    QCOMPARE(compared["chakra_pre_185"]["different_parent"].get<int>(), 1);
    QCOMPARE(compared["chakra_pre_185"]["collective_on_record_param_comms"].get<int>(), 0);
    QVERIFY(j["notices"].is_array()); // a pair whose rules all apply: nothing to say
    QCOMPARE(j["notices"].size(), std::size_t(0));
    bool found = false;
    for (const auto &f : j["findings"])
        if (f["kind"] == "nccl_parent_is_record_param_comms") {
            found = true;
            QCOMPARE(f["severity"].get<std::string>(), std::string("warning"));
            QCOMPARE(f["subject"]["name"].get<std::string>(), std::string("ncclDevKernel_AllGather_RING_LL"));
            QCOMPARE(f["suggested_parent"]["name"].get<std::string>(), std::string("nccl:_all_gather_base"));
            QCOMPARE(f["suggested_parent"]["ev_idx"].get<int>(), 41);
        }
    QVERIFY(found);
}

void TestLinkerCli::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no device") << QStringList{"--host", "h.json"} << "--device is required";
    QTest::newRow("bad policy") << QStringList{"--device", "d.json", "--policy", "closest"} << "unknown policy 'closest'";
    QTest::newRow("missing value") << QStringList{"--device"} << "--device needs a value";
    QTest::newRow("unknown option") << QStringList{"--device", "d.json", "--frobnicate"} << "unknown argument '--frobnicate'";
    QTest::newRow("bad rank") << QStringList{"--device", "d.json", "--rank", "x"} << "--rank needs a non-negative integer";
}

void TestLinkerCli::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    Args a;
    for (const QString &s : args)
        a.push_back(s.toStdString());
    std::ostringstream out, err;
    QCOMPARE(runLink(a, out, err), 2);
    QVERIFY2(err.str().find(message.toStdString()) != std::string::npos, err.str().c_str());
}

void TestLinkerCli::unreadableInputNamesTheFile()
{
    const std::string missing = dir_.filePath("nope.json").toStdString();
    std::ostringstream out, err;
    QCOMPARE(runLink({"--device", missing}, out, err), 1);
    QVERIFY(err.str().find(missing) != std::string::npos);
}

QTEST_GUILESS_MAIN(TestLinkerCli)
#include "test_linker_cli.moc"
