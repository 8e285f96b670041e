// What a job folder, a shard or a summary can do to `linkscope job --merge`, discovery and
// `linkscope check` (issue 29): no output over an input, no empty job passing, no rank missing
// unreported, each shard's .et checked where it is, one file per rank, summaries of another run
// told apart, a trace cut short named as one, comm group files that cannot block or double-count.

#include "clitestsupport.h"
#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "io/formats.h"
#include "io/tracereader.h"
#include "job/discovery.h"
#include "job/jobrun.h"
#include "job/summaryrun.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace linkscope;
using namespace linkscope::core::job;
namespace fs = std::filesystem;

#define JSON_EQ(a, b)                                                                                                            \
    QVERIFY2(nlohmann::json(a) == nlohmann::json(b), (nlohmann::json(a).dump() + " vs " + nlohmann::json(b).dump()).c_str())

namespace {

using Run = test::CliRun;
using test::readJson;
using test::writeText;

Run job(const cli::Args &args) { return test::runCli(cli::runJob, args); }
Run check(const cli::Args &args) { return test::runCli(cli::runCheck, args); }

// The issue's setup, smaller: linkscope-gen --ranks 8 --seed S --steps 2 into DIR/name.
std::string generated(const std::string &dir, std::uint64_t seed = 5, const char *name = "job",
                      std::vector<gen::GeneratorFault> faults = {})
{
    gen::GeneratorOptions o;
    o.seed = seed;
    o.steps = 2;
    o.layers = 3;
    o.worldSize = 8;
    o.faults = std::move(faults);
    const std::string path = (fs::path(dir) / name).string();
    gen::generateJob(o, path, false, 2);
    return path;
}

// Every file under `dir` with its bytes: what must not change.
std::map<std::string, std::string> snapshot(const std::string &dir)
{
    std::map<std::string, std::string> out;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            out[e.path().string()] = test::readFile(e.path().string());
    return out;
}

std::size_t count(const nlohmann::json &findings, const std::string &kind)
{
    std::size_t n = 0;
    for (const auto &f : findings)
        n += f["kind"] == kind ? 1 : 0;
    return n;
}

const nlohmann::json *findingOf(const nlohmann::json &findings, const std::string &kind)
{
    for (const auto &f : findings)
        if (f["kind"] == kind)
            return &f;
    return nullptr;
}

// Kineto files without distributedInfo (no world size declared anywhere).
void stripDistributedInfo(const std::string &jobDir)
{
    for (const auto &e : fs::directory_iterator(jobDir)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with("kineto_"))
            continue;
        nlohmann::json j = readJson(e.path().string());
        j.erase("distributedInfo");
        writeText(e.path().string(), j.dump());
    }
}

std::string linkscopeBinary() { return linkscope::test::paths::binaryDir() + "/app/linkscope"; }

} // namespace

class TestJobMerge : public QObject {
    Q_OBJECT

private slots:
    // D1: the merge's outputs never replace its inputs (a summary, a .et, a trace); nothing is written.
    void mergeNeverWritesOverItsInputs()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        const std::string m1 = base + "/m1";
        QCOMPARE(job({jobDir, "--out", m1, "--no-et", "--jobs", "2"}).code, 0);
        QCOMPARE(job({jobDir, "--out", base + "/m2", "--ranks", "0-7", "--jobs", "2"}).code, 0);
        const auto before = snapshot(base);
        for (const auto &[folder, report] :
             std::vector<std::pair<std::string, std::string>>{{m1, m1 + "/trace.2.summary.json"},
                                                              {base + "/m2", base + "/m2/trace.3.et"},
                                                              {m1, jobDir + "/kineto_3.json"},
                                                              {m1, jobDir + "/host_3.json"}}) {
            const Run r = job({"--merge", folder, "--report", report});
            QVERIFY2(r.code == 1, r.all().c_str());
            QVERIFY2(r.has("nothing written"), r.all().c_str());
            QVERIFY2(r.has(report), r.all().c_str());
        }
        // --out onto a folder whose comm_group.json would be a rank's trace: refused too.
        fs::create_directories(base + "/trap");
        fs::create_symlink(jobDir + "/kineto_0.json", base + "/trap/comm_group.json");
        const Run trap = job({"--merge", m1, "--out", base + "/trap"});
        QVERIFY2(trap.code == 1 && trap.has("nothing written"), trap.all().c_str());
        fs::remove(base + "/trap/comm_group.json");
        fs::remove(base + "/trap");
        QVERIFY(snapshot(base) == before);
        // The summaries are intact: the next merge works.
        const Run ok = job({"--merge", m1, "--strict"});
        QVERIFY2(ok.code == 0, ok.all().c_str());
    }

    // D2: no summaries is an error, and nothing (not even the folder) is created.
    void mergeWithoutSummariesFails()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const Run absent = job({"--merge", base + "/does_not_exist", "--strict"});
        QCOMPARE(absent.code, 1);
        QVERIFY2(absent.has("no rank summaries in " + base + "/does_not_exist"), absent.all().c_str());
        QVERIFY(!fs::exists(base + "/does_not_exist"));
        QVERIFY(!absent.has("cross-rank findings: none"));
        fs::create_directories(base + "/empty");
        const Run empty = job({"--merge", base + "/empty", "--strict"});
        QCOMPARE(empty.code, 1);
        QVERIFY2(empty.has("no rank summaries (*.summary.json) in " + base + "/empty"), empty.all().c_str());
        writeText(base + "/file", "x");
        const Run file = job({"--merge", base + "/file"});
        QVERIFY2(file.code == 1 && file.has("no rank summaries in " + base + "/file: not a folder"), file.all().c_str());
        QVERIFY(fs::is_empty(base + "/empty"));
        // A second folder without summaries fails the merge as well (a shard that never ran).
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/a", "--ranks", "0-3", "--no-et"}).code, 0);
        const Run half = job({"--merge", base + "/a", base + "/empty", "--out", base + "/m"});
        QCOMPARE(half.code, 1);
        QVERIFY2(half.has("in " + base + "/empty"), half.all().c_str());
        QVERIFY(!fs::exists(base + "/m"));
        if (geteuid() != 0) { // root lists any folder
            fs::create_directories(base + "/locked");
            ::chmod((base + "/locked").c_str(), 0);
            const Run locked = job({"--merge", base + "/locked"});
            ::chmod((base + "/locked").c_str(), 0700);
            QCOMPARE(locked.code, 1);
            QVERIFY2(locked.has(base + "/locked"), locked.all().c_str());
        }
    }

    // D4: no world size declared, rank 2 gone: the gap and the process groups still name it.
    void missingRankWithoutWorldSize()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        fs::remove(jobDir + "/host_2.json");
        fs::remove(jobDir + "/kineto_2.json");
        stripDistributedInfo(jobDir);
        const Run r = job({jobDir, "--out", base + "/out", "--no-et", "--strict"});
        QVERIFY2(r.code == 3, r.all().c_str());
        const auto report = readJson(base + "/out/job-report.json");
        JSON_EQ(report["world_size"], -1);
        const auto *f = findingOf(report["findings"], "missing_rank");
        QVERIFY2(f, report["findings"].dump(1).c_str());
        JSON_EQ((*f)["ranks"], nlohmann::json({2}));
        QVERIFY2((*f)["message"].get<std::string>().find("no trace declares a world size") != std::string::npos,
                 f->dump().c_str());
        QCOMPARE(count(report["findings"], "missing_rank"), std::size_t(1)); // once, not per group
        // The last rank gone: no gap below the largest rank, only the groups name it.
        fs::remove(jobDir + "/host_7.json");
        fs::remove(jobDir + "/kineto_7.json");
        const Run last = job({jobDir, "--out", base + "/out7", "--no-et", "--strict"});
        QVERIFY2(last.code == 3, last.all().c_str());
        const auto report7 = readJson(base + "/out7/job-report.json");
        const auto *f7 = findingOf(report7["findings"], "missing_rank");
        QVERIFY(f7);
        JSON_EQ((*f7)["ranks"], nlohmann::json({2, 7}));
        QVERIFY2((*f7)["message"].get<std::string>().find("process group") != std::string::npos, f7->dump().c_str());
        // The same from the summaries of shards.
        QCOMPARE(job({jobDir, "--out", base + "/sh", "--ranks", "0-3", "--no-et"}).code, 0);
        QCOMPARE(job({jobDir, "--out", base + "/sh", "--ranks", "4-7", "--no-et"}).code, 0);
        const Run merged = job({"--merge", base + "/sh", "--strict"});
        QVERIFY2(merged.code == 3, merged.all().c_str());
        const auto shReport = readJson(base + "/sh/job-report.json");
        const auto *fsh = findingOf(shReport["findings"], "missing_rank");
        QVERIFY(fsh);
        JSON_EQ((*fsh)["ranks"], nlohmann::json({2, 7}));
    }

    // D5: shards in their own folders, merged with or without --out: each .et checked where it is.
    void mergeChecksEachShardsEtInItsFolder()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/shA", "--ranks", "0-3"}).code, 0);
        QCOMPARE(job({jobDir, "--out", base + "/shB", "--ranks", "4-7"}).code, 0);
        const Run inPlace = job({"--merge", base + "/shA", base + "/shB", "--strict"});
        QVERIFY2(inPlace.code == 0, inPlace.all().c_str());
        QVERIFY2(inPlace.has("check: 8 .et files, ") && inPlace.has(" 0 errors"), inPlace.all().c_str());
        QVERIFY(!inPlace.has("cannot open"));
        const Run elsewhere = job({"--merge", base + "/shA", base + "/shB", "--out", base + "/shM", "--strict"});
        QVERIFY2(elsewhere.code == 0, elsewhere.all().c_str());
        QVERIFY2(elsewhere.has("check: 8 .et files, ") && elsewhere.has(" 0 errors"), elsewhere.all().c_str());
        // The report names each rank's .et as written (its file name).
        JSON_EQ(readJson(base + "/shM/job-report.json")["ranks"][5]["et"], "trace.5.et");
    }

    // D7: `linkscope check` with two files of one rank names both and fails.
    void checkRefusesTwoFilesOfOneRank()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/out"}).code, 0);
        const std::string other = generated(base, 9, "other", {{gen::GeneratorFault::Kind::Resize, 3, "0", 0}});
        QCOMPARE(job({other, "--out", base + "/old", "--ranks", "3"}).code, 0);
        std::vector<std::string> files;
        for (int k = 0; k < 8; ++k)
            files.push_back(base + "/out/trace." + std::to_string(k) + ".et");
        const std::string groups = base + "/out/comm_group.json";
        std::vector<std::string> args = {"--comm-groups", groups};
        args.insert(args.end(), files.begin(), files.end());
        const Run clean = check(args);
        QVERIFY2(clean.code == 0, clean.all().c_str());
        // An old copy listed before the right one.
        std::vector<std::string> withOld = {"--comm-groups", groups, base + "/old/trace.3.et"};
        withOld.insert(withOld.end(), files.begin(), files.end());
        const Run old = check(withOld);
        QVERIFY2(old.code == 1, old.all().c_str());
        QVERIFY2(old.has("duplicate_rank") && old.has(base + "/old/trace.3.et") && old.has(base + "/out/trace.3.et"),
                 old.all().c_str());
        QVERIFY(!old.has("ok: "));
        // The same file twice.
        std::vector<std::string> twice = args;
        twice.push_back(files[3]);
        const Run same = check(twice);
        QVERIFY2(same.code == 1 && same.has("duplicate_rank") && same.has("given twice"), same.all().c_str());
        // An .et and its .et.gz.
        QProcess gz;
        gz.start("gzip", {"-k", QString::fromStdString(files[3])});
        QVERIFY(gz.waitForFinished(10000) && gz.exitCode() == 0);
        std::vector<std::string> both = args;
        both.push_back(files[3] + ".gz");
        const Run gzipped = check(both);
        QVERIFY2(gzipped.code == 1 && gzipped.has("duplicate_rank") && gzipped.has(files[3] + ".gz"), gzipped.all().c_str());
        // D7e: the same file under a name without a rank (a symlink, a hard link) was a 9th rank,
        // "rank 8"; it is rank 3's file given twice.
        fs::create_symlink(files[3], base + "/d7link.et");
        fs::create_hard_link(files[5], base + "/d7hard.et");
        std::vector<std::string> linked = args;
        linked.push_back(base + "/d7link.et");
        linked.push_back(base + "/d7hard.et");
        const Run links = check(linked);
        QVERIFY2(links.code == 1, links.all().c_str());
        QVERIFY2(links.has(base + "/d7link.et: duplicate_rank: the same file as " + files[3] + ", given twice")
                     && links.has(base + "/d7hard.et: duplicate_rank: the same file as " + files[5] + ", given twice"),
                 links.all().c_str());
        QVERIFY2(!links.has("rank 8") && !links.has("rank 9") && !links.has("unpaired") && links.has("failed: 10 file(s)"),
                 links.all().c_str());
    }

    // D12: summaries a reused folder kept from another run are told apart; older summaries still read.
    void mergeTellsSummariesOfAnotherRun()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base, 6);
        const std::string shared = base + "/shared";
        QCOMPARE(job({jobDir, "--out", shared, "--ranks", "0-3"}).code, 0);
        QCOMPARE(job({jobDir, "--out", shared, "--ranks", "4-7"}).code, 0);
        const auto summary = readJson(shared + "/trace.2.summary.json");
        QVERIFY2(summary.contains("run"), summary.dump().c_str());
        QVERIFY(summary["run"]["tool"].get<std::string>().starts_with("linkscope "));
        QCOMPARE(summary["run"]["inputs"].size(), std::size_t(2));
        QCOMPARE(summary["run"]["inputs"][1]["sha256"].get<std::string>().size(), std::size_t(64));
        // New traces (another seed; rank 1 skips collective 1 of group 6), only the shard of ranks 0-3
        // run again: the summaries of ranks 4-7 are the old traces'.
        fs::remove_all(jobDir);
        generated(base, 5, "job", {{gen::GeneratorFault::Kind::Skip, 1, "6", 1}});
        QCOMPARE(job({jobDir, "--out", shared, "--ranks", "0-3"}).code, 0);
        const Run r = job({"--merge", shared, "--strict"});
        QVERIFY2(r.code == 1, r.all().c_str());
        const auto report = readJson(shared + "/job-report.json");
        QVERIFY2(count(report["findings"], "stale_summary") == 4, report["findings"].dump(1).c_str());
        QCOMPARE(count(report["findings"], "collective_mismatch"), std::size_t(0));
        QVERIFY2(count(report["findings"], "missing_collective") == 1, report["findings"].dump(1).c_str());
        const auto *stale = findingOf(report["findings"], "stale_summary");
        JSON_EQ((*stale)["ranks"], nlohmann::json({4}));
        QVERIFY2((*stale)["message"].get<std::string>().find(shared + "/trace.4.summary.json") != std::string::npos,
                 stale->dump().c_str());
        QVERIFY2((*stale)["message"].get<std::string>().find("kineto_4.json") != std::string::npos
                     || (*stale)["message"].get<std::string>().find("host_4.json") != std::string::npos,
                 stale->dump().c_str());
        QVERIFY2(r.has("check: 4 .et files"), r.all().c_str()); // the stale ranks' .et are left out too
        // Every shard run again: clean.
        QCOMPARE(job({jobDir, "--out", shared, "--ranks", "4-7"}).code, 0);
        const Run again = job({"--merge", shared});
        QVERIFY2(again.code == 0, again.all().c_str());
        QCOMPARE(count(readJson(shared + "/job-report.json")["findings"], "stale_summary"), std::size_t(0));
        // Copied traces (another modification time, same bytes) are the same inputs.
        for (const auto &e : fs::directory_iterator(jobDir)) {
            const std::string p = e.path().string();
            const std::string bytes = test::readFile(p);
            fs::remove(p);
            writeText(p, bytes);
        }
        QCOMPARE(job({"--merge", shared}).code, 0);
        // Traces not on disk where the merge runs: not checked, and said so.
        fs::rename(jobDir, base + "/elsewhere");
        const Run away = job({"--merge", shared, "--strict"});
        QVERIFY2(away.code == 3, away.all().c_str()); // the real missing_collective only
        QVERIFY2(away.has("16 input file(s) the summaries name are not on disk here"), away.all().c_str());
        fs::rename(base + "/elsewhere", jobDir);
        // Summaries of an older Linkscope (no "run"): read, an "unknown run" warning, not an error.
        for (int k = 0; k < 8; ++k) {
            const std::string p = shared + "/trace." + std::to_string(k) + ".summary.json";
            nlohmann::json j = readJson(p);
            j.erase("run");
            writeText(p, j.dump());
        }
        const Run legacy = job({"--merge", shared, "--strict"});
        QVERIFY2(legacy.code == 3, legacy.all().c_str()); // the real missing_collective, nothing else failing
        const auto legacyReport = readJson(shared + "/job-report.json");
        const auto *unknown = findingOf(legacyReport["findings"], "unknown_run");
        QVERIFY2(unknown && (*unknown)["severity"] == "warning", legacyReport["findings"].dump(1).c_str());
        QVERIFY((*unknown)["message"].get<std::string>().find("unknown run") != std::string::npos);
        QCOMPARE(count(legacyReport["findings"], "stale_summary"), std::size_t(0));
    }

    void mergeWarnsOfMixedRuns()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/a", "--ranks", "0-3", "--no-et"}).code, 0);
        QCOMPARE(job({jobDir, "--out", base + "/b", "--ranks", "4-7", "--no-et", "--policy", "external-id"}).code, 0);
        const Run r = job({"--merge", base + "/a", base + "/b", "--out", base + "/m", "--strict"});
        QVERIFY2(r.code == 0, r.all().c_str()); // a warning
        const auto mReport = readJson(base + "/m/job-report.json");
        const auto *mixed = findingOf(mReport["findings"], "mixed_runs");
        QVERIFY2(mixed, r.all().c_str());
        QVERIFY2((*mixed)["message"].get<std::string>().find("policy external-id") != std::string::npos, mixed->dump().c_str());
        QVERIFY((*mixed)["message"].get<std::string>().find(base + "/b/trace.4.summary.json") != std::string::npos);
    }

    // A Kineto file cut short is named as such, not as a Chakra .et.
    void kinetoCutShortIsNamed_data()
    {
        QTest::addColumn<int>("bytes");
        QTest::newRow("100") << 100;
        QTest::newRow("1000") << 1000;
    }

    void kinetoCutShortIsNamed()
    {
        QFETCH(int, bytes);
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        fs::resize_file(jobDir + "/kineto_3.json", static_cast<std::uintmax_t>(bytes));
        QCOMPARE(core::sniffTraceKind(jobDir + "/kineto_3.json"), core::kUnknownKind);
        const Run r = job({jobDir, "--out", base + "/out"});
        QCOMPARE(r.code, 1);
        QVERIFY2(!r.has("Chakra .et"), r.all().c_str());
        QVERIFY2(r.has(jobDir + "/kineto_3.json: JSON without a \"traceEvents\" or \"nodes\" key"), r.all().c_str());
        QVERIFY2(r.has("cut short?"), r.all().c_str());
        QVERIFY2(r.has("(" + jobDir + "/kineto_3.json was skipped: see above)"), r.all().c_str());
        QVERIFY(!fs::exists(base + "/out"));
    }

    // --comm-groups naming a FIFO without a writer: refused at once, not waited on (a second process,
    // so that the old behaviour fails the test instead of hanging it).
    void commGroupsFifoDoesNotBlock()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/out", "--ranks", "0-1"}).code, 0);
        const std::string fifo = base + "/groups.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QProcess p;
        QElapsedTimer timer;
        timer.start();
        p.start(QString::fromStdString(linkscopeBinary()),
                {"check", QString::fromStdString(base + "/out/trace.0.et"), "--comm-groups", QString::fromStdString(fifo)});
        const bool finished = p.waitForFinished(20000);
        if (!finished)
            p.kill();
        QVERIFY2(finished, "linkscope check blocked on a FIFO without a writer");
        const std::string out = p.readAllStandardOutput().toStdString() + p.readAllStandardError().toStdString();
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(out.find(fifo) != std::string::npos && out.find("FIFO") != std::string::npos, out.c_str());
        QVERIFY2(timer.elapsed() < 20000, std::to_string(timer.elapsed()).c_str());
    }

    // D11b: after the comm group file was refused (nested too deep), the pg_name findings said "(no
    // comm group file given)" although one was given.
    void refusedCommGroupFileIsNotCalledAbsent()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/out"}).code, 0);
        const std::string deep = base + "/g11.json";
        writeText(deep, std::string(100'000, '['));
        std::vector<std::string> args = {"--comm-groups", deep};
        for (int k = 0; k < 8; ++k)
            args.push_back(base + "/out/trace." + std::to_string(k) + ".et");
        const Run r = check(args);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.has("nested more than 64 levels") && r.has("pg_name_unknown"), r.all().substr(0, 3000).c_str());
        QVERIFY2(!r.has("no comm group file given") && r.has("(the comm group file " + deep + " was given but refused"),
                 r.all().substr(0, 3000).c_str());
        // Without a file, the findings still say none was given.
        const Run none = check(std::vector<std::string>(args.begin() + 2, args.end()));
        QVERIFY2(none.has("no comm group file given"), none.all().substr(0, 3000).c_str());
    }

    void commGroupListingARankTwice()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/out", "--ranks", "0-1"}).code, 0);
        writeText(base + "/groups.json", R"({"1":[0,0,1,1]})");
        const Run r = check({base + "/out/trace.0.et", base + "/out/trace.1.et", "--comm-groups", base + "/groups.json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.has("group \"1\": ranks 0, 1 listed more than once"), r.all().c_str());
        writeText(base + "/groups.json", R"({"1":[0,1]})");
        QVERIFY(!check({base + "/out/trace.0.et", base + "/out/trace.1.et", "--comm-groups", base + "/groups.json"})
                     .has("more than once"));
    }

    // A comm group file with invalid UTF-8: the parse error quotes the bytes, and `check --json`
    // printed nothing but an uncaught type_error (found by fuzz_jobsummary). Now valid JSON.
    void checkJsonWithInvalidUtf8InAMessage()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        QCOMPARE(job({jobDir, "--out", base + "/out", "--ranks", "0-1"}).code, 0);
        writeText(base + "/groups.json", "{\"1\": [0, 1], \"7\": [\xff\xff~\xfe\xd4\x14\xfb\xa0"
                                         "0, 0, 3]}");
        const Run r = check(
            {base + "/out/trace.0.et", base + "/out/trace.1.et", "--comm-groups", base + "/groups.json", "--json"});
        QCOMPARE(r.code, 1);
        const auto j = nlohmann::json::parse(r.out, nullptr, false);
        QVERIFY2(!j.is_discarded(), r.all().c_str());
        QVERIFY2(j.dump().find("comm_groups") != std::string::npos, r.out.c_str());
    }

    // docs/job-report.md: a conflict is reported by the shard holding the rank its file's name
    // carries; the merge then reports that shard's ranks as missing.
    void shardConflictReportedByItsShard()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        fs::copy_file(jobDir + "/kineto_3.json", jobDir + "/kineto_5.json", fs::copy_options::overwrite_existing);
        const Run low = job({jobDir, "--out", base + "/shared", "--ranks", "0-3", "--no-et"});
        QVERIFY2(low.code == 0, low.all().c_str());
        const Run high = job({jobDir, "--out", base + "/shared", "--ranks", "4-7", "--no-et"});
        QCOMPARE(high.code, 1);
        QVERIFY2(high.has("kineto_5.json: its name says rank 5 but its distributedInfo.rank is 3"), high.all().c_str());
        const Run merged = job({"--merge", base + "/shared", "--strict"});
        QCOMPARE(merged.code, 3);
        const auto sharedReport = readJson(base + "/shared/job-report.json");
        const auto *missing = findingOf(sharedReport["findings"], "missing_rank");
        QVERIFY(missing);
        JSON_EQ((*missing)["ranks"], nlohmann::json({4, 5, 6, 7}));
    }
};

QTEST_GUILESS_MAIN(TestJobMerge)
#include "test_job_merge.moc"
