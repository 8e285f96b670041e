#pragma once
// Runs one worker function on `threads` threads (the caller's among them) and waits for all of
// them: the pool a job's ranks and a check's files share. Each worker takes its own items (an
// atomic counter or a locked cursor); an exception leaving a worker is rethrown here once every
// thread has stopped (the first one, when several throw). When the system refuses a thread, the
// threads already running (at least the caller's) do all the work.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <string>
#include <thread>
#include <utility>
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

// Items [0, n), each once, on min(threads, n) threads (at least one), handed out in index order
// from a shared cursor: fn(i) for each. Once an item throws, or `stop()` returns true, no further
// item is started; the first exception is rethrown once every thread has stopped. Each item writes
// only its own slot of the caller's output, so the results need no lock.
template<typename Fn, typename Stop>
void forEachIndexOnThreads(std::size_t n, int threads, Fn &&fn, Stop &&stop)
{
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (std::size_t i; !failed && !stop() && (i = next.fetch_add(1)) < n;) {
            try {
                fn(i);
            } catch (...) {
                failed = true;
                throw;
            }
        }
    };
    runOnThreads(std::clamp<int>(threads, 1, static_cast<int>(std::max<std::size_t>(n, 1))), worker);
}

template<typename Fn>
void forEachIndexOnThreads(std::size_t n, int threads, Fn &&fn)
{
    forEachIndexOnThreads(n, threads, std::forward<Fn>(fn), [] { return false; });
}

// The cores one task (a reader, an exporter, one rank of a job) may keep busy: the machine's cores,
// at most 8, unless a caller that runs several tasks at once shares them out (TaskThreadBudget).
inline std::atomic<int> &taskThreadBudget()
{
    static std::atomic<int> budget{0}; // 0: no budget set
    return budget;
}

inline int machineThreads()
{
    return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 8);
}

inline int taskThreads()
{
    const int budget = taskThreadBudget().load();
    return budget > 0 ? std::min(budget, machineThreads()) : machineThreads();
}

// While it lives, every task gets `cores / tasks` threads (at least one): `linkscope job --jobs 2`
// on 2 cores runs two ranks of one thread each, instead of two ranks that each split their reads
// and writes in two (four threads on two cores, and the splitting's own cost paid for nothing).
class TaskThreadBudget {
public:
    explicit TaskThreadBudget(int tasks) : previous_(taskThreadBudget().load())
    {
        taskThreadBudget() = std::max(1, machineThreads() / std::max(1, tasks));
    }
    ~TaskThreadBudget() { taskThreadBudget() = previous_; }
    TaskThreadBudget(const TaskThreadBudget &) = delete;
    TaskThreadBudget &operator=(const TaskThreadBudget &) = delete;

private:
    int previous_;
};

// The threads an exporter uses.
inline int exportThreads()
{
    return taskThreads();
}

// Output made in blocks on several threads and consumed in order: items [0, n) in blocks of
// `block`; produce(first, last, text, slot) appends block [first, last)'s output to `text` (slot
// is the thread's slot, 0 .. threads-1, for per-thread tallies); consume(text) receives the
// blocks' texts in item order, on the caller's thread. One block per thread at a time, so the
// memory is a few blocks' whatever n is. An exception from produce is rethrown here.
template<typename Produce, typename Consume>
void forEachBlockInOrder(std::uint64_t n, std::uint64_t block, int threads, Produce &&produce, Consume &&consume)
{
    threads = std::max(1, threads);
    block = std::max<std::uint64_t>(1, block);
    std::vector<std::string> texts(static_cast<std::size_t>(threads));
    const std::uint64_t round = block * static_cast<std::uint64_t>(threads);
    for (std::uint64_t start = 0; start < n; start += round) {
        std::atomic<int> next{0};
        runOnThreads(threads, [&] {
            for (int b; (b = next.fetch_add(1)) < threads;) {
                const std::uint64_t first = start + static_cast<std::uint64_t>(b) * block;
                std::string &text = texts[static_cast<std::size_t>(b)];
                text.clear();
                if (first < n)
                    produce(first, std::min(n, first + block), text, b);
            }
        });
        for (std::string &text : texts) {
            consume(text);
            text.clear();
        }
    }
}

} // namespace linkscope::core
