#include "pipeline/pairpipeline.h"

#include "base/parallel.h"
#include "index/traceindex.h"
#include "link/linker.h"

#include <atomic>
#include <exception>
#include <future>
#include <utility>

namespace linkscope::core {

std::string_view pairStageName(PairStage stage)
{
    switch (stage) {
    case PairStage::HostEt:
        return "host ET";
    case PairStage::Device:
        return "device trace";
    case PairStage::Index:
        return "index";
    case PairStage::Link:
        return "link";
    case PairStage::Corrections:
        return "corrections";
    case PairStage::Diagnose:
        return "diagnose";
    }
    return "?";
}

PairFiles resolvePairFiles(const std::string &first, const std::string &second)
{
    auto isRole = [](const InputFormat *format, TraceRole role) { return format && format->role == role; };
    const InputFormat *a = detectInputFormat(first);
    if (second.empty()) {
        if (isRole(a, TraceRole::Host))
            throw LoadError(first, 0, "this is a host execution trace; open it together with its Kineto trace");
        return {{}, first, nullptr, a};
    }
    const InputFormat *b = detectInputFormat(second);
    // The host first unless the first file is the device trace and the second is not.
    if (isRole(a, TraceRole::Device) && !isRole(b, TraceRole::Device))
        return {second, first, b, a};
    return {first, second, a, b};
}

namespace {

// A stage's ProgressFn: reports to the request's callback and stops when `stop` is set (the other
// load failed) or the callback asks to.
ProgressFn stageProgress(const PairProgressFn &progress, PairStage stage, const std::atomic<bool> *stop)
{
    if (!progress && !stop)
        return {};
    return [&progress, stage, stop](std::uint64_t done, std::uint64_t total) {
        if (stop && stop->load(std::memory_order_relaxed))
            return false;
        return !progress || progress(stage, done, total);
    };
}

void report(const PairProgressFn &progress, PairStage stage, std::uint64_t done, std::uint64_t total)
{
    if (progress && !progress(stage, done, total))
        throw Cancelled();
}

} // namespace

std::shared_ptr<const LinkSet> linkPair(const DeviceTrace &device, const HostTrace *host, std::shared_ptr<const TraceIndex> index,
                                        const LinkOptions &options, const PairProgressFn &progress)
{
    LinkOptions linkOptions = options;
    linkOptions.progress = stageProgress(progress, PairStage::Link, nullptr);
    // The linker runs the diagnosis stage on its own links as it finishes (link/diagnose.h).
    auto links = std::make_shared<const LinkSet>(linkWithIndex(device, host, std::move(index), linkOptions));
    report(progress, PairStage::Diagnose, 1, 1);
    return links;
}

std::shared_ptr<const LinkSet> relinkPair(const OpenedPair &pair, const LinkOptions &options, const PairProgressFn &progress)
{
    return linkPair(*pair.device, pair.host.get(), pair.index, options, progress);
}

std::shared_ptr<const LinkSet> correctLinks(const std::shared_ptr<const LinkSet> &linked, const CorrectionLog &log,
                                            const DeviceTrace &device, const HostTrace *host, ApplyResult *outcomes)
{
    LinkSet corrected = *linked; // shares every chunk and array until an edit writes to one
    ApplyResult result = applyCorrections(log, corrected, device, host);
    if (outcomes)
        *outcomes = std::move(result);
    return std::make_shared<const LinkSet>(std::move(corrected));
}

namespace {

// The correct stage: fingerprint the loaded inputs → check the sidecar against them → apply its
// log to the linker's links when it matches (or is forced). The one place a sidecar is checked and
// applied: the commands, the GUI, a rank pane and a fix across ranks all come through here.
void correctStage(OpenedPair &pair, SidecarFound found, const PairRequest &request)
{
    report(request.progress, PairStage::Corrections, 0, 1);
    // Of the files that were parsed: a path replaced since the load is refused (edit/inputfingerprint.h).
    const LoadedInputs inputs{pair.files.device, pair.device->sourceIdentity, pair.files.host,
                              pair.host ? pair.host->sourceIdentity : FileIdentity{}};
    if (request.sidecarUse == SidecarUse::Session) {
        checkSidecar(found, inputs, request.forceSidecar);
        if (!found.applies() && !request.policyGiven
            && (pair.options.policy != request.link.policy || pair.options.interThreadDeps != request.link.interThreadDeps)) {
            // Linked under the options of a sidecar that turned out to be of other inputs: as asked instead.
            pair.options = request.link;
            pair.options.progress = {};
            pair.linked = linkPair(*pair.device, pair.host.get(), pair.index, pair.options, request.progress);
            pair.links = pair.linked;
        }
    } else {
        const InputPrints prints = fingerprintInputs(inputs); // a command stops on its LoadError
        checkSidecar(found, prints.device, prints.host, request.forceSidecar);
    }
    if (found.sidecar || found.status.pending) {
        pair.sidecar = found.sidecar ? found.sidecar : found.status.pending;
        pair.sidecarCheck.matches = found.status.state == SidecarState::Loaded;
        pair.sidecarCheck.problems = found.status.problems;
    }
    if (found.applies()) {
        pair.links = correctLinks(pair.linked, found.sidecar->log, *pair.device, pair.host.get(), &pair.corrections);
        pair.sidecarApplied = true;
    }
    pair.found = std::move(found);
    report(request.progress, PairStage::Corrections, 1, 1);
}

} // namespace

OpenedPair openPair(const PairRequest &request)
{
    OpenedPair pair;
    pair.files = request.resolveOrder ? resolvePairFiles(request.files.host.empty() ? request.files.device : request.files.host,
                                                         request.files.host.empty() ? std::string() : request.files.device)
                                      : request.files;
    pair.options = request.link;
    pair.options.progress = {};

    // The sidecar first: a malformed one stops a command before minutes of loading, and its policy
    // is the one to link under unless the caller chose one.
    const bool session = request.sidecarUse == SidecarUse::Session;
    const std::string sidecarPath = !request.sidecar.empty() ? request.sidecar
                                    : session                ? defaultSidecarPath(pair.files.device)
                                                             : std::string();
    SidecarFound found;
    if (session) {
        found = readSidecarAt(sidecarPath);
    } else if (!sidecarPath.empty()) {
        found.status.path = sidecarPath;
        found.sidecar = loadSidecar(sidecarPath, &found.onDisk);
        found.status.warnings = found.sidecar->warnings;
        found.status.state = SidecarState::Loaded; // until it is checked
    }
    if (found.sidecar) {
        if (!request.policyGiven)
            pair.options.policy = found.sidecar->policy;
        pair.options.interThreadDeps = pair.options.interThreadDeps || found.sidecar->interThreadDeps;
    }

    // Host and device in parallel: the host on another thread, the device here. When one fails the
    // other is told to stop (its progress callback returns false) and the first error is thrown.
    // A task with one core (a rank of a job that shares the cores out) loads them one after the other.
    std::atomic<bool> stop{false};
    std::future<HostTrace> hostFuture;
    if (!pair.files.host.empty()) {
        const ProgressFn hostProgress = stageProgress(request.progress, PairStage::HostEt, &stop);
        const LoadOptions loadOptions{request.allowTruncated};
        hostFuture = runBeside([path = pair.files.host, format = pair.files.hostFormat, hostProgress, loadOptions] {
            return loadHostTrace(path, hostProgress, loadOptions, format);
        });
    }
    std::exception_ptr deviceError;
    try {
        pair.files.deviceFormat = &inputFormatFor(pair.files.device, TraceRole::Device, pair.files.deviceFormat);
        pair.device = std::make_shared<const DeviceTrace>(
            loadDeviceTrace(pair.files.device, stageProgress(request.progress, PairStage::Device, &stop),
                            LoadOptions{request.allowTruncated}, pair.files.deviceFormat));
        // The index needs the device trace only: built here, while the host ET (usually the larger
        // and slower of the two) is still being read on the other thread. Its stage is reported
        // once both loads are done, so that progress still runs load, index, link.
        pair.index = indexTrace(*pair.device);
    } catch (...) {
        deviceError = std::current_exception();
        stop = true;
    }
    if (hostFuture.valid()) {
        std::exception_ptr hostError;
        try {
            pair.host = std::make_shared<const HostTrace>(hostFuture.get());
        } catch (...) {
            hostError = std::current_exception();
        }
        // The device's error first (the host's may only be the Cancelled it caused), then the host's.
        if (deviceError)
            std::rethrow_exception(deviceError);
        if (hostError)
            std::rethrow_exception(hostError);
    }
    if (deviceError)
        std::rethrow_exception(deviceError);

    report(request.progress, PairStage::Index, 0, 1);
    report(request.progress, PairStage::Index, 1, 1);
    pair.linked = linkPair(*pair.device, pair.host.get(), pair.index, pair.options, request.progress);
    pair.links = pair.linked;

    if (session || found.sidecar)
        correctStage(pair, std::move(found), request);
    return pair;
}

} // namespace linkscope::core
