#pragma once
// Findings: links and inputs that look wrong, each with a suggested correction.

#include "model/common.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

enum class FindingKind : std::uint8_t {
    NcclParentIsRecordParamComms, // GPU op parented to record_param_comms while an nccl:* op encloses its launch
    PolicyDisagreement,           // the policies choose different parents
    OrphanGpuOp,                  // no parent; the reason is in the message and the GpuLink
    GpuBeforeLaunch,              // GPU op starts before its launch call
    LaunchOutsideParent,          // launch not inside its parent's interval
    HostOpWithoutDevice,          // ET op (with rf_id) with no Kineto CPU event
    DeviceOpWithoutHost,          // Kineto CPU op with no ET node (pair only)
    EtParentMissing,              // ET node whose parent id is absent from the file
    DuplicateCorrelation,         // several launch events share (pid, correlation)
    RfIdAbsent,                   // Kineto has no Record function id: ET observer not attached
    ExportCycle,                  // the exported graph would have a cycle
};
inline constexpr int kFindingKindCount = static_cast<int>(FindingKind::ExportCycle) + 1;
std::string_view findingKindName(FindingKind k); // stable snake_case, e.g. "nccl_parent_is_record_param_comms"
std::optional<FindingKind> findingKindFromName(std::string_view name); // files (sidecar, reports) use these names

enum class FindingSeverity : std::uint8_t { Info, Warning, Error };
std::string_view findingSeverityName(FindingSeverity s);

enum class SubjectKind : std::uint8_t { DeviceEvent, HostNode, Trace };

struct Finding {
    FindingKind kind = FindingKind::PolicyDisagreement;
    FindingSeverity severity = FindingSeverity::Warning;
    SubjectKind subjectKind = SubjectKind::DeviceEvent;
    std::uint32_t subject = UINT32_MAX;        // event or host node index
    std::string message;
    std::string suggestion;                    // human-readable suggested correction
    std::uint32_t suggestedParent = UINT32_MAX; // for re-parent suggestions: the CPU event to attach to
};

// Summary: how many findings of each kind (indexed by FindingKind).
std::array<std::size_t, kFindingKindCount> countFindingsByKind(const std::vector<Finding> &findings);

} // namespace linkscope::core
