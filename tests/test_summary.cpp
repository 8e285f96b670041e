// The trace-wide summary (core/analysis/tracestats.h, report/summaryreport.h, `linkscope summary`):
// the bundled sample's numbers against a hand count (a separate pass over its JSON, written down
// below), a generated job's per-rank rows against each rank summarised alone, the CLI's JSON and CSV.
#include "analysis/tracestats.h"
#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "pipeline/pairpipeline.h"
#include "report/summaryreport.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace linkscope;
using namespace linkscope::core;
namespace fs = std::filesystem;

namespace {

struct Run {
    int code = -1;
    std::string out, err;
};

Run summary(const std::vector<std::string> &args)
{
    std::ostringstream out, err;
    Run r;
    r.code = cli::runSummary(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string sampleHost() { return test::sourcePath("resources/samples/sample_host_et.json"); }
std::string sampleKineto() { return test::sourcePath("resources/samples/sample_kineto.json"); }

TraceStats statsOf(const std::string &host, const std::string &device)
{
    PairRequest request;
    request.files = {host, device};
    const OpenedPair pair = openPair(request);
    return computeTraceStats(*pair.device, *pair.index);
}

const SummaryOpStat *named(const std::vector<SummaryOpStat> &ops, std::string_view name)
{
    for (const SummaryOpStat &op : ops)
        if (op.name == name)
            return &op;
    return nullptr;
}

const SummaryStream *stream(const TraceStats &s, int device, std::int64_t id)
{
    for (const SummaryStream &st : s.streams)
        if (st.device == device && st.stream == id)
            return &st;
    return nullptr;
}

constexpr const char *kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

} // namespace

class TestSummary : public QObject {
    Q_OBJECT

private slots:
    // Hand count of resources/samples/sample_kineto.json (every "ph": "X" event; ts and dur in µs
    // to the ns): 22 GPU-op names, the longest total the f32 all-reduce (2 kernels, 4,085,747 ns,
    // the longer 2,107,660); 36 cpu_op names, 71 ops, the longest aten::item (724,038 ns) whose one
    // nested event is aten::_local_scalar_dense (721,053 ns); streams by union of their kernels; per
    // GPU the all-reduce/all-gather time on stream 40 against the other kernels of the GPU; one step,
    // ProfilerStep#3 (user_annotation), 3,836,596 ns.
    void sampleAgainstHandCount()
    {
        const TraceStats s = statsOf(sampleHost(), sampleKineto());
        QCOMPARE(s.gpuOps.size(), std::size_t(22));
        QCOMPARE(s.gpuOps.front().name, std::string(kAllReduce));
        QCOMPARE(s.gpuOps.front().count, std::uint64_t(2));
        QCOMPARE(s.gpuOps.front().total, Nanos(4085747));
        QCOMPARE(s.gpuOps.front().max, Nanos(2107660));
        const SummaryOpStat *gather = named(s.gpuOps, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
        QVERIFY(gather);
        QCOMPARE(gather->total, Nanos(1400588));
        QCOMPARE(s.gpuOps[2].count, std::uint64_t(4)); // the sm90 gemm
        QCOMPARE(s.gpuOps[2].total, Nanos(808496));

        QCOMPARE(s.cpuOps.size(), std::size_t(36));
        std::uint64_t cpuCount = 0;
        for (const SummaryOpStat &op : s.cpuOps)
            cpuCount += op.count;
        QCOMPARE(cpuCount, std::uint64_t(71));
        QCOMPARE(s.cpuOps.front().name, std::string("aten::item"));
        QCOMPARE(s.cpuOps.front().total, Nanos(724038));
        QCOMPARE(s.cpuOps.front().self, Nanos(724038 - 721053));
        QCOMPARE(s.cpuOps[1].name, std::string("aten::_local_scalar_dense"));

        QCOMPARE(s.streams.size(), std::size_t(5));
        QCOMPARE(stream(s, 0, 7)->ops, std::uint64_t(14));
        QCOMPARE(stream(s, 0, 7)->busy, Nanos(1132647));
        QCOMPARE(stream(s, 0, 7)->comm, Nanos(0));
        QCOMPARE(stream(s, 0, 20)->busy, Nanos(180994));
        QCOMPARE(stream(s, 0, 40)->busy, Nanos(3378675));
        QCOMPARE(stream(s, 0, 40)->comm, Nanos(3378675));
        QCOMPARE(stream(s, 0, 40)->commOverlapped, Nanos(740385));
        QCOMPARE(stream(s, 1, 40)->comm, Nanos(2107660));
        QCOMPARE(stream(s, 1, 7)->busy, Nanos(887895));

        QCOMPARE(s.devices.size(), std::size_t(2));
        QCOMPARE(s.devices[0].busy, Nanos(3779775));
        QCOMPARE(s.devices[0].comm, Nanos(3378675));
        QCOMPARE(s.devices[0].commOverlapped, Nanos(740385));
        QCOMPARE(s.devices[0].exposedComm(), Nanos(2638290));
        QCOMPARE(s.devices[1].busy, Nanos(2852415));
        QCOMPARE(s.devices[1].exposedComm(), Nanos(1964520));
        QCOMPARE(s.exposedComm(), Nanos(2638290 + 1964520));
        QCOMPARE(s.gpuBusy(), Nanos(3779775 + 2852415));
        QVERIFY(s.span() > 0);
        QCOMPARE(s.gpuUtilisation(), 100.0 * double(3779775 + 2852415) / (2.0 * double(s.span())));

        QCOMPARE(s.steps.size(), std::size_t(1));
        QCOMPARE(s.steps[0].number, std::int64_t(3));
        QCOMPARE(s.steps[0].dur, Nanos(3836596));
        QCOMPARE(s.stepTimes().mean, Nanos(3836596));
    }

    void stepNumbers()
    {
        QCOMPARE(profilerStepNumber("ProfilerStep#12"), std::int64_t(12));
        QCOMPARE(profilerStepNumber("ProfilerStep#"), std::int64_t(-1));
        QCOMPARE(profilerStepNumber("ProfilerStep#1x"), std::int64_t(-1));
        QCOMPARE(profilerStepNumber("aten::mm"), std::int64_t(-1));
    }

    void cliJsonAndCsvOnTheSample()
    {
        QTemporaryDir dir;
        const std::string csv = dir.filePath("summary.csv").toStdString();
        // Either order: the files are told apart by content.
        const Run r = summary({sampleKineto(), sampleHost(), "--json", "--top", "3", "--csv", csv});
        QVERIFY2(r.code == 0, r.err.c_str());
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QCOMPARE(j["gpu_ops"].size(), std::size_t(3));
        QCOMPARE(j["gpu_ops"][0]["name"].get<std::string>(), std::string(kAllReduce));
        QCOMPARE(j["gpu_ops"][0]["total_ns"].get<Nanos>(), Nanos(4085747));
        QCOMPARE(j["cpu_ops"][0]["self_ns"].get<Nanos>(), Nanos(724038 - 721053));
        QCOMPARE(j["devices"][0]["exposed_comm_ns"].get<Nanos>(), Nanos(2638290));
        QCOMPARE(j["exposed_comm_ns"].get<Nanos>(), Nanos(2638290 + 1964520));
        QCOMPARE(j["steps"]["count"].get<int>(), 1);
        QCOMPARE(j["steps"]["steps"][0]["dur_ns"].get<Nanos>(), Nanos(3836596));
        QVERIFY(j["host"].get<std::string>().find("sample_host_et.json") != std::string::npos);

        const std::string table = test::readFile(csv);
        QVERIFY(
            table.rfind("section,rank,name,category,count,total_ns,self_ns,mean_ns,max_ns,percent,comm_ns,exposed_comm_ns\n", 0)
            == 0);
        QVERIFY(table.find("step,,ProfilerStep#3,,1,3836596,") != std::string::npos);
        QVERIFY(table.find("device,,GPU 0,,") != std::string::npos);
        QVERIFY(table.find(",3378675,2638290\n") != std::string::npos);

        // The text names the top op and the step.
        const Run text = summary({sampleHost(), sampleKineto()});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.find("ncclDevKernel_AllReduce_Sum_f32") != std::string::npos);
        QVERIFY(text.out.find("steps: 1, mean 3.837 ms") != std::string::npos);

        // The CSV may not replace an input; bad arguments are 2.
        QTemporaryDir copies;
        const std::string kineto = copies.filePath("k.json").toStdString();
        fs::copy_file(sampleKineto(), kineto);
        const std::string before = test::readFile(kineto);
        const Run over = summary({kineto, "--csv", kineto});
        QCOMPARE(over.code, 1);
        QCOMPARE(test::readFile(kineto), before);
        QCOMPARE(summary({sampleKineto(), "--top", "x"}).code, 2);
        QCOMPARE(summary({}).code, 2);
    }

    // A generated 4-rank job: a row per rank equal to that rank summarised alone, the ops summed.
    void generatedJob()
    {
        QTemporaryDir dir;
        const std::string job = (fs::path(dir.path().toStdString()) / "job").string();
        gen::GeneratorOptions o;
        o.seed = 5;
        o.steps = 3;
        o.layers = 2;
        o.worldSize = 4;
        gen::generateJob(o, job, false, 2);
        const Run r = summary({job, "--json", "--top", "0", "--jobs", "2"});
        QVERIFY2(r.code == 0, r.err.c_str());
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QCOMPARE(j["ranks"].size(), std::size_t(4));
        std::map<std::string, Nanos> summed;
        for (const nlohmann::json &rank : j["ranks"]) {
            const TraceStats alone = statsOf(rank["host"].get<std::string>(), rank["device"].get<std::string>());
            QCOMPARE(rank["gpu_busy_ns"].get<Nanos>(), alone.gpuBusy());
            QCOMPARE(rank["exposed_comm_ns"].get<Nanos>(), alone.exposedComm());
            QCOMPARE(rank["steps"]["count"].get<std::size_t>(), std::size_t(3));
            QCOMPARE(rank["steps"]["mean_ns"].get<Nanos>(), alone.stepTimes().mean);
            QVERIFY(alone.comm() > 0); // the generator's collectives
            QVERIFY(alone.exposedComm() <= alone.comm());
            for (const SummaryOpStat &op : alone.gpuOps)
                summed[op.name] += op.total;
        }
        QCOMPARE(j["gpu_ops"].size(), summed.size());
        for (const nlohmann::json &op : j["gpu_ops"])
            QCOMPARE(op["total_ns"].get<Nanos>(), summed[op["name"].get<std::string>()]);

        const Run text = summary({job});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.find("4 ranks") != std::string::npos);
    }

    // The readers' warnings (a negative duration read as 0, events at ts 1e300 or 2^64 dropped) on
    // standard error and in the JSON, as `linkscope inspect` reports them; they were dropped.
    void readerWarnings()
    {
        QTemporaryDir dir;
        const std::string folder = (fs::path(dir.path().toStdString()) / "job").string();
        fs::create_directories(folder);
        const std::string kineto = folder + "/rank0.json";
        auto kernel = [](const char *name, const char *ts, const char *dur, int correlation) {
            // Plain strings: moc does not read raw strings with an unbalanced brace.
            return std::string("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"") + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + ts
                   + ",\"dur\":" + dur + ",\"args\":{\"stream\":7,\"correlation\":" + std::to_string(correlation) + "}}";
        };
        {
            std::ofstream file(kineto);
            file << "{\"traceEvents\": [" << kernel("k_neg", "10", "-5", 1) << ",\n"
                 << kernel("k_far", "1e300", "1", 2) << ",\n"
                 << kernel("k_wrap", "18446744073709551616", "1", 3) << ",\n"
                 << kernel("k_ok", "20", "4", 4) << "]}";
        }
        const Run j = summary({kineto, "--json"});
        QVERIFY2(j.code == 0, j.err.c_str());
        const nlohmann::json out = nlohmann::json::parse(j.out);
        QVERIFY(out.contains("warnings"));
        std::string messages;
        for (const nlohmann::json &w : out["warnings"])
            messages += w["message"].get<std::string>() + "\n";
        QVERIFY2(messages.find("negative \"dur\"") != std::string::npos, messages.c_str());
        QVERIFY2(messages.find("\"ts\" overflows int64") != std::string::npos, messages.c_str());
        QVERIFY2(j.err.find("summary: warning: " + kineto) != std::string::npos, j.err.c_str());
        QVERIFY2(j.err.find("negative \"dur\"") != std::string::npos, j.err.c_str());
        const Run text = summary({kineto});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.err.find("without a valid \"ts\"") != std::string::npos, text.err.c_str());
        // A job: each rank's warnings, named by rank.
        const Run job = summary({folder, "--json"});
        QVERIFY2(job.code == 0, job.err.c_str());
        const nlohmann::json jj = nlohmann::json::parse(job.out);
        QVERIFY(!jj["ranks"][0]["warnings"].empty());
        QVERIFY2(job.err.find("summary: rank 0: warning: ") != std::string::npos, job.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSummary)
#include "test_summary.moc"
