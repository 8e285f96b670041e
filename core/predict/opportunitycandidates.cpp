#include "predict/opportunitycandidates.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace linkscope::core::predict {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";
// Compute kernels: not the copies and sets (linkscope-gen's --compute-scale leaves those too).
constexpr const char *kComputeKernels = "^(?!Memcpy|Memset|nccl)";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string number(double k)
{
    std::ostringstream out;
    out << k;
    return out.str();
}

} // namespace

std::string kernelFamily(std::string_view name)
{
    std::string_view s = trim(name);
    if (s.starts_with("void "))
        s = trim(s.substr(5));
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s.substr(i).starts_with(kAnonymous)) {
            out += kAnonymous;
            i += kAnonymous.size();
            continue;
        }
        if (s[i] == '<' || s[i] == '(')
            break;
        out += s[i++];
    }
    const std::string_view family = trim(out);
    return family.empty() ? std::string(trim(name)) : std::string(family);
}

std::string escapeRegex(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string kernelFamilyPattern(std::string_view family)
{
    // After the family: the end, or (after spaces) its template arguments or parameters — not more
    // of a longer name, and not an "(anonymous namespace)" that belongs to a longer family.
    return "^(void )?" + escapeRegex(family) + "\\s*(<|\\((?!anonymous namespace\\))|$)";
}

std::vector<PathEntry> pathEntries(const SimJob &job, const RankPath &path)
{
    std::map<std::tuple<std::size_t, std::uint32_t, NodeKind, std::int64_t>, std::int64_t> byKey;
    for (const PathStep &s : path.steps) {
        if (s.node == kNoNode || s.rank < 0)
            continue;
        const std::size_t r = static_cast<std::size_t>(s.rank);
        const SimNode &n = job.ranks[r].nodes[s.node];
        byKey[{r, n.name, n.kind, n.kind == NodeKind::Gpu ? n.stream : -1}] += s.endNs - s.startNs;
    }
    std::vector<PathEntry> out;
    for (const auto &[key, ns] : byKey)
        out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), ns});
    return out;
}

Breakdown workOfPath(const SimJob &job, const RankPath &path)
{
    Breakdown b;
    for (const PathStep &s : path.steps) {
        const std::int64_t ns = s.endNs - s.startNs;
        if (s.category == PathCategory::Idle || s.node == kNoNode || s.rank < 0) {
            b.idleNs += ns;
            continue;
        }
        const NodeKind kind = job.ranks[static_cast<std::size_t>(s.rank)].nodes[s.node].kind;
        if (s.category == PathCategory::Comm)
            b.commNs += ns;
        else
            (kind == NodeKind::Cpu ? b.cpuNs : kind == NodeKind::Gpu ? b.gpuNs : b.commNs) += ns;
    }
    return b;
}

std::vector<std::int64_t> findStragglers(const SimJob &job, const std::vector<PathEntry> &entries, std::int64_t stepNs,
                                         double share)
{
    std::map<std::int64_t, std::int64_t> cpuNs;
    for (const PathEntry &e : entries)
        if (e.kind == NodeKind::Cpu)
            cpuNs[job.ranks[e.rank].rank] += e.ns;
    std::vector<std::int64_t> out;
    for (const auto &[rank, ns] : cpuNs)
        if (ns > 0 && double(ns) >= share * double(stepNs))
            out.push_back(rank);
    return out;
}

namespace {

WhatIf::NameScale nameScale(const std::string &pattern, double factor, std::int64_t rank = -1)
{
    WhatIf::NameScale s;
    s.pattern = pattern;
    s.factor = factor;
    s.rank = rank;
    s.compiled = compileNamePattern(pattern);
    return s;
}

Opportunity candidate(OpportunityKind kind, std::string title, double factor)
{
    Opportunity o;
    o.kind = kind;
    o.title = std::move(title);
    o.factor = factor;
    return o;
}

// The longest CPU ops (a rank and a name) of the job's path.
std::vector<const PathEntry *> longestCpuOps(const std::vector<PathEntry> &path, std::int64_t makespanNs,
                                             const OpportunityOptions &options)
{
    std::vector<const PathEntry *> ops;
    for (const PathEntry &e : path)
        if (e.kind == NodeKind::Cpu && double(e.ns) >= options.cpuOpShare * double(makespanNs))
            ops.push_back(&e);
    std::stable_sort(ops.begin(), ops.end(), [](const PathEntry *a, const PathEntry *b) { return a->ns > b->ns; });
    if (ops.size() > options.maxCpuOps)
        ops.resize(options.maxCpuOps);
    return ops;
}

} // namespace

std::vector<Opportunity> opportunityCandidates(const SimJob &job, const CandidateInputs &in, const OpportunityOptions &options,
                                               std::vector<NotOffered> &notOffered)
{
    const double k = options.factor;
    const std::string times = " ×" + number(k);
    std::set<std::string> families;
    std::set<std::int64_t> streams;
    bool anyGpu = false, anyCpu = false, anyComm = false;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const SimRank &rank = job.ranks[r];
        std::vector<char> seen(rank.names.size(), 0);
        for (std::size_t i = 0; i < rank.nodes.size(); ++i) {
            const SimNode &n = rank.nodes[i];
            anyGpu = anyGpu || n.kind == NodeKind::Gpu;
            anyCpu = anyCpu || n.kind == NodeKind::Cpu;
            anyComm = anyComm || n.kind == NodeKind::Collective || n.kind == NodeKind::Send || n.kind == NodeKind::Recv;
            if (n.kind != NodeKind::Gpu || !(*in.onPath)[r][i])
                continue;
            if (n.stream >= 0)
                streams.insert(n.stream);
            if (!seen[n.name]) {
                seen[n.name] = 1;
                families.insert(kernelFamily(rank.names[n.name]));
            }
        }
    }
    std::vector<Opportunity> out;
    auto byName = [&](OpportunityKind kind, std::string title, std::string pattern, std::int64_t rank, bool cpu) {
        Opportunity o = candidate(kind, std::move(title), k);
        o.pattern = std::move(pattern);
        o.rank = rank;
        (cpu ? o.whatIf.cpu : o.whatIf.gpu).push_back(nameScale(o.pattern, k, rank));
        o.args = {cpu ? "--scale-cpu" : "--scale-gpu",
                  (rank >= 0 ? std::to_string(rank) + ":" : "") + o.pattern + "=" + number(k)};
        out.push_back(std::move(o));
    };
    for (const std::string &family : families)
        byName(OpportunityKind::KernelFamily, "GPU kernels " + family + times, kernelFamilyPattern(family), -1, false);
    if (anyGpu)
        byName(OpportunityKind::AllKernels, "all compute kernels" + times, kComputeKernels, -1, false);
    for (const std::int64_t stream : streams) {
        Opportunity o = candidate(OpportunityKind::Stream, "GPU stream " + std::to_string(stream) + times, k);
        o.stream = stream;
        o.whatIf.streamFactor[stream] = k;
        o.args = {"--scale-stream", std::to_string(stream) + "=" + number(k)};
        out.push_back(std::move(o));
    }
    if (anyComm) {
        Opportunity t = candidate(OpportunityKind::Transfers, "all communication" + times, k);
        t.whatIf.transferFactor = k;
        t.args = {"--scale-comm", number(k)};
        out.push_back(std::move(t));
        Opportunity b = candidate(OpportunityKind::Bandwidth, "network bandwidth ×" + number(1 / k), 1 / k);
        b.whatIf.bandwidthFactor = 1 / k;
        b.args = {"--scale-network", number(1 / k)};
        out.push_back(std::move(b));
        Opportunity l = candidate(OpportunityKind::Latency, "network latency" + times, k);
        l.whatIf.latencyFactor = k;
        l.args = {"--scale-latency", number(k)};
        out.push_back(std::move(l));
    } else {
        notOffered.push_back({"communication, bandwidth, latency", "the job has no collective, send or receive"});
    }
    if (job.ranks.size() > 1)
        for (const std::int64_t rank : in.stragglers)
            byName(OpportunityKind::RankCpu, "rank " + std::to_string(rank) + "'s CPU" + times, ".*", rank, true);
    for (const PathEntry *e : longestCpuOps(*in.jobPath, in.makespanNs, options)) {
        const SimRank &rank = job.ranks[e->rank];
        const std::string &name = rank.names[e->name];
        byName(OpportunityKind::CpuOp, "rank " + std::to_string(rank.rank) + "'s CPU op " + name + times,
               "^" + escapeRegex(name) + "$", job.ranks.size() > 1 ? rank.rank : -1, true);
    }
    if (anyCpu)
        byName(OpportunityKind::AllCpu, "all CPU" + times, ".*", -1, true);
    notOffered.push_back(
        {"a blocking sync removed",
         "a what-if changes durations and the network, never a dependency, and a sync is one (the op after the call waits for "
         "the GPU op it synced on; its blocked time is already out of the CPU): removing it needs a term of its own in the "
         "replay, in `linkscope whatif`'s .et writer and in the slack. On the job's critical path "
             + std::to_string(in.syncWaits) + " CPU op(s) started when a GPU op they synced on ended"});
    return out;
}

} // namespace linkscope::core::predict
