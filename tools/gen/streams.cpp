#include "gen/streams.h"

#include <algorithm>
#include <cmath>

namespace linkscope::gen {

std::vector<int> deviceStreams(const GeneratorOptions &options)
{
    std::vector<int> streams = {kComputeStream, kGraphStream, kCommStream};
    const int sides = std::clamp(options.computeStreams, 1, 1 + static_cast<int>(kSideStreams.size())) - 1;
    for (int s = 0; s < sides; ++s)
        streams.push_back(kSideStreams[static_cast<std::size_t>(s)]);
    if (options.copyStream)
        streams.push_back(kCopyStream);
    return streams;
}

int sideStream(const GeneratorOptions &options, int layer)
{
    const int sides = std::clamp(options.computeStreams, 2, 1 + static_cast<int>(kSideStreams.size())) - 1;
    return kSideStreams[static_cast<std::size_t>(layer % sides)];
}

void StreamEvents::launched(int thread, int stream, Nanos end)
{
    Thread &t = threads_[static_cast<std::size_t>(thread)];
    t.lastStream = stream;
    t.lastEnd = end;
}

void StreamEvents::record(int thread)
{
    Thread &t = threads_[static_cast<std::size_t>(thread)];
    t.recorded = t.lastEnd;
}

void StreamEvents::wait(int thread)
{
    Thread &t = threads_[static_cast<std::size_t>(thread)];
    t.waitUntil = std::max(t.waitUntil, t.recorded);
}

Nanos StreamEvents::takeWait(int thread) { return std::exchange(threads_[static_cast<std::size_t>(thread)].waitUntil, 0); }

void StreamEvents::owe(int thread, Nanos until)
{
    Thread &t = threads_[static_cast<std::size_t>(thread)];
    t.waitUntil = std::max(t.waitUntil, until);
}

TimeScales::TimeScales(const GeneratorOptions &options, int rank)
    : cpuFactor_(options.cpuScale), computeScale_(options.computeScale)
{
    for (const GeneratorOptions::RankScale &r : options.cpuRankScales)
        if (r.rank == rank)
            cpuFactor_ *= r.factor;
    for (const GeneratorOptions::KernelScale &k : options.kernelScales)
        patterns_.emplace_back(std::regex(k.pattern, std::regex::ECMAScript), k.factor);
}

Nanos TimeScales::scaled(Nanos drawn, double factor)
{
    return static_cast<Nanos>(std::llround(static_cast<double>(drawn) * factor));
}

Nanos TimeScales::kernel(Nanos drawn, std::string_view name)
{
    if (patterns_.empty())
        return computeScale_ == 1.0 ? drawn : scaled(drawn, computeScale_);
    auto it = std::find_if(byName_.begin(), byName_.end(), [&](const auto &entry) { return entry.first == name.data(); });
    if (it == byName_.end()) {
        double factor = computeScale_;
        for (const auto &[pattern, k] : patterns_)
            if (std::regex_search(name.begin(), name.end(), pattern))
                factor *= k;
        byName_.emplace_back(name.data(), factor);
        it = std::prev(byName_.end());
    }
    return it->second == 1.0 ? drawn : scaled(drawn, it->second);
}

} // namespace linkscope::gen
