#pragma once
// Which nodes of a job each term of a what-if changes (docs/prediction.md, "What-if"): a what-if
// that matches nothing, or nothing on the critical path, is not silent.

#include "predict/simgraph.h"
#include "predict/whatif.h"

#include <cstddef>
#include <string>
#include <vector>

namespace linkscope::core::predict {

struct WhatIfMatch {
    std::string term;       // as WhatIf::describe() names it: "GPU ops /gemm/ ×0.5"
    std::string flag;       // the CLI option it comes from: "--scale-gpu"
    std::size_t nodes = 0;  // nodes it changes (every rank)
    std::size_t onPath = 0; // of them on a rank's critical path (the run before the change)
};

// Per node of each rank: 1 when it is on some rank's critical path. Empty: not known.
using PathMembership = std::vector<std::vector<char>>;

// One entry per term of `whatIf`, in describe()'s order. A network term (transfers, bandwidth,
// latency) matches the collectives and sends; a delay the ProfilerStep#N nodes (or the first CPU
// node of a rank that has none).
std::vector<WhatIfMatch> matchWhatIf(const SimJob &job, const WhatIf &whatIf, const PathMembership &onPath = {});

// Warnings a user must see: a term that matches no node; a delay on a rank with no ProfilerStep#N
// (it is added once, to the first CPU node); a term whose nodes are all off the critical path.
std::vector<std::string> whatIfWarnings(const SimJob &job, const WhatIf &whatIf, const std::vector<WhatIfMatch> &matches);

} // namespace linkscope::core::predict
