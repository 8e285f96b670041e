#include "traceloader.h"

#include "io/tracereader.h"
#include "link/linker.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>

#include <array>
#include <exception>

namespace linkscope::ui {

struct TraceLoader::Job {
    quint64 generation = 0;
    bool relink = false;
    QString hostPath;
    QString devicePath;
    core::Policy policy = core::Policy::Nesting;
    std::shared_ptr<const core::HostTrace> host;     // relink: reused
    std::shared_ptr<const core::DeviceTrace> device; // relink: reused
    std::atomic<bool> cancel{false};
    struct AtomicStage {
        std::atomic<std::uint64_t> done{0};
        std::atomic<std::uint64_t> total{0};
        std::atomic<bool> used{false};
        std::atomic<bool> started{false};
        std::atomic<bool> finished{false};
    };
    std::array<AtomicStage, kStageCount> stages;

    core::ProgressFn progressFor(Stage stage)
    {
        AtomicStage &s = stages[static_cast<int>(stage)];
        s.started = true;
        return [this, &s](std::uint64_t done, std::uint64_t total) {
            s.done.store(done, std::memory_order_relaxed);
            s.total.store(total, std::memory_order_relaxed);
            return !cancel.load(std::memory_order_relaxed);
        };
    }
    void begin(Stage stage) { stages[static_cast<int>(stage)].started = true; }
    void finish(Stage stage) { stages[static_cast<int>(stage)].finished = true; }
};

QString TraceLoader::stageName(Stage stage)
{
    switch (stage) {
    case Stage::HostEt: return QCoreApplication::translate("TraceLoader", "Host ET");
    case Stage::Kineto: return QCoreApplication::translate("TraceLoader", "Kineto");
    case Stage::Link: return QCoreApplication::translate("TraceLoader", "Link");
    case Stage::Timeline: return QCoreApplication::translate("TraceLoader", "Timeline");
    }
    return {};
}

TraceLoader::TraceLoader(QObject *parent) : QObject(parent)
{
    // Own pool: a load must not wait behind (or starve) other users of the global pool.
    m_pool.setMaxThreadCount(4);
}

TraceLoader::~TraceLoader()
{
    cancel();
    m_pool.waitForDone();
}

void TraceLoader::load(const QString &hostPath, const QString &devicePath, core::Policy policy)
{
    auto job = std::make_shared<Job>();
    job->hostPath = hostPath;
    job->devicePath = devicePath;
    job->policy = policy;
    job->stages[static_cast<int>(Stage::HostEt)].used = !hostPath.isEmpty();
    job->stages[static_cast<int>(Stage::Kineto)].used = true;
    job->stages[static_cast<int>(Stage::Link)].used = true;
    job->stages[static_cast<int>(Stage::Timeline)].used = true;
    start(std::move(job));
}

void TraceLoader::relink(const DocumentPtr &doc, core::Policy policy)
{
    if (!doc)
        return;
    auto job = std::make_shared<Job>();
    job->relink = true;
    job->hostPath = doc->hostPath();
    job->devicePath = doc->devicePath();
    job->policy = policy;
    job->host = doc->hostShared();
    job->device = doc->deviceShared();
    job->stages[static_cast<int>(Stage::Link)].used = true;
    job->stages[static_cast<int>(Stage::Timeline)].used = true;
    start(std::move(job));
}

void TraceLoader::cancel()
{
    if (m_job) {
        m_job->cancel = true;
        m_job.reset();
        ++m_generation; // whatever the cancelled job still delivers is stale
        emit cancelled();
    }
}

void TraceLoader::waitForIdle()
{
    m_pool.waitForDone();
}

std::vector<TraceLoader::StageProgress> TraceLoader::progress() const
{
    std::vector<StageProgress> out(kStageCount);
    if (!m_job)
        return out;
    for (int i = 0; i < kStageCount; ++i) {
        const auto &s = m_job->stages[i];
        out[i] = {s.done.load(std::memory_order_relaxed), s.total.load(std::memory_order_relaxed), s.used.load(),
                  s.started.load(), s.finished.load()};
    }
    return out;
}

void TraceLoader::deliver(quint64 generation, std::function<void()> handler)
{
    // Runs `handler` on the GUI thread if no newer request was made meanwhile. The destructor
    // waits for the pool, so `this` outlives every queued call posted here.
    QMetaObject::invokeMethod(
        this,
        [this, generation, handler = std::move(handler)] {
            if (generation != m_generation)
                return;
            m_job.reset();
            handler();
        },
        Qt::QueuedConnection);
}

void TraceLoader::start(std::shared_ptr<Job> job)
{
    if (m_job)
        m_job->cancel = true; // superseded
    job->generation = ++m_generation;
    m_job = job;
    emit started(job->relink);

    (void)QtConcurrent::run(&m_pool, [this, job] {
        const quint64 generation = job->generation;
        try {
            std::shared_ptr<const core::HostTrace> host = job->host;
            std::shared_ptr<const core::DeviceTrace> device = job->device;
            if (!job->relink) {
                std::string hostPath = job->hostPath.toStdString();
                std::string devicePath = job->devicePath.toStdString();
                // The two files may come in either order (drag and drop, command line).
                if (!hostPath.empty()) {
                    const core::TraceKind first = core::sniffTraceKind(hostPath);
                    const core::TraceKind second = core::sniffTraceKind(devicePath);
                    if (first == core::TraceKind::Kineto && second != core::TraceKind::Kineto)
                        std::swap(hostPath, devicePath);
                } else if (core::sniffTraceKind(devicePath) == core::TraceKind::HostEt) {
                    throw core::LoadError(devicePath, 0,
                                          "this is a host execution trace; open it together with its Kineto "
                                          "trace (File ▸ Open pair…)");
                }
                // Host and device in parallel: the host on another pool thread, the device here.
                // Exceptions cross threads as exception_ptr: QFuture would wrap a std::exception
                // in QUnhandledException and lose the LoadError's type.
                using HostResult = std::pair<std::shared_ptr<const core::HostTrace>, std::exception_ptr>;
                QFuture<HostResult> hostFuture;
                if (!hostPath.empty()) {
                    hostFuture = QtConcurrent::run(&m_pool, [job, hostPath]() -> HostResult {
                        try {
                            auto trace = std::make_shared<const core::HostTrace>(
                                core::readHostTrace(hostPath, job->progressFor(Stage::HostEt)));
                            job->finish(Stage::HostEt);
                            return {std::move(trace), nullptr};
                        } catch (...) {
                            return {nullptr, std::current_exception()};
                        }
                    });
                }
                std::exception_ptr deviceError;
                try {
                    device = std::make_shared<const core::DeviceTrace>(
                        core::readKinetoTrace(devicePath, job->progressFor(Stage::Kineto)));
                    job->finish(Stage::Kineto);
                } catch (...) {
                    deviceError = std::current_exception();
                    job->cancel = true; // no point finishing the host
                }
                if (!hostPath.empty()) {
                    HostResult result = hostFuture.result();
                    if (deviceError)
                        std::rethrow_exception(deviceError);
                    if (result.second)
                        std::rethrow_exception(result.second);
                    host = std::move(result.first);
                }
                if (deviceError)
                    std::rethrow_exception(deviceError);
                job->hostPath = QString::fromStdString(hostPath);
                job->devicePath = QString::fromStdString(devicePath);
            }
            core::LinkOptions options;
            options.policy = job->policy;
            options.progress = job->progressFor(Stage::Link);
            auto links = std::make_shared<const core::LinkSet>(core::linkTraces(*device, host.get(), options));
            job->finish(Stage::Link);
            job->begin(Stage::Timeline);
            DocumentPtr doc = TraceDocument::create(job->hostPath, job->devicePath, host, device, links, &job->cancel);
            job->finish(Stage::Timeline);

            QStringList warnings;
            auto collect = [&warnings](const std::vector<core::Diagnostic> &list) {
                for (const core::Diagnostic &d : list)
                    warnings << QString::fromStdString(d.toString());
            };
            if (!job->relink) {
                if (host)
                    collect(host->warnings);
                collect(device->warnings);
            }
            collect(links->warnings);
            const bool relink = job->relink;
            deliver(generation, [this, doc, warnings, relink] { emit finished(doc, warnings, relink); });
        } catch (const core::Cancelled &) {
            // cancel() already told the GUI; a superseded job has nothing to say.
        } catch (const std::exception &e) {
            const QString message = QString::fromUtf8(e.what());
            deliver(generation, [this, message] { emit failed(message); });
        } catch (...) {
            deliver(generation, [this] { emit failed(tr("Unknown error while loading")); });
        }
    });
}

} // namespace linkscope::ui
