// The job around its ranks: the comm groups and the network file read, the ranks of .et files
// loaded on every core and put together (loadJob), and the checks a job's ranks and groups must
// pass, shared with the graph predict builds in memory (predict/jobgraph.cpp).

#include "predict/simgraph.h"

#include "predict/hugepages.h"

#include "base/parallel.h"
#include "export/chakra/etbounds.h"
#include "export/chakra/etcheck.h"
#include "io/json/boundedjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <thread>

namespace linkscope::core::predict {

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw LoadError(path, 0, "cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

void regroupRank(SimRank &rank, const std::vector<std::int64_t> &learnedGroupIds, const std::vector<std::int64_t> &groupIds)
{
    std::vector<std::int32_t> to(learnedGroupIds.size(), -1);
    for (std::size_t i = 0; i < learnedGroupIds.size(); ++i) {
        const auto g = std::find(groupIds.begin(), groupIds.end(), learnedGroupIds[i]);
        if (g == groupIds.end())
            throw LoadError(rank.path, 0,
                            "pg_name '" + std::to_string(learnedGroupIds[i]) + "' is not a group of the comm group file");
        to[i] = static_cast<std::int32_t>(g - groupIds.begin());
    }
    for (SimComm &c : rank.comms)
        if (c.group >= 0)
            c.group = to[static_cast<std::size_t>(c.group)];
}

void parseCommGroups(const std::string &text, const std::string &name, SimJob &job)
{
    // Nesting bounded before nlohmann sees it (io/json/boundedjson.h).
    const nlohmann::json j = io::parseBoundedJson(text, name);
    if (!j.is_object())
        throw LoadError(name, 0, "expected an object {\"<integer id>\": [ranks]}");
    job.groupIds.clear();
    job.groups.clear();
    for (auto it = j.begin(); it != j.end(); ++it) {
        std::int64_t id = 0;
        const std::string &key = it.key();
        const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
        if (ec != std::errc() || end != key.data() + key.size() || id <= 0)
            throw LoadError(name, 0, "group \"" + key + "\": the key must be a positive integer id");
        if (!it.value().is_array() || it.value().empty())
            throw LoadError(name, 0, "group \"" + key + "\": expected a non-empty list of ranks");
        std::vector<std::int64_t> ranks;
        for (const auto &r : it.value()) {
            if (!r.is_number_integer() || r.get<std::int64_t>() < 0 || r.get<std::int64_t>() > (1 << 24))
                throw LoadError(name, 0, "group \"" + key + "\": " + r.dump() + " is not a rank");
            if (std::find(ranks.begin(), ranks.end(), r.get<std::int64_t>()) != ranks.end())
                throw LoadError(name, 0, "group \"" + key + "\": rank " + r.dump() + " is listed twice (a rank is one member)");
            ranks.push_back(r.get<std::int64_t>());
        }
        job.groupIds.push_back(id);
        job.groups.push_back(std::move(ranks));
    }
}

Network parseNetworkYaml(const std::string &text, const std::string &name)
{
    Network net;
    bool bandwidth = false, latency = false;
    std::size_t lineStart = 0;
    while (lineStart < text.size()) {
        std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string::npos)
            lineEnd = text.size();
        std::string line = text.substr(lineStart, lineEnd - lineStart);
        if (const std::size_t hash = line.find('#'); hash != std::string::npos)
            line.resize(hash);
        const std::size_t colon = line.find(':');
        const std::size_t first = line.find_first_not_of(" \t");
        if (colon != std::string::npos && first != std::string::npos && first < colon) {
            const std::string key = line.substr(first, line.find_last_not_of(" \t", colon - 1) + 1 - first);
            std::string value = line.substr(colon + 1);
            const std::size_t open = value.find('['), close = value.find(']');
            if (open != std::string::npos) {
                if (close == std::string::npos || close < open)
                    throw LoadError(name, lineStart, "'" + key + "': an unclosed [");
                value = value.substr(open + 1, close - open - 1);
            }
            const std::size_t a = value.find_first_not_of(" \t,"),
                              b = value.find_first_of(" \t,", a == std::string::npos ? 0 : a);
            value = a == std::string::npos ? "" : value.substr(a, b == std::string::npos ? std::string::npos : b - a);
            if (value.empty() && key != "topology")
                throw LoadError(name, lineStart, "'" + key + "' has no value");
            if (value.find_first_of(" ,", 0) == std::string::npos
                && (key == "npus_count" || key == "bandwidth" || key == "latency")) {
                double v = 0;
                const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
                const bool whole = end == value.data() + value.size();
                if (whole && (ec == std::errc::result_out_of_range || (ec == std::errc() && v > 1e15)))
                    throw LoadError(name, lineStart, "'" + key + "': " + value + " is out of range (at most 1e15)");
                if (ec != std::errc() || !whole || !(v >= 0))
                    throw LoadError(name, lineStart, "'" + key + "': '" + value + "' is not a non-negative number");
                if (key == "npus_count") {
                    if (v < 1 || v > (1 << 24) || v != static_cast<double>(static_cast<std::int64_t>(v)))
                        throw LoadError(name, lineStart, "npus_count " + value + " is not a rank count");
                    net.npus = static_cast<std::int64_t>(v);
                } else if (key == "bandwidth") {
                    if (v <= 0)
                        throw LoadError(name, lineStart, "bandwidth must be > 0");
                    net.bandwidthGBps = v;
                    bandwidth = true;
                } else {
                    net.latencyNs = v;
                    latency = true;
                }
            } else if (key == "topology" && !value.empty() && value != "Ring") {
                throw LoadError(name, lineStart,
                                "topology " + value + ": only a Ring (what run.sh and linkscope job write) is modelled");
            }
        }
        lineStart = lineEnd + 1;
    }
    if (!bandwidth || !latency)
        throw LoadError(name, text.size(), std::string("no ") + (!bandwidth ? "bandwidth" : "latency") + " line");
    return net;
}

SimJob loadJob(const std::vector<std::string> &etFiles, const std::string &commGroupsPath, const std::string &networkPath,
               std::int64_t mirrorNpus)
{
    SimJob job;
    if (mirrorNpus > 0 && etFiles.size() != 1)
        throw LoadError(etFiles.empty() ? std::string() : etFiles[0], 0, "a mirrored job is one rank's .et file");
    if (!commGroupsPath.empty())
        parseCommGroups(readFile(commGroupsPath), commGroupsPath, job);
    job.ranks.resize(etFiles.size());
    // Each thread reads its files through one buffer of its own.
    forEachIndexOnThreadsWith<HugeBuffer>(
        etFiles.size(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
        [&](HugeBuffer &buffer, std::size_t i) {
            job.ranks[i] = loadRank(etFiles[i], etFileRank(etFiles[i], static_cast<std::int64_t>(i)), job.groupIds, buffer);
        },
        [] { return false; });
    assembleJob(job, mirrorNpus);
    if (!networkPath.empty()) {
        job.network = parseNetworkYaml(readFile(networkPath), networkPath);
        if (job.network.npus && job.network.npus != job.npus)
            throw LoadError(networkPath, 0,
                            "npus_count " + std::to_string(job.network.npus) + " but " + std::to_string(job.npus) + " .et files");
    }
    job.network.npus = job.npus;
    checkGroupRanks(job, commGroupsPath);
    return job;
}

void assembleJob(SimJob &job, std::int64_t mirrorNpus)
{
    std::sort(job.ranks.begin(), job.ranks.end(), [](const SimRank &a, const SimRank &b) { return a.rank < b.rank; });
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        if (i && job.ranks[i].rank == job.ranks[i - 1].rank)
            throw LoadError(job.ranks[i].path, 0,
                            "rank " + std::to_string(job.ranks[i].rank) + " is also " + job.ranks[i - 1].path);
        if (mirrorNpus > 0) {
            if (job.ranks[i].rank >= mirrorNpus)
                throw LoadError(job.ranks[i].path, 0,
                                "rank " + std::to_string(job.ranks[i].rank) + " of " + std::to_string(mirrorNpus));
        } else if (job.ranks[i].rank != static_cast<std::int64_t>(i))
            throw LoadError(job.ranks[i].path, 0,
                            "rank " + std::to_string(i)
                                + " has no .et file (ASTRA-sim runs ranks 0..N-1, each from PREFIX.R.et)");
    }
    EtTimeSum times; // each rank's sum is bounded by its reader; the job's here
    for (const SimRank &rank : job.ranks)
        if (times.add(rank.totalNs))
            throw LoadError(rank.path, 0, "with this file, the job's " + etTotalProblem());
    job.mirrored = mirrorNpus > 0;
    job.npus = job.mirrored ? mirrorNpus : static_cast<std::int64_t>(job.ranks.size());
}

void checkGroupRanks(const SimJob &job, const std::string &groupsName)
{
    for (std::size_t g = 0; g < job.groups.size(); ++g)
        for (const std::int64_t r : job.groups[g])
            if (r >= job.npus)
                throw LoadError(groupsName, 0,
                                "group " + std::to_string(job.groupIds[g]) + " names rank " + std::to_string(r) + " of "
                                    + std::to_string(job.npus));
}

} // namespace linkscope::core::predict
