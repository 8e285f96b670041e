// linkscope predict --opportunities: what to fix first, ranked by the predicted gain of the job's
// step (core/predict/opportunities.h does the sweep; this prints it).

#include "commands/opportunities.h"

#include "predict/opportunities.h"

#include <cstdio>
#include <ostream>
#include <stdexcept>

namespace linkscope::cli {

namespace {

using namespace linkscope::core::predict;

std::string ms(std::int64_t ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

// An argument as a shell would need it.
std::string shellQuoted(const std::string &arg)
{
    if (arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:=/,") == std::string::npos)
        return arg;
    std::string out = "'";
    for (const char c : arg)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

void printText(std::ostream &out, const SimJob &job, const std::string &networkSource, const Opportunities &o, std::size_t limit,
               double loadMs)
{
    char line[512];
    out << "opportunities: " << job.ranks.size() << " rank(s), " << job.nodeCount() << " nodes; network " << networkSource
        << "; model " << replayModelName(o.model) << '\n';
    out << "step (the job's makespan) " << ms(o.baselineMakespanNs) << ", rank " << o.criticalRank << " ends last; stragglers:";
    for (const std::int64_t r : o.stragglers)
        out << ' ' << r;
    if (o.stragglers.empty())
        out << " none (no rank's CPU is 1 % of the job's critical path)";
    std::snprintf(line, sizeof line, "\n%zu candidates replayed in %.0f ms (loaded in %.0f ms), ranked by the job's gain:\n",
                  o.ranked.size(), o.sweepMs, loadMs);
    out << line;
    const std::size_t n = std::min(limit, o.ranked.size());
    for (std::size_t i = 0; i < n; ++i) {
        const Opportunity &p = o.ranked[i];
        std::snprintf(line, sizeof line, "%3zu. %-12s %+7.2f%%  ", i + 1, ms(p.gainNs()).c_str(), p.gainPct());
        out << line << p.title << "  (";
        for (std::size_t a = 0; a < p.args.size(); ++a)
            out << (a ? " " : "") << shellQuoted(p.args[a]);
        out << ")\n";
        std::snprintf(line, sizeof line, "       %zu op(s) changed, %zu on a critical path (%s on the job's)", p.nodes, p.onPath,
                      ms(p.pathNs).c_str());
        out << line << "; " << p.moved() << '\n';
        out << "       per rank:";
        for (const RankGain &g : p.ranks) {
            if (!g.finished) {
                out << ' ' << g.rank << " never finishes";
                continue;
            }
            std::snprintf(line, sizeof line, " %lld %+.2f%%", static_cast<long long>(g.rank),
                          g.baselineNs ? 100.0 * double(g.gainNs()) / double(g.baselineNs) : 0.0);
            out << line;
        }
        out << '\n';
    }
    if (n < o.ranked.size())
        out << "(" << o.ranked.size() - n << " more: --opportunities-limit 0 lists them all)\n";
    for (const NotOffered &no : o.notOffered)
        out << "not offered: " << no.candidate << ": " << no.why << '\n';
}

} // namespace

int printOpportunities(const SimJob &job, const std::string &networkSource, double loadMs, const OpportunitiesRequest &request,
                       std::ostream &out, std::ostream &err)
{
    OpportunityOptions options;
    options.model = request.model;
    Opportunities o;
    try {
        o = findOpportunities(job, options);
    } catch (const std::invalid_argument &e) {
        err << "predict: " << e.what() << '\n';
        return 1;
    }
    if (request.json) {
        nlohmann::json j = o.toJson(request.limit == kDefaultOpportunities ? 0 : request.limit);
        j["network"] = {{"bandwidth_gbps", job.network.bandwidthGBps},
                        {"latency_ns", job.network.latencyNs},
                        {"npus", job.network.npus},
                        {"source", networkSource}};
        j["load_ms"] = loadMs;
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        const std::size_t limit = request.limit == kDefaultOpportunities ? 20 : request.limit ? request.limit : o.ranked.size();
        printText(out, job, networkSource, o, limit, loadMs);
    }
    return 0;
}

} // namespace linkscope::cli
