#include "commands/against.h"

#include "job/discovery.h"
#include "pipeline/pairpipeline.h"

#include <filesystem>
#include <ostream>

namespace linkscope::cli {

namespace fs = std::filesystem;
using namespace linkscope::core;

std::optional<predict::Against> predictAgainst(const std::vector<std::string> &inputs, const predict::SimJob &a,
                                               const predict::Prediction &prediction, const WhatIf &whatIf,
                                               predict::ReplayModel model, const job::JobOptions &options, std::ostream &err)
{
    std::string source = inputs.size() == 2 ? inputs[0] + " + " + inputs[1] : inputs.empty() ? std::string() : inputs[0];
    try {
        predict::JobGraph b;
        std::error_code ec;
        if (inputs.size() == 1 && fs::is_directory(inputs[0], ec)) {
            if (predict::isJobExport(inputs[0])) {
                b = predict::loadJobExport(inputs[0]);
            } else {
                const job::JobLayout layout = job::discoverJob(inputs);
                if (!layout.errors.empty())
                    throw std::runtime_error(inputs[0] + ": " + layout.errors.front());
                if (layout.ranks.empty())
                    throw std::runtime_error(inputs[0] + ": no traces and no trace.R.et files");
                b = predict::exportJobGraph(layout.ranks, layout.worldSize, options);
            }
        } else if (inputs.size() == 1 || inputs.size() == 2) {
            const PairFiles files = resolvePairFiles(inputs[0], inputs.size() > 1 ? inputs[1] : std::string());
            if (files.host.empty())
                throw std::runtime_error(inputs[0]
                                         + ": a Kineto trace alone has no measured step to compare with "
                                           "(give its host ET too: --against HOST_ET --against KINETO)");
            job::RankFiles rank;
            rank.host = files.host;
            rank.device = files.device;
            const job::KinetoHeader header = job::peekKinetoHeader(files.device);
            rank.rank = std::max<std::int64_t>(0, header.rank);
            b = predict::exportJobGraph({rank}, header.worldSize, options);
        } else {
            throw std::invalid_argument("--against takes a folder, or a host ET and its Kineto trace");
        }
        return predict::compareAgainst(a, prediction, whatIf, model, b, source);
    } catch (const std::exception &e) {
        err << "predict: --against: " << e.what() << '\n';
        return std::nullopt;
    }
}

} // namespace linkscope::cli
