#pragma once
// Process groups of a distributed job: what each rank's traces say about them (Kineto
// `distributedInfo.pg_config`, the host ET's `## process_group:init ##` node), merged across ranks, and
// the integer ids ASTRA-sim's communicator-group file (`comm_group.json`) and each `.et` node's
// `pg_name` use.
//
// Name → id (docs/job-report.md): a name that is a decimal integer without leading zeros in
// [0, 999,999,999] is its own id — PyTorch names its groups "0", "1", … in creation order, the same on
// every rank, so the id is the name. Any other name (a hashed or user-given name) gets
// 1,000,000,000 + (FNV-1a 32-bit of the name's bytes mod 1,000,000,000). The id depends on the name
// alone, so every rank, shard and tool computes it without seeing the rest of the job; two names
// that meet on one id are reported by the job (processGroupIdCollisions).

#include "model/common.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::job {

struct ProcessGroup {
    std::string name;                // "0", "1", … as PyTorch names them
    std::string desc;                // "default_pg", "tensor_parallel", … (may be empty)
    std::vector<std::int64_t> ranks; // global ranks, ascending; empty when not known
    std::int64_t size = -1;          // declared size (-1 unknown)

    friend bool operator==(const ProcessGroup &, const ProcessGroup &) = default;
};

// The id of a process group name (see above).
std::int64_t processGroupId(std::string_view name);

// The groups a Kineto trace declares (distributedInfo.pg_config). A group whose ranks list is empty
// but whose size equals the world size is the whole world (PyTorch leaves the default group's list
// empty). Empty when the trace has no distributedInfo.
std::vector<ProcessGroup> processGroupsFromKineto(const DeviceTrace &device);

// The groups in the host ET's `## process_group:init ##` node (its first input: a JSON string of
// [{pg_name, pg_desc, ranks, group_size, …}]). `worldSize` (-1 unknown) completes empty rank lists as
// above. A node that cannot be read is reported in `warnings` (file and node id), never thrown.
std::vector<ProcessGroup> processGroupsFromHostEt(const HostTrace &host, std::int64_t worldSize,
                                                  std::vector<Diagnostic> *warnings = nullptr);

// One rank's groups: the Kineto declaration first, the host ET's added for names Kineto lacks
// (and its ranks used where Kineto's are unknown).
std::vector<ProcessGroup> mergeRankGroups(std::vector<ProcessGroup> kineto, const std::vector<ProcessGroup> &host);

// The name of the default group among `groups`: the one described "default_pg", else "0".
std::string defaultGroupName(const std::vector<ProcessGroup> &groups);

// What the job's ranks say about one group, and where they disagree.
struct GroupConflict {
    std::string name;
    std::int64_t rank = -1; // a rank whose declaration differs from the first one's
    std::int64_t firstRank = -1;
    std::string what; // "ranks [0, 1] vs [0, 2]", "description …"
};

// Every rank's declared groups → the job's groups, sorted by id. Conflicting declarations keep the
// first rank's (lowest rank) and are listed in `conflicts`.
std::vector<ProcessGroup> mergeJobGroups(const std::map<std::int64_t, std::vector<ProcessGroup>> &byRank,
                                         std::vector<GroupConflict> *conflicts = nullptr);

// Pairs of distinct names sharing an id.
std::vector<std::pair<std::string, std::string>> processGroupIdCollisions(const std::vector<ProcessGroup> &groups);

// ASTRA-sim's --comm-group-configuration file: {"<id>": [ranks…], …} for every group with known
// ranks, ids in ascending numeric order.
nlohmann::ordered_json commGroupJson(const std::vector<ProcessGroup> &groups);
// Written atomically; throws WriteError.
void writeCommGroupFile(const std::string &path, const std::vector<ProcessGroup> &groups);

nlohmann::json toJson(const ProcessGroup &group);
ProcessGroup processGroupFromJson(const nlohmann::json &j);

} // namespace linkscope::core::job
