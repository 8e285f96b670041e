#pragma once
// Loads and links traces off the GUI thread. Host and device are read in parallel, then linked,
// then turned into a TraceDocument. Progress lives in atomics that the GUI polls (no signal per
// chunk); Cancel is cooperative through the readers' ProgressFn. Results come back with queued
// calls and are dropped unless they belong to the latest request (generation counter), so a slow
// stale load can never replace a newer one.

#include "link/linkset.h"
#include "shell/tracedocument.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <vector>

namespace linkscope::ui {

// The readers' (host, device; either may be null) and the linker's recoverable problems, one line
// each, in that order.
QStringList loadWarnings(const core::HostTrace *host, const core::DeviceTrace *device, const core::LinkSet &links);

class TraceLoader : public QObject {
    Q_OBJECT
public:
    enum class Stage { HostEt, Kineto, Link, Timeline };
    static constexpr int kStageCount = 4;
    static QString stageName(Stage stage);

    struct StageProgress {
        std::uint64_t done = 0;
        std::uint64_t total = 0; // 0: unknown (show a busy indicator)
        bool used = false;       // this job has the stage (no host ET stage for a Kineto-only load)
        bool started = false;
        bool finished = false;
    };

    explicit TraceLoader(QObject *parent = nullptr);
    ~TraceLoader() override; // cancels and waits for the workers

    // Loads a pair; the order of the two paths does not matter (the files are sniffed).
    // `hostPath` empty: Kineto only.
    void load(const QString &hostPath, const QString &devicePath, core::Policy policy);
    // Links the same traces again under another policy; the document's readers' results are reused.
    void relink(const DocumentPtr &doc, core::Policy policy);
    void cancel();

    bool isBusy() const { return m_job != nullptr; }
    quint64 generation() const { return m_generation; }
    std::vector<StageProgress> progress() const;
    // Blocks until the current job's workers are done (tests).
    void waitForIdle();

signals:
    void started(bool relink);
    void finished(linkscope::ui::DocumentPtr doc, const QStringList &warnings, bool relink);
    void failed(const QString &message);
    void cancelled();

private:
    struct Job;
    void start(std::shared_ptr<Job> job);
    void deliver(quint64 generation, std::function<void()> handler);

    QThreadPool m_pool;
    std::shared_ptr<Job> m_job;
    quint64 m_generation = 0;
};

} // namespace linkscope::ui
