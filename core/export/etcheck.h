#pragma once
// Pre-flight for a job's Chakra .et files before ASTRA-sim replays them (`linkscope check`): what
// would make the simulator abort, hang or run something else than the job did. Each finding names
// the file, the node id and the rule:
//
//   unreadable             the file is not a Chakra .et (framing, protobuf)
//   duplicate_id           two nodes share an id
//   missing_dependency     a data_deps / ctrl_deps id that is not in the file (the feeder aborts)
//   dependency_cycle       data_deps or ctrl_deps form a cycle (the nodes on it never run)
//   unsupported_node_type  a type the simulator does not run (METADATA_NODE aborts its statistics)
//   comm_is_cpu_op         a communication node with is_cpu_op true ("Comm node should not be on CPU")
//   comm_type              a collective without comm_type, or one the workload layer does not issue
//   comm_size              a communication node without comm_size > 0 stored as int64
//   p2p_peer               a send without comm_dst / a receive without comm_src, or without comm_tag
//   pg_name_not_integer    a pg_name that is not an integer id (the simulator parses it with stoi)
//   pg_name_unknown        a pg_name other than "" / "0" that the comm groups do not define
//   group_rank_missing     a comm group names a rank that has no file
//   comm_groups            the comm group file cannot be read, or names group 0 (the simulator
//                          asserts id > 0; pg_name "0" already means every rank)
//   and the job's cross-rank rules (job/crossrank.h, docs/job-report.md) over each group's
//   collective sequence in node id order, by their own names; the finding names the first
//   differing rank's file and its node at that position.
//
// A file's rank is N in PREFIX.N.et (what ASTRA-sim opens); otherwise its position in the list.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::core {

struct EtCheckFinding {
    enum class Severity : std::uint8_t { Error, Warning };
    Severity severity = Severity::Error;
    std::string rule;
    std::string file;           // empty: about the job, not one file
    std::int64_t node = -1;     // node id; -1: not about one node
    std::string message;

    std::string toString() const; // "error: FILE: node 12: rule: message"
    nlohmann::json toJson() const;
};

struct EtCheckResult {
    std::vector<EtCheckFinding> findings; // per file in the order given, then the job's
    std::size_t files = 0, nodes = 0;
    std::size_t errors() const;
    bool ok() const { return errors() == 0; }
    nlohmann::json toJson() const;
};

// `commGroupsPath` empty: no comm group file (only "" and "0" are valid pg_names then).
EtCheckResult checkEtFiles(const std::vector<std::string> &files, const std::string &commGroupsPath = {});

} // namespace linkscope::core
