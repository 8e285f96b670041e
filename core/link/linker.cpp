#include "link/linker.h"

#include "base/parallel.h"
#include "link/diagnose.h"
#include "link/edgebuilder.h"
#include "link/exclusivedurations.h"
#include "link/gpuoplinker.h"
#include "link/hostjoin.h"
#include "link/launchcontexts.h"
#include "link/launchindex.h"
#include "link/linkfindings.h"
#include "link/threadcandidates.h"

#include <future>

namespace linkscope::core {

namespace {

// The link stage in order (docs/architecture.md, "The linker"): each pass is a class or function of its
// own in core/link/; this runs them, reports progress and puts their results into the LinkSet.
class Linker {
public:
    Linker(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index, const LinkOptions &options)
        : device_(device), host_(host), options_(options), index_(std::move(index))
    {
    }

    LinkSet run()
    {
        linkSet_.policy = options_.policy;
        checkProgress(0);
        if (!index_)
            index_ = indexTrace(device_);
        linkSet_.index = index_;
        linkSet_.warnings = index_->warnings;
        checkProgress(1);
        // The launch index reads the device trace only: built beside the host join, the candidate lists
        // and the exclusive durations when the task has a second core.
        std::future<LaunchIndex> launchIndex = runBeside([this] { return LaunchIndex(device_); });
        joinHost();
        checkProgress(2);
        ThreadCandidates candidates(device_, *index_, host_, hostOfEvent_);
        linkSet_.exclusiveDur = exclusiveDurations(device_, *index_, linkSet_.warnings);
        checkProgress(3);
        const LaunchIndex launches = launchIndex.get();
        const std::vector<LaunchContext> contexts = findLaunchContexts(device_, *index_, launches, candidates.chakraInTimeOrder(),
                                                                       [this](std::size_t) { checkProgress(3); });
        linkGpuOps(candidates, launches, contexts);
        if (linkSet_.gpuLinks.empty())
            linkSet_.warnings.push_back(Diagnostic{Diagnostic::Severity::Info, device_.path, kUnknownOffset,
                                                   "the device trace has no GPU op (kernel, memcpy, memset): a CPU-only "
                                                   "capture; only CPU ops and their durations are available"});
        // The diagnosis reads the links and the evidence and writes the per-op findings; the edges read
        // the links: the two run side by side.
        std::vector<Finding> perOp;
        std::vector<std::uint32_t> perOpBegin;
        std::future<void> diagnosis = diagnoseGpuOps(candidates, perOp, perOpBegin);
        checkProgress(8);
        LinkEdges edges = EdgeBuilder(device_, *index_, candidates, launches, hostOfEvent_, requireHostNode_)
                              .build(linkSet_.gpuLinks, contexts, options_);
        diagnosis.get();
        linkSet_.edges = std::move(edges.edges);
        linkSet_.blocking = std::make_shared<const std::vector<BlockingWait>>(std::move(edges.blocking));
        std::vector<Finding> hostSide = hostSideFindings(device_, host_, linkSet_.join, hostOfEvent_, eventOfHost_, candidates);
        linkSet_.findings = FindingList(launches.duplicateCorrelationFindings(), std::move(perOp), std::move(perOpBegin),
                                        std::move(hostSide));
        linkSet_.gpuLinkOf = std::move(gpuLinkOf_);
        linkSet_.hostOfEvent = std::move(hostOfEvent_);
        linkSet_.eventOfHost = std::move(eventOfHost_);
        checkProgress(kProgressTotal);
        return std::move(linkSet_);
    }

private:
    static constexpr std::uint64_t kProgressTotal = 10;

    void checkProgress(std::uint64_t done)
    {
        if (options_.progress && !options_.progress(done, kProgressTotal))
            throw Cancelled();
    }

    void joinHost()
    {
        if (!host_) {
            hostOfEvent_.assign(device_.events.size(), kNone);
            return;
        }
        HostJoin join = joinHostToDevice(*host_, device_);
        hostOfEvent_ = std::move(join.hostOfEvent);
        eventOfHost_ = std::move(join.eventOfHost);
        linkSet_.join = join.stats;
        for (Diagnostic &d : join.warnings)
            linkSet_.warnings.push_back(std::move(d));
        // Without any joined op there is nothing to walk up to: link as for a Kineto-only trace and say why.
        requireHostNode_ = linkSet_.join.matched > 0;
    }

    void linkGpuOps(const ThreadCandidates &candidates, const LaunchIndex &launches, const std::vector<LaunchContext> &contexts)
    {
        GpuOpLinker linker(device_, candidates, launches, hostOfEvent_, requireHostNode_, options_);
        gpuLinkOf_.assign(device_.events.size(), kNone);
        std::size_t count = 0;
        for (EventIndex g{0}; g.get() < device_.events.size(); ++g) {
            const DeviceEvent &gpu = device_.events[g.get()];
            if (gpu.phase != Phase::Complete || !isGpuOpCategory(gpu.category))
                continue;
            if ((++count & 0xFFF) == 0)
                checkProgress(3 + std::min<std::uint64_t>(4, count * 4 / (device_.events.size() + 1)));
            gpuLinkOf_[g.get()] = GpuLinkIndex::at(linkSet_.gpuLinks.size());
            GpuOpLinker::Result result = linker.link(g, contexts[count - 1]);
            linkSet_.gpuLinks.push_back(std::move(result.link));
            evidence_->launches.push_back(result.evidence);
        }
    }

    // The diagnosis stage on the linker's own links (the same code re-derives a corrected op's).
    // Returns the running diagnosis (deferred, run by get(), when the task has one thread).
    std::future<void> diagnoseGpuOps(ThreadCandidates &candidates, std::vector<Finding> &perOp,
                                     std::vector<std::uint32_t> &perOpBegin)
    {
        evidence_->opParent = candidates.releaseNestParents();
        linkSet_.evidence = evidence_;
        return runBeside([this, &perOp, &perOpBegin] { diagnoseEveryGpuOp(device_, linkSet_, perOp, perOpBegin); });
    }

    const DeviceTrace &device_;
    const HostTrace *host_;
    const LinkOptions &options_;
    std::shared_ptr<const TraceIndex> index_;
    LinkSet linkSet_;
    bool requireHostNode_ = false;
    std::vector<GpuLinkIndex> gpuLinkOf_;    // event → its GpuLink, none for other events
    std::vector<HostNodeIndex> hostOfEvent_; // the host join's: event → ET node, none
    std::vector<EventIndex> eventOfHost_;    // the host join's: ET node → event, none
    std::shared_ptr<LinkEvidence> evidence_ = std::make_shared<LinkEvidence>();
};

} // namespace

LinkSet linkTraces(const DeviceTrace &device, const HostTrace *host, const LinkOptions &options)
{
    return Linker(device, host, nullptr, options).run();
}

LinkSet linkWithIndex(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                      const LinkOptions &options)
{
    return Linker(device, host, std::move(index), options).run();
}

} // namespace linkscope::core
