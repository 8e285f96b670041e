// `linkscope diff` (report/rundiff.h, report/opname.h) and `linkscope predict --against`
// (predict/against.h): op names normalised, two generated runs where B is A with one kernel family ×2
// (the family ranked first, its numbers against a count of the Kineto files' own events), the JSON,
// the CSV, job folders rank by rank, bad input, and --against's error against bench/whatif.sh's
// definition (job-report.json's measured_ns). And how File ▸ Compare with… aligns B's lanes with A's
// (report/runalign.h): the first steps' starts, else the first events, on the traces' absolute clocks.
#include "analysis/profilersteps.h"
#include "clitestsupport.h"
#include "gen/tracegenerator.h"
#include "index/traceindex.h"
#include "report/opname.h"
#include "report/runalign.h"
#include "report/rundiff.h"
#include "tracebuilder.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace linkscope;
using namespace linkscope::core;
using linkscope::test::runCli;

namespace {

constexpr const char *kFamily = "at::native::vectorized_layer_norm_kernel";

// A generated job of `ranks` ranks (steps 2, seed 7) in `dir`, its vectorized_layer_norm kernels × `factor`
// (the one family of that name: the Triton layer-norm kernels are not scaled).
void generate(const std::string &dir, int ranks, double factor)
{
    gen::GeneratorOptions o;
    o.seed = 7;
    o.steps = 2;
    o.worldSize = ranks;
    if (factor != 1.0)
        o.kernelScales.push_back({"vectorized_layer_norm", factor});
    gen::generateJob(o, dir);
}

// The layer-norm kernels of a Kineto file, counted from its JSON: (count, Σ dur in ns).
std::pair<std::uint64_t, std::int64_t> layerNormKernels(const std::string &kineto)
{
    std::ifstream in(kineto);
    const nlohmann::json j = nlohmann::json::parse(in);
    std::uint64_t count = 0;
    std::int64_t total = 0;
    for (const nlohmann::json &e : j["traceEvents"])
        if (e.value("cat", "") == "kernel" && e.value("name", "").find("vectorized_layer_norm") != std::string::npos) {
            ++count;
            total += std::llround(e["dur"].get<double>() * 1000.0);
        }
    return {count, total};
}

} // namespace

class TestRunDiff : public QObject {
    Q_OBJECT

private slots:
    void normalisedNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("template and parameters") << "void at::native::foo<float, 4>(int, float*)"
                                                 << "at::native::foo";
        QTest::newRow("anonymous namespace")
            << "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*)"
            << "at::native::vectorized_layer_norm_kernel";
        QTest::newRow("anonymous at the start") << "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, "
                                                   "false, false>(float*, float const*, int)"
                                                << "softmax_warp_forward";
        QTest::newRow("nested templates") << "void at::native::vectorized_elementwise_kernel<4, "
                                             "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >"
                                             "(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
                                          << "at::native::vectorized_elementwise_kernel";
        QTest::newRow("step number") << "ProfilerStep#12"
                                     << "ProfilerStep#N";
        QTest::newRow("no signature kept") << "Memcpy HtoD (Pageable -> Device)"
                                           << "Memcpy HtoD (Pageable -> Device)";
        QTest::newRow("plain kernel") << "ampere_sgemm_128x64_nn"
                                      << "ampere_sgemm_128x64_nn";
        QTest::newRow("cpu op") << "aten::add_"
                                << "aten::add_";
        QTest::newRow("nccl with parameters") << "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                                              << "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        QTest::newRow("words then parentheses kept") << "Memset (Device)"
                                                     << "Memset (Device)";
        QTest::newRow("unbalanced kept") << "void ns::f<int("
                                         << "void ns::f<int(";
        QTest::newRow("operator kept") << "bool ns::operator<(int, int)"
                                       << "bool ns::operator<(int, int)";
        QTest::newRow("hash not a number") << "Optimizer.step#SGD.step"
                                           << "Optimizer.step#SGD.step";
    }
    void normalisedNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(normalizeOpName(name.toStdString())), expected);
    }

    // B = A with the layer-norm kernels ×2: that family moved most, by exactly its time in A; its
    // count and totals are the Kineto files' own.
    void familyScaledRanksFirst()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a").toStdString(), b = dir.filePath("b").toStdString();
        generate(a, 1, 1.0);
        generate(b, 1, 2.0);
        const std::string ka = a + "/kineto_0.json", kb = b + "/kineto_0.json";
        const auto [countA, totalA] = layerNormKernels(ka);
        const auto [countB, totalB] = layerNormKernels(kb);
        QVERIFY(countA > 0);
        QCOMPARE(countB, countA);
        QVERIFY(std::llabs(totalB - 2 * totalA) <= static_cast<std::int64_t>(countA)); // rounded to the ns per kernel

        const test::CliRun run = runCli(cli::runDiff, {"--a", a + "/host_0.json", ka, "--b", kb, a + "/host_0.json", "--json"});
        QVERIFY2(run.code == 0, run.all().c_str());
        const nlohmann::json j = nlohmann::json::parse(run.out);
        QCOMPARE(j["job"].get<bool>(), false);
        const nlohmann::json &first = j["moved"][0];
        QCOMPARE(first["name"].get<std::string>(), std::string(kFamily));
        QCOMPARE(first["kind"].get<std::string>(), std::string("gpu_op"));
        QCOMPARE(first["a_ns"].get<std::int64_t>(), totalA);
        QCOMPARE(first["b_ns"].get<std::int64_t>(), totalB);
        QCOMPARE(first["change_ns"].get<std::int64_t>(), totalB - totalA);
        QVERIFY(std::abs(first["change_pct"].get<double>() - 100.0) < 1.0);
        const nlohmann::json &op = j["gpu_ops"][0];
        QCOMPARE(op["name"].get<std::string>(), std::string(kFamily));
        QCOMPARE(op["count_a"].get<std::uint64_t>(), countA);
        QCOMPARE(op["count_b"].get<std::uint64_t>(), countB);
        QCOMPARE(op["mean_a_ns"].get<std::int64_t>(), totalA / static_cast<std::int64_t>(countA));
        // One trace each: one rank row, the steps (ProfilerStep#N) counted on both sides.
        QCOMPARE(j["ranks"].size(), std::size_t(1));
        QCOMPARE(j["ranks"][0]["step"]["steps_a"].get<int>(), 2);
        QCOMPARE(j["ranks"][0]["step"]["steps_b"].get<int>(), 2);
        QVERIFY(j["ranks"][0]["step"]["b_ns"].get<std::int64_t>() > j["ranks"][0]["step"]["a_ns"].get<std::int64_t>());
        QVERIFY(!j["streams"].empty());

        // The text says the same first; the CSV has the family as the first moved row.
        const test::CliRun text = runCli(cli::runDiff, {ka, kb, "--csv", dir.filePath("d.csv").toStdString()});
        QVERIFY2(text.code == 0, text.all().c_str());
        QVERIFY(text.out.find(std::string("  1. +")) != std::string::npos);
        const std::string firstMoved = text.out.substr(text.out.find("  1. "));
        QVERIFY(firstMoved.substr(0, firstMoved.find('\n')).find(kFamily) != std::string::npos);
        const std::string csv = test::readFile(dir.filePath("d.csv").toStdString());
        QVERIFY(
            csv.starts_with("section,rank,name,category,count_a,count_b,a_ns,b_ns,change_ns,change_pct,self_a_ns,self_b_ns\n"));
        QVERIFY(csv.find("moved,1," + std::string(kFamily) + ",gpu_op," + std::to_string(countA) + "," + std::to_string(countB)
                         + "," + std::to_string(totalA) + "," + std::to_string(totalB) + ",")
                != std::string::npos);
    }

    // Two job folders: a row per rank, the ranks matched by number; the family moved most over both.
    void jobFolders()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a").toStdString(), b = dir.filePath("b").toStdString();
        generate(a, 2, 1.0);
        generate(b, 2, 2.0);
        const test::CliRun run = runCli(cli::runDiff, {a, b, "--json", "--top", "0"});
        QVERIFY2(run.code == 0, run.all().c_str());
        const nlohmann::json j = nlohmann::json::parse(run.out);
        QCOMPARE(j["job"].get<bool>(), true);
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["ranks"][1]["rank"].get<int>(), 1);
        std::int64_t totalA = 0, totalB = 0;
        for (int r = 0; r < 2; ++r) {
            totalA += layerNormKernels(a + "/kineto_" + std::to_string(r) + ".json").second;
            totalB += layerNormKernels(b + "/kineto_" + std::to_string(r) + ".json").second;
        }
        QCOMPARE(j["moved"][0]["name"].get<std::string>(), std::string(kFamily));
        QCOMPARE(j["moved"][0]["a_ns"].get<std::int64_t>(), totalA);
        QCOMPARE(j["moved"][0]["b_ns"].get<std::int64_t>(), totalB);
        // A rank only one job has is named; a job against one trace is refused.
        std::filesystem::remove(b + "/kineto_1.json");
        std::filesystem::remove(b + "/host_1.json");
        const test::CliRun fewer = runCli(cli::runDiff, {a, b});
        QCOMPARE(fewer.code, 0);
        QVERIFY2(fewer.err.find("rank 1 is in " + a) != std::string::npos, fewer.err.c_str());
        const test::CliRun mixed = runCli(cli::runDiff, {a, b + "/kineto_0.json"});
        QCOMPARE(mixed.code, 1);
        QVERIFY2(mixed.err.find("cannot compare a job with a single trace") != std::string::npos, mixed.err.c_str());
        // A rank that cannot be read: named, the others compared, exit status 1.
        test::writeText(b + "/kineto_0.json", "{\"traceEvents\": [");
        test::writeText(b + "/kineto_1.json", test::readFile(a + "/kineto_1.json"));
        const test::CliRun unreadable = runCli(cli::runDiff, {a, b, "--json"});
        QCOMPARE(unreadable.code, 1);
        QVERIFY2(unreadable.err.find("rank 0 (" + b + "/kineto_0.json) could not be read") != std::string::npos,
                 unreadable.err.c_str());
        QCOMPARE(nlohmann::json::parse(unreadable.out)["ranks"][0]["rank"].get<int>(), 1);
    }

    // The sample's one step (ProfilerStep#3, 3,836,596 ns: test_summary's hand count) against a trace
    // without steps: its extent, with a warning saying so.
    void stepAgainstExtent()
    {
        const test::CliRun run = runCli(cli::runDiff, {test::sourcePath("resources/samples/sample_kineto.json"),
                                                       test::sourcePath("tests/data/export/seed_kineto.json"), "--json"});
        QVERIFY2(run.code == 0, run.all().c_str());
        const nlohmann::json j = nlohmann::json::parse(run.out);
        const nlohmann::json &step = j["ranks"][0]["step"];
        QCOMPARE(step["a_ns"].get<std::int64_t>(), std::int64_t(3836596));
        QCOMPARE(step["steps_a"].get<int>(), 1);
        QCOMPARE(step["steps_b"].get<int>(), 0);
        QCOMPARE(j["warnings"].size(), std::size_t(1));
        QVERIFY(j["warnings"][0].get<std::string>().find("seed_kineto.json has no ProfilerStep#N") != std::string::npos);
        QVERIFY(run.err.find("diff: warning: the step compares ProfilerStep#N spans with a trace's extent") != std::string::npos);
    }

    // One rank's trace against another rank's: the same streams on another GPU meet by stream id.
    void streamsOnAnotherGpu()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a").toStdString();
        generate(a, 1, 1.0);
        nlohmann::json moved = nlohmann::json::parse(test::readFile(a + "/kineto_0.json"));
        for (nlohmann::json &e : moved["traceEvents"])
            if (e.contains("pid") && e["pid"].is_number_integer() && e["pid"] == 0) { // GPU 0's events go to GPU 3
                e["pid"] = 3;
                if (e.contains("args") && e["args"].contains("device"))
                    e["args"]["device"] = 3;
            }
        const std::string b = dir.filePath("gpu3.json").toStdString();
        test::writeText(b, moved.dump());
        const test::CliRun run = runCli(cli::runDiff, {a + "/kineto_0.json", b, "--json"});
        QVERIFY2(run.code == 0, run.all().c_str());
        const nlohmann::json j = nlohmann::json::parse(run.out);
        QCOMPARE(j["streams"].size(), std::size_t(3));
        for (const nlohmann::json &st : j["streams"]) {
            QVERIFY2(!st.contains("only_in"), st.dump().c_str());
            QCOMPARE(st["change_ns"].get<std::int64_t>(), std::int64_t(0));
            const std::string label = st["label"].get<std::string>();
            const std::size_t stream = label.find(" stream ");
            const std::string id = label.substr(stream, label.find(" / ") - stream);
            QCOMPARE(QString::fromStdString(label), QString::fromStdString("GPU 0" + id + " / GPU 3" + id));
        }
        QCOMPARE(j["moved"][0]["change_ns"].get<std::int64_t>(), std::int64_t(0));
    }

    void badInput()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a").toStdString();
        generate(a, 1, 1.0);
        const std::string broken = dir.filePath("broken.json").toStdString();
        test::writeText(broken, "{\"traceEvents\": [ {\"ph\": \"X\", ");
        const test::CliRun run = runCli(cli::runDiff, {a + "/kineto_0.json", broken});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.find(broken) != std::string::npos, run.err.c_str());
        const test::CliRun missing = runCli(cli::runDiff, {a + "/kineto_0.json", dir.filePath("none.json").toStdString()});
        QCOMPARE(missing.code, 1);
        QVERIFY2(missing.err.find("none.json") != std::string::npos, missing.err.c_str());
        // A trace cut short: refused, the byte named; read up to its cut with --allow-truncated.
        const std::string whole = test::readFile(a + "/kineto_0.json");
        const std::string cut = dir.filePath("cut.json").toStdString();
        test::writeText(cut, whole.substr(0, whole.size() * 7 / 10));
        const test::CliRun refused = runCli(cli::runDiff, {a + "/kineto_0.json", cut});
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.find("cut.json") != std::string::npos && refused.err.find("--allow-truncated") != std::string::npos,
                 refused.err.c_str());
        const test::CliRun allowed = runCli(cli::runDiff, {a + "/kineto_0.json", cut, "--allow-truncated"});
        QVERIFY2(allowed.code == 0, allowed.all().c_str());
        QVERIFY2(allowed.err.find("diff: warning: ") != std::string::npos && allowed.err.find("truncated") != std::string::npos,
                 allowed.err.c_str());
        QCOMPARE(runCli(cli::runDiff, {a + "/kineto_0.json"}).code, 2);
        QCOMPARE(runCli(cli::runDiff, {a + "/kineto_0.json", a + "/kineto_0.json", "--top", "x"}).code, 2);
        // The CSV never replaces an input.
        const std::string kineto = test::readFile(a + "/kineto_0.json"), host = test::readFile(a + "/host_0.json");
        const test::CliRun over = runCli(cli::runDiff,
                                         {a + "/kineto_0.json", a + "/kineto_0.json", "--csv", a + "/kineto_0.json"});
        QCOMPARE(over.code, 1);
        const test::CliRun overHost = runCli(cli::runDiff, {"--a", a + "/host_0.json", a + "/kineto_0.json", "--b",
                                                            a + "/kineto_0.json", "--csv", a + "/host_0.json"});
        QCOMPARE(overHost.code, 1);
        const test::CliRun overJob = runCli(cli::runDiff, {a, a, "--csv", a + "/host_0.json"});
        QCOMPARE(overJob.code, 1);
        QVERIFY2(overJob.err.find("host_0.json") != std::string::npos, overJob.err.c_str());
        QCOMPARE(test::readFile(a + "/kineto_0.json"), kineto);
        QCOMPARE(test::readFile(a + "/host_0.json"), host);
    }

    // --against B: the error per rank and of the mean step as bench/whatif.sh computes it, from B's
    // job-report.json (measured_ns) and the prediction's own steps.
    void predictAgainst()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a").toStdString(), b = dir.filePath("b").toStdString();
        generate(a, 2, 1.0);
        generate(b, 2, 2.0);
        const std::string aOut = dir.filePath("a-out").toStdString(), bOut = dir.filePath("b-out").toStdString();
        QCOMPARE(runCli(cli::runJob, {a, "--out", aOut}).code, 0);
        QCOMPARE(runCli(cli::runJob, {b, "--out", bOut}).code, 0);
        const std::vector<std::string> whatIf = {"--scale-gpu", "vectorized_layer_norm=2"};
        cli::Args plain = {aOut, "--json", "--path-limit", "1"};
        plain.insert(plain.end(), whatIf.begin(), whatIf.end());
        const test::CliRun predicted = runCli(cli::runPredict, plain);
        QVERIFY2(predicted.code == 0, predicted.all().c_str());
        const nlohmann::json p = nlohmann::json::parse(predicted.out);
        const nlohmann::json report = test::readJson(bOut + "/job-report.json");
        std::map<std::int64_t, std::int64_t> truth;
        for (const nlohmann::json &r : report["ranks"])
            truth[r["rank"].get<std::int64_t>()] = r["export"]["measured_ns"].get<std::int64_t>();
        QCOMPARE(truth.size(), std::size_t(2));
        double sumP = 0, sumT = 0, worst = 0;
        for (const nlohmann::json &r : p["ranks"]) {
            const std::int64_t rank = r["rank"].get<std::int64_t>();
            sumP += double(r["step_ns"].get<std::int64_t>());
            sumT += double(truth.at(rank));
            const double e = 100.0 * (double(r["step_ns"].get<std::int64_t>()) / double(truth.at(rank)) - 1.0);
            worst = std::abs(e) > std::abs(worst) ? e : worst;
        }
        const double expected = 100.0 * (sumP / sumT - 1.0);

        // B as a job export (its job-report.json) and as its traces (exported here): the same errors.
        for (const std::string &against : {bOut, b}) {
            cli::Args args = plain;
            args.insert(args.end(), {"--against", against});
            const test::CliRun run = runCli(cli::runPredict, args);
            QVERIFY2(run.code == 0, run.all().c_str());
            const nlohmann::json j = nlohmann::json::parse(run.out)["against"];
            QCOMPARE(j["ranks"].size(), std::size_t(2));
            QCOMPARE(j["error_pct"].get<double>(), expected);
            QCOMPARE(j["worst_error_pct"].get<double>(), worst);
            for (const nlohmann::json &r : j["ranks"])
                QCOMPARE(r["measured_ns"].get<std::int64_t>(), truth.at(r["rank"].get<std::int64_t>()));
            // Where they part: the scaled family predicted within 2 % of how long it ran (the what-if
            // scales a kernel, not its dispatch wait: attr dispatch_ns), a family left alone not at all.
            const nlohmann::json &families = j["kernel_families"];
            bool scaled = false;
            for (const nlohmann::json &f : families)
                if (f["name"].get<std::string>() == kFamily) {
                    scaled = true;
                    const double measured = double(f["measured_ns"].get<std::int64_t>());
                    QVERIFY(measured > 0);
                    QVERIFY2(std::abs(double(f["predicted_ns"].get<std::int64_t>()) / measured - 1) < 0.02, f.dump().c_str());
                }
            QVERIFY(scaled);
            bool gemm = false;
            for (const nlohmann::json &f : families)
                if (f["name"].get<std::string>() == "ampere_sgemm_128x64_nn") {
                    gemm = true;
                    QCOMPARE(f["gap_ns"].get<std::int64_t>(), std::int64_t(0));
                    QVERIFY(f["measured_ns"].get<std::int64_t>() > 0);
                }
            QVERIFY(gemm);
            // The what-if leaves the CPU alone, and so did the real change: the CPU time per rank agrees.
            QCOMPARE(j["cpu"].size(), std::size_t(2));
            for (const nlohmann::json &c : j["cpu"]) {
                QVERIFY(c["measured_ns"].get<std::int64_t>() > 0);
                QVERIFY2(std::abs(c["error_pct"].get<double>()) < 0.1, c.dump().c_str());
            }
        }
        // The text prints bench/whatif.sh's figures.
        cli::Args textArgs = {aOut, "--against", bOut};
        textArgs.insert(textArgs.end(), whatIf.begin(), whatIf.end());
        const test::CliRun text = runCli(cli::runPredict, textArgs);
        QVERIFY2(text.code == 0, text.all().c_str());
        char line[64];
        std::snprintf(line, sizeof line, "error %+.2f %%; worst rank", expected);
        QVERIFY2(text.out.find(line) != std::string::npos, text.out.c_str());
        // .et files without a job report have no measured step; a Kineto trace alone neither.
        std::filesystem::remove(bOut + "/job-report.json");
        const test::CliRun noReport = runCli(cli::runPredict, {aOut, "--against", bOut});
        QCOMPARE(noReport.code, 1);
        QVERIFY2(noReport.err.find("no measured step") != std::string::npos, noReport.err.c_str());
        const test::CliRun alone = runCli(cli::runPredict, {aOut, "--against", b + "/kineto_0.json"});
        QCOMPARE(alone.code, 1);
        QVERIFY2(alone.err.find("Kineto trace alone") != std::string::npos, alone.err.c_str());
    }

    // File ▸ Compare with…'s clock for B's lanes (report/runalign.h).
    void alignOnFirstSteps();
    void alignOnFirstEventsWithoutSteps();
};

void TestRunDiff::alignOnFirstSteps()
{
    // A: steps #3 at 1000 and #4 at 5000 (listed out of order), base 10^12. B: #7 at 200 (a
    // user_annotation) and a later cpu_op #8, base 10^12 + 5·10^6, plus events before its first step.
    test::TraceBuilder a, b;
    a.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 500, 100);
    a.cpu(EventCategory::UserAnnotation, "ProfilerStep#4", 1, 1, 5000, 3000);
    a.cpu(EventCategory::UserAnnotation, "ProfilerStep#3", 1, 1, 1000, 3000);
    a.trace.baseTimeNs = Nanos(1'000'000'000'000);
    b.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 50, 100);
    b.cpu(EventCategory::UserAnnotation, "ProfilerStep#7", 1, 1, 200, 2500);
    b.cpu(EventCategory::CpuOp, "ProfilerStep#8", 1, 1, 2800, 2500);
    b.trace.baseTimeNs = Nanos(1'000'005'000'000);
    const TraceIndex ia = buildTraceIndex(a.trace), ib = buildTraceIndex(b.trace);
    const RunAlignment r = alignRuns(a.trace, ia, b.trace, ib);
    QVERIFY(r.bySteps);
    QCOMPARE(r.stepA, std::int64_t(3));
    QCOMPARE(r.stepB, std::int64_t(7));
    QCOMPARE(r.atA, Nanos(1'000'000'001'000));
    QCOMPARE(r.atB, Nanos(1'000'005'000'200));
    // B's step #7 start, shifted, is A's step #3 start.
    QCOMPARE(*b.trace.baseTimeNs + 200 + r.shiftNs(), *a.trace.baseTimeNs + 1000);
    QCOMPARE(r.describe(), std::string("B's ProfilerStep#7 starts with A's ProfilerStep#3"));
    // The steps are the ones `summary` and `diff` count (analysis/profilersteps.h).
    QCOMPARE(profilerSteps(b.trace).front().number, std::int64_t(7));
}

void TestRunDiff::alignOnFirstEventsWithoutSteps()
{
    // B has no ProfilerStep#N: the traces' first events meet, and the alignment says which run lacks them.
    test::TraceBuilder a, b;
    a.cpu(EventCategory::CpuOp, "aten::mm", 1, 1, 700, 100);
    a.cpu(EventCategory::UserAnnotation, "ProfilerStep#3", 1, 1, 1000, 3000);
    b.cpu(EventCategory::CpuOp, "aten::add", 1, 1, 400, 100);
    b.gpu("gemm", 0, 7, 300, 50, 1); // the first event is a kernel: every event counts
    const TraceIndex ia = buildTraceIndex(a.trace), ib = buildTraceIndex(b.trace);
    const RunAlignment r = alignRuns(a.trace, ia, b.trace, ib);
    QVERIFY(!r.bySteps);
    QCOMPARE(r.missing, std::string("B"));
    QCOMPARE(r.atA, Nanos(700));
    QCOMPARE(r.atB, Nanos(300));
    QCOMPARE(r.shiftNs(), Nanos(400));
    QCOMPARE(r.describe(), std::string("no ProfilerStep#N in B: the traces' first events aligned"));
    // Neither has steps; A alone lacks them.
    QCOMPARE(alignRuns(b.trace, ib, b.trace, ib).missing, std::string("A and B"));
    const RunAlignment noA = alignRuns(b.trace, ib, a.trace, ia);
    QCOMPARE(noA.missing, std::string("A"));
    QCOMPARE(noA.shiftNs(), Nanos(300 - 700));
}

QTEST_GUILESS_MAIN(TestRunDiff)
#include "test_rundiff.moc"
