#include "gen/faultcheck.h"

#include <sstream>
#include <stdexcept>

namespace linkscope::gen {

namespace {

const char *kindName(GeneratorFault::Kind kind)
{
    switch (kind) {
    case GeneratorFault::Kind::Skip:
        return "skip";
    case GeneratorFault::Kind::Resize:
        return "resize";
    case GeneratorFault::Kind::Swap:
        return "swap";
    case GeneratorFault::Kind::DropRecv:
        return "drop-recv";
    }
    return "?";
}

// "0-7" for a contiguous run, else "1,3,5,7".
std::string rankList(const std::vector<int> &ranks)
{
    std::ostringstream out;
    bool contiguous = ranks.size() > 2;
    for (std::size_t i = 1; i < ranks.size(); ++i)
        contiguous = contiguous && ranks[i] == ranks[i - 1] + 1;
    if (contiguous) {
        out << ranks.front() << '-' << ranks.back();
        return out.str();
    }
    for (std::size_t i = 0; i < ranks.size(); ++i)
        out << (i ? "," : "") << ranks[i];
    return out.str();
}

std::string groupsOf(int rank, const RankPlan &plan)
{
    std::ostringstream out;
    out << "rank " << rank << "'s process groups are ";
    for (std::size_t i = 0; i < plan.groups.size(); ++i) {
        const RankPlan::Group &g = plan.groups[i];
        out << (i == 0                        ? ""
                : i + 1 == plan.groups.size() ? " and "
                                              : ", ")
            << g.name << " (" << g.desc << ", ranks " << rankList(g.ranks) << ')';
    }
    return out.str();
}

int countOf(const std::map<std::string, int> &counts, const std::string &group)
{
    const auto it = counts.find(group);
    return it == counts.end() ? 0 : it->second;
}

} // namespace

std::string faultText(const GeneratorFault &fault)
{
    return std::string(kindName(fault.kind)) + ':' + std::to_string(fault.rank) + ':' + fault.processGroup + ':'
           + std::to_string(fault.index);
}

void checkFaults(const std::vector<GeneratorFault> &faults, const std::vector<RankPlan> &plans, int steps)
{
    const int world = static_cast<int>(plans.size());
    for (const GeneratorFault &f : faults) {
        const std::string head = "--fault " + faultText(f) + ": ";
        if (f.rank < 0 || f.rank >= world)
            throw std::invalid_argument(head + "the job has ranks 0-" + std::to_string(world - 1) + " (--ranks "
                                        + std::to_string(world) + "), no rank " + std::to_string(f.rank));
        const RankPlan &plan = plans[static_cast<std::size_t>(f.rank)];
        bool member = false;
        for (const RankPlan::Group &g : plan.groups)
            member = member || g.name == f.processGroup;
        if (!member)
            throw std::invalid_argument(head + "rank " + std::to_string(f.rank) + " is not in process group " + f.processGroup
                                        + "; " + groupsOf(f.rank, plan));
        const std::string inSteps = " in " + std::to_string(steps) + (steps == 1 ? " step" : " steps") + " (--steps)";
        if (f.kind == GeneratorFault::Kind::DropRecv) {
            const int n = countOf(plan.receives, f.processGroup);
            if (n == 0)
                throw std::invalid_argument(head + "rank " + std::to_string(f.rank) + " posts no receive on process group "
                                            + f.processGroup
                                            + " (on group 0 rank 2k sends to rank 2k+1: receivers are the odd ranks)");
            if (f.index >= n)
                throw std::invalid_argument(head + "rank " + std::to_string(f.rank) + " posts receives 0-" + std::to_string(n - 1)
                                            + " on process group " + f.processGroup + inSteps);
            continue;
        }
        const int n = countOf(plan.collectives, f.processGroup);
        const int last = f.kind == GeneratorFault::Kind::Swap ? f.index + 1 : f.index; // swap needs the next one too
        if (n == 0)
            throw std::invalid_argument(head + "rank " + std::to_string(f.rank) + " issues no collective on process group "
                                        + f.processGroup + inSteps + "; " + groupsOf(f.rank, plan));
        if (last >= n)
            throw std::invalid_argument(head + "rank " + std::to_string(f.rank) + " issues collectives 0-" + std::to_string(n - 1)
                                        + " on process group " + f.processGroup + inSteps
                                        + (f.kind == GeneratorFault::Kind::Swap ? " (swap exchanges INDEX and INDEX+1)" : ""));
    }
}

} // namespace linkscope::gen
