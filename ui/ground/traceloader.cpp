#include "ground/traceloader.h"

#include "link/chakracompare.h"

#include <QCoreApplication>

#include <array>
#include <exception>

namespace linkscope::ui {

QString loadStageName(int stage)
{
    if (stage == kTimelineStage)
        return QCoreApplication::translate("TraceLoader", "Timeline");
    switch (static_cast<core::PairStage>(stage)) {
    case core::PairStage::HostEt:
        return QCoreApplication::translate("TraceLoader", "Host ET");
    case core::PairStage::Device:
        return QCoreApplication::translate("TraceLoader", "Kineto");
    case core::PairStage::Index:
        return QCoreApplication::translate("TraceLoader", "Index");
    case core::PairStage::Link:
        return QCoreApplication::translate("TraceLoader", "Link");
    case core::PairStage::Corrections:
        return QCoreApplication::translate("TraceLoader", "Corrections");
    case core::PairStage::Diagnose:
        return QCoreApplication::translate("TraceLoader", "Diagnose");
    }
    return {};
}

OpenedDocuments openDocuments(const QString &hostPath, const QString &devicePath, core::Policy policy,
                              const core::PairProgressFn &progress, const std::atomic<bool> *cancel)
{
    // The two files may come in either order (drag and drop, command line): the pipeline tells them
    // apart by content. The sidecar beside the device trace is fingerprinted, checked and applied
    // there, and the pair linked once, under its policy when it applies.
    core::PairRequest request;
    request.files = {hostPath.toStdString(), devicePath.toStdString()};
    request.resolveOrder = true;
    request.link.policy = policy;
    request.policyGiven = false;
    request.sidecarUse = core::SidecarUse::Session;
    request.progress = progress;
    // A truncated trace opens with what precedes the cut and a warning naming the byte.
    request.allowTruncated = true;
    core::OpenedPair pair = core::openPair(request);
    if (progress && !progress(static_cast<core::PairStage>(kTimelineStage), 0, 0))
        throw core::Cancelled();
    // What Chakra's linker would do, for the summary on the first screen (compared_with_chakra).
    auto chakra = std::make_shared<const core::ChakraLinks>(
        core::linkUnderChakra(*pair.device, pair.host.get(), pair.index, pair.options));
    OpenedDocuments out;
    out.linked = TraceDocument::create(QString::fromStdString(pair.files.host), QString::fromStdString(pair.files.device),
                                       pair.host, pair.device, pair.linked, cancel, chakra, pair.files.deviceFormat);
    // The corrected links share all but what the sidecar's edits changed, and so do the documents.
    out.shown = pair.links == pair.linked ? out.linked : TraceDocument::createWithLinks(out.linked, pair.links, cancel);
    out.warnings = loadWarnings(pair.host.get(), pair.device.get(), *pair.linked);
    out.sidecar = std::make_shared<const core::SidecarFound>(std::move(pair.found));
    out.corrections = pair.corrections.count(core::EditStatus::Applied);
    out.askedPolicy = policy;
    return out;
}

struct TraceLoader::Progress {
    struct Stage {
        std::atomic<std::uint64_t> done{0};
        std::atomic<std::uint64_t> total{0};
        std::atomic<bool> used{false};
        std::atomic<bool> started{false};
        std::atomic<bool> finished{false};
    };
    std::array<Stage, kLoadStageCount> stages;

    // The bar a stage shows on: indexing and the diagnosis take moments, they share Link's.
    static int barOf(int stage)
    {
        const auto s = static_cast<core::PairStage>(stage);
        return stage < core::kPairStageCount && (s == core::PairStage::Index || s == core::PairStage::Diagnose)
                   ? static_cast<int>(core::PairStage::Link)
                   : stage;
    }
    void use(int stage) { stages[stage].used = true; }
    void report(int stage, std::uint64_t done, std::uint64_t total)
    {
        const int bar = barOf(stage);
        // The stages run in order (the two loads side by side, both before the index): one that
        // reports ends the ones before it.
        for (int s = 0; s < bar; ++s)
            if (stages[s].started.load(std::memory_order_relaxed))
                stages[s].finished = true;
        stages[bar].started = true;
        // Only the loads and the link report fractions worth showing; the others show as busy.
        const auto s = static_cast<core::PairStage>(stage);
        if (stage < core::kPairStageCount
            && (s == core::PairStage::HostEt || s == core::PairStage::Device || s == core::PairStage::Link)) {
            stages[bar].done.store(done, std::memory_order_relaxed);
            stages[bar].total.store(total, std::memory_order_relaxed);
        }
    }
    void finishAll()
    {
        for (Stage &s : stages)
            s.finished = true;
    }
};

TraceLoader::TraceLoader(QObject *parent) : QObject(parent), m_progress(std::make_shared<Progress>()) { }

TraceLoader::~TraceLoader() { m_job.cancel(); }

void TraceLoader::load(const QString &hostPath, const QString &devicePath, core::Policy policy)
{
    std::vector<core::PairStage> stages{core::PairStage::Device, core::PairStage::Link, core::PairStage::Corrections};
    if (!hostPath.isEmpty() && !devicePath.isEmpty())
        stages.push_back(core::PairStage::HostEt);
    start(false, stages, [hostPath, devicePath, policy](const core::PairProgressFn &progress, const JobToken &token) {
        return openDocuments(hostPath, devicePath, policy, progress, token.flag());
    });
}

void TraceLoader::relink(const DocumentPtr &doc, core::Policy policy)
{
    if (!doc)
        return;
    start(true, {core::PairStage::Link}, [doc, policy](const core::PairProgressFn &progress, const JobToken &token) {
        core::LinkOptions options;
        options.policy = policy;
        // The same index (built once per load): the lane rows and LOD summaries are shared.
        auto links = core::linkPair(doc->device(), doc->host(), doc->links().index, options, progress);
        progress(static_cast<core::PairStage>(kTimelineStage), 0, 0);
        OpenedDocuments out;
        out.linked = TraceDocument::createWithLinks(doc, links, token.flag());
        out.shown = out.linked;
        // A relink read nothing: only the linker's warnings are new.
        out.warnings = loadWarnings(nullptr, nullptr, *links);
        out.relink = true;
        return out;
    });
}

void TraceLoader::start(bool relink, const std::vector<core::PairStage> &shown,
                        std::function<OpenedDocuments(const core::PairProgressFn &, const JobToken &)> work)
{
    // A fresh record per job: the one superseded may still write to its own.
    auto progress = std::make_shared<Progress>();
    for (core::PairStage stage : shown)
        progress->use(static_cast<int>(stage));
    progress->use(kTimelineStage);
    m_progress = progress;
    auto links = m_links;
    m_job.start([this, progress, links, relink, work = std::move(work)](const JobToken &token) {
        const core::PairProgressFn report = [progress, links, token](core::PairStage stage, std::uint64_t done,
                                                                     std::uint64_t total) {
            if (stage == core::PairStage::Diagnose)
                ++*links; // the diagnosis closes every run of the link stage (pipeline/pairpipeline.h linkPair)
            progress->report(static_cast<int>(stage), done, total);
            return !token.cancelled();
        };
        try {
            auto opened = std::make_shared<OpenedDocuments>(work(report, token));
            progress->finishAll();
            opened->relink = relink;
            token.post([this, opened] { emit finished(opened); });
        } catch (const core::Cancelled &) {
            throw; // cancel() already told the GUI; a superseded job has nothing to say
        } catch (const std::exception &e) {
            const QString message = QString::fromUtf8(e.what());
            token.post([this, message] { emit failed(message); });
        } catch (...) {
            token.post([this] { emit failed(tr("Unknown error while loading")); });
        }
    });
    emit started(relink);
}

void TraceLoader::cancel()
{
    if (m_job.cancel())
        emit cancelled();
}

std::vector<TraceLoader::StageProgress> TraceLoader::progress() const
{
    std::vector<StageProgress> out(kLoadStageCount);
    if (!isBusy())
        return out;
    for (int i = 0; i < kLoadStageCount; ++i) {
        const auto &s = m_progress->stages[i];
        out[i] = {s.done.load(std::memory_order_relaxed), s.total.load(std::memory_order_relaxed), s.used.load(),
                  s.started.load(), s.finished.load()};
    }
    return out;
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
