#pragma once
// The one way the GUI runs work off its thread. A BackgroundJob runs a callable on its own pool;
// what the work hands back reaches the GUI thread as a queued call, and only while the job is still
// the current one: each start() and cancel() bumps a generation counter, so a late result of a
// superseded or cancelled job (a closed document, an older request) is dropped. The work polls a
// cancel flag through its token (a starting job sets the previous one's). Loads (TraceLoader, a
// rank pane), a job's ranks (JobLoader), corrected documents and exports (CorrectionController)
// and predictions all go through it.
//
// Lifetime: the destructor cancels and waits for the pool, so work may use its owner's members
// when the owner declares its BackgroundJob after them (destroyed first). Work that may outlive a
// cancel should hold what it reads by shared_ptr.

#include "model/common.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>

namespace linkscope::ui {

class BackgroundJob;

// What a running job sees: its cancel flag, and the way to hand something to the GUI thread.
class JobToken {
public:
    bool cancelled() const { return m_cancel->load(std::memory_order_relaxed); }
    // For the calls that poll a flag themselves (TraceDocument::create).
    const std::atomic<bool> *flag() const { return m_cancel.get(); }
    // Runs `f` on the GUI thread, after what this job posted before, unless the job is no longer
    // current by then.
    void post(std::function<void()> f) const;

private:
    friend class BackgroundJob;
    JobToken(BackgroundJob *job, quint64 generation, std::shared_ptr<std::atomic<bool>> cancel)
        : m_job(job), m_generation(generation), m_cancel(std::move(cancel))
    {
    }
    BackgroundJob *m_job;
    quint64 m_generation;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    explicit BackgroundJob(int maxThreads = 1, QObject *parent = nullptr);
    ~BackgroundJob() override; // cancels, then waits for the pool

    // Runs `work(token)` on the pool; it hands results over with token.post(). Supersedes the job
    // running (its cancel flag is set, whatever it still posts is dropped). A Cancelled thrown by
    // the work ends it quietly. Returns the job's generation.
    quint64 start(std::function<void(const JobToken &)> work);

    // Runs `work(token)` and hands its result to `done` on the GUI thread, if still current. The job
    // is idle (busy() false) when `done` runs.
    template <typename Work, typename Done>
    quint64 run(Work work, Done done)
    {
        return start([this, work = std::move(work), done = std::move(done)](const JobToken &token) mutable {
            auto result = std::make_shared<decltype(work(token))>(work(token));
            token.post([this, done, result]() mutable {
                m_busy = false;
                done(std::move(*result));
            });
        });
    }

    // Drops the current job's results and sets its cancel flag. False when none was running.
    bool cancel();
    bool busy() const { return m_busy; }
    quint64 generation() const { return m_generation; }
    bool isCurrent(quint64 generation) const { return generation == m_generation; }
    // Blocks until the pool is idle (tests; results still arrive queued).
    void waitForIdle() { m_pool.waitForDone(); }

private:
    friend class JobToken;
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    quint64 m_generation = 0;
    bool m_busy = false;
};

// Processes events (waiting for more) while `busy()`: what the tests' waitUntil… calls do. False
// when `timeoutMs` passed first.
bool processEventsWhile(const std::function<bool()> &busy, int timeoutMs);

// Work asked for again and again, each request superseding the one before (a prediction of the
// newest document or job), that cannot be interrupted: one request runs at a time; of those asked
// for meanwhile only the newest waits, and runs next, the result before it dropped unseen.
// `compute` runs on the pool; what it throws (a std::exception) is handed to `done` as the error.
// `started` (each time a request starts) and `done` run on the GUI thread. A Request converts to
// false when empty (a shared_ptr).
template <typename Request, typename Value>
class NewestRequestJob {
public:
    using ValuePtr = std::shared_ptr<const Value>;
    using Compute = std::function<ValuePtr(const Request &)>;
    // The request, and its value or (null) the error that stopped it.
    using Done = std::function<void(const Request &, ValuePtr, const QString &error)>;

    NewestRequestJob(Compute compute, Done done, std::function<void()> started = {})
        : m_compute(std::move(compute)), m_done(std::move(done)), m_started(std::move(started))
    {
    }

    // Starts `request` or, while another runs, makes it the one to start next.
    void request(Request request)
    {
        if (m_running)
            m_waiting = std::move(request);
        else
            launch(std::move(request));
    }
    // Forgets the request waiting; the running one's result still reaches `done`.
    void dropWaiting() { m_waiting = Request(); }
    bool running() const { return m_running; }
    // Tests: processes events until nothing runs or waits. False on timeout.
    bool waitUntilIdle(int timeoutMs)
    {
        return processEventsWhile([this] { return m_running || static_cast<bool>(m_waiting); }, timeoutMs);
    }

private:
    struct Outcome {
        Request request;
        ValuePtr value;
        QString error;
    };

    void launch(Request request)
    {
        m_running = true;
        if (m_started)
            m_started();
        m_job.run(
            [compute = m_compute, request = std::move(request)](const JobToken &) {
                Outcome outcome{request, nullptr, {}};
                try {
                    outcome.value = compute(request);
                } catch (const std::exception &error) {
                    outcome.error = QString::fromLocal8Bit(error.what());
                }
                return outcome;
            },
            [this](Outcome outcome) {
                m_running = false;
                if (m_waiting) {
                    launch(std::exchange(m_waiting, Request()));
                    return;
                }
                m_done(outcome.request, std::move(outcome.value), outcome.error);
            });
    }

    Compute m_compute;
    Done m_done;
    std::function<void()> m_started;
    Request m_waiting; // asked for while another runs
    bool m_running = false;
    BackgroundJob m_job; // last: destroyed (and waited for) first
};

} // namespace linkscope::ui
