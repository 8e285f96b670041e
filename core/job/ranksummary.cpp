#include "job/ranksummary.h"

#include "io/atomicfile.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace linkscope::core::job {

namespace {

nlohmann::json callToJson(const CollectiveCall &c)
{
    nlohmann::json j = {{"pg", c.processGroup}, {"kind", std::string(callKindName(c.kind))}};
    if (!c.dtype.empty())
        j["dtype"] = c.dtype;
    if (c.elements >= 0)
        j["elements"] = c.elements;
    if (c.bytes > 0)
        j["bytes"] = c.bytes;
    if (c.root >= 0)
        j["root"] = c.root;
    if (c.peer >= 0)
        j["peer"] = c.peer;
    if (c.launchNs != kUnknownTime)
        j["launch_ns"] = c.launchNs;
    if (c.startNs != kUnknownTime)
        j["start_ns"] = c.startNs;
    if (c.endNs != kUnknownTime)
        j["end_ns"] = c.endNs;
    if (!c.where.empty())
        j["where"] = c.where;
    return j;
}

CollectiveCall callFromJson(const nlohmann::json &j)
{
    CollectiveCall c;
    c.processGroup = j.value("pg", std::string());
    c.kind = callKindFromName(j.value("kind", std::string("unknown"))).value_or(CallKind::Unknown);
    c.dtype = j.value("dtype", std::string());
    c.elements = j.value("elements", std::int64_t{-1});
    c.bytes = j.value("bytes", std::int64_t{-1});
    c.root = j.value("root", std::int64_t{-1});
    c.peer = j.value("peer", std::int64_t{-1});
    c.launchNs = j.value("launch_ns", kUnknownTime);
    c.startNs = j.value("start_ns", kUnknownTime);
    c.endNs = j.value("end_ns", kUnknownTime);
    c.where = j.value("where", std::string());
    return c;
}

} // namespace

nlohmann::json RankSummary::toJson() const
{
    nlohmann::json j = {{"linkscope_rank_summary", kSummaryVersion},
                        {"rank", rank},
                        {"host", host},
                        {"device", device},
                        {"declared_rank", declaredRank},
                        {"world_size", worldSize},
                        {"gpu_ops", gpuOps},
                        {"linked", linked},
                        {"findings", findings},
                        {"et", et},
                        {"note", note},
                        {"error", error}};
    nlohmann::json groupList = nlohmann::json::array();
    for (const ProcessGroup &g : groups)
        groupList.push_back(job::toJson(g));
    j["process_groups"] = std::move(groupList);
    nlohmann::json callList = nlohmann::json::array();
    for (const CollectiveCall &c : calls)
        callList.push_back(callToJson(c));
    j["calls"] = std::move(callList);
    if (!exportStats.is_null())
        j["export"] = exportStats;
    if (!run.is_null())
        j["run"] = run;
    return j;
}

RankSummary RankSummary::fromJson(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object() || !j.contains("linkscope_rank_summary"))
        throw std::runtime_error(where + ": not a Linkscope rank summary");
    if (j["linkscope_rank_summary"] != kSummaryVersion)
        throw std::runtime_error(where + ": rank summary version " + j["linkscope_rank_summary"].dump() + " (this build reads " +
                                 std::to_string(kSummaryVersion) + ")");
    try {
        RankSummary s;
        s.rank = j.at("rank").get<std::int64_t>();
        s.host = j.value("host", std::string());
        s.device = j.value("device", std::string());
        s.declaredRank = j.value("declared_rank", std::int64_t{-1});
        s.worldSize = j.value("world_size", std::int64_t{-1});
        s.gpuOps = j.value("gpu_ops", std::size_t{0});
        s.linked = j.value("linked", std::size_t{0});
        s.findings = j.value("findings", std::map<std::string, std::size_t>());
        s.et = j.value("et", std::string());
        s.note = j.value("note", std::string());
        s.error = j.value("error", std::string());
        for (const auto &g : j.at("process_groups"))
            s.groups.push_back(processGroupFromJson(g));
        for (const auto &c : j.at("calls"))
            s.calls.push_back(callFromJson(c));
        if (auto it = j.find("export"); it != j.end() && it->is_object())
            s.exportStats = *it;
        if (auto it = j.find("run"); it != j.end() && it->is_object())
            s.run = *it; // absent from an older Linkscope's summary: "unknown run" (job/summaryrun.h)
        return s;
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(where + ": malformed rank summary: " + e.what());
    }
}

void writeRankSummary(const std::string &path, const RankSummary &summary)
{
    AtomicFile file(path);
    file.write(summary.toJson().dump());
    file.write("\n");
    file.commit();
}

RankSummary readRankSummary(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    const auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded())
        throw std::runtime_error(path + ": not JSON");
    return RankSummary::fromJson(j, path);
}

} // namespace linkscope::core::job
