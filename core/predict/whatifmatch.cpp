#include "predict/whatifmatch.h"

#include "predict/namememo.h"
#include "predict/replay.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace linkscope::core::predict {

namespace {

std::string factorText(double k)
{
    std::ostringstream out;
    out << k;
    return out.str();
}

std::string rankPrefix(std::int64_t rank) { return rank >= 0 ? "rank " + std::to_string(rank) + "'s " : std::string(); }

// Counts the nodes `pick(rank index, node position)` selects, and those of them on the path.
WhatIfMatch count(const SimJob &job, const PathMembership &onPath, WhatIfMatch m,
                  const std::function<bool(std::size_t, std::size_t)> &pick)
{
    for (std::size_t r = 0; r < job.ranks.size(); ++r)
        for (std::size_t i = 0; i < job.ranks[r].nodes.size(); ++i)
            if (pick(r, i)) {
                ++m.nodes;
                if (r < onPath.size() && i < onPath[r].size() && onPath[r][i])
                    ++m.onPath;
            }
    return m;
}

// Per rank, per interned name: whether `scale` matches it (one regex search per distinct name of the job).
std::vector<std::vector<char>> namesMatching(const SimJob &job, const WhatIf::NameScale &scale, NodeKind kind)
{
    return perDistinctName<char>(
        job, kind, false, 0, [&scale](const std::string &name, std::int64_t) -> char { return scale.matches(name) ? 1 : 0; },
        [&scale](std::int64_t rank) { return !scale.appliesTo(rank); });
}

} // namespace

std::vector<WhatIfMatch> matchWhatIf(const SimJob &job, const WhatIf &whatIf, const PathMembership &onPath)
{
    std::vector<WhatIfMatch> out;
    auto byName = [&](const WhatIf::NameScale &s, NodeKind kind, const char *flag, const char *what) {
        const std::vector<std::vector<char>> names = namesMatching(job, s, kind);
        out.push_back(count(job, onPath, {rankPrefix(s.rank) + what + " /" + s.pattern + "/ ×" + factorText(s.factor), flag},
                            [&](std::size_t r, std::size_t i) {
                                const SimNode &n = job.ranks[r].nodes[i];
                                return n.kind == kind && !names[r].empty() && names[r][n.name];
                            }));
    };
    for (const WhatIf::NameScale &s : whatIf.gpu)
        byName(s, NodeKind::Gpu, "--scale-gpu", "GPU ops");
    for (const WhatIf::NameScale &s : whatIf.cpu)
        byName(s, NodeKind::Cpu, "--scale-cpu", "CPU ops");
    for (const auto &[stream, factor] : whatIf.streamFactor) {
        const std::int64_t st = stream;
        out.push_back(count(job, onPath, {"stream " + std::to_string(st) + " ×" + factorText(factor), "--scale-stream"},
                            [&](std::size_t r, std::size_t i) {
                                const SimNode &n = job.ranks[r].nodes[i];
                                return n.kind == NodeKind::Gpu && n.stream == st;
                            }));
    }
    auto transfers = [&](const std::string &term, const char *flag) {
        out.push_back(count(job, onPath, {term, flag}, [&](std::size_t r, std::size_t i) {
            const NodeKind k = job.ranks[r].nodes[i].kind;
            return k == NodeKind::Collective || k == NodeKind::Send || k == NodeKind::Recv;
        }));
    };
    if (whatIf.transferFactor != 1)
        transfers("transfers ×" + factorText(whatIf.transferFactor), "--scale-comm");
    if (whatIf.bandwidthFactor != 1)
        transfers("bandwidth ×" + factorText(whatIf.bandwidthFactor), "--scale-network");
    if (whatIf.latencyFactor != 1)
        transfers("latency ×" + factorText(whatIf.latencyFactor), "--scale-latency");
    for (const auto &[rankId, ms] : whatIf.rankDelayMs) {
        const std::int64_t id = rankId;
        std::vector<std::uint32_t> firstCpu(job.ranks.size(), kNoNode);
        for (std::size_t r = 0; r < job.ranks.size(); ++r)
            if (job.ranks[r].rank == id && job.ranks[r].steps.empty())
                firstCpu[r] = Durations::firstCpuNode(job.ranks[r]);
        out.push_back(count(job, onPath, {"rank " + std::to_string(id) + " +" + factorText(ms) + " ms per step", "--delay-rank"},
                            [&](std::size_t r, std::size_t i) {
                                const SimRank &rank = job.ranks[r];
                                if (rank.rank != id)
                                    return false;
                                return firstCpu[r] == i
                                       || std::binary_search(rank.steps.begin(), rank.steps.end(), static_cast<std::uint32_t>(i));
                            }));
    }
    return out;
}

std::vector<std::string> whatIfWarnings(const SimJob &job, const WhatIf &whatIf, const std::vector<WhatIfMatch> &matches)
{
    std::vector<std::string> out;
    for (const WhatIfMatch &m : matches) {
        if (m.nodes == 0)
            out.push_back(m.flag + " " + m.term + ": matches no node of the job, so it changes nothing"
                          + (m.flag == "--scale-gpu" ? " (communication kernels take their time from the network: use "
                                                       "--scale-comm, --scale-network or --scale-latency)"
                                                     : ""));
    }
    if (!whatIf.gpu.empty() || !whatIf.cpu.empty()) {
        std::size_t longNames = 0, longest = 0;
        for (const SimRank &rank : job.ranks)
            for (const std::string &name : rank.names)
                if (name.size() > kMaxMatchedNameChars) {
                    ++longNames;
                    longest = std::max(longest, name.size());
                }
        if (longNames)
            out.push_back(std::to_string(longNames) + " op name(s) longer than " + std::to_string(kMaxMatchedNameChars)
                          + " characters (the longest " + std::to_string(longest)
                          + "): --scale-gpu and --scale-cpu match their first " + std::to_string(kMaxMatchedNameChars)
                          + " characters only");
    }
    for (const auto &[rankId, ms] : whatIf.rankDelayMs) {
        (void)ms;
        for (const SimRank &rank : job.ranks)
            if (rank.rank == rankId && rank.steps.empty()) {
                const std::uint32_t first = Durations::firstCpuNode(rank);
                if (first != kNoNode)
                    out.push_back("--delay-rank " + std::to_string(rankId) + ": rank " + std::to_string(rankId)
                                  + " has no ProfilerStep#N node, so the delay is added once, to its first CPU op (node "
                                  + std::to_string(rank.nodes[first].id) + ", " + rank.names[rank.nodes[first].name]
                                  + "), not to every step");
            }
    }
    return out;
}

} // namespace linkscope::core::predict
