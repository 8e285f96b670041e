#pragma once
// Whether the --fault specs of a generated job can happen: the rank exists, it is a member of the
// process group named, and it issues the collective (or posts the receive) named. A fault that
// cannot happen would write a fault-free job the user then reads as a detection failure;
// checkFaults refuses it and names what is valid.

#include "gen/tracegenerator.h"

#include <map>
#include <string>
#include <vector>

namespace linkscope::gen {

// One rank's process groups and how many collectives / receives it issues on each over the job's
// steps, in the fault-free program (a fault does not change the positions counted).
struct RankPlan {
    struct Group {
        std::string name;
        std::string desc; // "default_pg", "tensor_parallel", "data_parallel"
        std::vector<int> ranks;
    };
    std::vector<Group> groups;
    std::map<std::string, int> collectives; // group name → collectives issued (non-P2P)
    std::map<std::string, int> receives;    // group name → receives posted
};

// "skip:5:1:1" as it was given.
std::string faultText(const GeneratorFault &fault);

// Throws std::invalid_argument naming the first impossible fault and what would be valid (the ranks,
// the rank's groups with their members, the positions it issues in `steps` steps). `plans` has one
// entry per rank.
void checkFaults(const std::vector<GeneratorFault> &faults, const std::vector<RankPlan> &plans, int steps);

} // namespace linkscope::gen
