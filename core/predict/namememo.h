#pragma once
// A value per interned name of each rank of a job, computed once per distinct name: the ranks of a
// job mostly share their names (TP and DP ranks run the same ops), and what is computed per name
// (a what-if's regex search) costs far more than a look-up. The replay's factors (replay.cpp) and a
// what-if's match counts (whatifmatch.cpp) are both made here.

#include "predict/simgraph.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace linkscope::core::predict {

// Per rank, per interned name: value(name, rank) for the names some node of `kind` has, `unused` for
// the others. `value` runs once per distinct name of the job, or once per distinct name of each
// rank when `perRank` (its value depends on the rank). A rank `skip(rank)` is true for gets an empty row.
template <class T, class Value, class Skip>
std::vector<std::vector<T>> perDistinctName(const SimJob &job, NodeKind kind, bool perRank, T unused, Value value, Skip skip)
{
    std::vector<std::vector<T>> out(job.ranks.size());
    std::unordered_map<std::string_view, T> seen;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const SimRank &rank = job.ranks[r];
        if (skip(rank.rank))
            continue;
        if (perRank)
            seen.clear();
        std::vector<char> used(rank.names.size(), 0);
        for (const SimNode &n : rank.nodes)
            if (n.kind == kind)
                used[n.name] = 1;
        out[r].assign(rank.names.size(), unused);
        for (std::size_t i = 0; i < rank.names.size(); ++i) {
            if (!used[i])
                continue;
            auto it = seen.find(rank.names[i]);
            if (it == seen.end())
                it = seen.emplace(rank.names[i], value(rank.names[i], rank.rank)).first;
            out[r][i] = it->second;
        }
    }
    return out;
}

} // namespace linkscope::core::predict
