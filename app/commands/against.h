#pragma once
// `linkscope predict ... --against B`: B read as the measured run (a job's traces, a job export with
// its job-report.json, or one pair) and the prediction compared with it (predict/against.h).

#include "job/jobrun.h"
#include "predict/against.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::cli {

// `inputs`: --against's values (a folder, or a host ET and its Kineto trace). Prints what is wrong to
// `err` ("predict: --against …") and returns nullopt when B cannot be read or compared.
std::optional<core::predict::Against> predictAgainst(const std::vector<std::string> &inputs, const core::predict::SimJob &a,
                                                     const core::predict::Prediction &prediction, const core::WhatIf &whatIf,
                                                     core::predict::ReplayModel model, const core::job::JobOptions &options,
                                                     std::ostream &err);

} // namespace linkscope::cli
