#include "jobmodel/processgroups.h"

#include "io/file/atomicfile.h"
#include "jobmodel/rankrange.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

namespace linkscope::core::job {

namespace {

constexpr std::int64_t kHashedBase = 1'000'000'000;

void completeRanks(ProcessGroup &g, std::int64_t worldSize)
{
    std::sort(g.ranks.begin(), g.ranks.end());
    g.ranks.erase(std::unique(g.ranks.begin(), g.ranks.end()), g.ranks.end());
    // Not for an implausible world size (jobmodel/rankrange.h): the report names it instead.
    if (g.ranks.empty() && g.size > 0 && worldSize > 0 && g.size == worldSize && plausibleWorldSize(worldSize))
        for (std::int64_t r = 0; r < worldSize; ++r)
            g.ranks.push_back(r);
    if (g.size < 0 && !g.ranks.empty())
        g.size = static_cast<std::int64_t>(g.ranks.size());
}

std::string rankText(const std::vector<std::int64_t> &ranks)
{
    std::string t = "[";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        t += (i ? ", " : "") + std::to_string(ranks[i]);
    return t + "]";
}

std::optional<std::int64_t> jsonInteger(const nlohmann::json &v)
{
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_number_unsigned())
        return static_cast<std::int64_t>(v.get<std::uint64_t>());
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        std::int64_t x = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), x);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size())
            return x;
    }
    return std::nullopt;
}

std::string jsonString(const nlohmann::json &v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number())
        return v.dump();
    return {};
}

} // namespace

std::int64_t processGroupId(std::string_view name)
{
    if (!name.empty() && name.size() <= 9 && (name.size() == 1 || name[0] != '0')
        && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        std::int64_t v = 0;
        std::from_chars(name.data(), name.data() + name.size(), v);
        return v;
    }
    std::uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return kHashedBase + static_cast<std::int64_t>(h % static_cast<std::uint32_t>(kHashedBase));
}

std::vector<ProcessGroup> processGroupsFromKineto(const DeviceTrace &device)
{
    std::vector<ProcessGroup> out;
    if (!device.distributed)
        return out;
    for (const ProcessGroupConfig &c : device.distributed->processGroups) {
        ProcessGroup g;
        g.name = c.name;
        g.desc = c.desc;
        g.size = c.size;
        g.ranks = c.ranks;
        completeRanks(g, device.distributed->worldSize);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<ProcessGroup> processGroupsFromHostEt(const HostTrace &host, std::int64_t worldSize,
                                                  std::vector<Diagnostic> *warnings)
{
    std::vector<ProcessGroup> out;
    auto warn = [&](const HostNode &n, const std::string &what) {
        if (warnings)
            warnings->push_back({Diagnostic::Severity::Warning, host.path, 0,
                                 "node " + std::to_string(n.id) + " (## process_group:init ##): " + what});
    };
    for (const HostNode &n : host.nodes) {
        if (host.name(n).find("process_group:init") == std::string_view::npos)
            continue;
        const std::string text = host.text(n.inputs.values);
        const auto values = nlohmann::json::parse(text, nullptr, false);
        if (!values.is_array() || values.empty()) {
            warn(n, "inputs are not a list holding the process groups; ignored");
            continue;
        }
        nlohmann::json groups = values[0];
        if (groups.is_string())
            groups = nlohmann::json::parse(groups.get<std::string>(), nullptr, false);
        if (!groups.is_array()) {
            warn(n, "first input is not a JSON list of process groups; ignored");
            continue;
        }
        for (const auto &pg : groups) {
            if (!pg.is_object() || !pg.contains("pg_name")) {
                warn(n, "a process group entry without pg_name; ignored");
                continue;
            }
            ProcessGroup g;
            g.name = jsonString(pg["pg_name"]);
            if (auto it = pg.find("pg_desc"); it != pg.end())
                g.desc = jsonString(*it);
            if (auto it = pg.find("group_size"); it != pg.end())
                g.size = jsonInteger(*it).value_or(-1);
            if (auto it = pg.find("ranks"); it != pg.end()) {
                nlohmann::json ranks = *it;
                if (ranks.is_string())
                    ranks = nlohmann::json::parse(ranks.get<std::string>(), nullptr, false);
                if (ranks.is_array())
                    for (const auto &r : ranks)
                        if (auto v = jsonInteger(r))
                            g.ranks.push_back(*v);
            }
            completeRanks(g, worldSize);
            out.push_back(std::move(g));
        }
        break; // the observer writes the node once
    }
    return out;
}

std::vector<ProcessGroup> mergeRankGroups(std::vector<ProcessGroup> kineto, const std::vector<ProcessGroup> &host)
{
    for (const ProcessGroup &h : host) {
        auto it = std::find_if(kineto.begin(), kineto.end(), [&](const ProcessGroup &k) { return k.name == h.name; });
        if (it == kineto.end()) {
            kineto.push_back(h);
            continue;
        }
        if (it->ranks.empty())
            it->ranks = h.ranks;
        if (it->desc.empty())
            it->desc = h.desc;
        if (it->size < 0)
            it->size = h.size;
    }
    return kineto;
}

std::string defaultGroupName(const std::vector<ProcessGroup> &groups)
{
    for (const ProcessGroup &g : groups)
        if (g.desc == "default_pg")
            return g.name;
    return "0";
}

std::vector<ProcessGroup> mergeJobGroups(const std::map<std::int64_t, std::vector<ProcessGroup>> &byRank,
                                         std::vector<GroupConflict> *conflicts)
{
    std::map<std::string, std::pair<ProcessGroup, std::int64_t>> merged; // name → (group, first rank)
    for (const auto &[rank, groups] : byRank) {
        for (const ProcessGroup &g : groups) {
            auto [it, inserted] = merged.try_emplace(g.name, g, rank);
            if (inserted)
                continue;
            ProcessGroup &m = it->second.first;
            if (m.ranks.empty()) {
                m.ranks = g.ranks;
            } else if (!g.ranks.empty() && g.ranks != m.ranks && conflicts) {
                conflicts->push_back(
                    {g.name, rank, it->second.second, "ranks " + rankText(g.ranks) + " vs " + rankText(m.ranks)});
            }
            if (m.desc.empty())
                m.desc = g.desc;
            else if (!g.desc.empty() && g.desc != m.desc && conflicts)
                conflicts->push_back({g.name, rank, it->second.second, "description '" + g.desc + "' vs '" + m.desc + "'"});
            if (m.size < 0)
                m.size = g.size;
        }
    }
    std::vector<ProcessGroup> out;
    for (auto &[name, entry] : merged)
        out.push_back(std::move(entry.first));
    std::sort(out.begin(), out.end(), [](const ProcessGroup &a, const ProcessGroup &b) {
        const auto ia = processGroupId(a.name), ib = processGroupId(b.name);
        return ia != ib ? ia < ib : a.name < b.name;
    });
    return out;
}

std::vector<std::pair<std::string, std::string>> processGroupIdCollisions(const std::vector<ProcessGroup> &groups)
{
    std::map<std::int64_t, std::string> seen;
    std::vector<std::pair<std::string, std::string>> out;
    for (const ProcessGroup &g : groups) {
        auto [it, inserted] = seen.try_emplace(processGroupId(g.name), g.name);
        if (!inserted && it->second != g.name)
            out.emplace_back(it->second, g.name);
    }
    return out;
}

nlohmann::ordered_json commGroupJson(const std::vector<ProcessGroup> &groups)
{
    // Ids in numeric order (a plain json object would sort them as strings: "0", "1", "10", "2").
    std::vector<std::pair<std::int64_t, const ProcessGroup *>> byId;
    // Id 0 is left out: ASTRA-sim asserts every configured group id is above 0, and pg_name "0" already
    // means every rank to it.
    for (const ProcessGroup &g : groups)
        if (!g.ranks.empty() && processGroupId(g.name) != 0)
            byId.emplace_back(processGroupId(g.name), &g);
    std::sort(byId.begin(), byId.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto &[id, g] : byId)
        o[std::to_string(id)] = g->ranks;
    return o;
}

void writeCommGroupFile(const std::string &path, const std::vector<ProcessGroup> &groups)
{
    AtomicFile file(path);
    file.write(commGroupJson(groups).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    file.write("\n");
    file.commit();
}

nlohmann::json toJson(const ProcessGroup &group)
{
    return {{"name", group.name}, {"desc", group.desc}, {"ranks", group.ranks}, {"size", group.size}};
}

ProcessGroup processGroupFromJson(const nlohmann::json &j)
{
    ProcessGroup g;
    g.name = j.at("name").get<std::string>();
    g.desc = j.value("desc", std::string());
    g.ranks = j.value("ranks", std::vector<std::int64_t>());
    g.size = j.value("size", std::int64_t{-1});
    return g;
}

} // namespace linkscope::core::job
