// `linkscope job` end to end: discovery (rank numbers in names, distributedInfo confirmation,
// missing ranks, conflicts), the parallel run writing each rank's .et, summaries, comm_group.json
// and the job report, sharded runs merged from their summaries, and the real 8-rank traces.

#include "base/parallel.h"
#include "clitestsupport.h"
#include "commands/commands.h"
#include "edit/correction.h"
#include "edit/sidecar.h"
#include "gen/tracegenerator.h"
#include "io/tracereader.h"
#include "job/discovery.h"
#include "job/jobrun.h"
#include "jobmodel/processgroups.h"
#include "link/linker.h"

#include <limits>
#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

using namespace linkscope;
using namespace linkscope::core::job;
namespace fs = std::filesystem;

// nlohmann::json against a value (QCOMPARE cannot print a json).
#define JSON_EQ(a, b)                                                                                                            \
    QVERIFY2(nlohmann::json(a) == nlohmann::json(b), (nlohmann::json(a).dump() + " vs " + nlohmann::json(b).dump()).c_str())

namespace {

using Run = test::CliRun;
using test::readJson;
using test::writeText;

Run runJobCommand(const cli::Args &args) { return test::runCli(cli::runJob, args); }

std::string generated(const QTemporaryDir &dir, gen::GeneratorOptions o, int world, const char *name = "job")
{
    const std::string path = (fs::path(dir.path().toStdString()) / name).string();
    o.worldSize = world;
    gen::generateJob(o, path, false, 2);
    return path;
}

gen::GeneratorOptions smallJob()
{
    gen::GeneratorOptions o;
    o.seed = 17;
    o.steps = 2;
    o.layers = 3;
    return o;
}

// The report without what depends on where it was written.
nlohmann::json comparable(nlohmann::json report)
{
    for (auto &r : report["ranks"])
        r.erase("note");
    report.erase("job_run"); // which run wrote it (job/runid.h): another one each time
    return report;
}

} // namespace

class TestJob : public QObject {
    Q_OBJECT

private slots:
    void rankNumbersFromNames()
    {
        QCOMPARE(rankFromFileName("host_3.json"), std::optional<std::int64_t>(3));
        QCOMPARE(rankFromFileName("device_12.json.gz"), std::optional<std::int64_t>(12));
        QCOMPARE(rankFromFileName("chakra_host_et_7.json"), std::optional<std::int64_t>(7));
        QCOMPARE(rankFromFileName("trace_rank-5.json"), std::optional<std::int64_t>(5));
        QCOMPARE(rankFromFileName("rank3.json"), std::optional<std::int64_t>(3));
        // A number no int64 holds is the largest (refused as a rank), not an exception.
        QCOMPARE(rankFromFileName("rank-99999999999999999999.log"),
                 std::optional<std::int64_t>(std::numeric_limits<std::int64_t>::max()));
        QCOMPARE(rankFromFileName("worker_000000000000000000000007.txt"), std::optional<std::int64_t>(7));
        QCOMPARE(rankFromFileName("megatron_et_0.json.gz"), std::optional<std::int64_t>(0));
        QCOMPARE(rankFromFileName("worker2_step_12.1694128201554.pt.trace.json"), std::optional<std::int64_t>(2));
        QCOMPARE(rankFromFileName("kineto.json"), std::nullopt);
    }

    void discoversGeneratedJob()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir, smallJob(), 4);
        const JobLayout layout = discoverJob({job});
        QVERIFY(layout.errors.empty());
        QCOMPARE(layout.worldSize, 4);
        QCOMPARE(layout.ranks.size(), std::size_t(4));
        for (std::size_t r = 0; r < 4; ++r) {
            QCOMPARE(layout.ranks[r].rank, static_cast<std::int64_t>(r));
            QCOMPARE(layout.ranks[r].declaredRank, static_cast<std::int64_t>(r));
            QVERIFY(layout.ranks[r].host.ends_with("host_" + std::to_string(r) + ".json"));
            QVERIFY(layout.ranks[r].device.ends_with("kineto_" + std::to_string(r) + ".json"));
        }
        QVERIFY(layout.missing.empty());
    }

    void cleanJobOneShot()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir, smallJob(), 8);
        const std::string out = (fs::path(dir.path().toStdString()) / "out").string();
        const Run r = runJobCommand({job, "--out", out, "--jobs", "2", "--strict"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        for (int k = 0; k < 8; ++k) {
            QVERIFY(fs::file_size(fs::path(out) / ("trace." + std::to_string(k) + ".et")) > 1000);
            QVERIFY(fs::exists(fs::path(out) / ("trace." + std::to_string(k) + ".summary.json")));
        }
        const auto comm = readJson(out + "/comm_group.json");
        QCOMPARE(comm.size(), std::size_t(6)); // groups 1..6; group 0 (every rank) is implicit
        QVERIFY(!comm.contains("0"));
        JSON_EQ(comm["3"], nlohmann::json({4, 5}));
        JSON_EQ(comm["6"], nlohmann::json({1, 3, 5, 7}));
        const auto report = readJson(out + "/job-report.json");
        JSON_EQ(report["world_size"], 8);
        QCOMPARE(report["findings"].size(), std::size_t(0));
        QCOMPARE(report["ranks"].size(), std::size_t(8));
        for (const auto &rank : report["ranks"]) {
            QVERIFY(rank["gpu_ops"].get<int>() > 0);
            JSON_EQ(rank["linked"], rank["gpu_ops"]);
            JSON_EQ(rank["p2p"], 2);
        }
        QCOMPARE(report["process_groups"].size(), std::size_t(7));
        JSON_EQ(report["process_groups"][0]["name"], "0");
        JSON_EQ(report["process_groups"][0]["id"], 0);
        JSON_EQ(report["process_groups"][0]["collectives"], 1); // one all-gather (step 0)
        JSON_EQ(report["process_groups"][1]["collectives"], 6); // 3 layers × 2 steps, tensor parallel
        QCOMPARE(report["stragglers"].size(), std::size_t(8));
        JSON_EQ(report["clocks"]["reference_rank"], 0);
        QVERIFY(r.out.find("cross-rank findings: none") != std::string::npos);
    }

    // `--jobs N` ranks at once share the cores: each rank's readers and writers get cores / N
    // threads while the job runs (no rank splits its work on top of the others), and the machine's
    // count again afterwards. The outputs do not depend on it.
    void ranksShareTheCores()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir, smallJob(), 2);
        const JobLayout layout = discoverJob({job});
        const int machine = core::machineThreads();
        QCOMPARE(core::taskThreads(), machine);
        std::map<int, std::string> etOf;
        for (int jobs : {1, 2}) {
            JobOptions options;
            options.outDir = (fs::path(dir.path().toStdString()) / ("out" + std::to_string(jobs))).string();
            options.jobs = jobs;
            std::mutex mutex;
            std::set<int> seenTask, seenReader;
            options.progress = [&](const RankProgress &) {
                std::lock_guard lock(mutex);
                seenTask.insert(core::taskThreads());
                seenReader.insert(core::readerThreads().threads);
                return true;
            };
            const std::vector<RankSummary> summaries = processRanks(layout.ranks, options);
            QCOMPARE(summaries.size(), std::size_t(2));
            const int share = std::max(1, machine / jobs);
            QCOMPARE(seenTask, std::set<int>{share});
            if (!std::getenv("LINKSCOPE_READER_THREADS"))
                QCOMPARE(seenReader, std::set<int>{share});
            QCOMPARE(core::taskThreads(), machine);
            etOf[jobs] = test::readFile(options.outDir + "/trace.1.et");
        }
        QVERIFY(!etOf[1].empty());
        QVERIFY(etOf[1] == etOf[2]);
    }

    void missingRankFileReportedOnce()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir, smallJob(), 8);
        fs::remove(fs::path(job) / "host_5.json");
        fs::remove(fs::path(job) / "kineto_5.json");
        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({job, "--out", out, "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        const auto report = readJson(out + "/job-report.json");
        QVERIFY2(report["findings"].size() == 1, report["findings"].dump(1).c_str());
        const auto &f = report["findings"][0];
        JSON_EQ(f["kind"], "missing_rank");
        JSON_EQ(f["ranks"], nlohmann::json({5}));
        JSON_EQ(f["severity"], "error");
        // --strict makes it an exit status.
        QCOMPARE(runJobCommand({job, "--out", out, "--no-et", "--strict"}).code, 3);
    }

    void rankConflictIsAnErrorNamingBothFiles()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir, smallJob(), 8);
        fs::copy_file(fs::path(job) / "kineto_3.json", fs::path(job) / "kineto_5.json", fs::copy_options::overwrite_existing);
        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({job, "--out", out});
        QCOMPARE(r.code, 1);
        std::size_t errors = 0;
        for (std::size_t p = r.err.find("job: error:"); p != std::string::npos; p = r.err.find("job: error:", p + 1))
            ++errors;
        QVERIFY2(errors == 1, r.err.c_str());
        QVERIFY(r.err.find("kineto_5.json: its name says rank 5 but its distributedInfo.rank is 3") != std::string::npos);
        QVERIFY(r.err.find("kineto_3.json is rank 3 too") != std::string::npos);
        QVERIFY(!fs::exists(fs::path(out) / "job-report.json"));
    }

    void faultsThroughTheCommand_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("group");
        QTest::addColumn<int>("index");
        QTest::addColumn<int>("rank");
        QTest::newRow("skipped") << "skip:6:5:1"
                                 << "missing_collective"
                                 << "5" << 1 << 6;
        QTest::newRow("resized") << "resize:1:6:2"
                                 << "collective_mismatch"
                                 << "6" << 2 << 1;
        QTest::newRow("swapped") << "swap:0:5:2"
                                 << "collectives_swapped"
                                 << "5" << 2 << 0;
        QTest::newRow("unpaired send") << "drop-recv:7:0:0"
                                       << "unpaired_send"
                                       << "0" << 0 << 6;
    }

    void faultsThroughTheCommand()
    {
        QFETCH(QString, fault);
        QFETCH(QString, kind);
        QFETCH(QString, group);
        QFETCH(int, index);
        QFETCH(int, rank);
        QTemporaryDir dir;
        gen::GeneratorOptions o = smallJob();
        gen::GeneratorFault f;
        QVERIFY(gen::parseFault(fault.toStdString(), f));
        o.faults.push_back(f);
        const std::string job = generated(dir, o, 8);
        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({job, "--out", out, "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        const auto report = readJson(out + "/job-report.json");
        QVERIFY2(report["findings"].size() == 1, report["findings"].dump(1).c_str());
        const auto &got = report["findings"][0];
        QCOMPARE(QString::fromStdString(got["kind"].get<std::string>()), kind);
        QCOMPARE(QString::fromStdString(got["process_group"].get<std::string>()), group);
        JSON_EQ(got["index"].get<int>(), index);
        JSON_EQ(got["ranks"], nlohmann::json({rank}));
        QCOMPARE(runJobCommand({job, "--out", out, "--no-et", "--strict"}).code, 3);
    }

    void shardedRunMergedEqualsOneShot()
    {
        QTemporaryDir dir;
        gen::GeneratorOptions o = smallJob();
        o.straggler = 2;
        o.faults.push_back({gen::GeneratorFault::Kind::Skip, 4, "5", 1});
        const std::string job = generated(dir, o, 8);
        const std::string base = dir.path().toStdString();
        const Run one = runJobCommand({job, "--out", base + "/one", "--jobs", "2"});
        QVERIFY2(one.code == 0, (one.out + one.err).c_str());
        const Run a = runJobCommand({job, "--out", base + "/a", "--ranks", "0-2,7"});
        const Run b = runJobCommand({job, "--out", base + "/b", "--ranks", "3-6"});
        QVERIFY2(a.code == 0 && b.code == 0, (a.err + b.err).c_str());
        QVERIFY(!fs::exists(base + "/a/job-report.json"));
        QCOMPARE(std::distance(fs::directory_iterator(base + "/a"), fs::directory_iterator()), 8); // 4 .et + 4 summaries
        const Run m = runJobCommand({"--merge", base + "/a", base + "/b", "--out", base + "/merged"});
        QVERIFY2(m.code == 0, (m.out + m.err).c_str());
        const auto oneShot = readJson(base + "/one/job-report.json");
        const auto merged = readJson(base + "/merged/job-report.json");
        QCOMPARE(comparable(merged).dump(1), comparable(oneShot).dump(1));
        QCOMPARE(test::readFile(base + "/merged/comm_group.json"), test::readFile(base + "/one/comm_group.json"));
        QCOMPARE(oneShot["findings"].size(), std::size_t(1));
        JSON_EQ(oneShot["stragglers"][0]["rank"], 2);
        // Shards sharing one folder, merged in place.
        QCOMPARE(runJobCommand({job, "--out", base + "/shared", "--ranks", "4-7"}).code, 0);
        QCOMPARE(runJobCommand({job, "--out", base + "/shared", "--ranks", "0-3"}).code, 0);
        QCOMPARE(runJobCommand({"--merge", base + "/shared"}).code, 0);
        QCOMPARE(comparable(readJson(base + "/shared/job-report.json")).dump(1), comparable(oneShot).dump(1));
        // The same .et either way.
        QCOMPARE(test::readFile(base + "/a/trace.1.et"), test::readFile(base + "/one/trace.1.et"));
    }

    void outputsNeverReplaceInputs()
    {
        // Outputs named onto a rank's own traces or sidecar are refused before anything is written.
        QTemporaryDir dir;
        const fs::path in = fs::path(dir.path().toStdString()) / "in";
        fs::create_directories(in);
        const std::string host = (in / "host_0.json").string(), device = (in / "kineto_0.json").string();
        fs::copy_file(test::dataPath("export/seed_host_et.json"), host);
        fs::copy_file(test::dataPath("export/seed_kineto.json"), device);
        const std::string before = test::readFile(device);
        const std::string out = dir.path().toStdString() + "/out";

        Run r = runJobCommand({in.string(), "--out", out, "--report", device});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("job report is the rank 0 Kineto trace") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("nothing written") != std::string::npos, r.err.c_str());
        QCOMPARE(test::readFile(device), before);
        QVERIFY(!fs::exists(out));

        // The input folder as the output folder: the outputs have names of their own; allowed,
        // inputs untouched.
        r = runJobCommand({in.string(), "--out", in.string(), "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        QCOMPARE(test::readFile(device), before);

        // Two ranks' outputs cannot collide, but an explicit report onto comm_group.json can.
        r = runJobCommand({in.string(), "--out", out, "--report", out + "/comm_group.json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("are the same file") != std::string::npos, r.err.c_str());
    }

    void eachRankAppliesItsOwnSidecar()
    {
        // The seed pair as rank 0 of a 2-rank job, with a correction saved where the GUI puts it.
        QTemporaryDir dir;
        const fs::path in = fs::path(dir.path().toStdString()) / "in";
        fs::create_directories(in);
        const std::string host = (in / "host_0.json").string(), device = (in / "kineto_0.json").string();
        fs::copy_file(test::dataPath("export/seed_host_et.json"), host);
        fs::copy_file(test::dataPath("export/seed_kineto.json"), device);
        core::HostTrace hostTrace = core::readHostTrace(host);
        core::DeviceTrace deviceTrace = core::readKinetoTrace(device);
        core::LinkSet links = core::linkTraces(deviceTrace, &hostTrace);
        auto named = [&](std::string_view prefix, core::EventCategory category) {
            for (core::EventIndex i{0}; i.in(deviceTrace.events.size()); ++i)
                if (deviceTrace.event(i).category == category
                    && deviceTrace.name(deviceTrace.event(i)).substr(0, prefix.size()) == prefix)
                    return i;
            return core::EventIndex(core::kNone);
        };
        const core::EventIndex kernel = named("ncclDevKernel", core::EventCategory::Kernel);
        const core::EventIndex comms = named("record_param_comms", core::EventCategory::CpuOp);
        QVERIFY(kernel.valid() && comms.valid());
        QVERIFY(links.gpuLinks[links.gpuLinkOf[kernel]].parent != comms);
        core::Sidecar sidecar;
        sidecar.device = core::fingerprintFile(device);
        sidecar.host = core::fingerprintFile(host);
        {
            core::LinkEditor editor(links, deviceTrace, &hostTrace);
            sidecar.log.entries.push_back({"to record_param_comms", {editor.reparent(kernel, comms)}});
        }
        const std::string sidecarPath = core::defaultSidecarPath(device);
        core::saveSidecar(sidecar, sidecarPath);

        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({in.string(), "--out", out});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        const auto report = readJson(out + "/job-report.json");
        JSON_EQ(report["ranks"][0]["note"], "corrections: 1 applied, 0 not applied");
        JSON_EQ(report["findings"][0]["kind"], "missing_rank"); // world size 2, one rank given
        JSON_EQ(report["findings"][0]["ranks"], nlohmann::json({1}));
        // The same .et as `linkscope export --corrections`.
        std::ostringstream o, e;
        const std::string et = dir.path().toStdString() + "/export.et";
        QCOMPARE(
            cli::runExport(
                {"--host", host, "--device", device, "--corrections", sidecarPath, "--target", "astra-sim", "--et", et}, o, e),
            0);
        QVERIFY(test::readFile(out + "/trace.0.et") == test::readFile(et));
        // Without the correction the job's .et differs.
        fs::remove(sidecarPath);
        QCOMPARE(runJobCommand({in.string(), "--out", out}).code, 0);
        QVERIFY(test::readFile(out + "/trace.0.et") != test::readFile(et));
    }

    void megatronEightRanks()
    {
        // All 8 ranks: only rank 0 is bundled, the set is in ../shared/traces.
        const std::string dir = (fs::path(test::sharedTracesDir().toStdString()) / "astrasim_megatron_tp8_8rank_pair").string();
        for (int k = 0; k < 8; ++k)
            for (const char *kind : {"et", "kineto"})
                if (!fs::exists(fs::path(dir) / ("megatron_" + std::string(kind) + "_" + std::to_string(k) + ".json.gz")))
                    QSKIP("astrasim_megatron_tp8_8rank_pair (all 8 ranks) not present");
        QTemporaryDir tmp;
        const std::string out = tmp.path().toStdString() + "/out";
        const Run r = runJobCommand({dir, "--out", out, "--jobs", "2", "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        const auto report = readJson(out + "/job-report.json");
        JSON_EQ(report["world_size"], 8);
        QCOMPARE(report["ranks"].size(), std::size_t(8));
        QVERIFY2(report["findings"].empty(), report["findings"].dump(1).c_str());
        QCOMPARE(report["process_groups"].size(), std::size_t(1));
        JSON_EQ(report["process_groups"][0]["ranks"], nlohmann::json({0, 1, 2, 3, 4, 5, 6, 7}));
        JSON_EQ(report["process_groups"][0]["collectives"], 84);
        for (const auto &rank : report["ranks"])
            JSON_EQ(rank["collectives"], 84);
        const auto comm = readJson(out + "/comm_group.json");
        JSON_EQ(comm, nlohmann::json::object()); // the one group is "0": every rank, implicit
        QCOMPARE(report["clocks"]["unaligned"].size(), std::size_t(0));
    }

    void dlrmEightRanks()
    {
        const std::string set = (fs::path(test::sharedTracesDir().toStdString()) / "param_dlrm_8rank_pair").string();
        if (!fs::exists(fs::path(set) / "dlrm_kineto.tar.gz") || !fs::exists(fs::path(set) / "dlrm_pytorch_et.tar.gz"))
            QSKIP("param_dlrm_8rank_pair not present");
        QTemporaryDir tmp;
        const QString root = tmp.path();
        for (const char *tarball : {"dlrm_kineto.tar.gz", "dlrm_pytorch_et.tar.gz"}) {
            QProcess tar;
            tar.start("tar", {"xzf", QString::fromStdString((fs::path(set) / tarball).string()), "-C", root});
            QVERIFY(tar.waitForFinished(60000));
            QCOMPARE(tar.exitCode(), 0);
        }
        const std::string out = root.toStdString() + "/out";
        const Run r = runJobCommand({root.toStdString() + "/dlrm_kineto", root.toStdString() + "/dlrm_pytorch_et", "--out", out,
                                     "--jobs", "2", "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        const auto report = readJson(out + "/job-report.json");
        QCOMPARE(report["ranks"].size(), std::size_t(8));
        JSON_EQ(report["world_size"], 8);
        std::vector<std::string> kinds;
        for (int k = 0; k < 8; ++k) {
            const RankSummary s = readRankSummary(out + "/trace." + std::to_string(k) + ".summary.json");
            QVERIFY(s.host.ends_with("dlrm_eg_" + std::to_string(k) + ".json"));
            std::vector<std::string> mine;
            int allToAll = 0, allReduce = 0;
            for (const CollectiveCall &c : s.calls) {
                mine.push_back(std::string(callKindName(c.kind)));
                allToAll += c.kind == CallKind::AllToAll;
                allReduce += c.kind == CallKind::AllReduce;
            }
            QCOMPARE(allToAll, 5);
            QCOMPARE(allReduce, 3);
            if (k == 0)
                kinds = mine;
            QCOMPARE(mine, kinds);
        }
        QVERIFY2(report["findings"].empty(), report["findings"].dump(1).c_str());
    }
};

QTEST_GUILESS_MAIN(TestJob)
#include "test_job.moc"
