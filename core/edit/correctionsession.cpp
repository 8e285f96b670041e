#include "edit/correctionsession.h"

#include "base/parallel.h"
#include "edit/inputfingerprint.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <system_error>

namespace linkscope::core {

std::string_view sidecarStateName(SidecarState state)
{
    switch (state) {
    case SidecarState::None:
        return "none";
    case SidecarState::Loaded:
        return "loaded";
    case SidecarState::Mismatch:
        return "mismatch";
    case SidecarState::Invalid:
        return "invalid";
    case SidecarState::Forced:
        return "forced";
    }
    return "?";
}

CorrectionSession::CorrectionSession() = default;
CorrectionSession::~CorrectionSession() = default;

SidecarFound readSidecarAt(const std::string &path)
{
    SidecarFound found;
    found.status.path = path;
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        return found;
    try {
        found.sidecar = loadSidecar(path, &found.onDisk);
        found.status.warnings = found.sidecar->warnings;
        found.status.state = SidecarState::Loaded; // until checkSidecar() says otherwise
    } catch (const LoadError &e) {
        found.status.state = SidecarState::Invalid;
        found.status.problems = {e.what()};
    }
    return found;
}

void checkSidecar(SidecarFound &found, const FileFingerprint &device, const std::optional<FileFingerprint> &host, bool force)
{
    found.device = device;
    found.host = host;
    found.inputsError.clear();
    if (!found.sidecar || found.status.state == SidecarState::Invalid)
        return;
    const InputCheck check = checkInputs(*found.sidecar, device, host);
    found.status.problems = check.problems;
    if (check.matches) {
        found.status.state = SidecarState::Loaded;
    } else if (force) {
        found.status.state = SidecarState::Forced;
    } else {
        found.status.state = SidecarState::Mismatch;
        found.status.pending = std::move(found.sidecar);
        found.sidecar.reset();
    }
}

InputPrints fingerprintInputs(const LoadedInputs &inputs)
{
    // Hashing a multi-gigabyte trace takes seconds: the host ET beside the device trace.
    InputPrints prints;
    std::future<FileFingerprint> hostPrint;
    if (!inputs.host.empty())
        hostPrint = runBeside([&inputs] { return fingerprintLoadedFile(inputs.host, inputs.hostIdentity); });
    std::exception_ptr deviceError;
    try {
        prints.device = fingerprintLoadedFile(inputs.device, inputs.deviceIdentity);
    } catch (...) {
        deviceError = std::current_exception();
    }
    std::exception_ptr hostError;
    if (hostPrint.valid()) {
        try {
            prints.host = hostPrint.get(); // joined before an error leaves
        } catch (...) {
            hostError = std::current_exception();
        }
    }
    if (deviceError) // the device trace's first, as the pair pipeline names its errors
        std::rethrow_exception(deviceError);
    if (hostError)
        std::rethrow_exception(hostError);
    return prints;
}

void checkSidecar(SidecarFound &found, const LoadedInputs &inputs, bool force)
{
    InputPrints prints;
    try {
        prints = fingerprintInputs(inputs);
    } catch (const LoadError &e) {
        // Without fingerprints the sidecar cannot be checked, so it is neither applied nor written.
        found.inputsError = e.what();
        if (found.sidecar) {
            found.status.state = SidecarState::Invalid;
            found.status.problems = {e.what()};
            found.sidecar.reset();
        }
        return;
    }
    checkSidecar(found, prints.device, prints.host, force);
}

const SidecarStatus &CorrectionSession::openSidecar(const std::string &path, const FileFingerprint &device,
                                                    const std::optional<FileFingerprint> &host)
{
    SidecarFound found = readSidecarAt(path);
    checkSidecar(found, device, host);
    return adopt(std::move(found));
}

const SidecarStatus &CorrectionSession::adopt(SidecarFound found)
{
    status_ = std::move(found.status);
    device_ = std::move(found.device);
    host_ = std::move(found.host);
    sidecarOnDisk_ = found.onDisk;
    if (found.sidecar && (status_.state == SidecarState::Loaded || status_.state == SidecarState::Forced)) {
        log_ = std::move(found.sidecar->log);
        bookmarks_ = std::move(found.sidecar->bookmarks);
        policy_ = found.sidecar->policy;
        interThreadDeps_ = found.sidecar->interThreadDeps;
        if (attached())
            reapply();
    }
    return status_;
}

bool CorrectionSession::forcePendingSidecar()
{
    if (status_.state != SidecarState::Mismatch || !status_.pending)
        return false;
    log_ = std::move(status_.pending->log);
    bookmarks_ = std::move(status_.pending->bookmarks);
    policy_ = status_.pending->policy;
    interThreadDeps_ = status_.pending->interThreadDeps;
    status_.pending.reset();
    status_.state = SidecarState::Forced;
    if (attached())
        reapply();
    return true;
}

bool CorrectionSession::canSave() const
{
    return device_.has_value() && !status_.path.empty() && status_.state != SidecarState::Mismatch
           && status_.state != SidecarState::Invalid;
}

bool CorrectionSession::save()
{
    if (!canSave()) {
        if (status_.state == SidecarState::Mismatch || status_.state == SidecarState::Invalid)
            lastSaveError_ = status_.path + " was left untouched: it does not belong to these traces ("
                             + std::string(sidecarStateName(status_.state)) + ")";
        else
            lastSaveError_ = "no sidecar location yet";
        return false;
    }
    Sidecar sidecar;
    sidecar.generator = generator;
    sidecar.device = *device_;
    sidecar.host = host_;
    sidecar.policy = policy_;
    sidecar.interThreadDeps = interThreadDeps_;
    sidecar.log = log_;
    sidecar.bookmarks = bookmarks_;
    try {
        sidecarOnDisk_ = saveSidecarIfUnchanged(sidecar, status_.path, sidecarOnDisk_);
    } catch (const std::exception &e) {
        lastSaveError_ = e.what();
        return false;
    }
    lastSaveError_.clear();
    if (status_.state == SidecarState::None)
        status_.state = SidecarState::Loaded;
    return true;
}

void CorrectionSession::autoSave()
{
    if (canSave())
        save();
}

ApplyResult CorrectionSession::attach(std::shared_ptr<const LinkSet> linked, const DeviceTrace &device, const HostTrace *host)
{
    linked_ = std::move(linked);
    deviceTrace_ = &device;
    hostTrace_ = host;
    return reapply();
}

ApplyResult CorrectionSession::reapply()
{
    if (!linked_)
        return {};
    editor_.reset();
    working_ = *linked_;
    editor_ = std::make_unique<LinkEditor>(working_, *deviceTrace_, hostTrace_);
    ApplyResult result;
    outcomes_.clear();
    for (std::size_t i = 0; i < log_.entries.size(); ++i) {
        outcomes_.push_back(editor_->apply(log_.entries[i], i));
        result.outcomes.insert(result.outcomes.end(), outcomes_.back().begin(), outcomes_.back().end());
    }
    return result;
}

std::vector<EditOutcome> CorrectionSession::push(LogEntry entry)
{
    if (!editor_)
        throw std::logic_error("CorrectionSession::push before attach()");
    std::vector<EditOutcome> outcomes = editor_->apply(entry, log_.entries.size());
    log_.entries.push_back(std::move(entry));
    outcomes_.push_back(outcomes);
    autoSave();
    return outcomes;
}

bool CorrectionSession::undo()
{
    if (log_.entries.empty() || !editor_->undoLast())
        return false;
    log_.entries.pop_back();
    outcomes_.pop_back();
    autoSave();
    return true;
}

void CorrectionSession::removeEntry(std::size_t index)
{
    if (index >= log_.entries.size())
        throw std::out_of_range("CorrectionSession::removeEntry: no entry " + std::to_string(index));
    log_.entries.erase(log_.entries.begin() + static_cast<std::ptrdiff_t>(index));
    reapply();
    autoSave();
}

void CorrectionSession::insertEntry(std::size_t index, LogEntry entry)
{
    log_.entries.insert(log_.entries.begin() + static_cast<std::ptrdiff_t>(std::min(index, log_.entries.size())),
                        std::move(entry));
    reapply();
    autoSave();
}

void CorrectionSession::setBookmarks(BookmarkList bookmarks)
{
    sortBookmarks(bookmarks);
    bookmarks_ = std::move(bookmarks);
    autoSave();
}

std::size_t CorrectionSession::insertBookmark(Bookmark bookmark)
{
    const std::size_t index = core::insertBookmark(bookmarks_, std::move(bookmark));
    autoSave();
    return index;
}

void CorrectionSession::insertBookmarkAt(std::size_t index, Bookmark bookmark)
{
    bookmarks_.insert(bookmarks_.begin() + static_cast<std::ptrdiff_t>(std::min(index, bookmarks_.size())), std::move(bookmark));
    autoSave();
}

Bookmark CorrectionSession::eraseBookmark(std::size_t index)
{
    Bookmark removed = std::move(bookmarks_.at(index));
    bookmarks_.erase(bookmarks_.begin() + static_cast<std::ptrdiff_t>(index));
    autoSave();
    return removed;
}

std::string CorrectionSession::renameBookmark(std::size_t index, std::string name)
{
    std::swap(bookmarks_.at(index).name, name);
    autoSave();
    return name;
}

std::size_t CorrectionSession::staleCount() const
{
    std::size_t count = 0;
    for (const auto &entry : outcomes_)
        for (const EditOutcome &o : entry)
            count += o.status == EditStatus::Stale || o.status == EditStatus::Rejected;
    return count;
}

void CorrectionSession::setLinkOptions(Policy policy, bool interThreadDeps)
{
    const bool changed = policy != policy_ || interThreadDeps != interThreadDeps_;
    policy_ = policy;
    interThreadDeps_ = interThreadDeps;
    // An existing sidecar follows the policy in force, so that reopening uses it again.
    if (changed && (status_.state == SidecarState::Loaded || status_.state == SidecarState::Forced))
        autoSave();
}

} // namespace linkscope::core
