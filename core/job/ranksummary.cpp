#include "job/ranksummary.h"

#include "io/file/atomicfile.h"
#include "io/json/boundedjson.h"
#include "jobmodel/rankrange.h"

#include <limits>
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

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// An integer field in [lo, hi], `fallback` when absent. Anything else — a float (1e19 has no int64),
// an unsigned beyond int64 (2^64-1 is not -1), a string, a value out of range — throws naming
// `where` and the field.
std::int64_t integerField(const nlohmann::json &o, const char *key, std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                          const std::string &where)
{
    const auto it = o.find(key);
    if (it == o.end())
        return fallback;
    std::int64_t v = 0;
    bool ok = false;
    if (it->is_number_unsigned()) {
        const std::uint64_t u = it->get<std::uint64_t>();
        ok = u <= static_cast<std::uint64_t>(kInt64Max);
        v = ok ? static_cast<std::int64_t>(u) : 0;
    } else if (it->is_number_integer()) {
        v = it->get<std::int64_t>();
        ok = true;
    }
    if (!ok || v < lo || v > hi)
        throw std::runtime_error(where + ": \"" + key + "\" is " + it->dump() + ", not an integer in [" + std::to_string(lo)
                                 + ", " + std::to_string(hi) + "]");
    return v;
}

std::string stringField(const nlohmann::json &o, const char *key, const std::string &where)
{
    const auto it = o.find(key);
    if (it == o.end())
        return {};
    if (!it->is_string())
        throw std::runtime_error(where + ": \"" + key + "\" is not a string");
    return it->get<std::string>();
}

CollectiveCall callFromJson(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object())
        throw std::runtime_error(where + ": not an object");
    CollectiveCall c;
    c.processGroup = stringField(j, "pg", where);
    c.kind =
        callKindFromName(j.contains("kind") ? stringField(j, "kind", where) : std::string("unknown")).value_or(CallKind::Unknown);
    c.dtype = stringField(j, "dtype", where);
    c.elements = integerField(j, "elements", -1, -1, kInt64Max, where);
    c.bytes = integerField(j, "bytes", -1, -1, kInt64Max, where);
    c.root = integerField(j, "root", -1, -1, kInt64Max, where);
    c.peer = integerField(j, "peer", -1, -1, kInt64Max, where);
    c.launchNs = integerField(j, "launch_ns", kUnknownTime, kInt64Min, kInt64Max, where);
    c.startNs = integerField(j, "start_ns", kUnknownTime, kInt64Min, kInt64Max, where);
    c.endNs = integerField(j, "end_ns", kUnknownTime, kInt64Min, kInt64Max, where);
    c.where = stringField(j, "where", where);
    return c;
}

ProcessGroup groupFromJson(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object())
        throw std::runtime_error(where + ": not an object");
    ProcessGroup g;
    const auto name = j.find("name");
    if (name == j.end() || !name->is_string())
        throw std::runtime_error(where + ": no \"name\"");
    g.name = name->get<std::string>();
    g.desc = stringField(j, "desc", where);
    g.size = integerField(j, "size", -1, -1, kInt64Max, where);
    if (const auto ranks = j.find("ranks"); ranks != j.end()) {
        if (!ranks->is_array())
            throw std::runtime_error(where + ": \"ranks\" is not a list");
        for (std::size_t k = 0; k < ranks->size(); ++k) {
            const nlohmann::json one = {{"rank", (*ranks)[k]}};
            g.ranks.push_back(integerField(one, "rank", -1, 0, kInt64Max, where + " rank #" + std::to_string(k)));
        }
    }
    return g;
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
    if (hostDerived)
        j["host_derived"] = true;
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
        throw std::runtime_error(where + ": rank summary version " + j["linkscope_rank_summary"].dump() + " (this build reads "
                                 + std::to_string(kSummaryVersion) + ")");
    try {
        RankSummary s;
        const std::string &w = where;
        if (!j.contains("rank"))
            throw std::runtime_error(where + ": no \"rank\"");
        s.rank = integerField(j, "rank", -1, 0, kMaxRank, w);
        s.host = stringField(j, "host", w);
        s.device = stringField(j, "device", w);
        s.declaredRank = integerField(j, "declared_rank", -1, -1, kInt64Max, w);
        // Any world size is read; one beyond kMaxWorldSize is the report's implausible_world_size finding.
        s.worldSize = integerField(j, "world_size", -1, -1, kInt64Max, w);
        s.gpuOps = static_cast<std::size_t>(integerField(j, "gpu_ops", 0, 0, kInt64Max, w));
        s.linked = static_cast<std::size_t>(integerField(j, "linked", 0, 0, kInt64Max, w));
        if (const auto f = j.find("findings"); f != j.end()) {
            if (!f->is_object())
                throw std::runtime_error(where + ": \"findings\" is not an object");
            for (auto it = f->begin(); it != f->end(); ++it)
                s.findings[it.key()] = static_cast<std::size_t>(
                    integerField(*f, it.key().c_str(), 0, 0, kInt64Max, w + " findings"));
        }
        s.et = stringField(j, "et", w);
        s.note = stringField(j, "note", w);
        if (const auto d = j.find("host_derived"); d != j.end())
            s.hostDerived = d->is_boolean() && d->get<bool>();
        s.error = stringField(j, "error", w);
        const auto groups = j.find("process_groups"), calls = j.find("calls");
        if (groups == j.end() || !groups->is_array() || calls == j.end() || !calls->is_array())
            throw std::runtime_error(where + ": no \"process_groups\" and \"calls\" lists");
        for (std::size_t k = 0; k < groups->size(); ++k)
            s.groups.push_back(groupFromJson((*groups)[k], w + " process group #" + std::to_string(k)));
        s.calls.reserve(calls->size());
        for (std::size_t k = 0; k < calls->size(); ++k)
            s.calls.push_back(callFromJson((*calls)[k], w + " call #" + std::to_string(k)));
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
    file.write(summary.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    file.write("\n");
    file.commit();
}

RankSummary readRankSummary(const std::string &path)
{
    // A regular file only (a FIFO or stdin is refused, not waited on), nested at most
    // io::kMaxSmallJsonDepth deep: "[" x 10M is refused after one pass, not parsed.
    return RankSummary::fromJson(io::readBoundedJsonFile(path), path);
}

} // namespace linkscope::core::job
