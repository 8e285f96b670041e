#include "jobview/jobloader.h"

#include "base/parallel.h"

#include <QCoreApplication>
#include <QMetaObject>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <thread>

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

JobLoader::JobLoader(QObject *parent) : QObject(parent) { }

JobLoader::~JobLoader()
{
    *m_alive = false;
    cancel();
    if (m_worker.joinable())
        m_worker.join();
}

void JobLoader::cancel() { m_cancel = true; }

void JobLoader::waitForIdle()
{
    if (m_worker.joinable())
        m_worker.join();
}

std::vector<JobLoader::RankState> JobLoader::progress() const
{
    std::lock_guard lock(m_mutex);
    return m_states;
}

void JobLoader::post(std::function<void()> f)
{
    auto alive = m_alive;
    QMetaObject::invokeMethod(
        this,
        [alive, f = std::move(f)] {
            if (*alive)
                f();
        },
        Qt::QueuedConnection);
}

bool JobLoader::report(const RankProgress &p)
{
    {
        std::lock_guard lock(m_mutex);
        for (RankState &s : m_states)
            if (s.rank == p.rank) {
                s.stage = QString::fromUtf8(p.stage.data(), static_cast<qsizetype>(p.stage.size()));
                s.fraction = p.fraction;
            }
    }
    return !m_cancel;
}

void JobLoader::run(std::function<void()> body)
{
    cancel();
    if (m_worker.joinable())
        m_worker.join();
    m_cancel = false;
    m_done = false;
    {
        std::lock_guard lock(m_mutex);
        m_states.clear();
    }
    m_worker = std::thread([this, body = std::move(body)] {
        try {
            body();
        } catch (const core::Cancelled &) {
            post([this] { emit cancelled(); });
        } catch (const std::exception &e) {
            const QString message = QString::fromStdString(e.what());
            post([this, message] { emit failed(message); });
        }
        m_done = true;
    });
}

namespace {

int workers(int jobs, std::size_t ranks)
{
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
    run([this, folder, policy, jobs] {
        JobLayout layout = discoverJob({folder.toStdString()});
        if (const QString error = layoutErrors(folder, layout); !error.isEmpty()) {
            post([this, error] { emit failed(error); });
            return;
        }
        {
            std::lock_guard lock(m_mutex);
            for (const RankFiles &r : layout.ranks)
                m_states.push_back({r.rank, QStringLiteral("waiting"), 0});
        }
        post([this, layout] { emit discovered(layout); });

        JobOptions options;
        options.writeEt = false;
        options.checkEt = false;
        options.overview = true;
        options.allowTruncated = true; // a crashed job's last rank: what precedes the cut
        options.link.policy = policy;
        options.progress = [this](const RankProgress &p) { return report(p); };
        std::vector<RankSummary> summaries(layout.ranks.size());
        const int rankWorkers = workers(jobs, layout.ranks.size());
        const core::TaskThreadBudget budget(rankWorkers); // each rank's readers get its share of the cores
        core::forEachIndexOnThreads(
            layout.ranks.size(), rankWorkers,
            [&](std::size_t i) {
                RankSummary s = processRank(layout.ranks[i], options);
                post([this, s] { emit rankLoaded(s); });
                summaries[i] = std::move(s);
            },
            [this] { return m_cancel.load(); });
        if (m_cancel)
            throw core::Cancelled();
        auto doc = std::make_shared<JobDocument>();
        doc->folder = folder;
        doc->policy = policy;
        doc->report = buildJobReport(std::move(summaries), layout.worldSize);
        doc->layout = std::move(layout);
        JobPtr result = std::move(doc);
        post([this, result] { emit finished(result); });
    });
}

void JobLoader::fixAcrossRanks(const JobPtr &job, core::FindingKind kind, core::Policy policy, int jobs)
{
    if (!job)
        return;
    run([this, job, kind, policy, jobs] {
        const JobLayout &layout = job->layout;
        {
            std::lock_guard lock(m_mutex);
            for (const RankFiles &r : layout.ranks)
                m_states.push_back({r.rank, QStringLiteral("waiting"), 0});
        }
        JobFixOptions options;
        options.link.policy = policy;
        options.jobs = workers(jobs, layout.ranks.size());
        options.generator = "linkscope " + QCoreApplication::applicationVersion().toStdString();
        options.progress = [this](std::int64_t rank) { return report({rank, "done", 1}); };
        JobFix fix = applySuggestionsAcrossRanks(layout.ranks, kind, options);
        post([this, fix] { emit fixed(fix); });
    });
}

void JobLoader::exportJob(const JobPtr &job, const QString &outDir, int jobs)
{
    if (!job)
        return;
    run([this, job, outDir, jobs] {
        const JobLayout &layout = job->layout;
        {
            std::lock_guard lock(m_mutex);
            for (const RankFiles &r : layout.ranks)
                m_states.push_back({r.rank, QStringLiteral("waiting"), 0});
        }
        JobOptions options;
        options.outDir = outDir.toStdString();
        options.jobs = workers(jobs, layout.ranks.size());
        // As `linkscope job` without --policy (nesting) or with --policy P.
        options.link.policy = job->policy;
        options.policyGiven = job->policy != core::Policy::Nesting;
        options.progress = [this](const RankProgress &p) { return report(p); };
        checkJobOutputs(layout.ranks, options, true, {});
        std::vector<RankSummary> summaries = processRanks(layout.ranks, options);
        if (m_cancel)
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
        post([this, outDir, summary] { emit exported(outDir, summary); });
    });
}

} // namespace linkscope::ui
