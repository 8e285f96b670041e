#pragma once
// The small job the GUI job tests open: 4 ranks (tp 2: process groups 0 (all), 1 (0-1), 2 (2-3),
// 3 (0,2), 4 (1,3)), one step of two layers, where rank 3 does not issue collective 0 of group 2
// (a missing_collective finding), written to DIR/job with two ranks generated at a time.

#include "gen/tracegenerator.h"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace linkscope::test {

inline std::string writeSkippingJob(const std::string &dir)
{
    gen::GeneratorOptions o;
    o.seed = 11;
    o.steps = 1;
    o.layers = 2;
    o.worldSize = 4;
    gen::GeneratorFault f;
    if (!gen::parseFault("skip:3:2:0", f))
        throw std::logic_error("the skipping job's fault does not parse");
    o.faults.push_back(f);
    const std::string job = (std::filesystem::path(dir) / "job").string();
    gen::generateJob(o, job, false, 2);
    return job;
}

} // namespace linkscope::test
