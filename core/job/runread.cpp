#include "job/runread.h"

#include "base/parallel.h"
#include "index/traceindex.h"
#include "job/discovery.h"
#include "pipeline/pairpipeline.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace linkscope::core::job {

namespace {

// One Kineto trace to read for a run.
struct Task {
    RunRank *out = nullptr;
    std::string device;
    const InputFormat *format = nullptr;
    std::vector<std::string> truncated; // allowTruncated: where the trace was cut
};

// The run's ranks to read (filled into `side`, its tasks into `tasks`); throws naming the input.
// `files` gets every file the run names.
void planSide(const std::vector<std::string> &inputs, RunSide &side, std::vector<NamedFile> &files, std::vector<Task> &tasks)
{
    if (inputs.empty() || inputs.size() > 2)
        throw std::invalid_argument("a run is a Kineto trace, a host ET and its Kineto trace, or a job folder");
    std::error_code ec;
    if (inputs.size() == 1 && std::filesystem::is_directory(inputs[0], ec)) {
        side.job = true;
        side.label = inputs[0];
        const JobLayout layout = discoverJob(inputs);
        if (!layout.errors.empty())
            throw std::runtime_error(inputs[0] + ": " + layout.errors.front());
        if (layout.ranks.empty())
            throw std::runtime_error("no ranks (host ET + Kineto, or Kineto alone) in " + inputs[0]);
        for (const RankFiles &r : layout.ranks) {
            side.ranks.push_back({r.rank, r.device, nullptr, r.device.empty() ? "no Kineto trace" : ""});
            files.push_back({"host trace", r.host});
            files.push_back({"device trace", r.device});
        }
        for (RunRank &r : side.ranks)
            if (r.error.empty())
                tasks.push_back({&r, r.file, nullptr, {}});
        return;
    }
    for (const std::string &input : inputs)
        files.push_back({"trace", input});
    side.label = inputs.size() == 2 ? inputs[0] + " + " + inputs[1] : inputs[0];
    // Which file is the Kineto trace, by content (either order; a host ET alone is refused).
    const PairFiles pair = resolvePairFiles(inputs.front(), inputs.size() > 1 ? inputs.back() : std::string());
    side.ranks.push_back({-1, pair.device, nullptr, {}});
    tasks.push_back({&side.ranks.front(), pair.device, pair.deviceFormat, {}});
}

} // namespace

RunPair readRunPair(const std::vector<std::string> &a, const std::vector<std::string> &b, const RunReadOptions &options)
{
    RunPair runs;
    std::vector<Task> tasks;
    planSide(a, runs.a, runs.inputs, tasks);
    planSide(b, runs.b, runs.inputs, tasks);

    const int threads = options.threads > 0 ? options.threads : machineThreads();
    {
        const TaskThreadBudget budget(static_cast<int>(std::clamp<std::size_t>(tasks.size(), 1, std::max(1, threads))));
        const std::atomic<bool> *cancel = options.cancel;
        forEachIndexOnThreads(
            tasks.size(), threads,
            [&](std::size_t i) {
                Task &t = tasks[i];
                try {
                    LoadOptions load;
                    load.allowTruncated = options.allowTruncated;
                    const DeviceTrace device = loadDeviceTrace(t.device, {}, load, t.format);
                    for (const Diagnostic &d : device.warnings)
                        if (d.message.rfind("the file is truncated", 0) == 0)
                            t.truncated.push_back(d.toString());
                    const std::shared_ptr<const TraceIndex> index = indexTrace(device);
                    t.out->stats = std::make_shared<const TraceStats>(computeTraceStats(device, *index));
                } catch (const std::exception &e) {
                    t.out->error = e.what();
                }
            },
            [cancel] { return cancel && cancel->load(std::memory_order_relaxed); });
    }
    for (Task &t : tasks) {
        if (!t.out->stats && t.out->error.empty())
            t.out->error = "not read (cancelled)";
        for (std::string &w : t.truncated)
            runs.truncated.push_back(std::move(w));
    }
    return runs;
}

std::string unreadableRun(const RunPair &runs)
{
    for (const RunSide *side : {&runs.a, &runs.b})
        if (!side->job && !side->ranks.front().stats)
            return side->ranks.front().error;
    return {};
}

} // namespace linkscope::core::job
