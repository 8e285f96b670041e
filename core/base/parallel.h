#pragma once
// Runs one worker function on `threads` threads (the caller's among them) and waits for all of
// them: the pool a job's ranks and a check's files share. Each worker takes its own items (an
// atomic counter or a locked cursor); an exception leaving a worker is rethrown here once every
// thread has stopped (the first one, when several throw). When the system refuses a thread, the
// threads already running (at least the caller's) do all the work.

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace linkscope::core {

template<typename Worker>
void runOnThreads(int threads, Worker &&worker)
{
    std::exception_ptr failure;
    std::mutex mutex;
    auto guarded = [&] {
        try {
            worker();
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure)
                failure = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
        try {
            pool.emplace_back(guarded);
        } catch (const std::system_error &) {
            break; // no more threads to be had: the ones running share the work
        }
    }
    guarded();
    for (std::thread &t : pool)
        t.join();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace linkscope::core
