#include "ground/jobloader.h"

#include "base/parallel.h"

#include <QCoreApplication>
#include <QThread>

#include <algorithm>
#include <filesystem>
#include <limits>

namespace linkscope::ui {

using namespace core::job;

std::int64_t alignedJobStart(const JobReport &report)
{
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    for (const RankSummary &s : report.ranks)
        if (s.overview && s.overview->endNs > s.overview->startNs)
            lo = std::min(lo, s.overview->startNs - report.timing.offsetOf(s.rank));
    return lo == std::numeric_limits<std::int64_t>::max() ? 0 : lo;
}

struct JobLoader::States {
    std::mutex mutex;
    std::vector<RankState> ranks;
};

JobLoader::JobLoader(QObject *parent) : QObject(parent), m_states(std::make_shared<States>()) { }

JobLoader::~JobLoader() = default; // m_job cancels and waits

void JobLoader::cancel()
{
    if (m_job.cancel())
        emit cancelled(); // whatever the job still delivers is dropped
}

std::vector<JobLoader::RankState> JobLoader::progress() const
{
    std::lock_guard lock(m_states->mutex);
    return m_states->ranks;
}

namespace {

bool report(JobLoader::States &states, const RankProgress &p, const JobToken &token)
{
    if (token.cancelled())
        return false;
    std::lock_guard lock(states.mutex);
    for (JobLoader::RankState &s : states.ranks)
        if (s.rank == p.rank) {
            s.stage = QString::fromUtf8(p.stage.data(), static_cast<qsizetype>(p.stage.size()));
            s.fraction = p.fraction;
        }
    return true;
}

void waiting(JobLoader::States &states, const JobLayout &layout)
{
    std::lock_guard lock(states.mutex);
    for (const RankFiles &r : layout.ranks)
        states.ranks.push_back({r.rank, QStringLiteral("waiting"), 0});
}

} // namespace

void JobLoader::run(std::function<void(States &, const JobToken &)> body)
{
    // A record per job: the one superseded may still report to its own.
    auto states = std::make_shared<States>();
    m_states = states;
    m_job.start([this, states, body = std::move(body)](const JobToken &token) {
        try {
            body(*states, token);
        } catch (const core::Cancelled &) {
            throw; // cancel() told the GUI already
        } catch (const std::exception &e) {
            const QString message = QString::fromStdString(e.what());
            token.post([this, message] { emit failed(message); });
        }
    });
}

namespace {

int workers(int jobs, std::size_t ranks)
{
    const int cores = std::max(1, QThread::idealThreadCount());
    return std::max(1, std::min<int>(jobs > 0 ? jobs : cores, static_cast<int>(std::max<std::size_t>(1, ranks))));
}

QString layoutErrors(const QString &folder, const JobLayout &layout)
{
    if (!layout.errors.empty()) {
        QStringList lines;
        for (const std::string &e : layout.errors)
            lines << QString::fromStdString(e);
        return lines.join(QLatin1Char('\n'));
    }
    if (layout.ranks.empty())
        return QObject::tr("%1: no rank traces found (a job folder holds a Kineto trace per rank, with its host ET beside it)")
            .arg(folder);
    return {};
}

} // namespace

void JobLoader::open(const QString &folder, core::Policy policy, int jobs)
{
    run([this, folder, policy, jobs](States &states, const JobToken &token) {
        JobLayout layout = discoverJob({folder.toStdString()});
        if (const QString error = layoutErrors(folder, layout); !error.isEmpty()) {
            token.post([this, error] { emit failed(error); });
            return;
        }
        waiting(states, layout);
        token.post([this, layout] { emit discovered(layout); });

        JobOptions options;
        options.writeEt = false;
        options.checkEt = false;
        options.overview = true;
        options.allowTruncated = true; // a crashed job's last rank: what precedes the cut
        options.link.policy = policy;
        options.progress = [&states, token](const RankProgress &p) { return report(states, p, token); };
        std::vector<RankSummary> summaries(layout.ranks.size());
        const int rankWorkers = workers(jobs, layout.ranks.size());
        const core::TaskThreadBudget budget(rankWorkers); // each rank's readers get its share of the cores
        core::forEachIndexOnThreads(
            layout.ranks.size(), rankWorkers,
            [&](std::size_t i) {
                RankSummary s = processRank(layout.ranks[i], options);
                token.post([this, s] { emit rankLoaded(s); });
                summaries[i] = std::move(s);
            },
            [token] { return token.cancelled(); });
        if (token.cancelled())
            throw core::Cancelled();
        auto doc = std::make_shared<JobDocument>();
        doc->folder = folder;
        doc->policy = policy;
        doc->report = buildJobReport(std::move(summaries), layout.worldSize);
        doc->layout = std::move(layout);
        JobPtr result = std::move(doc);
        token.post([this, result] { emit finished(result); });
    });
}

void JobLoader::fixAcrossRanks(const JobPtr &job, core::FindingKind kind, core::Policy policy, int jobs)
{
    if (!job)
        return;
    run([this, job, kind, policy, jobs](States &states, const JobToken &token) {
        const JobLayout &layout = job->layout;
        waiting(states, layout);
        JobFixOptions options;
        options.link.policy = policy;
        options.jobs = workers(jobs, layout.ranks.size());
        options.generator = "linkscope " + QCoreApplication::applicationVersion().toStdString();
        options.progress = [&states, token](std::int64_t rank) { return report(states, {rank, "done", 1}, token); };
        JobFix fix = applySuggestionsAcrossRanks(layout.ranks, kind, options);
        token.post([this, fix] { emit fixed(fix); });
    });
}

void JobLoader::exportJob(const JobPtr &job, const QString &outDir, int jobs)
{
    if (!job)
        return;
    run([this, job, outDir, jobs](States &states, const JobToken &token) {
        const JobLayout &layout = job->layout;
        waiting(states, layout);
        JobOptions options;
        options.outDir = outDir.toStdString();
        options.jobs = workers(jobs, layout.ranks.size());
        // As `linkscope job` without --policy (nesting) or with --policy P.
        options.link.policy = job->policy;
        options.policyGiven = job->policy != core::Policy::Nesting;
        options.progress = [&states, token](const RankProgress &p) { return report(states, p, token); };
        checkJobOutputs(layout.ranks, options, true, {});
        std::vector<RankSummary> summaries = processRanks(layout.ranks, options);
        if (token.cancelled())
            throw core::Cancelled();
        const JobReport report = buildJobReport(std::move(summaries), layout.worldSize);
        const std::string commGroup = (std::filesystem::path(options.outDir) / "comm_group.json").string();
        const std::string reportPath = jobReportPath(options, {});
        writeJobOutputs(report, commGroup, reportPath);
        std::size_t ets = 0, errors = 0;
        for (const RankSummary &s : report.ranks)
            ets += s.et.empty() ? 0 : 1;
        for (const JobFinding &f : report.findings)
            errors += f.severity == Severity::Error ? 1 : 0;
        const QString summary =
            tr("Wrote %L1 .et files, comm_group.json and job-report.json to %2 (%L3 cross-rank findings, %L4 errors)")
                .arg(ets)
                .arg(outDir)
                .arg(report.findings.size())
                .arg(errors);
        token.post([this, outDir, summary] { emit exported(outDir, summary); });
    });
}

} // namespace linkscope::ui
