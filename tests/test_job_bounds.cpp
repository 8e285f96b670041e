// Issue 29, "runaway memory or time from one number": no world size, rank number or nesting in one
// file drives a job's loops or allocations. Each case is the reproducer at a size that runs
// in a second here, with a time bound that fails on the old behaviour (a loop up to the number read):
// D3 (world sizes and ranks in headers, names and summaries), D6 (collective alignment), D11 (nesting
// of summaries), the summaries' value ranges, and the gzip limit against the machine.

#include "clitestsupport.h"
#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "io/file/inputtext.h"
#include "io/json/boundedjson.h"
#include "job/discovery.h"
#include "job/jobrun.h"
#include "job/ranksummary.h"
#include "jobmodel/crossrank.h"
#include "jobmodel/rankrange.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace linkscope;
using namespace linkscope::core::job;
namespace fs = std::filesystem;

namespace {

using Run = test::CliRun;
using test::readJson;
using test::writeText;

Run runJobCommand(const cli::Args &args) { return test::runCli(cli::runJob, args); }

// The generated 4-rank job (kineto_N.json + host_N.json).
std::string generated(const QTemporaryDir &dir, const char *name = "job")
{
    gen::GeneratorOptions o;
    o.seed = 5;
    o.steps = 1;
    o.layers = 2;
    o.worldSize = 4;
    const std::string path = (fs::path(dir.path().toStdString()) / name).string();
    gen::generateJob(o, path, false, 2);
    return path;
}

// Replaces the world size one Kineto trace declares.
void setWorldSize(const std::string &kineto, const std::string &worldSize)
{
    const std::string text = test::readFile(kineto);
    const std::string changed = std::regex_replace(text, std::regex("\"world_size\": [0-9]+"), "\"world_size\": " + worldSize,
                                                   std::regex_constants::format_first_only);
    QVERIFY(changed != text);
    writeText(kineto, changed);
}

const JobFinding *findingOf(const JobReport &r, const std::string &kind)
{
    for (const JobFinding &f : r.findings)
        if (f.kind == kind)
            return &f;
    return nullptr;
}

CollectiveCall call(CallKind kind, std::int64_t elements, const std::string &group = "0")
{
    CollectiveCall c;
    c.processGroup = group;
    c.kind = kind;
    c.dtype = "float32";
    c.elements = elements;
    return c;
}

// A rank summary as JSON with one field replaced by raw JSON text.
std::string summaryWith(const std::string &field, const std::string &rawValue, std::int64_t rank = 0)
{
    RankSummary s;
    s.rank = rank;
    s.device = "kineto_" + std::to_string(rank) + ".json";
    s.calls.push_back(call(CallKind::AllReduce, 8));
    nlohmann::json j = s.toJson();
    const std::string marker = "\"__marker__\"";
    if (field.starts_with("calls/"))
        j["calls"][0][field.substr(6)] = "__marker__";
    else
        j[field] = "__marker__";
    std::string text = j.dump();
    text.replace(text.find(marker), marker.size(), rawValue);
    return text;
}

} // namespace

class TestJobBounds : public QObject {
    Q_OBJECT

private slots:
    void rankRangesFold()
    {
        QCOMPARE(missingRankRanges({0, 1, 5, 9}, 12), (std::vector<RankRange>{{2, 4}, {6, 8}, {10, 11}}));
        QCOMPARE(missingRankRanges({}, 3), (std::vector<RankRange>{{0, 2}}));
        QCOMPARE(missingRankRanges({0, 1, 2}, 3), std::vector<RankRange>{});
        QCOMPARE(missingRankRanges({5}, -1), std::vector<RankRange>{});
        QCOMPARE(rankRanges({1, 2, 3, 7, 9, 10}), (std::vector<RankRange>{{1, 3}, {7, 7}, {9, 10}}));
        QCOMPARE(rankRangeText(rankRanges({1, 2, 3, 7, 9, 10})), std::string("1-3, 7, 9, 10"));
        QCOMPARE(rankCount({{0, 999'999}}), std::int64_t(1'000'000));
        QCOMPARE(expandRanks({{3, 5}}), (std::vector<std::int64_t>{3, 4, 5}));
        std::vector<RankRange> many;
        for (std::int64_t k = 0; k < 100; ++k)
            many.push_back({3 * k, 3 * k});
        const std::string text = rankRangeText(many, 4);
        QCOMPARE(text, std::string("0, 3, 6, 9 … (96 more ranges)"));
    }

    // D3: world_size 10^12 in kineto_2.json was std::bad_alloc after ~18 s (a loop to it in
    // discovery and again in the report); a --ranks shard of it looped for over a minute.
    void implausibleWorldSizeIsAFinding()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        setWorldSize(job + "/kineto_2.json", "1000000000000");
        QElapsedTimer timer;
        timer.start();
        const JobLayout layout = discoverJob({job});
        QVERIFY(layout.errors.empty());
        QCOMPARE(layout.worldSize, 4); // the plausible ones
        QVERIFY(layout.missing.empty());
        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({job, "--out", out, "--no-et", "--strict"});
        QCOMPARE(r.code, 3);
        const auto report = readJson(out + "/job-report.json");
        QCOMPARE(report["world_size"].get<std::int64_t>(), 4);
        bool named = false;
        for (const auto &f : report["findings"])
            if (f["kind"] == "implausible_world_size") {
                named = f["ranks"] == nlohmann::json({2})
                        && f["message"].get<std::string>().find("kineto_2.json") != std::string::npos
                        && f["message"].get<std::string>().find("1000000000000") != std::string::npos;
            }
        QVERIFY2(named, report["findings"].dump(1).c_str());
        // A shard of it.
        const Run shard = runJobCommand({job, "--out", out + "-shard", "--no-et", "--ranks", "2-3"});
        QVERIFY2(shard.code == 0, (shard.out + shard.err).c_str());
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));
    }

    // D3: a world size of a million is plausible: its 999,996 missing ranks are ranges.
    void millionRankWorldIsRanges()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        for (int r = 0; r < 4; ++r)
            setWorldSize(job + "/kineto_" + std::to_string(r) + ".json", "1000000");
        fs::remove(job + "/kineto_1.json");
        fs::remove(job + "/host_1.json");
        QElapsedTimer timer;
        timer.start();
        const JobLayout layout = discoverJob({job});
        QCOMPARE(layout.missing, (std::vector<RankRange>{{1, 1}, {4, 999'999}}));
        const std::string out = dir.path().toStdString() + "/out";
        const Run r = runJobCommand({job, "--out", out, "--no-et"});
        QVERIFY2(r.code == 0, (r.out + r.err).c_str());
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));
        const auto report = readJson(out + "/job-report.json");
        const auto &f = report["findings"][0];
        QCOMPARE(f["kind"].get<std::string>(), std::string("missing_rank"));
        QVERIFY2(f["rank_ranges"] == nlohmann::json::parse("[[1, 1], [4, 999999]]"), f.dump().c_str());
        QVERIFY(f["ranks"].empty()); // 999,997 ranks: only as ranges
        QVERIFY2(f["message"].get<std::string>().starts_with("ranks 1, 4-999999 of the job's 1000000 have no trace files"),
                 f["message"].dump().c_str());
        // The report stays small (the default group of a million ranks is comm_group.json's business).
        QVERIFY(fs::file_size(out + "/job-report.json") < 20'000'000);
    }

    // D3: kineto_99999999.json made discovery list 10^8 missing ranks (1.07 GB).
    void rankBeyondBoundInANameIsSkipped()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        fs::rename(job + "/kineto_3.json", job + "/kineto_99999999.json");
        fs::rename(job + "/host_3.json", job + "/host_99999999.json");
        QElapsedTimer timer;
        timer.start();
        const JobLayout layout = discoverJob({job});
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(layout.ranks.size(), std::size_t(3));
        std::size_t skipped = 0;
        for (const std::string &s : layout.skipped)
            skipped += s.find("99999999.json: the rank 99999999 in its name is beyond 999999") != std::string::npos;
        QCOMPARE(skipped, std::size_t(2));
        QCOMPARE(layout.missing, (std::vector<RankRange>{{3, 3}})); // world size 4
    }

    // D10: a stray rank-99999999999999999999.log stopped discovery with the bare message "stoll".
    void rankNoIntegerHoldsIsSkippedNamingTheFile()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        std::ofstream(job + "/rank-99999999999999999999.log") << "not a trace\n";
        const JobLayout layout = discoverJob({job});
        QCOMPARE(layout.ranks.size(), std::size_t(4));
        QVERIFY(layout.errors.empty());
        std::size_t skipped = 0;
        for (const std::string &s : layout.skipped)
            skipped += s.find("rank-99999999999999999999.log: the rank number in its name is beyond 999999") != std::string::npos;
        QCOMPARE(skipped, std::size_t(1));
        // And the command runs to the end.
        QCOMPARE(runJobCommand({job, "--out", dir.path().toStdString() + "/out", "--no-et"}).code, 0);
    }

    // D3: a summary's world_size 10^8 took 3.5 GB in --merge.
    void mergedSummaryWorldSize()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        const std::string out = dir.path().toStdString() + "/out";
        QCOMPARE(runJobCommand({job, "--out", out, "--no-et"}).code, 0);
        const std::string path = out + "/trace.1.summary.json";
        auto j = readJson(path);
        j["world_size"] = 100'000'000;
        writeText(path, j.dump());
        QElapsedTimer timer;
        timer.start();
        const JobReport report = buildJobReport(readSummaries({out}));
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(report.worldSize, 4);
        const JobFinding *f = findingOf(report, "implausible_world_size");
        QVERIFY(f);
        QCOMPARE(f->ranks, std::vector<std::int64_t>{1});
        QVERIFY(!findingOf(report, "missing_rank"));
    }

    // One rank's header says 1,000,000 and the others 4: the largest is used (missing ranks as
    // ranges), and the disagreement is a finding naming the odd rank, not silence.
    void ranksThatDisagreeOnTheWorldSize()
    {
        QTemporaryDir dir;
        const std::string job = generated(dir);
        const std::string out = dir.path().toStdString() + "/out";
        QCOMPARE(runJobCommand({job, "--out", out, "--no-et"}).code, 0);
        const std::string path = out + "/trace.2.summary.json";
        auto j = readJson(path);
        j["world_size"] = 1'000'000;
        writeText(path, j.dump());
        const JobReport report = buildJobReport(readSummaries({out}));
        QCOMPARE(report.worldSize, 1'000'000);
        const JobFinding *f = findingOf(report, "world_size_conflict");
        QVERIFY(f);
        QCOMPARE(f->severity, Severity::Error);
        QCOMPARE(f->ranks, std::vector<std::int64_t>{2});
        QVERIFY2(f->message.find("4 (ranks 0, 1, 3); 1000000 (rank 2)") != std::string::npos, f->message.c_str());
        // Agreeing ranks: no finding.
        j["world_size"] = 4;
        writeText(path, j.dump());
        QVERIFY(!findingOf(buildJobReport(readSummaries({out})), "world_size_conflict"));
    }

    // Summary values: rank 2^64-1 was read as -1, 1e19 was an undefined cast.
    void summaryValuesAreRangeChecked()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace.0.summary.json").toStdString();
        writeText(path, summaryWith("gpu_ops", "3"));
        QCOMPARE(readRankSummary(path).gpuOps, std::size_t(3));
        const std::vector<std::pair<std::string, std::string>> bad = {{"rank", "18446744073709551615"},
                                                                      {"rank", "1e19"},
                                                                      {"rank", "-1"},
                                                                      {"rank", "1000000"},
                                                                      {"rank", "\"3\""},
                                                                      {"world_size", "1e19"},
                                                                      {"world_size", "18446744073709551615"},
                                                                      {"gpu_ops", "-4"},
                                                                      {"linked", "1.5"},
                                                                      {"calls/elements", "1e19"},
                                                                      {"calls/bytes", "18446744073709551615"},
                                                                      {"calls/launch_ns", "9.3e18"},
                                                                      {"calls/peer", "-7"},
                                                                      {"calls/pg", "5"}};
        for (const auto &[field, value] : bad) {
            writeText(path, summaryWith(field, value));
            bool refused = false;
            try {
                readRankSummary(path);
            } catch (const std::exception &e) {
                const std::string what = e.what();
                const std::string key = field.starts_with("calls/") ? field.substr(6) : field;
                refused = what.find(path) != std::string::npos && what.find("\"" + key + "\"") != std::string::npos;
                QVERIFY2(refused, (field + "=" + value + ": " + what).c_str());
            }
            QVERIFY2(refused, (field + "=" + value + " was accepted").c_str());
        }
    }

    // D11: "[" x 10 M took ~800 MB before "not JSON"; endless "[" on stdin grew past 2.9 GB.
    void summaryNestingIsBounded()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace.0.summary.json").toStdString();
        writeText(path, std::string(10'000'000, '['));
        QElapsedTimer timer;
        timer.start();
        try {
            readRankSummary(path);
            QFAIL("accepted");
        } catch (const core::LoadError &e) {
            QCOMPARE(e.file(), path);
            QCOMPARE(e.offset(), std::uint64_t(64));
            QVERIFY2(e.detail().find("nested more than 64 levels") != std::string::npos, e.what());
        }
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        // Deep but within the bound, and strings with brackets, are fine.
        QVERIFY(!core::io::offsetBeyondDepth(std::string(64, '[') + std::string(64, ']'), 64));
        QVERIFY(!core::io::offsetBeyondDepth("[\"[[[[[[[[[[[[\\\"[[[[[[[\"]", 2));
        QCOMPARE(core::io::offsetBeyondDepth("{\"a\": [[1]]}", 2), std::optional<std::uint64_t>(7));
        // A container's extent (peekKinetoRank's distributedInfo): brackets in strings skipped.
        QCOMPARE(core::io::containerEnd("x{\"a\": \"}\", \"b\": [{}]} tail", 1), std::optional<std::size_t>(22));
        QCOMPARE(core::io::containerEnd("[1, [2]]", 0), std::optional<std::size_t>(8));
        QVERIFY(!core::io::containerEnd("{\"a\": [1}", 0)); // never closes
        QVERIFY(!core::io::containerEnd("{}", 1));          // not an opening bracket
        // Not JSON: the byte.
        writeText(path, "{\"rank\": 0,, }");
        try {
            readRankSummary(path);
            QFAIL("accepted");
        } catch (const core::LoadError &e) {
            QCOMPARE(e.offset(), std::uint64_t(11));
        }
        // A FIFO (stdin, a pipe) is refused at once, not read until it ends.
        const std::string fifo = dir.filePath("fifo.summary.json").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        try {
            readRankSummary(fifo);
            QFAIL("accepted");
        } catch (const core::LoadError &e) {
            QVERIFY2(e.detail().find("FIFO") != std::string::npos, e.what());
        }
    }

    // D6: one rank with 30,000 collectives against one with 1 took 4.47 GB and 37 s; 20,000 unpaired
    // sends 2.0 GB. The band is bounded; past its bound the rank "diverges".
    void alignmentIsBounded()
    {
        CheckInput input;
        input.ranks.resize(2);
        input.ranks[0].rank = 0;
        input.ranks[1].rank = 1;
        for (int k = 0; k < 30'000; ++k)
            input.ranks[0].calls.push_back(call(CallKind::AllReduce, 1000 + k));
        input.ranks[1].calls.push_back(call(CallKind::AllReduce, 1000));
        QElapsedTimer timer;
        timer.start();
        CheckResult r = checkCollectives(input);
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        // Rank 1 issued the first: the other 29,999 are missing on it (or extra on rank 0, whichever is the reference).
        QCOMPARE(r.findings.size(), std::size_t(29'999));

        // Both long and different: past the band's bound, one finding from the first difference on.
        input.ranks[1].calls.clear();
        for (int k = 0; k < 5; ++k)
            input.ranks[1].calls.push_back(call(CallKind::AllReduce, 1000 + k));
        for (int k = 0; k < 2'000; ++k)
            input.ranks[1].calls.push_back(call(CallKind::AllGather, 7 + k));
        timer.restart();
        r = checkCollectives(input);
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(r.findings.size(), std::size_t(1));
        QCOMPARE(r.findings[0].kind, std::string("collectives_diverge"));
        QCOMPARE(r.findings[0].index, std::int64_t(5));
        QVERIFY2(r.findings[0].message.find("2000 call(s) where the others issued 29995") != std::string::npos
                     || r.findings[0].message.find("29995 call(s) where the others issued 2000") != std::string::npos,
                 r.findings[0].message.c_str());

        // 20,000 sends, no receive.
        CheckInput p2p;
        p2p.ranks.resize(2);
        p2p.ranks[0].rank = 0;
        p2p.ranks[1].rank = 1;
        for (int k = 0; k < 20'000; ++k) {
            CollectiveCall c = call(CallKind::Send, 4);
            c.peer = 1;
            p2p.ranks[0].calls.push_back(c);
        }
        timer.restart();
        r = checkCollectives(p2p);
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(r.findings.size(), std::size_t(20'000));
        QCOMPARE(r.findings.front().kind, std::string("unpaired_send"));
    }

    // gzip: the bomb limit was 200 x the compressed size (a 4.7 MB bomb peaked at 917 MB); it is
    // 100 x and at most half of the memory available.
    void gzipLimitAgainstTheMachine()
    {
        using namespace core::io;
        const std::uint64_t bomb = 4'700'000, machine = std::uint64_t(24) << 30;
        const GzipLimit l = gzipLimitFor(bomb, machine);
        QCOMPARE(l.by, GzipLimit::By::Ratio);
        QVERIFY(l.bytes == bomb * kGzipRatio && l.bytes < (std::uint64_t(480) << 20));
        // A real trace compressing 30 x still fits.
        QVERIFY(gzipLimitFor(200'000'000, machine).bytes > 30 * std::uint64_t(200'000'000));
        // A large input on a machine with little free: the memory decides, and the message says so.
        const GzipLimit m = gzipLimitFor(std::uint64_t(200) << 20, std::uint64_t(4) << 30);
        QCOMPARE(m.by, GzipLimit::By::Memory);
        QCOMPARE(m.bytes, std::uint64_t(2) << 30);
        const std::string text = gzipLimitMessage(std::uint64_t(200) << 20, m);
        QVERIFY2(text.find("half of the memory available (MemAvailable 4096 MiB)") != std::string::npos, text.c_str());
        QVERIFY2(gzipLimitMessage(bomb, l).find(
                     "the limit for its size (100 times the compressed size, at least 64 MiB), which looks like a "
                     "decompression bomb")
                     != std::string::npos,
                 gzipLimitMessage(bomb, l).c_str());
        QVERIFY(availableMemoryBytes() > 0);
        // Unknown memory: the ratio alone.
        QCOMPARE(gzipLimitFor(bomb, 0).by, GzipLimit::By::Ratio);
        QCOMPARE(gzipLimitFor(1000, machine).bytes, kGzipFloor);
    }
};

QTEST_GUILESS_MAIN(TestJobBounds)
#include "test_job_bounds.moc"
