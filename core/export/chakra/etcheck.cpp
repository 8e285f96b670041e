#include "export/chakra/etcheck.h"

#include "base/parallel.h"
#include "export/chakra/astrasimtarget.h"
#include "export/chakra/chakrakind.h"
#include "export/chakra/etbounds.h"
#include "export/chakra/etformat.h"
#include "export/chakra/etnodewire.h"
#include "export/chakra/graphorder.h"
#include "io/file/inputfile.h"
#include "io/json/boundedjson.h"
#include "jobmodel/crossrank.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

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
    case AttributeProto::kInt32Val:
        return attr->int32_val();
    case AttributeProto::kInt64Val:
        return attr->int64_val();
    case AttributeProto::kUint32Val:
        return attr->uint32_val();
    case AttributeProto::kUint64Val:
        return static_cast<std::int64_t>(attr->uint64_val());
    case AttributeProto::kSint32Val:
        return attr->sint32_val();
    case AttributeProto::kSint64Val:
        return attr->sint64_val();
    default:
        return std::nullopt;
    }
}

bool isInteger(std::string_view text)
{
    return !text.empty() && text.size() < 10
           && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// At most kListedPerRule findings of one rule are kept per file (and per job for the job's rules);
// the others are only counted, and one finding per such rule says how many were not listed. So a
// file of 10 M missing dependencies costs ten million counts, not ten million messages.
class RuleCap {
public:
    // Counts a finding of `rule`; true when it is to be listed.
    bool take(const std::string &rule, EtCheckFinding::Severity severity = EtCheckFinding::Severity::Error)
    {
        auto [it, inserted] = counts_.try_emplace(rule, Count{0, severity});
        return ++it->second.n <= kEtCheckListedPerRule;
    }
    // True when a finding of `rule` would only be counted (the caller may skip building its message).
    bool full(const std::string &rule) const
    {
        const auto it = counts_.find(rule);
        return it != counts_.end() && it->second.n >= kEtCheckListedPerRule;
    }
    // One finding per rule past the cap, naming `file` (empty: the job).
    void appendUnlisted(std::vector<EtCheckFinding> &out, const std::string &file) const
    {
        for (const auto &[rule, c] : counts_)
            if (c.n > kEtCheckListedPerRule) {
                const std::size_t more = c.n - kEtCheckListedPerRule;
                EtCheckFinding f{c.severity, rule, file, -1,
                                 std::to_string(more) + " more " + rule + " finding(s) "
                                     + (file.empty() ? "in this job" : "in this file") + ", not listed (the first "
                                     + std::to_string(kEtCheckListedPerRule) + " are)"};
                f.count = more;
                out.push_back(std::move(f));
            }
    }

private:
    struct Count {
        std::size_t n;
        EtCheckFinding::Severity severity;
    };
    std::map<std::string, Count> counts_;
};

// Where findings go: a list, under a cap shared by the lists of one file (or of the job).
struct Sink {
    std::vector<EtCheckFinding> &list;
    RuleCap &cap;
};

void addError(Sink out, std::string rule, const std::string &file, std::int64_t node, std::string message)
{
    if (out.cap.take(rule))
        out.list.push_back({EtCheckFinding::Severity::Error, std::move(rule), file, node, std::move(message)});
}
// A finding whose message is built only when it is listed.
template <typename Message>
void addErrorLazily(Sink out, const std::string &rule, const std::string &file, std::int64_t node, Message &&message)
{
    if (out.cap.full(rule))
        out.cap.take(rule);
    else
        addError(out, rule, file, node, message());
}

// ASTRA-sim 518bd51 gives each communicator group smaller than the world, per collective type, a
// plan that deletes the system's one implementation of that type when the simulator exits
// (CommunicatorGroup::get_collective_plan, CollectivePlan::~CollectivePlan): a rank that issues one
// type on two such groups frees it twice, and the simulator aborts after every rank has finished.
// The types it keeps one implementation of: the ones it runs on the network.
bool planSharesImplementation(job::CallKind k)
{
    return k == job::CallKind::AllReduce || k == job::CallKind::AllGather || k == job::CallKind::ReduceScatter
           || k == job::CallKind::AllToAll;
}

bool isCommType(int type)
{
    return type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE
           || type == ChakraProtoMsg::COMM_RECV_NODE;
}

// The per-node rules of a communication node; returns its call for the cross-rank pass.
job::CollectiveCall checkCommNode(const Node &node, const std::string &path, Sink findings)
{
    const auto id = static_cast<std::int64_t>(node.id());
    const int type = node.type();
    const AttributeProto *cpu = findAttr(node, "is_cpu_op");
    if (cpu && cpu->value_case() == AttributeProto::kBoolVal && cpu->bool_val())
        addError(findings, "comm_is_cpu_op", path, id, node.name() + ": a communication node with is_cpu_op true");
    const AttributeProto *size = findAttr(node, "comm_size");
    if (!size)
        addError(findings, "comm_size", path, id, node.name() + ": no comm_size");
    else if (size->value_case() != AttributeProto::kInt64Val)
        addError(findings, "comm_size", path, id,
                 node.name() + ": comm_size is stored as "
                     + std::string(size->value_case() == AttributeProto::VALUE_NOT_SET ? "nothing" : "another type than int64"));
    else if (size->int64_val() <= 0)
        addError(findings, "comm_size", path, id,
                 node.name() + ": comm_size " + std::to_string(size->int64_val()) + " (must be > 0)");
    std::int64_t commType = -1;
    if (type == ChakraProtoMsg::COMM_COLL_NODE) {
        const auto t = intAttr(findAttr(node, "comm_type"));
        if (!t)
            addError(findings, "comm_type", path, id, node.name() + ": a collective without comm_type");
        else if (!astraSimRunsCollective(*t))
            addError(findings, "comm_type", path, id,
                     node.name() + ": " + std::string(collectiveTypeName(*t)) + " is a collective the simulator does not issue");
        commType = t.value_or(-1);
    } else {
        const bool send = type == ChakraProtoMsg::COMM_SEND_NODE;
        if (!intAttr(findAttr(node, send ? "comm_dst" : "comm_src")))
            addError(findings, "p2p_peer", path, id,
                     node.name() + (send ? ": a send without comm_dst" : ": a receive without comm_src"));
        if (!intAttr(findAttr(node, "comm_tag")))
            addError(findings, "p2p_peer", path, id, node.name() + ": no comm_tag");
    }
    std::string group;
    if (const AttributeProto *pg = findAttr(node, "pg_name"); pg && pg->value_case() == AttributeProto::kStringVal)
        group = pg->string_val();
    if (!group.empty() && group != "0" && !isInteger(group))
        addError(findings, "pg_name_not_integer", path, id, node.name() + ": pg_name \"" + group + "\" is not an integer id");
    job::CollectiveCall call;
    call.processGroup = group.empty() ? "0" : group;
    call.kind = callKindOfChakraNode(type, commType);
    call.bytes = size && size->value_case() == AttributeProto::kInt64Val ? size->int64_val() : -1;
    if (type != ChakraProtoMsg::COMM_COLL_NODE)
        call.peer = intAttr(findAttr(node, type == ChakraProtoMsg::COMM_SEND_NODE ? "comm_dst" : "comm_src")).value_or(-1);
    call.where = path + " node " + std::to_string(id) + " (" + node.name() + ")";
    return call;
}

// The comm group file: {"<integer id>": [ranks]}.
struct CommGroups {
    std::map<std::string, std::vector<std::int64_t>> groups;
    bool given = false;    // a comm group file was named
    bool readable = false; // and read (its refused groups aside)
};

CommGroups readGroups(const std::string &path, Sink findings)
{
    CommGroups out;
    out.given = true;
    nlohmann::json j;
    try {
        // A regular file only (a FIFO is refused, not waited on), nesting bounded (io/json/boundedjson.h).
        j = io::readBoundedJsonFile(path);
    } catch (const LoadError &e) {
        addError(findings, "comm_groups", path, -1,
                 (e.offset() != kUnknownOffset ? "byte " + std::to_string(e.offset()) + ": " : std::string()) + e.detail());
        return out;
    }
    if (!j.is_object()) {
        addError(findings, "comm_groups", path, -1, "expected an object {\"<integer id>\": [ranks]}");
        return out;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!isInteger(it.key())) {
            addError(findings, "comm_groups", path, -1, "group \"" + it.key() + "\": the key must be an integer id");
            continue;
        }
        if (std::stoll(it.key()) == 0) {
            // The simulator asserts id > 0 (CommunicatorGroup::set_id); pg_name "0" is every rank already.
            addError(findings, "comm_groups", path, -1,
                     "group \"" + it.key() + "\": id 0 aborts the simulator (pg_name \"0\" already means every rank)");
            continue;
        }
        std::vector<std::int64_t> ranks;
        std::set<std::int64_t> seen, twice;
        bool ok = it.value().is_array();
        if (ok)
            for (const auto &r : it.value()) {
                if (!r.is_number_integer() || r.get<std::int64_t>() < 0) {
                    ok = false;
                    break;
                }
                if (seen.insert(r.get<std::int64_t>()).second)
                    ranks.push_back(r.get<std::int64_t>());
                else
                    twice.insert(r.get<std::int64_t>());
            }
        if (ok && !twice.empty()) {
            std::string list;
            for (std::int64_t r : twice)
                list += (list.empty() ? "" : ", ") + std::to_string(r);
            // The simulator would count such a rank twice in the group's size.
            addError(findings, "comm_groups", path, -1,
                     "group \"" + it.key() + "\": " + (twice.size() == 1 ? "rank " : "ranks ") + list + " listed more than once");
        }
        if (!ok) {
            addError(findings, "comm_groups", path, -1, "group \"" + it.key() + "\": expected a list of non-negative ranks");
            continue;
        }
        out.groups[it.key()] = ranks;
    }
    out.readable = true;
    return out;
}

std::int64_t rankOfFile(const std::string &path, std::int64_t position)
{
    static const std::regex suffix(R"(\.([0-9]{1,9})\.et(\.gz)?$)");
    std::smatch m;
    if (std::regex_search(path, m, suffix))
        return std::stoll(m[1].str());
    return position;
}

} // namespace

std::int64_t etFileRank(const std::string &path, std::int64_t position) { return rankOfFile(path, position); }

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
    if (count != 1)
        j["count"] = count;
    return j;
}

std::size_t EtCheckResult::errors() const
{
    std::size_t n = 0;
    for (const EtCheckFinding &f : findings)
        n += f.severity == EtCheckFinding::Severity::Error ? f.count : 0;
    return n;
}

nlohmann::json EtCheckResult::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const EtCheckFinding &f : findings)
        list.push_back(f.toJson());
    return {{"ok", ok()}, {"files", files}, {"nodes", nodes}, {"errors", errors()}, {"findings", list}};
}

namespace {

// One .et file checked. The first walk keeps each node's id and checks each node's own rules; the
// second, once every id is known, resolves the dependencies (data_deps first, then ctrl_deps) as it
// reads them. Neither keeps a protobuf message nor a node's list of dependencies, so memory is the
// file's bytes (mapped) plus a few words per node and per distinct dependency, however many
// dependencies one node names.
class EtFileChecker {
public:
    EtFileChecker(const std::string &path, std::int64_t rank) : path_(path)
    {
        out_.path = path;
        out_.calls.rank = rank;
    }

    EtFileCheck run()
    {
        if (!readNodes() || !readDependencies())
            return std::move(out_);
        report(orderByDependencies(begin_, list_));
        keepCalls();
        return std::move(out_);
    }

private:
    struct Call {
        std::int64_t id;
        job::CollectiveCall call;
        std::string name;
    };

    // The whole file unreadable: that one finding, nothing else.
    void unreadable(const std::exception &e)
    {
        out_.findings.clear();
        out_.findings.push_back({EtCheckFinding::Severity::Error, "unreadable", path_, -1, e.what()});
        out_.calls.calls.clear();
        out_.readable = false;
        out_.nodes = 0;
    }

    // The first walk: ids, which nodes name dependencies, each node's own rules, the calls.
    bool readNodes()
    {
        try {
            file_.emplace(path_);
            NodeHead head;
            Node node; // communication and unsupported nodes only: parsed (without dependencies) for their attributes and name
            std::string buffer;
            const EtScan scan = file_->frame([&](const char *bytes, int size, std::size_t count, std::size_t offset) {
                if (!readNodeHead(bytes, size, head))
                    throw LoadError(path_, offset, "malformed Node message (node #" + std::to_string(count) + ")");
                ids_.push_back(head.id);
                hasDependencies_.push_back(head.hasDependencies);
                anyDependencies_ = anyDependencies_ || head.hasDependencies;
                checkTimes(head);
                const int type = head.type;
                const bool comm = isCommType(type);
                const bool runs = comm || type == ChakraProtoMsg::COMP_NODE || type == ChakraProtoMsg::MEM_LOAD_NODE
                                  || type == ChakraProtoMsg::MEM_STORE_NODE || type == ChakraProtoMsg::INVALID_NODE;
                if (runs && !comm)
                    return;
                if (!parseWithoutDependencies(bytes, size, head.hasDependencies, node, buffer))
                    throw LoadError(path_, offset, "malformed Node message (node #" + std::to_string(count) + ")");
                if (!runs) {
                    addError(nodeSink_, "unsupported_node_type", path_, static_cast<std::int64_t>(node.id()),
                             std::string(nodeTypeName(type)) + " (" + node.name() + ") is not a node type the simulator runs"
                                 + (type == ChakraProtoMsg::METADATA_NODE
                                        ? " (its statistics pass aborts on it; give the groups in a comm group file)"
                                        : ""));
                    return;
                }
                calls_.push_back({static_cast<std::int64_t>(node.id()), checkCommNode(node, path_, nodeSink_), node.name()});
            });
            out_.nodes = scan.nodes;
            out_.totalNs = times_.total();
        } catch (const std::exception &e) {
            unreadable(e);
            return false;
        }
        out_.readable = true;
        indexIds();
        return true;
    }

    // The node's times within what the replay and the simulator run as written (export/chakra/etbounds.h).
    void checkTimes(const NodeHead &head)
    {
        const auto id = static_cast<std::int64_t>(head.id);
        if (const std::string problem = etNodeTimeProblem(head.durationMicros, head.laneNs); !problem.empty()) {
            addError(nodeSink_, "duration_range", path_, id, problem);
            return;
        }
        if (times_.add(etNodeNs(head.durationMicros, head.laneNs)))
            addError(nodeSink_, "duration_total", path_, id, "up to this node, " + etTotalProblem());
    }

    // Positions by id: a sorted copy (ids are sorted in a valid file; sorting makes any file work),
    // and the ids given more than once.
    void indexIds()
    {
        byId_.resize(ids_.size());
        for (std::uint32_t i = 0; i < ids_.size(); ++i)
            byId_[i] = {ids_[i], i};
        if (!std::is_sorted(ids_.begin(), ids_.end()))
            std::stable_sort(byId_.begin(), byId_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (std::size_t i = 0; i < byId_.size();) {
            std::size_t j = i + 1;
            while (j < byId_.size() && byId_[j].first == byId_[i].first)
                ++j;
            if (j - i > 1) {
                duplicates_.push_back({byId_[i].first, j - i});
                if (needNames_.size() < kEtCheckListedPerRule)
                    needNames_.insert(byId_[i].first);
            }
            i = j;
        }
    }

    std::optional<std::uint32_t> positionOf(std::uint64_t id) const
    {
        auto it = std::lower_bound(byId_.begin(), byId_.end(), id, [](const auto &e, std::uint64_t v) { return e.first < v; });
        if (it == byId_.end() || it->first != id)
            return std::nullopt;
        return it->second;
    }

    // The second walk. Dependencies: every id exists; data_deps and ctrl_deps acyclic (the feeder
    // waits for both). A node waits for each node it names once however often it names it, so the
    // graph holds each distinct dependency once: a node naming one id ten million times is one edge.
    bool readDependencies()
    {
        begin_.assign(ids_.size() + 1, 0);
        if (!anyDependencies_)
            return true;
        constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
        std::vector<std::uint32_t> lastDependent(ids_.size(), kNone); // the last node that named each node
        std::uint32_t i = 0;
        try {
            file_->frame([&](const char *bytes, int size, std::size_t, std::size_t) {
                if (i >= ids_.size())
                    throw std::runtime_error("the file changed while it was checked");
                if (hasDependencies_[i])
                    forEachDependency(bytes, size, [&](std::uint64_t dep, bool data) {
                        if (const auto at = positionOf(dep)) {
                            if (lastDependent[*at] != i) {
                                lastDependent[*at] = i;
                                list_.push_back(*at);
                            }
                            return;
                        }
                        addErrorLazily(depSink_, "missing_dependency", path_, static_cast<std::int64_t>(ids_[i]), [&] {
                            return std::string(data ? "data_deps" : "ctrl_deps") + " names " + std::to_string(dep)
                                   + ", which is not in the file";
                        });
                    });
                begin_[++i] = static_cast<std::uint32_t>(list_.size());
            });
        } catch (const std::exception &e) {
            // The same bytes framed again: only a file cut short under its mapping gets here.
            unreadable(e);
            return false;
        }
        return true;
    }

    // The findings in their order: duplicate ids, dependencies, a cycle, each node's own; then the
    // rules' unlisted counts.
    void report(const GraphOrder &order)
    {
        if (!order.acyclic())
            for (std::uint32_t k : order.cycle)
                needNames_.insert(ids_[k]);
        const auto names = namesOf(*file_, needNames_);
        auto named = [&](std::uint64_t id) {
            auto it = names.find(id);
            return std::to_string(id) + " (" + (it == names.end() ? std::string("?") : it->second) + ")";
        };
        for (const auto &[id, count] : duplicates_) {
            const std::uint64_t dupId = id; // clang 14 does not capture structured bindings
            for (std::size_t c = 1; c < count; ++c)
                addErrorLazily(fileSink_, "duplicate_id", path_, static_cast<std::int64_t>(dupId),
                               [&] { return "id " + named(dupId) + " appears more than once"; });
        }
        out_.findings.insert(out_.findings.end(), std::make_move_iterator(depFindings_.begin()),
                             std::make_move_iterator(depFindings_.end()));
        if (!order.acyclic()) {
            std::string text;
            for (std::size_t k = 0; k < order.cycle.size(); ++k)
                text += (k ? " -> " : "") + named(ids_[order.cycle[k]]);
            const std::int64_t first = order.cycle.empty() ? -1 : static_cast<std::int64_t>(ids_[order.cycle.front()]);
            addError(fileSink_, "dependency_cycle", path_, first,
                     std::to_string(order.blocked) + " node(s) can never run; cycle: " + (text.empty() ? "?" : text));
        }
        out_.findings.insert(out_.findings.end(), std::make_move_iterator(nodeFindings_.begin()),
                             std::make_move_iterator(nodeFindings_.end()));
        cap_.appendUnlisted(out_.findings, path_);
    }

    // The rank's calls for the cross-rank pass, in id order (the order the feeder issues ready nodes in).
    void keepCalls()
    {
        std::stable_sort(calls_.begin(), calls_.end(), [](const Call &a, const Call &b) { return a.id < b.id; });
        for (Call &c : calls_) {
            out_.callNodes.push_back(c.id);
            out_.callNames.push_back(std::move(c.name));
            out_.calls.calls.push_back(std::move(c.call));
        }
    }

    const std::string &path_;
    EtFileCheck out_;
    std::optional<EtFileBytes> file_;
    std::vector<std::uint64_t> ids_;
    std::vector<bool> hasDependencies_; // per node: whether the second walk reads it
    bool anyDependencies_ = false;
    std::vector<Call> calls_;
    EtTimeSum times_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> byId_;
    std::vector<std::pair<std::uint64_t, std::size_t>> duplicates_; // id, count
    std::unordered_set<std::uint64_t> needNames_;
    std::vector<std::uint32_t> begin_, list_; // the distinct dependencies of node i: list_[begin_[i], begin_[i + 1])
    RuleCap cap_;                             // one per file, over all its lists
    std::vector<EtCheckFinding> nodeFindings_, depFindings_;
    const Sink nodeSink_{nodeFindings_, cap_}, depSink_{depFindings_, cap_}, fileSink_{out_.findings, cap_};
};

} // namespace

EtFileCheck checkEtFile(const std::string &path, std::int64_t rank) { return EtFileChecker(path, rank).run(); }

namespace {

// One warning for the job (it holds for most ranks of a job with tensor- and data-parallel groups):
// the first file that issues a collective type on two groups smaller than the world.
std::optional<EtCheckFinding> doubleFreeWarning(const std::map<std::int64_t, const EtFileCheck *> &byRank,
                                                const CommGroups &groups, const std::set<std::int64_t> &ranks)
{
    const EtFileCheck *first = nullptr;
    std::int64_t firstNode = -1;
    std::string what;
    std::size_t affected = 0;
    for (const auto &[rank, file] : byRank) {
        std::map<job::CallKind, std::vector<std::pair<std::string, std::int64_t>>> groupsOf; // type → (group, first node)
        for (std::size_t k = 0; k < file->calls.calls.size(); ++k) {
            const job::CollectiveCall &call = file->calls.calls[k];
            const auto group = groups.groups.find(call.processGroup);
            if (!planSharesImplementation(call.kind) || call.processGroup == "0" || group == groups.groups.end()
                || group->second.size() >= ranks.size())
                continue;
            auto &seen = groupsOf[call.kind];
            if (std::none_of(seen.begin(), seen.end(), [&](const auto &g) { return g.first == call.processGroup; }))
                seen.push_back({call.processGroup, file->callNodes[k]});
        }
        const auto twice = std::find_if(groupsOf.begin(), groupsOf.end(), [](const auto &t) { return t.second.size() > 1; });
        if (twice == groupsOf.end())
            continue;
        ++affected;
        if (first)
            continue;
        first = file;
        firstNode = twice->second[1].second;
        std::string names;
        for (std::size_t g = 0; g < twice->second.size(); ++g)
            names += (g ? (g + 1 == twice->second.size() ? " and " : ", ") : "") + twice->second[g].first;
        what = "issues " + std::string(job::callKindName(twice->first)) + " on comm groups " + names + ", each smaller than the "
               + std::to_string(ranks.size()) + " ranks replayed";
    }
    if (!first)
        return std::nullopt;
    return EtCheckFinding{
        EtCheckFinding::Severity::Warning, "astra_sim_exit_double_free", first->path, firstNode,
        "rank " + std::to_string(first->calls.rank) + " " + what
            + (affected > 1 ? " (" + std::to_string(affected - 1) + " other rank file(s) do the same)" : std::string())
            + ": ASTRA-sim 518bd51 frees its one implementation of a collective type once per such group when it exits, "
              "so it aborts (double free) after every rank has finished; the times it printed are complete. "
              "tests/astrasim/communicator-group-double-free.patch fixes the simulator (docs/astra-sim-export.md)"};
}

// Every group's ranks have a file; each group's members issue the same collectives in the same
// order (jobmodel's check, its findings named by the first differing rank's file and node).
void checkGroupsAcrossRanks(const std::map<std::int64_t, const EtFileCheck *> &byRank, const CommGroups &groups,
                            const std::set<std::int64_t> &ranks, const Sink &jobSink, std::vector<EtCheckFinding> &findings)
{
    RuleCap &cap = jobSink.cap;
    for (const auto &[id, members] : groups.groups) {
        const std::string &groupId = id; // clang 14 does not capture structured bindings
        for (std::int64_t r : members)
            if (!ranks.count(r))
                addErrorLazily(jobSink, "group_rank_missing", "", -1, [&] {
                    return "comm group " + groupId + " names rank " + std::to_string(r) + ", which has no file";
                });
    }
    job::CheckInput input;
    for (const auto &[rank, file] : byRank)
        input.ranks.push_back(file->calls);
    for (const auto &[id, members] : groups.groups) {
        job::ProcessGroup group;
        group.name = id;
        group.ranks = members;
        group.size = static_cast<std::int64_t>(members.size());
        input.groups.push_back(group);
    }
    if (!groups.groups.count("0")) {
        job::ProcessGroup world; // "0" and "" mean every rank to the simulator
        world.name = "0";
        world.ranks.assign(ranks.begin(), ranks.end());
        world.size = static_cast<std::int64_t>(world.ranks.size());
        input.groups.push_back(world);
    }
    const job::CheckResult checked = job::checkCollectives(input);
    for (const job::JobFinding &f : checked.findings) {
        if (f.severity == job::Severity::Info)
            continue;
        // Name the first differing rank's file and the node at that position of the sequence.
        const std::int64_t rank = f.ranks.empty() ? -1 : f.ranks.front();
        const auto file = byRank.find(rank);
        std::int64_t node = -1;
        for (const job::GroupAlignment &g : checked.groups) {
            if (g.name != f.processGroup || file == byRank.end() || !g.positionOf.count(rank))
                continue;
            const auto &positions = g.positionOf.at(rank);
            const auto &indices = g.callIndex.at(rank);
            for (std::size_t k = 0; k < positions.size() && k < indices.size(); ++k)
                if (node < 0 && (positions[k] == f.index || (positions[k] > f.index && f.index >= 0)))
                    node = file->second->callNodes[indices[k]];
        }
        const auto severity = f.severity == job::Severity::Error ? EtCheckFinding::Severity::Error
                                                                 : EtCheckFinding::Severity::Warning;
        if (cap.take(f.kind, severity))
            findings.push_back({severity, f.kind, file != byRank.end() ? file->second->path : std::string(), node,
                                f.message + " (group " + f.processGroup + ")"});
    }
}

} // namespace

EtCheckResult checkEtJob(std::vector<EtFileCheck> files, const std::string &commGroupsPath)
{
    EtCheckResult result;
    RuleCap cap; // the job's own rules (each file's were capped with the file)
    const Sink jobSink{result.findings, cap};
    CommGroups groups;
    if (!commGroupsPath.empty())
        groups = readGroups(commGroupsPath, jobSink);
    std::set<std::int64_t> ranks;
    std::map<std::int64_t, const EtFileCheck *> byRank;
    std::map<std::pair<std::uint64_t, std::uint64_t>, const EtFileCheck *> byFile; // (device, inode) of the files taken
    EtTimeSum jobTimes;
    for (const EtFileCheck &file : files) {
        // One file per rank: a second one (the same file given twice, an .et and its .et.gz, an old
        // copy) is an error naming both; the first given is the rank's for the job's rules. The
        // same file under another name (a symlink, a hard link, a path with "..") is the same file
        // given twice whatever rank its name gives it.
        const auto first = byRank.find(file.calls.rank);
        const FileIdentity identity = io::identityOfPath(file.path);
        const auto twin = identity.known ? byFile.find({identity.device, identity.inode}) : byFile.end();
        const EtFileCheck *sameAs = twin != byFile.end() ? twin->second : nullptr;
        if (!sameAs)
            result.findings.insert(result.findings.end(), file.findings.begin(), file.findings.end());
        if (!file.readable)
            continue;
        ++result.files;
        if (sameAs || first != byRank.end()) {
            addError(jobSink, "duplicate_rank", file.path, -1,
                     sameAs ? "the same file as " + sameAs->path + ", given twice"
                            : "rank " + std::to_string(file.calls.rank) + " has another file, " + first->second->path
                                  + "; the job's rules use that one (give one file per rank)");
            continue;
        }
        result.nodes += file.nodes;
        if (jobTimes.add(file.totalNs))
            addError(jobSink, "duration_total", file.path, -1, "with this file, the job's " + etTotalProblem());
        ranks.insert(file.calls.rank);
        byRank[file.calls.rank] = &file;
        if (identity.known)
            byFile.emplace(std::make_pair(identity.device, identity.inode), &file);
        // pg_name against the job's groups (its form was checked with the file).
        for (std::size_t k = 0; k < file.calls.calls.size(); ++k) {
            const job::CollectiveCall &call = file.calls.calls[k];
            if (const auto group = groups.groups.find(call.processGroup); group != groups.groups.end()
                                                                          && group->second.size() == 1 && !job::isP2P(call.kind)
                                                                          && call.kind != job::CallKind::Broadcast)
                addErrorLazily(jobSink, "group_single_rank", file.path, file.callNodes[k], [&] {
                    return file.callNames[k] + ": a collective on comm group " + call.processGroup
                           + ", which has one rank: the simulator never completes it (the rank stops there and "
                             "the simulator exits 0 without its \"finished\" line)";
                });
            if (call.processGroup == "0" || !isInteger(call.processGroup) || groups.groups.count(call.processGroup))
                continue;
            addErrorLazily(jobSink, "pg_name_unknown", file.path, file.callNodes[k], [&] {
                return file.callNames[k] + ": pg_name \"" + call.processGroup + "\" is not a group of "
                       + (groups.readable ? std::string("the comm group file")
                          : groups.given  ? "this job (the comm group file " + commGroupsPath
                                               + " was given but refused: see its comm_groups finding)"
                                         : std::string("this job (no comm group file given)"));
            });
        }
    }
    // A send or receive with a peer that has no file: the cause of the unpaired_send / unpaired_recv
    // the cross-rank pass reports for it.
    for (const auto &entry : byRank) // not a structured binding: clang 14 does not capture one
        for (std::size_t k = 0; k < entry.second->calls.calls.size(); ++k) {
            const EtFileCheck *file = entry.second;
            const job::CollectiveCall &call = file->calls.calls[k];
            if (job::isP2P(call.kind) && call.peer >= 0 && !ranks.count(call.peer))
                addErrorLazily(jobSink, "p2p_peer", file->path, file->callNodes[k], [&] {
                    return file->callNames[k]
                           + (call.kind == job::CallKind::Send ? ": a send to rank " : ": a receive from rank ")
                           + std::to_string(call.peer) + ", which has no file (the job's ranks: " + std::to_string(*ranks.begin())
                           + ".." + std::to_string(*ranks.rbegin()) + ")";
                });
        }
    if (std::optional<EtCheckFinding> warning = doubleFreeWarning(byRank, groups, ranks))
        result.findings.push_back(std::move(*warning));
    checkGroupsAcrossRanks(byRank, groups, ranks, jobSink, result.findings);
    cap.appendUnlisted(result.findings, "");
    return result;
}

EtCheckResult checkEtFiles(const std::vector<std::string> &files, const std::string &commGroupsPath, int jobs)
{
    std::vector<EtFileCheck> checked(files.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < files.size();)
            checked[i] = checkEtFile(files[i], rankOfFile(files[i], static_cast<std::int64_t>(i)));
    };
    runOnThreads(std::clamp<int>(jobs, 1, static_cast<int>(std::max<std::size_t>(files.size(), 1))), worker);
    return checkEtJob(std::move(checked), commGroupsPath);
}

} // namespace linkscope::core
