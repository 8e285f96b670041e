#include "commands/against.h"

#include <ostream>

namespace linkscope::cli {

using namespace linkscope::core;

std::optional<predict::Against> predictAgainst(const std::vector<std::string> &inputs, const predict::SimJob &a,
                                               const predict::Prediction &prediction, const WhatIf &whatIf,
                                               predict::ReplayModel model, const job::JobOptions &options, std::ostream &err)
{
    try {
        const predict::MeasuredRun b = predict::readMeasuredRun(inputs, options);
        return predict::compareAgainst(a, prediction, whatIf, model, b.graph, b.source);
    } catch (const std::exception &e) {
        err << "predict: --against: " << e.what() << '\n';
        return std::nullopt;
    }
}

} // namespace linkscope::cli
