#include "job/networkfit.h"

#include "job/jobrun.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace linkscope::core::job {

std::optional<CollectiveCost> astraSimCollectiveCost(CallKind kind, const std::vector<std::int64_t> &groupRanks,
                                                     std::int64_t npus, std::int64_t bytes)
{
    const std::int64_t n = groupRanks.empty() ? npus : static_cast<std::int64_t>(groupRanks.size());
    if (n < 2 || npus < 2 || bytes <= 0)
        return std::nullopt;
    // Sends per chunk (K), message per send (m), sends that reduce (Ring.cc).
    const bool gather = kind == CallKind::AllGather;
    const double chunks = bytes % 4 ? 5 : 4; // Sys::determine_chunk_size: a fifth chunk for the remainder
    double chunk = std::floor(static_cast<double>(bytes) / 4);
    if (!gather)
        chunk = std::max(chunk, static_cast<double>(npus));
    double sends = 0, reductions = 0;
    double message = std::floor(chunk / static_cast<double>(n));
    switch (kind) {
    case CallKind::AllReduce:
        sends = 2.0 * static_cast<double>(n - 1);
        reductions = static_cast<double>(n - 1);
        break;
    case CallKind::ReduceScatter:
        sends = static_cast<double>(n - 1);
        reductions = sends;
        break;
    case CallKind::AllGather:
        sends = static_cast<double>(n - 1);
        message = chunk;
        break;
    case CallKind::AllToAll:
        sends = static_cast<double>(n * (n - 1)) / 2;
        break;
    default:
        return std::nullopt;
    }
    // Hops around the group's ring on the two-way physical ring of npus (the whole world: its own ring).
    double hops = static_cast<double>(n);
    if (!groupRanks.empty() && n < npus) {
        hops = 0;
        for (std::size_t i = 0; i < groupRanks.size(); ++i) {
            const std::int64_t a = groupRanks[i], b = groupRanks[(i + 1) % groupRanks.size()];
            const std::int64_t d = std::llabs(a - b) % npus;
            hops += static_cast<double>(std::min(d, npus - d));
        }
    }
    constexpr double kEndpointDelayNs = 10, kLocalMemBytesPerNs = 1600;
    CollectiveCost cost;
    cost.bytesTerm = chunks * sends * message;
    cost.latencyCoefficient = chunks * sends * hops / static_cast<double>(n);
    cost.constantNs = chunks * (kEndpointDelayNs * (sends + 1) + reductions * 3 * std::floor(message / kLocalMemBytesPerNs));
    (void)kLocalMemBytesPerNs;
    return cost;
}

std::vector<TransferSample> transferSamples(const JobReport &report)
{
    std::vector<TransferSample> out;
    for (const GroupAlignment &g : report.alignments) {
        if (g.members.size() < 2 || g.length == 0)
            continue;
        // (position → the members' calls there), in one pass over the alignment.
        std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> at(g.length);
        for (const auto &[rank, positions] : g.positionOf) {
            const auto calls = g.callIndex.find(rank);
            if (calls == g.callIndex.end())
                continue;
            for (std::size_t k = 0; k < positions.size() && k < calls->second.size(); ++k)
                if (positions[k] >= 0 && static_cast<std::size_t>(positions[k]) < g.length)
                    at[static_cast<std::size_t>(positions[k])].emplace_back(rank, calls->second[k]);
        }
        for (std::size_t index = 0; index < g.length; ++index) {
            if (at[index].size() != g.members.size())
                continue; // a member did not run it: no transfer to read
            TransferSample s;
            s.group = g.name;
            s.index = static_cast<std::int64_t>(index);
            s.groupSize = static_cast<std::int64_t>(g.members.size());
            s.transferNs = -1;
            bool usable = true;
            for (const auto &[rank, call] : at[index]) {
                const RankSummary *summary = report.rank(rank);
                if (!summary || call >= summary->calls.size()) {
                    usable = false;
                    break;
                }
                const CollectiveCall &c = summary->calls[call];
                if (c.startNs == kUnknownTime || c.endNs == kUnknownTime || c.endNs < c.startNs || isP2P(c.kind)) {
                    usable = false;
                    break;
                }
                s.kind = c.kind;
                s.bytes = std::max(s.bytes, c.bytes);
                const std::int64_t d = c.endNs - c.startNs;
                if (s.transferNs < 0 || d < s.transferNs) {
                    s.transferNs = d;
                    s.lastRank = rank;
                }
                s.longestNs = std::max(s.longestNs, d);
            }
            if (usable && s.bytes > 0 && s.transferNs > 0)
                out.push_back(std::move(s));
        }
    }
    return out;
}

namespace {

std::vector<std::int64_t> ranksOfGroup(const JobReport &report, const std::string &name, std::int64_t size)
{
    for (const ProcessGroup &g : report.groups)
        if (g.name == name && !g.ranks.empty())
            return g.ranks;
    for (const GroupAlignment &a : report.alignments)
        if (a.name == name && static_cast<std::int64_t>(a.members.size()) == size)
            return a.members;
    return {};
}

struct Row {
    double u, v, t; // t ≈ u·x + v·y  (x = ns per byte, y = latency ns)
};

// Least squares with x > 0, y ≥ 0. Returns false when nothing constrains x.
bool solve(const std::vector<Row> &rows, double &x, double &y)
{
    double suu = 0, suv = 0, svv = 0, sut = 0, svt = 0;
    for (const Row &r : rows) {
        suu += r.u * r.u;
        suv += r.u * r.v;
        svv += r.v * r.v;
        sut += r.u * r.t;
        svt += r.v * r.t;
    }
    if (suu <= 0)
        return false;
    const double det = suu * svv - suv * suv;
    bool done = false;
    if (std::abs(det) > 1e-12 * suu * std::max(svv, 1.0)) {
        x = (sut * svv - svt * suv) / det;
        y = (suu * svt - suv * sut) / det;
        done = x > 0 && y >= 0;
    }
    if (!done) {
        // On the boundary: no latency, or (when even that gives no bandwidth) latency only.
        x = sut / suu;
        y = 0;
        if (x <= 0) {
            x = 1e-9; // a bandwidth of 10^9 GB/s: transfers take no time for their size
            y = svv > 0 ? std::max(0.0, (svt - x * suv) / svv) : 0;
        }
    }
    return true;
}

} // namespace

NetworkFit fitNetwork(const std::vector<TransferSample> &samples, const JobReport &report, std::int64_t npus)
{
    NetworkFit fit;
    fit.npus = npus;
    std::map<std::string, std::vector<std::int64_t>> ranksOf;
    std::vector<Row> rows;
    std::vector<double> measured;
    std::vector<double> constants;
    std::map<std::string, std::vector<std::size_t>> rowsOfGroup; // group → its rows
    std::vector<const TransferSample *> sampleOfRow;
    static const std::vector<std::int64_t> kEveryRank; // astraSimCollectiveCost: the whole world
    for (const TransferSample &s : samples) {
        auto it = ranksOf.find(s.group);
        if (it == ranksOf.end())
            it = ranksOf.emplace(s.group, ranksOfGroup(report, s.group, s.groupSize)).first;
        const bool ringKnown = static_cast<std::int64_t>(it->second.size()) == s.groupSize;
        if (!ringKnown && s.groupSize != npus)
            continue; // the group's ring is not known
        const auto cost = astraSimCollectiveCost(s.kind, ringKnown ? it->second : kEveryRank, npus, s.bytes);
        if (!cost)
            continue;
        rowsOfGroup[s.group].push_back(rows.size());
        sampleOfRow.push_back(&s);
        rows.push_back({cost->bytesTerm, cost->latencyCoefficient, static_cast<double>(s.transferNs) - cost->constantNs});
        measured.push_back(static_cast<double>(s.transferNs));
        constants.push_back(cost->constantNs);
        fit.transferNs += s.transferNs;
        fit.kernelNs += s.longestNs;
    }
    fit.samples = rows.size();
    if (npus < 2) {
        fit.reason = "fewer than 2 ranks";
        return fit;
    }
    double x = 0, y = 0;
    if (rows.empty() || !solve(rows, x, y)) {
        fit.reason = "no collective that every rank of its group ran, with a size and kernel times";
        return fit;
    }
    fit.fitted = true;
    fit.bandwidthGBps = 1.0 / x / kAstraSimGB;
    fit.latencyNs = y;
    double absErr = 0, sumModel = 0, sumMeasured = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double model = rows[i].u * x + rows[i].v * y + constants[i];
        absErr += std::abs(model - measured[i]) / measured[i];
        sumModel += model;
        sumMeasured += measured[i];
    }
    fit.meanAbsErrorPct = 100.0 * absErr / static_cast<double>(rows.size());
    fit.totalErrorPct = sumMeasured > 0 ? 100.0 * (sumModel - sumMeasured) / sumMeasured : 0;
    for (const auto &[name, indices] : rowsOfGroup) {
        NetworkFit::Group g;
        g.name = name;
        g.samples = indices.size();
        std::vector<Row> own;
        std::set<double> sizes;
        for (std::size_t i : indices) {
            own.push_back(rows[i]);
            sizes.insert(rows[i].u);
        }
        g.size = sampleOfRow[indices.front()]->groupSize;
        double gx = 0, gy = 0;
        if (sizes.size() >= 2 && solve(own, gx, gy)) {
            g.bandwidthGBps = 1.0 / gx / kAstraSimGB;
            g.latencyNs = gy;
        }
        // nccl-tests' bus bandwidth (GB/s of 10^9 bytes) of the group's largest collective.
        const TransferSample *largest = nullptr;
        for (std::size_t i : indices)
            if (!largest || sampleOfRow[i]->bytes > largest->bytes)
                largest = sampleOfRow[i];
        const double n = static_cast<double>(largest->groupSize);
        double factor = (n - 1) / n; // reduce-scatter, all-to-all: of the whole buffer
        if (largest->kind == CallKind::AllReduce)
            factor = 2 * (n - 1) / n;
        else if (largest->kind == CallKind::AllGather)
            factor = n - 1; // bytes is one rank's input: the whole is n times it
        g.busBandwidthGBps = factor * static_cast<double>(largest->bytes) / static_cast<double>(largest->transferNs);
        fit.groups.push_back(std::move(g));
    }
    return fit;
}

nlohmann::json NetworkFit::toJson() const
{
    nlohmann::json j = {{"fitted", fitted}, {"npus", npus}, {"samples", samples}};
    if (!fitted) {
        j["reason"] = reason;
        return j;
    }
    j["topology"] = "Ring";
    j["bandwidth_gbps"] = bandwidthGBps;
    j["latency_ns"] = latencyNs;
    j["mean_abs_error_pct"] = meanAbsErrorPct;
    j["total_error_pct"] = totalErrorPct;
    j["transfer_ns"] = transferNs;
    j["longest_kernel_ns"] = kernelNs;
    nlohmann::json list = nlohmann::json::array();
    for (const Group &g : groups) {
        nlohmann::json o = {
            {"group", g.name}, {"size", g.size}, {"samples", g.samples}, {"bus_bandwidth_gbps", g.busBandwidthGBps}};
        if (g.bandwidthGBps > 0) {
            o["bandwidth_gbps"] = g.bandwidthGBps;
            o["latency_ns"] = g.latencyNs;
        }
        list.push_back(std::move(o));
    }
    j["groups"] = std::move(list);
    return j;
}

std::string networkYaml(const NetworkFit &fit, double scale)
{
    char text[512];
    std::snprintf(text, sizeof text,
                  "# ASTRA-sim analytical network fitted by Linkscope from the job's collectives\n"
                  "# (%zu transfers, mean error %.1f %%; docs/astra-sim-export.md, \"The network\")%s\n"
                  "topology: [ Ring ]\n"
                  "npus_count: [ %lld ]\n"
                  "bandwidth: [ %.6g ]  # GB/s\n"
                  "latency: [ %.6g ]  # ns\n",
                  fit.samples, fit.meanAbsErrorPct, scale != 1.0 ? ", every transfer scaled" : "",
                  static_cast<long long>(fit.npus), fit.bandwidthGBps * scale, fit.latencyNs / scale);
    return text;
}

} // namespace linkscope::core::job
