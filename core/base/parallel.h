#pragma once
// Runs one worker function on `threads` threads (the caller's among them) and waits for all of
// them: the pool a job's ranks and a check's files share. Each worker takes its own items (an
// atomic counter or a locked cursor); an exception leaving a worker is rethrown here once every
// thread has stopped (the first one, when several throw). When the system refuses a thread, the
// threads already running (at least the caller's) do all the work.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <future>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace linkscope::core {

template <typename Worker>
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
// from a shared cursor: fn(state, i) for each, where `state` is a State of the thread's own,
// default-constructed when the thread starts (a buffer it reuses for its items). Once an item throws,
// or `stop()` returns true, no further item is started; the first exception is rethrown once every
// thread has stopped. Each item writes only its own slot of the caller's output, so the results need
// no lock.
template <typename State, typename Fn, typename Stop>
void forEachIndexOnThreadsWith(std::size_t n, int threads, Fn &&fn, Stop &&stop)
{
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        State state;
        for (std::size_t i; !failed && !stop() && (i = next.fetch_add(1)) < n;) {
            try {
                fn(state, i);
            } catch (...) {
                failed = true;
                throw;
            }
        }
    };
    runOnThreads(std::clamp<int>(threads, 1, static_cast<int>(std::max<std::size_t>(n, 1))), worker);
}

// The same without a state: fn(i) for each item.
template <typename Fn, typename Stop>
void forEachIndexOnThreads(std::size_t n, int threads, Fn &&fn, Stop &&stop)
{
    struct NoState { };
    forEachIndexOnThreadsWith<NoState>(
        n, threads, [&fn](NoState &, std::size_t i) { fn(i); }, std::forward<Stop>(stop));
}

template <typename Fn>
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

inline int machineThreads() { return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 8); }

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

// Runs `fn` on a thread of its own when the task has more than one, else in the caller's get()
// (std::launch::deferred): work beside the caller's that does not oversubscribe a job's rank.
template <typename Fn>
auto runBeside(Fn &&fn)
{
    return std::async(taskThreads() > 1 ? std::launch::async : std::launch::deferred, std::forward<Fn>(fn));
}

// The threads an exporter uses.
inline int exportThreads() { return taskThreads(); }

// Output made in blocks on several threads and consumed in order: items [0, n) in blocks of
// `block`; produce(first, last, text, slot) appends block [first, last)'s output to `text` (slot
// is the producing thread's, 0 .. threads-1, for per-thread tallies); consume(text) receives the
// blocks' texts in item order, on the caller's thread. The producers run at most threads + 1
// blocks ahead of the consumer (so the memory is a few blocks' whatever n is; the text buffers are
// reused), and no producer waits for the others: while the caller writes one block out, every
// thread formats the next ones. An exception from produce or consume stops the producers and is
// rethrown here (the first one).
template <typename Produce, typename Consume>
void forEachBlockInOrder(std::uint64_t n, std::uint64_t block, int threads, Produce &&produce, Consume &&consume)
{
    block = std::max<std::uint64_t>(1, block);
    const std::uint64_t blocks = (n + block - 1) / block;
    threads = static_cast<int>(
        std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::max(1, threads)), 1, std::max<std::uint64_t>(blocks, 1)));
    if (threads == 1) {
        std::string text;
        for (std::uint64_t first = 0; first < n; first += block) {
            text.clear();
            produce(first, std::min(n, first + block), text, 0);
            consume(text);
        }
        return;
    }

    // Block b is made in slot b % ring; a producer waits for its slot to be consumed, the caller
    // for the next block to be ready.
    const std::uint64_t ring = static_cast<std::uint64_t>(threads) + 1;
    std::vector<std::string> texts(static_cast<std::size_t>(ring));
    std::vector<std::uint8_t> ready(static_cast<std::size_t>(ring), 0);
    std::mutex mutex;
    std::condition_variable madeOne, consumedOne;
    std::uint64_t consumed = 0; // blocks [0, consumed) are consumed
    bool stop = false;
    std::exception_ptr failure;
    std::atomic<std::uint64_t> next{0};

    auto producer = [&](int slot) {
        for (;;) {
            const std::uint64_t b = next.fetch_add(1);
            if (b >= blocks)
                return;
            const auto at = static_cast<std::size_t>(b % ring);
            {
                std::unique_lock lock(mutex);
                consumedOne.wait(lock, [&] { return stop || b < consumed + ring; });
                if (stop)
                    return;
            }
            try {
                std::string &text = texts[at];
                text.clear();
                const std::uint64_t first = b * block;
                produce(first, std::min(n, first + block), text, slot);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure)
                    failure = std::current_exception();
                stop = true;
                madeOne.notify_all();
                consumedOne.notify_all();
                return;
            }
            std::lock_guard lock(mutex);
            ready[at] = 1;
            madeOne.notify_all();
        }
    };

    std::vector<std::thread> pool;
    auto stopAndJoin = [&] {
        {
            std::lock_guard lock(mutex);
            stop = true;
            consumedOne.notify_all();
        }
        for (std::thread &t : pool)
            t.join();
    };
    for (int t = 0; t < threads; ++t) {
        try {
            pool.emplace_back(producer, t);
        } catch (const std::system_error &) {
            break; // no more threads to be had: the ones running share the work
        }
    }
    const bool inline_ = pool.empty(); // not even one thread: the caller makes every block itself
    try {
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const auto at = static_cast<std::size_t>(b % ring);
            if (inline_) {
                std::string &text = texts[at];
                text.clear();
                produce(b * block, std::min(n, b * block + block), text, 0);
            } else {
                std::unique_lock lock(mutex);
                madeOne.wait(lock, [&] { return ready[at] || failure; });
                if (failure)
                    break;
            }
            consume(std::as_const(texts[at]));
            std::lock_guard lock(mutex);
            ready[at] = 0;
            ++consumed;
            consumedOne.notify_all();
        }
    } catch (...) {
        stopAndJoin();
        throw;
    }
    stopAndJoin();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace linkscope::core
