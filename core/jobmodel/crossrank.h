#pragma once
// Cross-rank checks of a distributed job, over a format-neutral description of what each rank
// issued: per rank, its collective and P2P calls in issue order. Built from a linked Kineto/host ET
// pair (job/rankcalls.h) or from a Chakra `.et` (the ASTRA-sim pre-flight check) alike.
//
// Per process group, each member's sequence of collectives is aligned against the group's reference
// sequence (the one most members issued; on a tie the longest, then the lowest rank's) by an edit
// distance with adjacent transpositions, so one rank that skipped collective #2 is one finding about
// that rank and that position, not a mismatch at every position after it. P2P sends and receives are
// paired per (group, sender, receiver) channel in order, the same way. Findings name the process
// group, the 0-based position in the group's reference sequence, the ranks that differ and what
// differs; ranks that deviate in the same way at the same position share one finding.

#include "collective/callkind.h"
#include "jobmodel/processgroups.h"
#include "jobmodel/rankrange.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::job {

// The kinds of call (collective/callkind.h) are the job's vocabulary too.
using core::CallKind;
using core::callKindFromName;
using core::callKindName;
using core::isP2P;
// Kineto / ET / NCCL spellings ("Float", "float", "f32", "c10::BFloat16", "half") → one spelling
// ("float32", "bfloat16", "float16", …); unknown text is returned lower-cased; "" stays "".
std::string canonicalDtype(std::string_view dtype);

inline constexpr std::int64_t kUnknownTime = std::numeric_limits<std::int64_t>::min();

struct CollectiveCall {
    std::string processGroup; // group name as the trace gives it; empty: the job's default group
    CallKind kind = CallKind::Unknown;
    std::string dtype;                    // canonicalDtype() spelling; empty: unknown
    std::int64_t elements = -1;           // input element count; -1: unknown
    std::int64_t bytes = -1;              // message bytes; -1 (or 0): unknown
    std::int64_t root = -1;               // rooted collectives; -1: unknown / none
    std::int64_t peer = -1;               // Send: the receiver, Recv: the sender (global ranks); -1: unknown
    std::int64_t launchNs = kUnknownTime; // when the rank issued it, on the rank's own clock
    std::int64_t startNs = kUnknownTime;  // when its kernel started, on the rank's own clock
    std::int64_t endNs = kUnknownTime;    // when its kernel ended, on the rank's own clock
    std::string where;                    // for messages: "kineto_3.json event 1234 (ncclDevKernel_…)"
};

struct RankCalls {
    std::int64_t rank = -1;
    std::vector<CollectiveCall> calls; // issue order
};

enum class Severity : std::uint8_t { Error, Warning, Info };
std::string_view severityName(Severity s); // "error", "warning", "info"

struct JobFinding {
    std::string kind; // stable snake_case, see docs/job-report.md
    Severity severity = Severity::Error;
    std::string processGroup;        // empty when not about one group
    std::int64_t index = -1;         // 0-based position in the group's reference sequence (P2P: in the channel); -1 none
    std::vector<std::int64_t> ranks; // the ranks that differ, ascending
    std::string message;
    // The same ranks as ranges, for findings about many ranks (missing_rank): then `ranks` lists them
    // only while there are at most kListedRanks. JSON "rank_ranges" [[first, last], …], when not empty.
    std::vector<RankRange> rankRanges{};
    // How many findings this one stands for: 1, or for the entry that closes a kind's list in the
    // report (listedFindings), how many more of the kind were not listed. JSON "count", when not 1.
    std::size_t count = 1;
    nlohmann::json toJson() const;
    static JobFinding fromJson(const nlohmann::json &j);
};

struct CheckInput {
    std::vector<RankCalls> ranks;     // the ranks whose traces were read (any order)
    std::vector<ProcessGroup> groups; // the job's groups (mergeJobGroups); may be empty
    std::string defaultGroup = "0";   // where calls without a group name belong
};

// One group's alignment: for every member, where each of its non-P2P calls on the group sits in the
// reference sequence (-1: a call the others did not issue).
struct GroupAlignment {
    std::string name;
    std::vector<std::int64_t> members; // ranks aligned (present and in the group), ascending
    std::int64_t referenceRank = -1;
    std::size_t length = 0;                                       // reference sequence length
    std::map<std::int64_t, std::vector<std::int64_t>> positionOf; // rank → per call on this group: reference index or -1
    std::map<std::int64_t, std::vector<std::size_t>> callIndex;   // rank → index into RankCalls::calls of each such call
};

struct CheckResult {
    std::vector<JobFinding> findings;   // sorted: group id, index, kind, ranks
    std::vector<GroupAlignment> groups; // sorted by group id
};

CheckResult checkCollectives(const CheckInput &input);

// Stable order for findings (group id, index, kind, ranks, message).
void sortFindings(std::vector<JobFinding> &findings);

} // namespace linkscope::core::job
