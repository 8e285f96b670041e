#include "ground/backgroundjob.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>

namespace linkscope::ui {

void JobToken::post(std::function<void()> f) const
{
    // The job's destructor waits for the pool, so m_job outlives every call posted here; a call
    // still queued when it is destroyed is dropped by Qt with it.
    BackgroundJob *job = m_job;
    QMetaObject::invokeMethod(
        job,
        [job, generation = m_generation, f = std::move(f)] {
            if (job->isCurrent(generation))
                f();
        },
        Qt::QueuedConnection);
}

BackgroundJob::BackgroundJob(int maxThreads, QObject *parent) : QObject(parent) { m_pool.setMaxThreadCount(maxThreads); }

BackgroundJob::~BackgroundJob()
{
    cancel();
    m_pool.waitForDone();
}

quint64 BackgroundJob::start(std::function<void(const JobToken &)> work)
{
    m_cancel->store(true); // the job running, if any, is superseded
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const quint64 generation = ++m_generation;
    m_busy = true;
    const JobToken token(this, generation, m_cancel);
    m_pool.start([this, token, work = std::move(work)] {
        try {
            work(token);
        } catch (const core::Cancelled &) {
            // cancel() already told whoever asked; a superseded job has nothing to say.
        }
        // Idle once everything it posted has been delivered (run() clears it before `done`).
        token.post([this] { m_busy = false; });
    });
    return generation;
}

bool BackgroundJob::cancel()
{
    if (!m_busy)
        return false;
    m_cancel->store(true);
    ++m_generation; // whatever the job still posts is stale
    m_busy = false;
    return true;
}

bool processEventsWhile(const std::function<bool()> &busy, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (busy()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

} // namespace linkscope::ui
