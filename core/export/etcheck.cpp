#include "export/etcheck.h"

#include "export/astrasimtarget.h"
#include "export/etformat.h"
#include "export/graphorder.h"
#include "job/crossrank.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

namespace linkscope::core {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

const AttributeProto *findAttr(const Node &node, std::string_view name)
{
    for (const AttributeProto &attr : node.attr())
        if (attr.name() == name)
            return &attr;
    return nullptr;
}

std::optional<std::int64_t> intAttr(const AttributeProto *attr)
{
    if (!attr)
        return std::nullopt;
    switch (attr->value_case()) {
    case AttributeProto::kInt32Val: return attr->int32_val();
    case AttributeProto::kInt64Val: return attr->int64_val();
    case AttributeProto::kUint32Val: return attr->uint32_val();
    case AttributeProto::kUint64Val: return static_cast<std::int64_t>(attr->uint64_val());
    case AttributeProto::kSint32Val: return attr->sint32_val();
    case AttributeProto::kSint64Val: return attr->sint64_val();
    default: return std::nullopt;
    }
}

bool isInteger(std::string_view text)
{
    return !text.empty() && text.size() < 10 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class Checker {
public:
    EtCheckResult result;

    void error(std::string rule, const std::string &file, std::int64_t node, std::string message)
    {
        result.findings.push_back({EtCheckFinding::Severity::Error, std::move(rule), file, node, std::move(message)});
    }

    // The comm group file: {"<integer id>": [ranks]}.
    void readGroups(const std::string &path)
    {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            error("comm_groups", path, -1, "cannot open the comm group file");
            return;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(in);
        } catch (const nlohmann::json::parse_error &e) {
            error("comm_groups", path, -1, std::string("not JSON: ") + e.what());
            return;
        }
        if (!j.is_object()) {
            error("comm_groups", path, -1, "expected an object {\"<integer id>\": [ranks]}");
            return;
        }
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!isInteger(it.key())) {
                error("comm_groups", path, -1, "group \"" + it.key() + "\": the key must be an integer id");
                continue;
            }
            if (std::stoll(it.key()) == 0) {
                // The simulator asserts id > 0 (CommunicatorGroup::set_id); pg_name "0" is every rank already.
                error("comm_groups", path, -1, "group \"" + it.key() + "\": id 0 aborts the simulator (pg_name \"0\" already means every rank)");
                continue;
            }
            std::vector<std::int64_t> ranks;
            bool ok = it.value().is_array();
            if (ok)
                for (const auto &r : it.value()) {
                    if (!r.is_number_integer() || r.get<std::int64_t>() < 0) {
                        ok = false;
                        break;
                    }
                    ranks.push_back(r.get<std::int64_t>());
                }
            if (!ok) {
                error("comm_groups", path, -1, "group \"" + it.key() + "\": expected a list of non-negative ranks");
                continue;
            }
            groups_[it.key()] = ranks;
        }
        haveGroups_ = true;
    }

    // Per-file rules; records each group's collectives for the cross-rank pass.
    void checkFile(const std::string &path, std::int64_t rank)
    {
        ChakraTrace trace;
        try {
            trace = readChakraEt(path);
        } catch (const std::exception &e) {
            error("unreadable", path, -1, e.what());
            return;
        }
        ++result.files;
        result.nodes += trace.nodes.size();
        ranks_.insert(rank);
        const auto &nodes = trace.nodes;
        std::unordered_map<std::uint64_t, std::uint32_t> position;
        position.reserve(nodes.size());
        for (std::uint32_t i = 0; i < nodes.size(); ++i)
            if (!position.emplace(nodes[i].id(), i).second)
                error("duplicate_id", path, static_cast<std::int64_t>(nodes[i].id()),
                      "id " + std::to_string(nodes[i].id()) + " (" + nodes[i].name() + ") appears more than once");

        // Dependencies: every id exists; data_deps and ctrl_deps acyclic (the feeder waits for both).
        std::vector<std::uint32_t> begin(nodes.size() + 1, 0), list;
        for (std::uint32_t i = 0; i < nodes.size(); ++i) {
            const Node &node = nodes[i];
            auto visit = [&](std::uint64_t dep, const char *field) {
                auto it = position.find(dep);
                if (it == position.end()) {
                    error("missing_dependency", path, static_cast<std::int64_t>(node.id()),
                          std::string(field) + " names " + std::to_string(dep) + ", which is not in the file");
                    return;
                }
                list.push_back(it->second);
            };
            for (std::uint64_t dep : node.data_deps())
                visit(dep, "data_deps");
            for (std::uint64_t dep : node.ctrl_deps())
                visit(dep, "ctrl_deps");
            begin[i + 1] = static_cast<std::uint32_t>(list.size());
        }
        const GraphOrder order = orderByDependencies(begin, list);
        if (!order.acyclic()) {
            std::string text;
            for (std::size_t k = 0; k < order.cycle.size(); ++k)
                text += (k ? " -> " : "") + std::to_string(nodes[order.cycle[k]].id()) + " (" + nodes[order.cycle[k]].name() + ")";
            const std::int64_t first = order.cycle.empty() ? -1 : static_cast<std::int64_t>(nodes[order.cycle.front()].id());
            error("dependency_cycle", path, first,
                  std::to_string(order.blocked) + " node(s) can never run; cycle: " + (text.empty() ? "?" : text));
        }

        std::vector<std::pair<std::int64_t, job::CollectiveCall>> calls;
        for (const Node &node : nodes) {
            const auto id = static_cast<std::int64_t>(node.id());
            const int type = node.type();
            const bool comm = type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE ||
                              type == ChakraProtoMsg::COMM_RECV_NODE;
            const bool runs = comm || type == ChakraProtoMsg::COMP_NODE || type == ChakraProtoMsg::MEM_LOAD_NODE ||
                              type == ChakraProtoMsg::MEM_STORE_NODE || type == ChakraProtoMsg::INVALID_NODE;
            if (!runs) {
                error("unsupported_node_type", path, id,
                      std::string(nodeTypeName(type)) + " (" + node.name() + ") is not a node type the simulator runs" +
                          (type == ChakraProtoMsg::METADATA_NODE ? " (its statistics pass aborts on it; give the groups in a comm group file)" : ""));
                continue;
            }
            if (!comm)
                continue;
            const AttributeProto *cpu = findAttr(node, "is_cpu_op");
            if (cpu && cpu->value_case() == AttributeProto::kBoolVal && cpu->bool_val())
                error("comm_is_cpu_op", path, id, node.name() + ": a communication node with is_cpu_op true");
            const AttributeProto *size = findAttr(node, "comm_size");
            if (!size)
                error("comm_size", path, id, node.name() + ": no comm_size");
            else if (size->value_case() != AttributeProto::kInt64Val)
                error("comm_size", path, id, node.name() + ": comm_size is stored as " +
                                                 std::string(size->value_case() == AttributeProto::VALUE_NOT_SET ? "nothing" : "another type than int64"));
            else if (size->int64_val() <= 0)
                error("comm_size", path, id, node.name() + ": comm_size " + std::to_string(size->int64_val()) + " (must be > 0)");
            std::int64_t commType = -1;
            if (type == ChakraProtoMsg::COMM_COLL_NODE) {
                const auto t = intAttr(findAttr(node, "comm_type"));
                if (!t)
                    error("comm_type", path, id, node.name() + ": a collective without comm_type");
                else if (!astraSimRunsCollective(*t))
                    error("comm_type", path, id, node.name() + ": " + std::string(collectiveTypeName(*t)) +
                                                     " is a collective the simulator does not issue");
                commType = t.value_or(-1);
            } else {
                const bool send = type == ChakraProtoMsg::COMM_SEND_NODE;
                if (!intAttr(findAttr(node, send ? "comm_dst" : "comm_src")))
                    error("p2p_peer", path, id, node.name() + (send ? ": a send without comm_dst" : ": a receive without comm_src"));
                if (!intAttr(findAttr(node, "comm_tag")))
                    error("p2p_peer", path, id, node.name() + ": no comm_tag");
            }
            std::string group;
            if (const AttributeProto *pg = findAttr(node, "pg_name"); pg && pg->value_case() == AttributeProto::kStringVal)
                group = pg->string_val();
            if (!group.empty() && group != "0") {
                if (!isInteger(group))
                    error("pg_name_not_integer", path, id, node.name() + ": pg_name \"" + group + "\" is not an integer id");
                else if (!groups_.count(group))
                    error("pg_name_unknown", path, id,
                          node.name() + ": pg_name \"" + group + "\" is not a group of " +
                              (haveGroups_ ? "the comm group file" : "this job (no comm group file given)"));
            }
            // The rank's calls for the job's cross-rank check, in id order (the order the feeder issues
            // ready nodes in).
            job::CollectiveCall call;
            call.processGroup = group.empty() ? "0" : group;
            if (type == ChakraProtoMsg::COMM_COLL_NODE)
                call.kind = commType >= 0 ? job::callKindFromChakraCommType(commType) : job::CallKind::Unknown;
            else
                call.kind = type == ChakraProtoMsg::COMM_SEND_NODE ? job::CallKind::Send : job::CallKind::Recv;
            call.bytes = size && size->value_case() == AttributeProto::kInt64Val ? size->int64_val() : -1;
            if (type != ChakraProtoMsg::COMM_COLL_NODE)
                call.peer = intAttr(findAttr(node, type == ChakraProtoMsg::COMM_SEND_NODE ? "comm_dst" : "comm_src")).value_or(-1);
            call.where = path + " node " + std::to_string(id) + " (" + node.name() + ")";
            calls.push_back({id, std::move(call)});
        }
        std::sort(calls.begin(), calls.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        job::RankCalls rankCalls;
        rankCalls.rank = rank;
        std::vector<std::int64_t> &ids = nodeIds_[rank];
        for (auto &[id, call] : calls) {
            ids.push_back(id);
            rankCalls.calls.push_back(std::move(call));
        }
        rankCalls_.push_back(std::move(rankCalls));
        files_[rank] = path;
    }

    // Every group's ranks have a file; each group's members issue the same collectives in the same order.
    void checkJob()
    {
        for (const auto &[id, members] : groups_)
            for (std::int64_t r : members)
                if (!ranks_.count(r))
                    error("group_rank_missing", "", -1, "comm group " + id + " names rank " + std::to_string(r) + ", which has no file");
        // Each group's collective sequence, per member, against the group's reference (job/crossrank.h).
        job::CheckInput input;
        input.ranks = rankCalls_;
        for (const auto &[id, members] : groups_) {
            job::ProcessGroup group;
            group.name = id;
            group.ranks = members;
            group.size = static_cast<std::int64_t>(members.size());
            input.groups.push_back(group);
        }
        if (!groups_.count("0")) {
            job::ProcessGroup world; // "0" and "" mean every rank to the simulator
            world.name = "0";
            world.ranks.assign(ranks_.begin(), ranks_.end());
            world.size = static_cast<std::int64_t>(world.ranks.size());
            input.groups.push_back(world);
        }
        const job::CheckResult checked = job::checkCollectives(input);
        for (const job::JobFinding &f : checked.findings) {
            if (f.severity == job::Severity::Info)
                continue;
            // Name the first differing rank's file and the node at that position of the sequence.
            const std::int64_t rank = f.ranks.empty() ? -1 : f.ranks.front();
            std::int64_t node = -1;
            for (const job::GroupAlignment &g : checked.groups) {
                if (g.name != f.processGroup || rank < 0 || !g.positionOf.count(rank))
                    continue;
                const auto &positions = g.positionOf.at(rank);
                const auto &indices = g.callIndex.at(rank);
                for (std::size_t k = 0; k < positions.size() && k < indices.size(); ++k)
                    if (node < 0 && (positions[k] == f.index || (positions[k] > f.index && f.index >= 0)))
                        node = nodeIds_[rank][indices[k]];
            }
            result.findings.push_back({f.severity == job::Severity::Error ? EtCheckFinding::Severity::Error : EtCheckFinding::Severity::Warning,
                                       f.kind, rank >= 0 && files_.count(rank) ? files_[rank] : std::string(), node,
                                       f.message + " (group " + f.processGroup + ")"});
        }
    }

private:
    std::map<std::string, std::vector<std::int64_t>> groups_;
    bool haveGroups_ = false;
    std::set<std::int64_t> ranks_;
    std::vector<job::RankCalls> rankCalls_;
    std::map<std::int64_t, std::vector<std::int64_t>> nodeIds_; // rank → node id of each RankCalls::calls entry
    std::map<std::int64_t, std::string> files_;
};

std::int64_t rankOfFile(const std::string &path, std::int64_t position)
{
    static const std::regex suffix(R"(\.([0-9]{1,9})\.et(\.gz)?$)");
    std::smatch m;
    if (std::regex_search(path, m, suffix))
        return std::stoll(m[1].str());
    return position;
}

} // namespace

std::string EtCheckFinding::toString() const
{
    std::string out = severity == Severity::Error ? "error: " : "warning: ";
    if (!file.empty())
        out += file + ": ";
    if (node >= 0)
        out += "node " + std::to_string(node) + ": ";
    return out + rule + ": " + message;
}

nlohmann::json EtCheckFinding::toJson() const
{
    nlohmann::json j = {{"severity", severity == Severity::Error ? "error" : "warning"}, {"rule", rule}, {"message", message}};
    j["file"] = file.empty() ? nlohmann::json() : nlohmann::json(file);
    j["node"] = node >= 0 ? nlohmann::json(node) : nlohmann::json();
    return j;
}

std::size_t EtCheckResult::errors() const
{
    return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const EtCheckFinding &f) {
        return f.severity == EtCheckFinding::Severity::Error;
    }));
}

nlohmann::json EtCheckResult::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const EtCheckFinding &f : findings)
        list.push_back(f.toJson());
    return {{"ok", ok()}, {"files", files}, {"nodes", nodes}, {"errors", errors()}, {"findings", list}};
}

EtCheckResult checkEtFiles(const std::vector<std::string> &files, const std::string &commGroupsPath)
{
    Checker checker;
    if (!commGroupsPath.empty())
        checker.readGroups(commGroupsPath);
    for (std::size_t i = 0; i < files.size(); ++i)
        checker.checkFile(files[i], rankOfFile(files[i], static_cast<std::int64_t>(i)));
    checker.checkJob();
    return std::move(checker.result);
}

} // namespace linkscope::core
