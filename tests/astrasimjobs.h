#pragma once
// Small hand-made ASTRA-sim jobs (PREFIX.R.et + a comm group file) for shapes the simulator
// mishandles, shared by test_etcheck (what `linkscope check` says) and test_astrasim_replay (what
// the simulator does). docs/astra-sim-export.md describes each.

#include "export/chakra/etformat.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::test {

struct HandMadeJob {
    std::string prefix;     // PREFIX of PREFIX.R.et
    std::string commGroups; // the comm group file
    std::vector<std::string> files;
};

// PREFIX.R.et for R = 0 … calls.size() - 1: rank R issues calls[R] = (Chakra CollectiveCommType,
// pg_name) one after the other (node k after node k - 1), each 1 MiB; `groups` is the comm group file.
inline HandMadeJob writeCollectiveJob(const std::string &dir, const std::string &name, const nlohmann::json &groups,
                                      const std::vector<std::vector<std::pair<int, std::string>>> &calls)
{
    HandMadeJob job;
    job.prefix = dir + "/" + name;
    job.commGroups = dir + "/" + name + "_comm_group.json";
    std::ofstream(job.commGroups) << groups.dump();
    for (std::size_t rank = 0; rank < calls.size(); ++rank) {
        core::ChakraTrace trace;
        auto *schema = trace.metadata.add_attr();
        schema->set_name("schema");
        schema->set_string_val("1.1.1-chakra.0.0.4");
        for (std::size_t k = 0; k < calls[rank].size(); ++k) {
            const auto &[commType, group] = calls[rank][k];
            ChakraProtoMsg::Node &node = trace.nodes.emplace_back();
            node.set_id(k);
            node.set_name(commType == ChakraProtoMsg::ALL_REDUCE ? "ncclDevKernel_AllReduce" : "ncclDevKernel_Collective");
            node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
            if (k > 0)
                node.add_ctrl_deps(k - 1);
            auto attr = [&](const char *attrName) {
                auto *a = node.add_attr();
                a->set_name(attrName);
                return a;
            };
            attr("is_cpu_op")->set_bool_val(false);
            attr("comm_type")->set_int64_val(commType);
            attr("comm_size")->set_int64_val(1 << 20);
            attr("pg_name")->set_string_val(group);
        }
        job.files.push_back(job.prefix + "." + std::to_string(rank) + ".et");
        std::ofstream(job.files.back(), std::ios::binary) << core::serializeChakraEt(trace);
    }
    return job;
}

// Four ranks, comm groups 1 = {0,1} and 2 = {2,3} (tensor parallel), 3 = {0,2} and 4 = {1,3} (data
// parallel), `secondOnWorld` adding 5 = {0,1,2,3}. Each rank issues an all-reduce on its
// tensor-parallel group (node 0), then a `second` (a Chakra CollectiveCommType) on its data-parallel
// group (node 1) — or on group 5 when `secondOnWorld`. With `second` = ALL_REDUCE on groups 3/4 this
// is the smallest job on which ASTRA-sim 518bd51 double-frees when it exits: every rank uses the
// all-reduce implementation on two groups smaller than the world.
inline HandMadeJob writeTwoGroupJob(const std::string &dir, int second = ChakraProtoMsg::ALL_REDUCE, bool secondOnWorld = false)
{
    nlohmann::json groups = {{"1", {0, 1}}, {"2", {2, 3}}, {"3", {0, 2}}, {"4", {1, 3}}};
    if (secondOnWorld)
        groups["5"] = {0, 1, 2, 3};
    std::vector<std::vector<std::pair<int, std::string>>> calls;
    for (int rank = 0; rank < 4; ++rank)
        calls.push_back(
            {{ChakraProtoMsg::ALL_REDUCE, rank < 2 ? "1" : "2"}, {second, secondOnWorld ? "5" : (rank % 2 == 0 ? "3" : "4")}});
    return writeCollectiveJob(dir, "twogroups", groups, calls);
}

// Two ranks: an all-reduce on group 1 = {0,1}, then one on the rank's own group (2 = {0}, 3 = {1}),
// which ASTRA-sim never completes.
inline HandMadeJob writeOneRankGroupJob(const std::string &dir)
{
    return writeCollectiveJob(dir, "onerank", {{"1", {0, 1}}, {"2", {0}}, {"3", {1}}},
                              {{{ChakraProtoMsg::ALL_REDUCE, "1"}, {ChakraProtoMsg::ALL_REDUCE, "2"}},
                               {{ChakraProtoMsg::ALL_REDUCE, "1"}, {ChakraProtoMsg::ALL_REDUCE, "3"}}});
}

} // namespace linkscope::test
