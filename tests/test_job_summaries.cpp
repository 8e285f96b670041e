// What `linkscope job --merge` says about the rank summaries it reads (issue 29, the audit's rerun):
// the file that said a number is named (D3d), two summaries of one rank are named by their files
// (D10-summary), a summary that is not a regular file is reported (D11d), a trace changed under the
// same size and modification time is told (D12b), and 30,000 findings of one kind are a few lines
// with the true count (D6a).

#include "clitestsupport.h"
#include "commands/commands.h"
#include "gen/tracegenerator.h"
#include "job/jobrun.h"
#include "job/ranksummary.h"
#include "job/summaryrun.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>

using namespace linkscope;
using namespace linkscope::core::job;
namespace fs = std::filesystem;

namespace {

using Run = test::CliRun;
using test::readJson;
using test::writeText;

Run job(const cli::Args &args) { return test::runCli(cli::runJob, args); }

CollectiveCall allReduce(std::int64_t elements)
{
    CollectiveCall c;
    c.processGroup = "0";
    c.kind = CallKind::AllReduce;
    c.dtype = "float32";
    c.elements = elements;
    return c;
}

// A summary of `rank` (made from job/kineto_<rank>.json) with `calls` all-reduces, written as
// DIR/trace.<rank>.summary.json unless `name` says otherwise.
std::string writeSummary(const std::string &dir, std::int64_t rank, int calls, std::int64_t worldSize = 2, std::string name = {})
{
    RankSummary s;
    s.rank = rank;
    s.device = "job/kineto_" + std::to_string(rank) + ".json";
    s.worldSize = worldSize;
    for (int k = 0; k < calls; ++k)
        s.calls.push_back(allReduce(1000 + k));
    if (name.empty())
        name = "trace." + std::to_string(rank) + ".summary.json";
    const std::string path = (fs::path(dir) / name).string();
    writeRankSummary(path, s);
    return path;
}

const nlohmann::json *findingOf(const nlohmann::json &findings, const std::string &kind)
{
    for (const auto &f : findings)
        if (f["kind"] == kind)
            return &f;
    return nullptr;
}

std::string generated(const std::string &dir)
{
    gen::GeneratorOptions o;
    o.seed = 5;
    o.steps = 1;
    o.layers = 2;
    o.worldSize = 2;
    const std::string path = (fs::path(dir) / "job").string();
    gen::generateJob(o, path, false, 2);
    return path;
}

} // namespace

class TestJobSummaries : public QObject {
    Q_OBJECT

private slots:
    // D6a: a summary with 30,000 collectives against a rank with 1 printed 30,002 findings (7.7 MB
    // of standard output, a 12 MB report). The report lists the first 100 of a kind and one entry
    // with the count of the rest; the totals and --strict count them all.
    void manyFindingsOfOneKindAreCounted()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        writeSummary(dir, 0, 30'000);
        writeSummary(dir, 1, 1);
        QElapsedTimer timer;
        timer.start();
        const Run r = job({"--merge", dir, "--strict"});
        QVERIFY2(timer.elapsed() < 60000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(r.code == 3, r.all().substr(0, 3000).c_str());
        QVERIFY2(r.out.size() < 200'000, qPrintable(QString::number(r.out.size())));
        QVERIFY2(r.has("cross-rank findings: 29999 errors"), r.out.substr(0, 3000).c_str());
        QVERIFY2(r.has("… and 29899 more "), r.out.substr(r.out.size() > 3000 ? r.out.size() - 3000 : 0).c_str());

        const std::string reportPath = dir + "/job-report.json";
        QVERIFY2(fs::file_size(reportPath) < 200'000, qPrintable(QString::number(fs::file_size(reportPath))));
        const nlohmann::json findings = readJson(reportPath)["findings"];
        std::map<std::string, std::size_t> listed, counted;
        for (const auto &f : findings) {
            listed[f["kind"]] += 1;
            counted[f["kind"]] += f.value("count", std::size_t(1));
        }
        std::size_t errors = 0;
        for (const auto &[kind, n] : listed) {
            QVERIFY2(n <= kListedFindingsPerKind + 1, kind.c_str());
            if (kind != "unknown_run")
                errors += counted[kind];
        }
        QCOMPARE(errors, std::size_t(29'999));
        // The entry that closes the list: after the listed ones, with the count of the rest.
        const auto &last = findings.back();
        QVERIFY2(last.value("count", std::size_t(1)) == 29'899, last.dump().c_str());
        QVERIFY2(last["message"].get<std::string>().find("29899 more") != std::string::npos, last.dump().c_str());

        // The report in memory keeps them all (what the GUI lists).
        const JobReport report = buildJobReport(readSummaries({dir}));
        QCOMPARE(report.findings.size(), std::size_t(29'999));
        QCOMPARE(report.listedFindings().size(), kListedFindingsPerKind + 1);
    }

    // D3d: a summary whose world_size says 10^8 was reported as "job/kineto_1.json declares a world
    // size of 100000000": the summary says so, the trace may not.
    void worldSizeNamesTheSummary()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        writeSummary(dir, 0, 1);
        const std::string edited = writeSummary(dir, 1, 1, 100'000'000);
        const JobReport report = buildJobReport(readSummaries({dir}));
        const auto f = std::find_if(report.findings.begin(), report.findings.end(),
                                    [](const JobFinding &x) { return x.kind == "implausible_world_size"; });
        QVERIFY(f != report.findings.end());
        QVERIFY2(f->message.find("rank 1: " + edited + " (the summary of job/kineto_1.json) declares a world size of 100000000")
                     != std::string::npos,
                 f->message.c_str());
        QCOMPARE(report.worldSize, std::int64_t(2));
    }

    // D10-summary: two summaries of rank 3 were "job/kineto_3.json and job/kineto_3.json".
    void duplicateRankNamesTheSummaries()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        for (int k = 0; k < 4; ++k)
            writeSummary(dir, k, 1, 4);
        const std::string stray = writeSummary(dir, 3, 1, 4, "rank-99999999999999999999.summary.json");
        const Run r = job({"--merge", dir});
        const nlohmann::json findings = readJson(dir + "/job-report.json")["findings"];
        const auto *dup = findingOf(findings, "duplicate_rank");
        QVERIFY2(dup, findings.dump(1).c_str());
        const std::string message = (*dup)["message"];
        QVERIFY2(message.find(stray) != std::string::npos && message.find(dir + "/trace.3.summary.json") != std::string::npos
                     && message.find("(both of job/kineto_3.json)") != std::string::npos,
                 message.c_str());
        QVERIFY2(r.has(message), r.all().c_str());
    }

    // D11d: a summary that is a FIFO was skipped silently (its rank only "has no trace files").
    void summaryThatIsNotAFileIsReported()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        for (int k = 0; k < 3; ++k)
            writeSummary(dir, k, 1, 4);
        const std::string fifo = dir + "/trace.3.summary.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QElapsedTimer timer;
        timer.start();
        const Run r = job({"--merge", dir, "--strict"});
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed()))); // never waits for a writer
        QVERIFY2(r.code == 3, r.all().c_str());                                          // rank 3 is missing
        QVERIFY2(r.err.find("job: skipped " + fifo + " is a FIFO (named pipe), not a regular file") != std::string::npos,
                 r.all().c_str());
        const nlohmann::json findings = readJson(dir + "/job-report.json")["findings"];
        const auto *f = findingOf(findings, "summary_not_read");
        QVERIFY2(f && (*f)["severity"] == "warning" && (*f)["ranks"] == nlohmann::json({3}), findings.dump(1).c_str());
        QVERIFY((*f)["message"].get<std::string>().find(fifo) != std::string::npos);
        QVERIFY(findingOf(findings, "missing_rank"));

        // A folder whose only summary is a FIFO: no summaries, and the message says what was there.
        QTemporaryDir other;
        const std::string lone = other.path().toStdString() + "/trace.0.summary.json";
        QCOMPARE(::mkfifo(lone.c_str(), 0600), 0);
        const Run none = job({"--merge", other.path().toStdString()});
        QVERIFY2(none.code == 1 && none.has("no rank summaries") && none.has(lone + " is a FIFO"), none.all().c_str());
    }

    // D12b: one byte of a trace changed with its size and modification time kept (touch -r) was not
    // noticed. Summaries record head_tail_crc32 and a merge reads it every time.
    void contentChangeUnderTheSameSizeAndTime()
    {
        QTemporaryDir tmp;
        const std::string base = tmp.path().toStdString();
        const std::string jobDir = generated(base);
        const std::string out = base + "/out";
        QCOMPARE(job({jobDir, "--out", out, "--no-et", "--ranks", "0-1"}).code, 0);
        const auto summary = readJson(out + "/trace.1.summary.json");
        for (const auto &in : summary["run"]["inputs"])
            QVERIFY2(in.contains("head_tail_crc32") && in["head_tail_crc32"].is_number_unsigned(), in.dump().c_str());
        QCOMPARE(job({"--merge", out, "--strict"}).code, 0);

        const std::string kineto = jobDir + "/kineto_1.json";
        struct stat before { };
        QCOMPARE(::stat(kineto.c_str(), &before), 0);
        std::string bytes = test::readFile(kineto);
        const std::size_t at = bytes.find("\"ts\": ") + 6; // a digit of the first timestamp
        QVERIFY(at > 6 && at < core::job::kSampleBytes);
        bytes[at] = bytes[at] == '1' ? '2' : '1';
        writeText(kineto, bytes);
        const timespec times[2] = {before.st_atim, before.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, kineto.c_str(), times, 0), 0);
        struct stat after { };
        QCOMPARE(::stat(kineto.c_str(), &after), 0);
        QCOMPARE(after.st_size, before.st_size);
        QCOMPARE(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

        const Run r = job({"--merge", out, "--strict"});
        QVERIFY2(r.code == 1, r.all().c_str());
        const nlohmann::json findings = readJson(out + "/job-report.json")["findings"];
        const auto *stale = findingOf(findings, "stale_summary");
        QVERIFY2(stale && (*stale)["ranks"] == nlohmann::json({1}), r.all().c_str());
        QVERIFY2(
            (*stale)["message"].get<std::string>().find("kineto_1.json has other content now (its first and last 64 KiB differ")
                != std::string::npos,
            stale->dump().c_str());

        // Summaries of a Linkscope before the field: checked by size and time, as before, and said so.
        QCOMPARE(job({jobDir, "--out", out, "--no-et", "--ranks", "0-1"}).code, 0);
        for (int k = 0; k < 2; ++k) {
            const std::string p = out + "/trace." + std::to_string(k) + ".summary.json";
            nlohmann::json j = readJson(p);
            for (auto &in : j["run"]["inputs"])
                in.erase("head_tail_crc32");
            writeText(p, j.dump());
        }
        const Run legacy = job({"--merge", out, "--strict"});
        QVERIFY2(legacy.code == 0, legacy.all().c_str());
        QVERIFY2(legacy.has("4 input(s) of summaries without a content sample")
                     && legacy.has("checked by size and modification time only"),
                 legacy.all().c_str());
    }
};

QTEST_GUILESS_MAIN(TestJobSummaries)
#include "test_job_summaries.moc"
