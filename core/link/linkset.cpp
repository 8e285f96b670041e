#include "link/linkset.h"

#include <array>

namespace linkscope::core {

namespace {
constexpr std::array<std::string_view, kPolicyCount> kPolicyNames = {"nesting", "external-id", "ev-idx"};
} // namespace

std::string_view policyName(Policy p) { return kPolicyNames[static_cast<std::size_t>(p)]; }

std::optional<Policy> policyFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kPolicyNames.size(); ++i)
        if (kPolicyNames[i] == name)
            return static_cast<Policy>(i);
    return std::nullopt;
}

std::string_view launchMatchName(LaunchMatch m)
{
    switch (m) {
    case LaunchMatch::Correlation:
        return "correlation";
    case LaunchMatch::Flow:
        return "flow";
    case LaunchMatch::ExternalId:
        return "external_id";
    case LaunchMatch::None:
        return "none";
    }
    return "none";
}

std::string_view parentRuleName(ParentRule r)
{
    switch (r) {
    case ParentRule::Nesting:
        return "nesting";
    case ParentRule::NestingAncestor:
        return "nesting_ancestor";
    case ParentRule::ExternalId:
        return "external_id";
    case ParentRule::LatestStarting:
        return "latest_starting";
    case ParentRule::Manual:
        return "manual";
    case ParentRule::None:
        return "none";
    }
    return "none";
}

std::string_view orphanReasonName(OrphanReason r)
{
    switch (r) {
    case OrphanReason::None:
        return "none";
    case OrphanReason::NoCorrelation:
        return "no_correlation";
    case OrphanReason::NoLaunchEvent:
        return "no_launch_event";
    case OrphanReason::NoEnclosingOp:
        return "no_enclosing_op";
    case OrphanReason::NoHostNode:
        return "no_host_node";
    case OrphanReason::Detached:
        return "detached";
    }
    return "none";
}

std::string_view edgeKindName(EdgeKind k)
{
    switch (k) {
    case EdgeKind::Parent:
        return "parent";
    case EdgeKind::Launch:
        return "launch";
    case EdgeKind::StreamOrder:
        return "stream_order";
    case EdgeKind::Sync:
        return "sync";
    case EdgeKind::InterThread:
        return "inter_thread";
    }
    return "parent";
}

std::string_view blockingKindName(BlockingKind k)
{
    switch (k) {
    case BlockingKind::StreamSync:
        return "stream_sync";
    case BlockingKind::DeviceSync:
        return "device_sync";
    case BlockingKind::EventSync:
        return "event_sync";
    case BlockingKind::BlockingCopy:
        return "blocking_copy";
    case BlockingKind::ImplicitSync:
        return "implicit_sync";
    }
    return "stream_sync";
}

std::optional<EdgeKind> edgeKindFromName(std::string_view name)
{
    for (int k = 0; k < kEdgeKindCount; ++k)
        if (edgeKindName(static_cast<EdgeKind>(k)) == name)
            return static_cast<EdgeKind>(k);
    return std::nullopt;
}

std::string_view hostJoinMethodName(HostJoinMethod m)
{
    switch (m) {
    case HostJoinMethod::None:
        return "none";
    case HostJoinMethod::RecordFunctionId:
        return "record_function_id";
    case HostJoinMethod::EvIdxOffset:
        return "ev_idx_offset";
    case HostJoinMethod::ExternalIdOffset:
        return "external_id_offset";
    case HostJoinMethod::Derived:
        return "derived_from_kineto";
    }
    return "none";
}

} // namespace linkscope::core
