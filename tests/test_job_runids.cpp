// Issue 42: a `linkscope job` run records one run id in every file it writes that can carry it
// (the summaries, with the .et each wrote; the report, with comm_group.json and network.yml), and
// `predict` and `check` on a folder that mixes two runs' files say so, naming the runs and the
// files, instead of failing later on a mismatch. Outputs without run ids are accepted silently.

#include "clitestsupport.h"
#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "job/runid.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <regex>

using namespace linkscope;
using namespace linkscope::core::job;
namespace fs = std::filesystem;

namespace {

using Run = test::CliRun;
using test::readJson;

Run job(const cli::Args &args) { return test::runCli(cli::runJob, args); }
Run check(const cli::Args &args) { return test::runCli(cli::runCheck, args); }
Run predict(const cli::Args &args) { return test::runCli(cli::runPredict, args); }

std::string generated(const std::string &dir, std::uint64_t seed, const char *name)
{
    gen::GeneratorOptions o;
    o.seed = seed;
    o.steps = 2;
    o.layers = 2;
    o.worldSize = 4;
    const std::string path = (fs::path(dir) / name).string();
    gen::generateJob(o, path, false, 2);
    return path;
}

cli::Args etFiles(const std::string &dir)
{
    cli::Args files;
    for (int r = 0; r < 4; ++r)
        files.push_back(dir + "/trace." + std::to_string(r) + ".et");
    files.push_back("--comm-groups");
    files.push_back(dir + "/comm_group.json");
    return files;
}

std::string runIdOf(const nlohmann::json &summary) { return summary["run"]["job_run"]["id"].get<std::string>(); }

} // namespace

class TestJobRunIds : public QObject {
    Q_OBJECT
private slots:
    void everyFileNamesTheRun()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const Run ran = job({generated(base, 5, "in"), "--out", base + "/out", "--jobs", "2"});
        QVERIFY2(ran.code == 0, ran.all().c_str());
        const std::string id = runIdOf(readJson(base + "/out/trace.0.summary.json"));
        QVERIFY2(std::regex_match(id, std::regex("[0-9a-f]{32}")), id.c_str());
        for (int r = 0; r < 4; ++r) {
            const auto summary = readJson(base + "/out/trace." + std::to_string(r) + ".summary.json");
            QCOMPARE(runIdOf(summary), id);
            QVERIFY(std::regex_match(summary["run"]["job_run"]["started"].get<std::string>(),
                                     std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")));
            QCOMPARE(summary["run"]["et_written"]["size"].get<std::uintmax_t>(),
                     fs::file_size(base + "/out/trace." + std::to_string(r) + ".et"));
        }
        const auto report = readJson(base + "/out/job-report.json");
        QCOMPARE(report["job_run"]["id"].get<std::string>(), id);
        QCOMPARE(report["job_run"]["comm_group.json"]["size"].get<std::uintmax_t>(),
                 fs::file_size(base + "/out/comm_group.json"));
        // comm_group.json stays as ASTRA-sim reads it: every key a group id.
        const auto groups = readJson(base + "/out/comm_group.json");
        for (const auto &[key, value] : groups.items())
            QVERIFY2(!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit), key.c_str());
        QVERIFY(!checkFolderRuns(base + "/out").mixed());
        QCOMPARE(checkFolderRuns(base + "/out").runs.size(), std::size_t(1));
        const Run checked = check(etFiles(base + "/out"));
        QVERIFY2(checked.code == 0, checked.all().c_str());
        const Run predicted = predict({base + "/out"});
        QVERIFY2(predicted.code == 0, predicted.all().c_str());
        // A second run draws another id.
        QVERIFY(job({base + "/in", "--out", base + "/again", "--no-et"}).code == 0);
        QVERIFY(runIdOf(readJson(base + "/again/trace.0.summary.json")) != id);
    }

    void twoRunsInOneFolderAreNamed()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        QCOMPARE(job({generated(base, 5, "in"), "--out", base + "/out"}).code, 0);
        QCOMPARE(job({generated(base, 9, "other"), "--out", base + "/second"}).code, 0);
        const std::string first = runIdOf(readJson(base + "/out/trace.0.summary.json"));
        const std::string second = runIdOf(readJson(base + "/second/trace.0.summary.json"));
        // The second run, killed after rank 1: its rank 1 files over the first run's.
        for (const char *name : {"trace.1.et", "trace.1.summary.json"})
            fs::copy_file(base + "/second/" + name, base + "/out/" + name, fs::copy_options::overwrite_existing);
        const FolderRuns runs = checkFolderRuns(base + "/out");
        QVERIFY(runs.mixed());
        const std::string message = runs.message();
        QVERIFY2(message.starts_with("these files come from two runs (run A "), message.c_str());
        QVERIFY(message.find(first) != std::string::npos && message.find(second) != std::string::npos);
        const std::size_t at = message.find(second);
        QVERIFY2(message.find("trace.1.et", at) != std::string::npos
                     && message.find("trace.1.summary.json", at) != std::string::npos,
                 message.c_str());
        const Run predicted = predict({base + "/out"});
        QVERIFY2(predicted.code != 0 && predicted.has("predict: error: " + base + "/out: these files come from two runs"),
                 predicted.all().c_str());
        const Run checked = check(etFiles(base + "/out"));
        QVERIFY2(checked.code == 1 && checked.has("check: error: " + base + "/out: these files come from two runs"),
                 checked.all().c_str());

        // Killed between a rank's .et and its summary: the .et is no run's the folder records.
        QCOMPARE(job({base + "/in", "--out", base + "/killed"}).code, 0);
        fs::copy_file(base + "/second/trace.2.et", base + "/killed/trace.2.et", fs::copy_options::overwrite_existing);
        const FolderRuns killed = checkFolderRuns(base + "/killed");
        QVERIFY(killed.mixed());
        QVERIFY2(killed.message().find("another run, not recorded: trace.2.et") != std::string::npos, killed.message().c_str());
        // And comm_group.json of another run.
        QCOMPARE(job({base + "/in", "--out", base + "/groups"}).code, 0);
        test::writeText(base + "/groups/comm_group.json", "{\"0\": [0, 1, 2, 3], \"7\": [0, 2]}");
        QVERIFY2(checkFolderRuns(base + "/groups").message().find("not recorded: comm_group.json") != std::string::npos,
                 checkFolderRuns(base + "/groups").message().c_str());
    }

    void outputsWithoutRunIdsAreAccepted()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        QCOMPARE(job({generated(base, 5, "in"), "--out", base + "/out"}).code, 0);
        QCOMPARE(job({generated(base, 9, "other"), "--out", base + "/second"}).code, 0);
        fs::copy_file(base + "/second/trace.1.summary.json", base + "/out/trace.1.summary.json",
                      fs::copy_options::overwrite_existing);
        // As an older Linkscope wrote them: no job_run anywhere.
        for (const auto &entry : fs::directory_iterator(base + "/out")) {
            const std::string name = entry.path().filename().string();
            if (!name.ends_with(".summary.json") && name != "job-report.json")
                continue;
            auto json = readJson(entry.path().string());
            if (json.contains("run"))
                json["run"].erase("job_run");
            json.erase("job_run");
            test::writeText(entry.path().string(), json.dump());
        }
        QVERIFY(!checkFolderRuns(base + "/out").mixed());
        QVERIFY(checkFolderRuns(base + "/out").message().empty());
        const Run checked = check(etFiles(base + "/out"));
        QVERIFY2(!checked.has("two runs"), checked.all().c_str());
    }

    void shardsMergedInOneFolderAreOneJob()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string in = generated(base, 5, "in");
        QCOMPARE(job({in, "--out", base + "/sh", "--ranks", "0-1"}).code, 0);
        QCOMPARE(job({in, "--out", base + "/sh", "--ranks", "2-3"}).code, 0);
        // Two shards: two runs, until the merge's report names both.
        QVERIFY(checkFolderRuns(base + "/sh").mixed());
        const Run merged = job({"--merge", base + "/sh"});
        QVERIFY2(merged.code == 0, merged.all().c_str());
        const auto report = readJson(base + "/sh/job-report.json");
        QCOMPARE(report["job_run"]["from_runs"].size(), std::size_t(2));
        const FolderRuns runs = checkFolderRuns(base + "/sh");
        QVERIFY2(!runs.mixed(), runs.message().c_str());
        const Run predicted = predict({base + "/sh"});
        QVERIFY2(predicted.code == 0, predicted.all().c_str());
    }
};

QTEST_GUILESS_MAIN(TestJobRunIds)
#include "test_job_runids.moc"
