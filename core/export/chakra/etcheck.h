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
//   group_single_rank      a collective (not a broadcast) on a comm group of one rank: the
//                          simulator never completes it
//   comm_groups            the comm group file cannot be read (or is not a regular file), names
//                          group 0 (the simulator asserts id > 0; pg_name "0" already means every
//                          rank), or lists a rank twice in one group
//   duration_range         a node's duration_micros past 2e12 µs or lane_dur_ns past 2e15 ns
//                          (export/chakra/etbounds.h): its time in ns would not be replayed as written
//   duration_total         a file's (or the job's) node times summed pass 2^62 ns: the replay's
//                          clocks would saturate
//   duplicate_rank         two files of one rank (the same file twice, an .et and its .et.gz, an
//                          old copy): the first given is the rank's
//   astra_sim_exit_double_free  (warning) a rank issues one collective type on two comm groups
//                          smaller than the world: ASTRA-sim 518bd51 double-frees at exit and
//                          aborts after every rank finished (one finding for the job, naming the
//                          first such file; docs/astra-sim-export.md)
//   and the job's cross-rank rules (jobmodel/crossrank.h, docs/job-report.md) over each group's
//   collective sequence in node id order, by their own names; the finding names the first
//   differing rank's file and its node at that position.
//
// A file's rank is N in PREFIX.N.et (what ASTRA-sim opens); otherwise its position in the list.
//
// At most kEtCheckListedPerRule findings of one rule are listed per file (and per job for the job's
// rules); the rest are counted, and one finding of the rule says how many more there were (its
// `count`), so a check holds a few words per node and its output is bounded whatever the file holds.

#include "jobmodel/crossrank.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::core {

inline constexpr std::size_t kEtCheckListedPerRule = 100;

struct EtCheckFinding {
    enum class Severity : std::uint8_t { Error, Warning };
    Severity severity = Severity::Error;
    std::string rule;
    std::string file;       // empty: about the job, not one file
    std::int64_t node = -1; // node id; -1: not about one node
    std::string message;
    std::size_t count = 1; // how many findings this one stands for ("N more … not listed": N)

    std::string toString() const; // "error: FILE: node 12: rule: message"
    nlohmann::json toJson() const;
};

struct EtCheckResult {
    std::vector<EtCheckFinding> findings; // per file in the order given, then the job's
    std::size_t files = 0, nodes = 0;
    std::size_t errors() const; // counting the unlisted ones
    bool ok() const { return errors() == 0; }
    nlohmann::json toJson() const;
};

// What one file's check found and what the job's pass needs of it: its communication nodes as
// calls in id order. The rules that need the whole job (pg_name_unknown, group_rank_missing, the
// cross-rank sequences) wait for checkEtJob. Holds no protobuf message: a few words per node while
// it runs, the calls after.
struct EtFileCheck {
    std::string path;
    bool readable = false;
    std::size_t nodes = 0;
    std::int64_t totalNs = 0; // its node times summed (export/chakra/etbounds.h), ≤ kMaxEtTotalNs
    std::vector<EtCheckFinding> findings;
    job::RankCalls calls;                // rank = the file's rank
    std::vector<std::int64_t> callNodes; // node id of each call
    std::vector<std::string> callNames;  // node name of each call
};

// One file's rules; thread-safe, so a job checks each rank's file where it wrote it.
EtFileCheck checkEtFile(const std::string &path, std::int64_t rank);
// The job's rules over files checked one by one; findings: the comm group file's, then each file's
// in the order given, then the job's. `commGroupsPath` empty: no comm group file (only "" and "0"
// are valid pg_names then).
EtCheckResult checkEtJob(std::vector<EtFileCheck> files, const std::string &commGroupsPath = {});
// Both: the files checked on `jobs` threads (each holds one file's bytes while it runs).
EtCheckResult checkEtFiles(const std::vector<std::string> &files, const std::string &commGroupsPath = {}, int jobs = 1);

// A file's rank: N in PREFIX.N.et, else `position`.
std::int64_t etFileRank(const std::string &path, std::int64_t position);

} // namespace linkscope::core
