#include "model/devicetrace.h"

#include <algorithm>
#include <array>

namespace linkscope::core {

namespace {
constexpr std::array<std::string_view, kEventCategoryCount> kCategoryNames = {
    "cpu_op",     "user_annotation",     "python_function", "cuda_runtime",      "cuda_driver", "kernel", "gpu_memcpy",
    "gpu_memset", "gpu_user_annotation", "cuda_sync",       "cpu_instant_event", "ac2g",        "Trace",  "other",
};
} // namespace

std::string_view categoryName(EventCategory c) { return kCategoryNames[static_cast<std::size_t>(c)]; }

EventCategory categoryFromName(std::string_view cat)
{
    for (std::size_t i = 0; i < kCategoryNames.size() - 1; ++i)
        if (kCategoryNames[i] == cat)
            return static_cast<EventCategory>(i);
    // Runtimes of other backends are launched the same way as CUDA's.
    if (cat == "xpu_runtime" || cat == "privateuse1_runtime" || cat == "mtia_runtime")
        return EventCategory::CudaRuntime;
    if (cat == "fwdbwd" || cat == "async_cpu_to_gpu")
        return EventCategory::Flow;
    return EventCategory::Other;
}

} // namespace linkscope::core

namespace linkscope::core {

const SyncArgs *DeviceTrace::syncArgsOf(EventIndex event) const
{
    const auto it = std::lower_bound(syncArgs.begin(), syncArgs.end(), event,
                                     [](const SyncArgs &s, EventIndex e) { return s.event < e; });
    return it != syncArgs.end() && it->event == event ? &*it : nullptr;
}

} // namespace linkscope::core

namespace linkscope::core {

const CollectiveArgs *DeviceTrace::collectiveOf(EventIndex event) const
{
    const auto it = std::lower_bound(collectives.begin(), collectives.end(), event,
                                     [](const CollectiveArgs &c, EventIndex e) { return c.event < e; });
    return it != collectives.end() && it->event == event ? &*it : nullptr;
}

std::int64_t DeviceTrace::graphIdOf(EventIndex event) const
{
    const auto it = std::lower_bound(graphIds.begin(), graphIds.end(), event,
                                     [](const GraphIdArg &g, EventIndex e) { return g.event < e; });
    return it != graphIds.end() && it->event == event ? it->graphId : kNoId;
}

} // namespace linkscope::core
