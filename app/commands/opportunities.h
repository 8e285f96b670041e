#pragma once
// `linkscope predict --opportunities` (docs/prediction.md, "Opportunities"): the candidate changes
// replayed on the graph `linkscope predict` loaded, ranked by the job's predicted gain, as text or JSON.

#include "predict/replay.h"

#include <cstddef>
#include <iosfwd>
#include <string>

namespace linkscope::cli {

// --opportunities-limit not given: the text lists 20, the JSON all.
inline constexpr std::size_t kDefaultOpportunities = static_cast<std::size_t>(-1);

struct OpportunitiesRequest {
    core::predict::ReplayModel model = core::predict::ReplayModel::Faithful;
    std::size_t limit = kDefaultOpportunities; // opportunities printed; 0: all
    bool json = false;
};

// The sweep on `job` (predict/opportunities.h), printed; returns the exit status (1 when the job
// cannot be swept: a rank that never finishes as it is).
int printOpportunities(const core::predict::SimJob &job, const std::string &networkSource, double loadMs,
                       const OpportunitiesRequest &request, std::ostream &out, std::ostream &err);

} // namespace linkscope::cli
