#pragma once
// Triage of findings: which findings fold together and what the folded row says, and the findings'
// times told relative to the trace start. The GUI's Findings dock only displays what is decided here.
//
// Findings fold by cause: (severity, kind, the kind's own detail, the op the cause names). For a
// policy_disagreement the detail is which rules differ from nesting and whether the op they pick had
// already finished when the GPU op was launched, and the op is the one they pick — so 2,365 kernels
// for which ev-idx picks a finished aten::empty are one group, "ev-idx picks a finished
// 'aten::empty' for 2,365 GPU ops". Orphans fold by their reason, NCCL kernels on
// record_param_comms by the nccl:* op that encloses their launch, launches outside their parent by
// the parent's name; every other kind folds by kind alone.

#include "link/finding.h"
#include "link/linkset.h"
#include "model/devicetrace.h"

#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

struct FindingCause {
    FindingSeverity severity = FindingSeverity::Info;
    FindingKind kind = FindingKind::PolicyDisagreement;
    std::uint8_t detail = 0;                   // per kind (see findinggroups.cpp)
    StringId name = StringPool::kMissing;      // DeviceTrace string id of the op the cause names
    StringId otherName = StringPool::kMissing; // a second one (both rules differ)
    auto operator<=>(const FindingCause &) const = default;
};

// The cause of `finding`, one of `links`' findings on `trace` (the link set whose GPU links the
// finding was derived from: its policy choices and launch evidence).
FindingCause causeOf(const Finding &finding, const DeviceTrace &trace, const LinkSet &links);

// The folded row's text for `count` findings of `cause`, e.g. "ev-idx picks a finished
// 'aten::empty' for 2,365 GPU ops" or "562 GPU ops have no parent: their launch is inside no CPU op".
std::string describeCause(const FindingCause &cause, std::size_t count, const DeviceTrace &trace);

struct FindingGroup {
    FindingCause cause;
    std::vector<std::uint32_t> members; // positions in the input, ascending
};

// Folds findings 0..causes.size()-1 by cause. Groups come by severity (error, warning, info), and
// within one severity in the order of their first member. O(n log n); every group, singletons too.
std::vector<FindingGroup> groupFindings(const std::vector<FindingCause> &causes);

// "2,365": a count with thousands separators, as the group titles write it.
std::string formatCount(std::size_t count);

// `message` with its times told as `time(t - origin)` and its durations as `duration(d)`, for the
// wordings the linker and the diagnosis use: "at <t> ns" and "[<t>, <t>)" are times, "<d> ns
// before" a duration. Other numbers are left alone.
std::string retimeMessage(std::string_view message, Nanos origin, const std::function<std::string(Nanos)> &time,
                          const std::function<std::string(Nanos)> &duration);

} // namespace linkscope::core
