#pragma once
// Loads and links traces off the GUI thread (a BackgroundJob, backgroundjob.h): a pair is opened
// through the pair pipeline with its sidecar (core/pipeline/pairpipeline.h openPair) — fingerprinted,
// checked, linked once under the sidecar's policy when it applies, corrected — and turned into its
// documents. Progress lives in atomics that the GUI polls (no signal per chunk); Cancel is
// cooperative through the pipeline's progress callback. A result comes back queued and is dropped
// unless it belongs to the latest request, so a slow stale load can never replace a newer one.

#include "ground/backgroundjob.h"
#include "ground/tracedocument.h"
#include "link/linkset.h"
#include "pipeline/pairpipeline.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <vector>

namespace linkscope::ui {

// The stages of a load: core's (core::PairStage) and the GUI's own last one, building the
// timeline's document.
inline constexpr int kTimelineStage = core::kPairStageCount;
inline constexpr int kLoadStageCount = core::kPairStageCount + 1;
// A stage's name as the GUI shows it (the progress bars, a rank pane's title): the one place the
// stages get words.
QString loadStageName(int stage);

// The readers' (host, device; either may be null) and the linker's recoverable problems, one line
// each, in that order.
QStringList loadWarnings(const core::HostTrace *host, const core::DeviceTrace *device, const core::LinkSet &links);

// What opening a pair gives the window (a load, a rank pane, Edit here).
struct OpenedDocuments {
    DocumentPtr linked; // the linker's: the corrections apply to it, its findings are the Findings dock's
    DocumentPtr shown;  // the sidecar's corrections applied (the same document without any)
    QStringList warnings;
    std::shared_ptr<const core::SidecarFound> sidecar; // as found and checked; null for a relink
    std::size_t corrections = 0;                       // the sidecar's edits applied
    core::Policy askedPolicy = core::Policy::Nesting;  // the window's, when the sidecar's was used instead
    bool relink = false;
};
using OpenedPtr = std::shared_ptr<const OpenedDocuments>;

// Opens `hostPath` and `devicePath` (either order; host empty: the device trace alone) through
// openPair with the device trace's sidecar (SidecarUse::Session, its policy unless it belongs to
// other inputs), and builds the documents, the Chakra comparison included. On the calling thread;
// throws what openPair throws (Cancelled when `progress` says stop or `cancel` is set).
OpenedDocuments openDocuments(const QString &hostPath, const QString &devicePath, core::Policy policy,
                              const core::PairProgressFn &progress, const std::atomic<bool> *cancel);

class TraceLoader : public QObject {
    Q_OBJECT
public:
    struct StageProgress {
        std::uint64_t done = 0;
        std::uint64_t total = 0; // 0: unknown (show a busy indicator)
        bool used = false;       // shown for this job (no host ET stage for a Kineto-only load)
        bool started = false;
        bool finished = false;
    };

    explicit TraceLoader(QObject *parent = nullptr);
    ~TraceLoader() override; // cancels and waits for the work

    // Loads a pair with its sidecar; the order of the two paths does not matter (the files are
    // sniffed). `hostPath` empty: Kineto only. `policy`: unless the sidecar says another.
    void load(const QString &hostPath, const QString &devicePath, core::Policy policy);
    // Links the same traces again under another policy; the document's readers' results are reused.
    void relink(const DocumentPtr &doc, core::Policy policy);
    void cancel();

    bool isBusy() const { return m_job.busy(); }
    quint64 generation() const { return m_job.generation(); }
    // One per stage (kLoadStageCount), of the current job.
    std::vector<StageProgress> progress() const;
    // How many times this loader ran the link stage (loads and relinks together).
    quint64 linksMade() const { return m_links->load(); }
    // Blocks until the current job's work is done (tests).
    void waitForIdle() { m_job.waitForIdle(); }

signals:
    void started(bool relink);
    void finished(linkscope::ui::OpenedPtr opened);
    void failed(const QString &message);
    void cancelled();

private:
    struct Progress;
    // `shown`: the stages with a progress bar (besides the timeline's).
    void start(bool relink, const std::vector<core::PairStage> &shown,
               std::function<OpenedDocuments(const core::PairProgressFn &, const JobToken &)> work);

    std::shared_ptr<Progress> m_progress;
    std::shared_ptr<std::atomic<quint64>> m_links = std::make_shared<std::atomic<quint64>>(0);
    BackgroundJob m_job{2}; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
