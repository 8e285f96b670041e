#include "shell/traceloader.h"

#include "pipeline/pairpipeline.h"

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
    DocumentPtr base;                                // relink: its index and lane rows are reused
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
    // The pipeline's stages as the loader shows them: index, link, corrections and diagnosis are "Link".
    static Stage stageOf(core::PairStage stage)
    {
        switch (stage) {
        case core::PairStage::HostEt:
            return Stage::HostEt;
        case core::PairStage::Device:
            return Stage::Kineto;
        default:
            return Stage::Link;
        }
    }
    core::PairProgressFn pipelineProgress()
    {
        return [this](core::PairStage stage, std::uint64_t done, std::uint64_t total) {
            AtomicStage &s = stages[static_cast<int>(stageOf(stage))];
            s.started = true;
            // Only the loads report fractions worth showing; the link stages share one bar.
            if (stage == core::PairStage::HostEt || stage == core::PairStage::Device || stage == core::PairStage::Link) {
                s.done.store(done, std::memory_order_relaxed);
                s.total.store(total, std::memory_order_relaxed);
            }
            return !cancel.load(std::memory_order_relaxed);
        };
    }
    void begin(Stage stage) { stages[static_cast<int>(stage)].started = true; }
    void finish(Stage stage) { stages[static_cast<int>(stage)].finished = true; }
};

QString TraceLoader::stageName(Stage stage)
{
    switch (stage) {
    case Stage::HostEt:
        return QCoreApplication::translate("TraceLoader", "Host ET");
    case Stage::Kineto:
        return QCoreApplication::translate("TraceLoader", "Kineto");
    case Stage::Link:
        return QCoreApplication::translate("TraceLoader", "Link");
    case Stage::Timeline:
        return QCoreApplication::translate("TraceLoader", "Timeline");
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
    job->base = doc;
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

void TraceLoader::waitForIdle() { m_pool.waitForDone(); }

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
            std::shared_ptr<const core::LinkSet> links;
            std::shared_ptr<const core::ChakraLinks> chakra;
            core::LinkOptions options;
            options.policy = job->policy;
            if (!job->relink) {
                // The two files may come in either order (drag and drop, command line): the pipeline
                // tells them apart by content. The sidecar is the correction session's (it is checked
                // and applied there, and written after every edit).
                core::PairRequest request;
                request.files = {job->hostPath.toStdString(), job->devicePath.toStdString()};
                request.resolveOrder = true;
                request.link = options;
                request.progress = job->pipelineProgress();
                // A truncated trace opens with what precedes the cut and a warning naming the byte.
                request.allowTruncated = true;
                core::OpenedPair pair = core::openPair(request);
                job->finish(Stage::HostEt);
                job->finish(Stage::Kineto);
                host = std::move(pair.host);
                device = std::move(pair.device);
                links = std::move(pair.linked);
                // What Chakra's linker would do, for the summary on the first screen (compared_with_chakra).
                chakra = std::make_shared<const core::ChakraLinks>(
                    core::linkUnderChakra(*device, host.get(), links->index, options));
                job->hostPath = QString::fromStdString(pair.files.host);
                job->devicePath = QString::fromStdString(pair.files.device);
            } else {
                // The same index (built once per load): the lane rows and LOD summaries are shared.
                links = core::linkPair(*device, host.get(), job->base->links().index, options, job->pipelineProgress());
            }
            job->finish(Stage::Link);
            job->begin(Stage::Timeline);
            DocumentPtr doc = job->relink ? TraceDocument::createWithLinks(job->base, links, &job->cancel)
                                          : TraceDocument::create(job->hostPath, job->devicePath, host, device, links,
                                                                  &job->cancel, chakra);
            job->finish(Stage::Timeline);

            // A relink read nothing: only the linker's warnings are new.
            const QStringList warnings = job->relink ? loadWarnings(nullptr, nullptr, *links)
                                                     : loadWarnings(host.get(), device.get(), *links);
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

QStringList loadWarnings(const core::HostTrace *host, const core::DeviceTrace *device, const core::LinkSet &links)
{
    QStringList warnings;
    auto collect = [&warnings](const std::vector<core::Diagnostic> &list) {
        for (const core::Diagnostic &d : list)
            warnings << QString::fromStdString(d.toString());
    };
    if (host)
        collect(host->warnings);
    if (device)
        collect(device->warnings);
    collect(links.warnings);
    return warnings;
}

} // namespace linkscope::ui
