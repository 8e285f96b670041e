// What-ifs at and past their bounds (docs/prediction.md, "What-if"): factors that are not finite or
// out of range are refused naming the option, the value and the range; times computed at the bounds
// saturate instead of overflowing; `linkscope predict` reads what `linkscope whatif` writes at the
// bounds; a --scale-gpu regex on hostile kernel names (200 000 characters, '(a+)+$') finishes.
// The hostile inputs are generated here, not shipped.

#include "simjobbuilder.h"

#include "commands/commands.h"
#include "predict/whatif.h"
#include "predict/whatifmatch.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <sstream>

using namespace linkscope::test::simjob;

namespace {

// The message applyWhatIfOption throws for `flag value`, or "" when it takes it.
std::string refusal(const std::string &flag, const std::string &value)
{
    WhatIf w;
    try {
        applyWhatIfOption(w, flag, [&] { return value; });
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return {};
}

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::string kLongGemm = "gemm_" + std::string(200'000, 'x'); // found at the start
const std::string kLongTail = std::string(200'000, 'x') + "_gemm"; // found only past the cap

// Two ranks: a launch, a kernel with a 200 000-character name, one with a 5 000-character name,
// an all-reduce; ProfilerStep#1 on rank 0 only.
std::vector<std::vector<NodeSpec>> hostileJob()
{
    std::vector<std::vector<NodeSpec>> ranks;
    for (int r = 0; r < 2; ++r) {
        std::vector<NodeSpec> n;
        n.push_back(r == 0 ? cpu(1, "ProfilerStep#1", 5) : cpu(1, "launch", 5));
        n.push_back(gpu(2, kLongGemm, 100, {1}));
        n.push_back(gpu(3, std::string(4'999, 'a') + "b", 50, {2}));
        n.push_back(gpu(4, kLongTail, 20, {3}));
        n.push_back(allReduce(5, 1 << 20, {4}));
        ranks.push_back(n);
    }
    return ranks;
}

} // namespace

class TestWhatIfBounds : public QObject {
    Q_OBJECT
private slots:
    void factorsOutOfRangeAreRefused_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected"); // in the message; empty: accepted
        QTest::newRow("gpu 1e308") << "--scale-gpu"
                                   << "gemm=1e308"
                                   << "out of range";
        QTest::newRow("gpu inf") << "--scale-gpu"
                                 << "gemm=inf"
                                 << "out of range";
        QTest::newRow("gpu nan") << "--scale-gpu"
                                 << "gemm=nan"
                                 << "not a number";
        QTest::newRow("gpu -1") << "--scale-gpu"
                                << "gemm=-1"
                                << "out of range";
        QTest::newRow("gpu 1e400") << "--scale-gpu"
                                   << "gemm=1e400"
                                   << "out of range";
        QTest::newRow("gpu 0 removes") << "--scale-gpu"
                                       << "gemm=0"
                                       << "";
        QTest::newRow("gpu at the bound") << "--scale-gpu"
                                          << "gemm=1e6"
                                          << "";
        QTest::newRow("gpu past the bound") << "--scale-gpu"
                                            << "gemm=1000001"
                                            << "[0, 1e+06]";
        QTest::newRow("cpu 1e308") << "--scale-cpu"
                                   << "6:.*=1e308"
                                   << "--scale-cpu 6:.*";
        QTest::newRow("stream inf") << "--scale-stream"
                                    << "7=inf"
                                    << "--scale-stream 7";
        QTest::newRow("comm 1e308") << "--scale-comm"
                                    << "1e308"
                                    << "--scale-comm";
        QTest::newRow("comm 0") << "--scale-comm"
                                << "0"
                                << "[1e-06, 1e+06]";
        QTest::newRow("network 0") << "--scale-network"
                                   << "0"
                                   << "out of range";
        QTest::newRow("network nan") << "--scale-network"
                                     << "nan"
                                     << "not a number";
        QTest::newRow("network at the bound") << "--scale-network"
                                              << "1e-6"
                                              << "";
        QTest::newRow("latency 0") << "--scale-latency"
                                   << "0"
                                   << "";
        QTest::newRow("latency inf") << "--scale-latency"
                                     << "inf"
                                     << "out of range";
        QTest::newRow("delay 1e308") << "--delay-rank"
                                     << "0=1e308"
                                     << "[0, 1e+07]";
        QTest::newRow("delay -1") << "--delay-rank"
                                  << "0=-1"
                                  << "--delay-rank 0";
        QTest::newRow("delay at the bound") << "--delay-rank"
                                            << "0=1e7"
                                            << "";
        QTest::newRow("delay empty") << "--delay-rank"
                                     << "0="
                                     << "not a number";
        QTest::newRow("factor with a space") << "--scale-comm"
                                             << " 2"
                                             << "not a number";
    }
    void factorsOutOfRangeAreRefused()
    {
        QFETCH(QString, flag);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        const std::string message = refusal(flag.toStdString(), value.toStdString());
        if (expected.isEmpty()) {
            QVERIFY2(message.empty(), message.c_str());
            return;
        }
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
        QVERIFY2(message.find(flag.toStdString()) != std::string::npos, message.c_str()); // names the option
    }

    void timesSaturate()
    {
        const std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2;
        QCOMPARE(scaledNs(big, 0, kMaxWhatIfFactor), kMaxScaledNs);
        QCOMPARE(scaledNs(1'000, 0, kMaxWhatIfFactor * kMaxWhatIfFactor), kMaxScaledNs); // two terms multiplied
        QCOMPARE(scaledNs(1'000, 0, 0), std::int64_t(0));
        QCOMPARE(scaledMicros(big, 0, kMaxWhatIfFactor), kMaxScaledNs / 1000);
        QCOMPARE(scaledMicros(big, 5'000, kMaxWhatIfFactor), kMaxScaledNs / 1000);
        QCOMPARE(saturatedNs(std::numeric_limits<double>::quiet_NaN()), kMaxScaledNs);
        WhatIf w;
        w.transferFactor = kMaxWhatIfFactor;
        w.bandwidthFactor = kMinNetworkFactor;
        w.latencyFactor = kMaxWhatIfFactor;
        QCOMPARE(scaledBandwidthGBps(1e-3, w), kMinScaledBandwidthGBps);
        QCOMPARE(scaledLatencyNs(1e9, w), kMaxNetworkValue);
        WhatIf wide;
        wide.bandwidthFactor = kMaxWhatIfFactor;
        QCOMPARE(scaledBandwidthGBps(1e12, wide), kMaxNetworkValue);
        const std::string yml = scaleNetworkYaml("bandwidth: [ 50 ]\nlatency: [ 500 ]\n", w);
        QVERIFY2(yml.find("inf") == std::string::npos && yml.find("[ 0 ]") == std::string::npos, yml.c_str());
    }

    // '.*gemm' searched a 200 000-character name crashed (std::regex's recursion) or took minutes;
    // '(a+)+$' on 5 000 characters did not finish. The results are what is checked, not the time.
    void hostileNamesFinish()
    {
        const WhatIf::NameScale dotStar = parseGpuScale(".*gemm=2");
        QVERIFY(dotStar.matches(kLongGemm));
        QVERIFY(!dotStar.matches(kLongTail));                 // past the cap: not searched
        QVERIFY(!dotStar.matches(std::string(200'000, 'x'))); // nowhere
        QVERIFY(parseGpuScale("_gemm$=2").matches("k_gemm"));
        QVERIFY(!parseGpuScale("x$=2").matches(kLongTail)); // '$' does not match at the cut
        const WhatIf::NameScale nested = parseGpuScale("(a+)+$=2");
        QVERIFY(!nested.matches(std::string(4'999, 'a') + "b"));
        QVERIFY(nested.matches(std::string(3'000, 'a')));
        QVERIFY(!nested.matches(std::string(5'000, 'a'))); // cut at 4096: its end is not seen
        // The documented default and a lookahead still work.
        const WhatIf::NameScale compute = parseGpuScale("^(?!Memcpy|Memset|nccl)=2");
        QVERIFY(compute.matches("ampere_sgemm_128x64_nn"));
        QVERIFY(!compute.matches("Memcpy DtoH (Device -> Pinned)"));
        QVERIFY(!compute.matches("ncclDevKernel_AllReduce"));
        QVERIFY(compute.matches(kLongGemm));
        QVERIFY(parseGpuScale("\\bmm\\b=2").matches("aten::mm"));
        QVERIFY(!parseGpuScale("\\bmm\\b=2").matches("aten::mmx"));
        QVERIFY(parseGpuScale("a|b=2").matches("xxb"));
        // A pattern that is not a regex by itself is refused, even where wrapping would hide it.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGpuScale("a)(b=2"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGpuScale("(a)\\1=2")); // no back-references

        const SimJob job = jobOf(hostileJob());
        WhatIf w;
        w.gpu.push_back(dotStar);
        w.gpu.push_back(nested);
        const std::vector<WhatIfMatch> m = matchWhatIf(job, w);
        QCOMPARE(m.size(), std::size_t(2));
        QCOMPARE(m[0].nodes, std::size_t(2)); // the long gemm on each rank
        QCOMPARE(m[1].nodes, std::size_t(0));
        const std::vector<std::string> warnings = whatIfWarnings(job, w, m);
        bool cut = false;
        for (const std::string &s : warnings)
            cut = cut || s.find("longer than 4096 characters") != std::string::npos;
        QVERIFY(cut);
        const ReplayResult base = replay(job, {}), scaled = replay(job, w);
        QVERIFY(base.ranks[0].finished && scaled.ranks[0].finished);
        QCOMPARE(scaled.makespanNs - base.makespanNs, std::int64_t(100'000)); // the 100 µs kernel ×2
    }

    // `linkscope whatif` at every bound, then `linkscope predict` on what it wrote.
    void predictReadsWhatIfAtTheBounds()
    {
        QTemporaryDir dir;
        const std::string in = dir.filePath("in").toStdString(), out = dir.filePath("out").toStdString();
        QVERIFY(QDir().mkpath(QString::fromStdString(in)));
        const auto ranks = hostileJob();
        for (std::size_t r = 0; r < ranks.size(); ++r)
            writeChakraEt(in + "/trace." + std::to_string(r) + ".et", traceOf(ranks[r], static_cast<std::int64_t>(r)),
                          {false, false});
        {
            std::ofstream yml(in + "/network.yml");
            yml << "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n";
        }
        const std::vector<std::string> bounds{
            "--scale-gpu",     ".*gemm=1e6", "--scale-cpu",  ".*=1e6", "--scale-comm",   "1e6",  "--scale-latency", "1e6",
            "--scale-network", "1e-6",       "--delay-rank", "0=1e7",  "--scale-stream", "0=1e6"};
        std::vector<std::string> args{in, out};
        args.insert(args.end(), bounds.begin(), bounds.end());
        std::ostringstream o, e;
        QCOMPARE(linkscope::cli::runWhatIf(args, o, e), 0);
        const std::string yml = readText(out + "/network.yml");
        QVERIFY2(yml.find("inf") == std::string::npos && yml.find("nan") == std::string::npos, yml.c_str());
        const ChakraTrace t = readChakraEt(out + "/trace.0.et");
        for (const auto &n : t.nodes)
            QVERIFY(n.duration_micros() <= static_cast<std::uint64_t>(kMaxScaledNs / 1000 * 2));

        std::ostringstream po, pe;
        QCOMPARE(linkscope::cli::runPredict({out, "--json"}, po, pe), 0);
        const nlohmann::json j = nlohmann::json::parse(po.str());
        for (const auto &r : j["ranks"]) {
            QVERIFY(r["finished"].get<bool>());
            QVERIFY(r["step_ns"].get<std::int64_t>() > 0);
        }
        // The same what-ifs replayed without the files: they finish too, and the 200 000-character
        // kernel is the one scaled.
        std::vector<std::string> direct{in, "--json"};
        direct.insert(direct.end(), bounds.begin(), bounds.end());
        std::ostringstream do_, de;
        QCOMPARE(linkscope::cli::runPredict(direct, do_, de), 0);
        const nlohmann::json d = nlohmann::json::parse(do_.str());
        QVERIFY(d["matches"][0]["nodes"].get<std::int64_t>() >= 2);
        for (const auto &r : d["ranks"])
            QVERIFY(r["finished"].get<bool>() && r["step_ns"].get<std::int64_t>() > 0);
        QVERIFY2(de.str().find("longer than 4096") != std::string::npos, de.str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestWhatIfBounds)
#include "test_whatif_bounds.moc"
