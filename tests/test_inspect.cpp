// `linkscope inspect` in-process: per-trace summaries, pairing by pid, join coverage, JSON output.
//
// Expected values: the hta_simple_add pair's SOURCE.md python3 checks (host ET 38 nodes, 36 with
// rf_id, pid 563677; Kineto 111 events: cpu_op 28, user_annotation 8, cuda_runtime 15, kernel 4,
// ac2g 19; Ev Idx == rf_id - 1 for all 36 ops, no "Record function id").
//
// data/inspect/golden.{txt,json}: the whole text and --json output for a host ET, two Kineto traces,
// a Chakra .et and a missing file, written by the code before the text and JSON were made to come
// from one table of figures (commit 2f7d73e), trace folder shown as TRACES/. They hold the layout
// byte for byte; the figures in them are the ones checked independently above and in test_etformat.

#include "commands/commands.h"
#include "testsupport.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using linkscope::test::dataPath;
using linkscope::test::tracePath;

namespace {

using linkscope::test::readFile;

// The output with the trace folders (which differ between checkouts) written as TRACES/.
std::string withTracesFolderNamed(std::string text)
{
    for (const QString &dir : {linkscope::test::bundledTracesDir(), linkscope::test::sharedTracesDir()}) {
        const std::string folder = QDir(dir).filePath(QStringLiteral("x")).chopped(1).toStdString();
        for (std::size_t at = text.find(folder); at != std::string::npos; at = text.find(folder, at))
            text.replace(at, folder.size(), "TRACES/");
    }
    return text;
}

// The first line where the two differ, for the failure message.
std::string firstDifference(const std::string &produced, const std::string &expected)
{
    std::istringstream a(produced), b(expected);
    std::string la, lb;
    for (int line = 1;; ++line) {
        const bool moreA = static_cast<bool>(std::getline(a, la)), moreB = static_cast<bool>(std::getline(b, lb));
        if (!moreA && !moreB)
            return "no difference";
        if (la != lb || moreA != moreB)
            return "line " + std::to_string(line) + ": got \"" + (moreA ? la : "(end)") + "\", golden \"" + (moreB ? lb : "(end)")
                   + "\"";
    }
}

} // namespace

class TestInspect : public QObject {
    Q_OBJECT

private slots:
    void pairJson()
    {
        std::ostringstream out, err;
        // Device first: pairing goes by pid, not argument order.
        const int rc = linkscope::cli::runInspect({tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz"),
                                                   tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz"),
                                                   "--json"},
                                                  out, err);
        QCOMPARE(rc, 0);
        QVERIFY(err.str().empty());
        const auto j = nlohmann::json::parse(out.str());
        const auto &device = j["traces"][0];
        QCOMPARE(device["kind"].get<std::string>(), std::string("Kineto"));
        QCOMPARE(device["events"].get<int>(), 111);
        QCOMPARE(device["eventsByCategory"]["cpu_op"].get<int>(), 28);
        QCOMPARE(device["eventsByCategory"]["user_annotation"].get<int>(), 8);
        QCOMPARE(device["eventsByCategory"]["cuda_runtime"].get<int>(), 15);
        QCOMPARE(device["eventsByCategory"]["kernel"].get<int>(), 4);
        QCOMPARE(device["eventsByCategory"]["ac2g"].get<int>(), 19);
        QCOMPARE(device["pid"].get<std::int64_t>(), std::int64_t(563677));
        QCOMPARE(device["gpuStreams"].get<int>(), 1);
        QCOMPARE(device["schemaVersion"].get<int>(), 1);
        QVERIFY(device["timeSpan"]["durationNs"].get<std::int64_t>() > 0);
        const auto &host = j["traces"][1];
        QCOMPARE(host["kind"].get<std::string>(), std::string("host ET"));
        QCOMPARE(host["schema"].get<std::string>(), std::string("1.0.1"));
        QCOMPARE(host["layout"].get<std::string>(), std::string("flat"));
        QCOMPARE(host["nodes"].get<int>(), 38);
        QCOMPARE(host["nodesWithRfId"].get<int>(), 36);
        QCOMPARE(host["roots"].get<int>(), 1);
        QCOMPARE(j["pairs"].size(), std::size_t(1));
        const auto &pair = j["pairs"][0];
        QCOMPARE(pair["pairedBy"].get<std::string>(), std::string("pid"));
        QCOMPARE(pair["matched"].get<int>(), 36);
        QCOMPARE(pair["hostNodesWithRfId"].get<int>(), 36);
        QCOMPARE(pair["coverage"].get<double>(), 1.0);
        QVERIFY(!pair["warnings"].empty()); // no "Record function id": says which fallback joined them
    }

    void textAndErrors()
    {
        std::ostringstream out, err;
        const int rc = linkscope::cli::runInspect(
            {tracePath("param_host_et_only/pt2_et_1.1.1.json.gz"), "/nonexistent/x.json",
             tracePath("astrasim_chakra_et_examples/microbenchmarks/all_gather/8npus_1MB/all_gather.0.et")},
            out, err);
        QCOMPARE(rc, 1); // one file could not be read; the others are still reported
        const std::string text = out.str();
        QVERIFY(text.find("schema: 1.1.1-chakra.0.0.4, layout nested") != std::string::npos);
        QVERIFY(text.find("nodes: 20") != std::string::npos);
        QVERIFY(text.find("/nonexistent/x.json: cannot open file") != std::string::npos);
        QVERIFY(text.find("kind: Chakra .et") != std::string::npos);
        QVERIFY(text.find("COMM_COLL_NODE") != std::string::npos);
        QVERIFY(err.str().find("cannot open file") != std::string::npos);

        std::ostringstream none, noneErr;
        QCOMPARE(linkscope::cli::runInspect({}, none, noneErr), 2);
        QCOMPARE(linkscope::cli::runInspect({"--bogus"}, none, noneErr), 2);
    }

    void textAndJsonMatchGolden()
    {
        const std::vector<std::string> files = {
            tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz"),
            tracePath("hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz"),
            tracePath("astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz"),
            tracePath("astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz"),
            tracePath("astrasim_chakra_et_examples/microbenchmarks/all_gather/8npus_1MB/all_gather.0.et"),
            "/nonexistent/x.json",
        };
        for (const bool json : {false, true}) {
            std::vector<std::string> args = files;
            if (json)
                args.push_back("--json");
            std::ostringstream out, err;
            QCOMPARE(linkscope::cli::runInspect(args, out, err), 1); // the missing file
            const std::string produced = withTracesFolderNamed(out.str());
            const std::string golden = readFile(dataPath(json ? "inspect/golden.json" : "inspect/golden.txt"));
            QVERIFY(!golden.empty());
            QVERIFY2(produced == golden, firstDifference(produced, golden).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestInspect)
#include "test_inspect.moc"
