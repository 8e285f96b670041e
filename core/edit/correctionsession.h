#pragma once
// The corrections of one open trace pair: the log, the links it produces, and its sidecar.
// The GUI wraps each change in an undo command that calls push()/undo()/removeEntry()/insertEntry();
// the command line and the tests drive it directly.
//
// The linker's LinkSet is never modified: the session works on its own copy (working()), which
// the caller snapshots to display. On a relink or policy change, attach() re-applies the whole
// log to the new links.

#include "edit/correction.h"
#include "edit/sidecar.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::core {

enum class SidecarState : std::uint8_t {
    None,     // no sidecar file yet: the first edit creates it
    Loaded,   // read, inputs match, applied
    Mismatch, // read, but made from other inputs: not applied, never written (until forced)
    Invalid,  // unreadable / malformed: not applied, never written
    Forced,   // mismatched, applied anyway at the user's request; saving rewrites it for these inputs
};
std::string_view sidecarStateName(SidecarState state);

struct SidecarStatus {
    SidecarState state = SidecarState::None;
    std::string path;
    std::vector<std::string> problems; // input mismatches, or the load error
    std::vector<std::string> warnings; // what reading it cut (Sidecar::warnings)
    std::optional<Sidecar> pending;    // a mismatched sidecar, kept so that it can be forced
};

// The files of a pair as they were parsed (their identities at load: a path replaced since is refused).
struct LoadedInputs {
    std::string device;
    FileIdentity deviceIdentity;
    std::string host; // empty: a device trace alone
    FileIdentity hostIdentity;
};

// A pair's sidecar found beside its loaded inputs: read, the inputs fingerprinted, and the one
// checked against the other. The pair pipeline makes it (openPair, pipeline/pairpipeline.h) and a
// session starts from it (CorrectionSession::adopt) without reading or hashing anything again.
struct SidecarFound {
    SidecarStatus status;                  // path; state (None: no file; Loaded: matches); problems; pending
    std::optional<Sidecar> sidecar;        // the file read, matching (Loaded, Forced)
    FileIdentity onDisk;                   // the file as read (unknown: there was none)
    std::optional<FileFingerprint> device; // the inputs' fingerprints; absent: `inputsError` says why
    std::optional<FileFingerprint> host;
    std::string inputsError; // the inputs could not be fingerprinted: the sidecar is neither checked nor written
    bool applies() const { return sidecar && (status.state == SidecarState::Loaded || status.state == SidecarState::Forced); }
};

struct InputPrints {
    FileFingerprint device;
    std::optional<FileFingerprint> host;
};
// The loaded inputs' fingerprints, the host ET hashed beside the device trace. Throws LoadError when
// a path no longer names the file that was parsed, or it changed (edit/inputfingerprint.h).
InputPrints fingerprintInputs(const LoadedInputs &inputs);

// Reads the sidecar at `path`: no file gives state None, an unreadable or malformed one Invalid
// (the problem named); a file read is checked next (checkSidecar).
SidecarFound readSidecarAt(const std::string &path);
// Fingerprint → check: the loaded inputs' fingerprints (fingerprintInputs; when they cannot be
// taken the sidecar is Invalid, `inputsError` says why), and the sidecar read against them: Loaded when they match, else
// Mismatch (kept as pending, so that it can be forced; `force` applies it at once: Forced).
void checkSidecar(SidecarFound &found, const LoadedInputs &inputs, bool force = false);
// The same with the fingerprints already taken.
void checkSidecar(SidecarFound &found, const FileFingerprint &device, const std::optional<FileFingerprint> &host,
                  bool force = false);

class CorrectionSession {
public:
    CorrectionSession();
    ~CorrectionSession();
    CorrectionSession(const CorrectionSession &) = delete;
    CorrectionSession &operator=(const CorrectionSession &) = delete;

    // Reads the sidecar at `path` (if it exists) and checks it against the inputs' fingerprints
    // (readSidecarAt, checkSidecar, adopt). Never writes. `host` is the host trace's fingerprint,
    // nullopt for a Kineto-only session.
    const SidecarStatus &openSidecar(const std::string &path, const FileFingerprint &device,
                                     const std::optional<FileFingerprint> &host);
    // Starts from a sidecar already found and checked (openPair's): on a match (or forced) its log,
    // bookmarks and link options become this session's (applied at the next attach()). Never writes.
    const SidecarStatus &adopt(SidecarFound found);
    // Applies a mismatched sidecar anyway; later saves record the current inputs.
    bool forcePendingSidecar();
    const SidecarStatus &sidecar() const { return status_; }
    bool canSave() const;
    // Writes the sidecar now (after every change this happens by itself). Returns false, with
    // lastSaveError() set, when it could not or may not be written.
    bool save();
    const std::string &lastSaveError() const { return lastSaveError_; }

    // Links to correct: a fresh copy of `linked` gets the whole log. Returns what happened to each
    // edit (stale ones included). `linked`, `device` and `host` must outlive the session or the
    // next attach().
    ApplyResult attach(std::shared_ptr<const LinkSet> linked, const DeviceTrace &device, const HostTrace *host);
    bool attached() const { return editor_ != nullptr; }

    // The corrected links (valid while attached).
    const LinkSet &working() const { return working_; }
    const LinkEditor &editor() const { return *editor_; }
    const std::shared_ptr<const LinkSet> &linked() const { return linked_; }

    // Changes, each saved at once.
    std::vector<EditOutcome> push(LogEntry entry);
    bool undo();                                         // reverts and drops the last entry
    void removeEntry(std::size_t index);                 // re-applies the log without it
    void insertEntry(std::size_t index, LogEntry entry); // re-applies the log with it

    const CorrectionLog &log() const { return log_; }

    // Time markers (edit/bookmarks.h), saved in the sidecar with the log; each change saved at once.
    // The GUI's undo commands change one bookmark (insert, rename, erase: no copy of the list).
    const BookmarkList &bookmarks() const { return bookmarks_; }
    void setBookmarks(BookmarkList bookmarks);
    std::size_t insertBookmark(Bookmark bookmark);                   // its index in the ordered list
    void insertBookmarkAt(std::size_t index, Bookmark bookmark);     // back where eraseBookmark took it
    Bookmark eraseBookmark(std::size_t index);                       // the one removed
    std::string renameBookmark(std::size_t index, std::string name); // the old name
    // Outcome of each edit of entry `index` as last applied.
    const std::vector<EditOutcome> &outcomes(std::size_t index) const { return outcomes_.at(index); }
    std::size_t staleCount() const;

    // Link options recorded in the sidecar.
    void setLinkOptions(Policy policy, bool interThreadDeps);
    Policy policy() const { return policy_; }

    std::string generator = "linkscope";

private:
    ApplyResult reapply();
    void autoSave();

    CorrectionLog log_;
    BookmarkList bookmarks_;
    std::vector<std::vector<EditOutcome>> outcomes_;
    SidecarStatus status_;
    std::optional<FileFingerprint> device_;
    std::optional<FileFingerprint> host_;
    Policy policy_ = Policy::Nesting;
    bool interThreadDeps_ = false;
    std::string lastSaveError_;
    FileIdentity sidecarOnDisk_; // the sidecar as this session last read or wrote it (unknown: absent)

    std::shared_ptr<const LinkSet> linked_;
    const DeviceTrace *deviceTrace_ = nullptr;
    const HostTrace *hostTrace_ = nullptr;
    LinkSet working_;
    std::unique_ptr<LinkEditor> editor_;
};

} // namespace linkscope::core
