#include "link/finding.h"

#include <array>

namespace linkscope::core {

namespace {
constexpr std::array<std::string_view, kFindingKindCount> kFindingKindNames = {
    "nccl_parent_is_record_param_comms",
    "policy_disagreement",
    "orphan_gpu_op",
    "gpu_before_launch",
    "launch_outside_parent",
    "host_op_without_device",
    "device_op_without_host",
    "et_parent_missing",
    "duplicate_correlation",
    "rf_id_absent",
    "export_cycle",
};
} // namespace

std::string_view findingKindName(FindingKind k)
{
    return kFindingKindNames[static_cast<std::size_t>(k)];
}

std::optional<FindingKind> findingKindFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kFindingKindNames.size(); ++i)
        if (kFindingKindNames[i] == name)
            return static_cast<FindingKind>(i);
    return std::nullopt;
}

std::string_view findingSeverityName(FindingSeverity s)
{
    switch (s) {
    case FindingSeverity::Info: return "info";
    case FindingSeverity::Warning: return "warning";
    case FindingSeverity::Error: return "error";
    }
    return "info";
}

std::array<std::size_t, kFindingKindCount> countFindingsByKind(const std::vector<Finding> &findings)
{
    std::array<std::size_t, kFindingKindCount> counts{};
    for (const Finding &f : findings)
        ++counts[static_cast<std::size_t>(f.kind)];
    return counts;
}

} // namespace linkscope::core
