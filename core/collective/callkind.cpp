#include "collective/callkind.h"

#include <array>

namespace linkscope::core {

namespace {

constexpr std::array<std::string_view, kCallKindCount> kKindNames = {"all_reduce", "reduce",    "all_gather", "gather",
                                                                     "scatter",    "broadcast", "all_to_all", "reduce_scatter",
                                                                     "barrier",    "send",      "recv",       "unknown"};

} // namespace

std::string_view callKindName(CallKind k) { return kKindNames[static_cast<std::size_t>(k)]; }

std::optional<CallKind> callKindFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kKindNames.size(); ++i)
        if (kKindNames[i] == name)
            return static_cast<CallKind>(i);
    return std::nullopt;
}

} // namespace linkscope::core
