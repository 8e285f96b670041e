#include "predict/simgraph.h"

#include "predict/hugepages.h"

#include "export/chakra/chakrakind.h"
#include "export/chakra/etbounds.h"
#include "export/chakra/etformat.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <numeric>

namespace linkscope::core::predict {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

std::optional<std::int64_t> intValue(const AttributeProto &a)
{
    switch (a.value_case()) {
    case AttributeProto::kInt32Val:
        return a.int32_val();
    case AttributeProto::kInt64Val:
        return a.int64_val();
    case AttributeProto::kUint32Val:
        return a.uint32_val();
    case AttributeProto::kUint64Val:
        return static_cast<std::int64_t>(a.uint64_val());
    case AttributeProto::kSint32Val:
        return a.sint32_val();
    case AttributeProto::kSint64Val:
        return a.sint64_val();
    default:
        return std::nullopt;
    }
}

} // namespace

std::string_view nodeKindName(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Cpu:
        return "cpu";
    case NodeKind::Gpu:
        return "gpu";
    case NodeKind::Collective:
        return "collective";
    case NodeKind::Send:
        return "send";
    case NodeKind::Recv:
        return "recv";
    case NodeKind::Skip:
        return "skip";
    }
    return "skip";
}

std::size_t SimJob::nodeCount() const
{
    std::size_t n = 0;
    for (const SimRank &r : ranks)
        n += r.nodes.size();
    return n;
}

RankBuilder::RankBuilder(std::int64_t rank, std::string path, const std::vector<std::int64_t> &groupIds) : m_groupIds(groupIds)
{
    m_rank.rank = rank;
    m_rank.path = std::move(path);
}

RankBuilder::RankBuilder(std::int64_t rank, std::string path, std::vector<std::int64_t> *learnedGroupIds)
    : m_groupIds(*learnedGroupIds), m_learnedGroupIds(learnedGroupIds)
{
    m_rank.rank = rank;
    m_rank.path = std::move(path);
}

void RankBuilder::reserve(std::size_t nodes, std::size_t deps)
{
    reserveHuge(m_rank.nodes, nodes);
    reserveHuge(m_offsets, nodes);
    reserveHuge(m_rawDeps, deps);
}

// The fields of a Node the replay reads, from either a parsed message or its bytes.
struct NodeFields {
    std::uint64_t id = 0;
    std::string_view name;
    int type = 0;
    std::uint64_t durationMicros = 0;
    bool cpu = true; // ASTRA-sim's default for is_cpu_op
    SimComm comm;
    std::int64_t src = -1, dst = -1;
    std::string pgName;
    bool hasPg = false;
    std::int64_t stream = -1;
    std::int64_t tid = 0;
    std::int64_t laneNs = -1;
    std::int64_t dispatchNs = 0;
};

namespace {

// The attributes the replay reads; the rest are skipped.
enum class AttrKey : std::uint8_t {
    None,
    IsCpuOp,
    CommType,
    CommSize,
    CommSrc,
    CommDst,
    CommTag,
    PgName,
    Stream,
    Tid,
    LaneNs,
    DispatchNs
};

AttrKey attributeKey(std::string_view key)
{
    switch (key.size()) { // one comparison per key read, not one per key wanted
    case 3:
        return key == "tid" ? AttrKey::Tid : AttrKey::None;
    case 11:
        return key == "lane_dur_ns" ? AttrKey::LaneNs : key == "dispatch_ns" ? AttrKey::DispatchNs : AttrKey::None;
    case 6:
        return key == "stream" ? AttrKey::Stream : AttrKey::None;
    case 7:
        return key == "pg_name" ? AttrKey::PgName : AttrKey::None;
    case 8:
        return key == "comm_src"   ? AttrKey::CommSrc
               : key == "comm_dst" ? AttrKey::CommDst
               : key == "comm_tag" ? AttrKey::CommTag
                                   : AttrKey::None;
    case 9:
        return key == "is_cpu_op"   ? AttrKey::IsCpuOp
               : key == "comm_type" ? AttrKey::CommType
               : key == "comm_size" ? AttrKey::CommSize
                                    : AttrKey::None;
    default:
        return AttrKey::None;
    }
}

// `value`: the attribute's integer (or bool), when `hasValue`.
void takeAttribute(NodeFields &f, AttrKey key, bool hasValue, std::int64_t value, std::string_view text, bool isString)
{
    auto valueOr = [&](std::int64_t fallback) { return hasValue ? value : fallback; };
    switch (key) {
    case AttrKey::IsCpuOp:
        f.cpu = valueOr(1) != 0;
        break;
    case AttrKey::CommType:
        f.comm.kind = callKindFromChakraCommType(valueOr(-1));
        break;
    case AttrKey::CommSize:
        f.comm.bytes = valueOr(0);
        break;
    case AttrKey::CommSrc:
        f.src = valueOr(-1);
        break;
    case AttrKey::CommDst:
        f.dst = valueOr(-1);
        break;
    case AttrKey::CommTag:
        f.comm.tag = valueOr(0);
        break;
    case AttrKey::PgName:
        f.pgName = isString ? std::string(text) : std::to_string(valueOr(0));
        f.hasPg = true;
        break;
    case AttrKey::Stream:
        f.stream = valueOr(-1);
        break;
    case AttrKey::Tid:
        f.tid = valueOr(0);
        break;
    case AttrKey::LaneNs:
        f.laneNs = valueOr(-1);
        break;
    case AttrKey::DispatchNs:
        f.dispatchNs = valueOr(0);
        break;
    case AttrKey::None:
        break;
    }
}

} // namespace

namespace {

// Protocol-buffer wire reading over a byte range, as CodedInputStream reads it (varints of up to 10
// bytes, lengths checked against what is left), without its per-call overhead.
struct Wire {
    const std::uint8_t *p, *end;

    bool varint(std::uint64_t &out)
    {
        if (p < end && *p < 0x80) { // the common case: one byte
            out = *p++;
            return true;
        }
        std::uint64_t v = 0;
        for (int shift = 0; shift < 70 && p < end; shift += 7) {
            const std::uint8_t b = *p++;
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (b < 0x80) {
                out = v;
                return true;
            }
        }
        return false; // truncated, or more than 10 bytes
    }
    // A tag: 0 at the end (or a malformed one: `ok` false then, as a 0 tag read from the bytes).
    std::uint32_t tag(bool &ok)
    {
        ok = true;
        if (p >= end)
            return 0;
        if (*p != 0 && *p < 0x80) // the common case: one byte
            return *p++;
        std::uint64_t v = 0;
        if (!varint(v) || v > 0xffffffffu || v == 0) {
            ok = false;
            return 0;
        }
        return static_cast<std::uint32_t>(v);
    }
    bool bytes(std::string_view &out)
    {
        std::uint64_t length = 0;
        if (!varint(length) || length > static_cast<std::uint64_t>(end - p))
            return false;
        out = std::string_view(reinterpret_cast<const char *>(p), static_cast<std::size_t>(length));
        p += length;
        return true;
    }
    // WireFormatLite::SkipField: a varint, fixed64, length-delimited, group (to its end tag) or fixed32.
    bool skip(std::uint32_t tag, int depth = 0)
    {
        std::uint64_t v = 0;
        std::string_view ignored;
        switch (tag & 7) {
        case 0:
            return varint(v);
        case 1:
            if (end - p < 8)
                return false;
            p += 8;
            return true;
        case 2:
            return bytes(ignored);
        case 3: {
            if (depth >= 100) // protobuf's default recursion limit
                return false;
            bool ok = true;
            while (const std::uint32_t inner = this->tag(ok)) {
                if ((inner & 7) == 4)
                    return (inner >> 3) == (tag >> 3);
                if (!skip(inner, depth + 1))
                    return false;
            }
            return false; // the group never ended
        }
        case 5:
            if (end - p < 4)
                return false;
            p += 4;
            return true;
        default:
            return false; // an end group without its start, or wire types 6 and 7
        }
    }
};

} // namespace

void RankBuilder::addEncoded(const char *bytes, int size, std::size_t offset)
{
    // Node: id 1, name 2, type 3, ctrl_deps 4, data_deps 5, duration_micros 7, attr 10 (AttributeProto:
    // name 1, int32 7, int64 9, uint32 11, uint64 13, sint32 15, sint64 17, bool 27, string 29).
    const auto *data = reinterpret_cast<const std::uint8_t *>(bytes);
    Wire in{data, data + std::max(size, 0)};
    NodeFields f;
    const std::size_t depBegin = m_rawDeps.size();
    auto bad = [&](const char *what) {
        m_rawDeps.resize(depBegin);
        throw LoadError(m_rank.path, offset, std::string("node ") + std::to_string(f.id) + ": " + what);
    };
    auto readDeps = [&](std::uint32_t wire) {
        std::uint64_t v = 0;
        if (wire == 0) {
            if (!in.varint(v))
                bad("a truncated dependency");
            m_rawDeps.push_back(v);
            return;
        }
        std::uint64_t length = 0;
        if (wire != 2 || !in.varint(length))
            bad("a malformed dependency list");
        if (length > static_cast<std::uint64_t>(in.end - in.p))
            bad("a truncated dependency list");
        Wire list{in.p, in.p + length};
        in.p += length;
        while (list.p < list.end) {
            if (!list.varint(v))
                bad("a truncated dependency list");
            m_rawDeps.push_back(v);
        }
    };
    bool ok = true;
    while (const std::uint32_t tag = in.tag(ok)) {
        const std::uint32_t field = tag >> 3, wire = tag & 7;
        std::uint64_t v = 0;
        switch (field) {
        case 1:
        case 3:
        case 7:
            if (wire != 0 || !in.varint(v))
                bad("a malformed id, type or duration");
            if (field == 1)
                f.id = v;
            else if (field == 3)
                f.type = static_cast<int>(v);
            else
                f.durationMicros = v;
            break;
        case 2:
            if (wire != 2 || !in.bytes(f.name))
                bad("a malformed name");
            break;
        case 4:
        case 5:
            readDeps(wire);
            break;
        case 10: {
            std::string_view attr;
            if (wire != 2 || !in.bytes(attr))
                bad("a malformed attribute");
            Wire a{reinterpret_cast<const std::uint8_t *>(attr.data()),
                   reinterpret_cast<const std::uint8_t *>(attr.data()) + attr.size()};
            std::string_view key, text;
            std::int64_t value = 0;
            bool hasValue = false, isString = false, aok = true;
            while (const std::uint32_t atag = a.tag(aok)) {
                const std::uint32_t afield = atag >> 3, awire = atag & 7;
                std::uint64_t av = 0;
                if ((afield == 1 || afield == 29) && awire == 2) {
                    if (!a.bytes(afield == 1 ? key : text))
                        bad("a malformed attribute");
                    if (afield == 29)
                        isString = true;
                } else if ((afield == 7 || afield == 9 || afield == 11 || afield == 13 || afield == 15 || afield == 17
                            || afield == 27)
                           && awire == 0) {
                    if (!a.varint(av))
                        bad("a malformed attribute");
                    std::int64_t x = static_cast<std::int64_t>(av);
                    if (afield == 7)
                        x = static_cast<std::int32_t>(av);
                    else if (afield == 11)
                        x = static_cast<std::uint32_t>(av);
                    else if (afield == 15) {
                        const auto u = static_cast<std::uint32_t>(av);
                        x = static_cast<std::int32_t>((u >> 1) ^ (~(u & 1) + 1));
                    } else if (afield == 17)
                        x = static_cast<std::int64_t>((av >> 1) ^ (~(av & 1) + 1));
                    else if (afield == 27)
                        x = av != 0;
                    value = x;
                    hasValue = true;
                } else if (!a.skip(atag)) {
                    bad("a malformed attribute");
                }
            }
            if (!aok)
                bad("a malformed attribute");
            if (const AttrKey k = attributeKey(key); k != AttrKey::None)
                takeAttribute(f, k, hasValue, value, text, isString);
            break;
        }
        default:
            if (!in.skip(tag))
                bad("a malformed field");
        }
    }
    if (!ok)
        bad("a malformed node");
    // Dependencies were appended as read: data and ctrl deps in file order (the set is what counts).
    addFields(f, depBegin, offset);
}

void RankBuilder::add(const Node &node, std::size_t offset)
{
    NodeFields f;
    f.id = node.id();
    f.name = node.name();
    f.type = node.type();
    f.durationMicros = node.duration_micros();
    for (const AttributeProto &a : node.attr())
        if (const AttrKey k = attributeKey(a.name()); k != AttrKey::None) {
            const std::optional<std::int64_t> value = a.value_case() == AttributeProto::kBoolVal
                                                          ? std::optional<std::int64_t>(a.bool_val())
                                                          : intValue(a);
            takeAttribute(f, k, value.has_value(), value.value_or(0), a.string_val(),
                          a.value_case() == AttributeProto::kStringVal);
        }
    const std::size_t depBegin = m_rawDeps.size();
    m_rawDeps.insert(m_rawDeps.end(), node.data_deps().begin(), node.data_deps().end());
    m_rawDeps.insert(m_rawDeps.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
    addFields(f, depBegin, offset);
}

void RankBuilder::addFields(const NodeFields &f, std::size_t depBegin, std::size_t offset)
{
    SimNode n;
    n.id = f.id;
    n.durationMicros = static_cast<std::int64_t>(f.durationMicros);
    n.stream = f.stream;
    n.laneNs = f.laneNs;
    n.dispatchNs = static_cast<std::int32_t>(std::clamp<std::int64_t>(f.dispatchNs, 0, std::numeric_limits<std::int32_t>::max()));
    const auto found = m_names.find(f.name);
    if (found != m_names.end()) {
        n.name = found->second;
    } else {
        n.name = static_cast<std::uint32_t>(m_nameStore.size());
        m_nameStore.emplace_back(f.name);
        m_names.emplace(m_nameStore.back(), n.name);
    }
    auto fail = [&](const std::string &what) {
        m_rawDeps.resize(depBegin);
        throw LoadError(m_rank.path, offset, "node " + std::to_string(n.id) + " (" + std::string(f.name) + "): " + what);
    };
    if (const std::string problem = etNodeTimeProblem(f.durationMicros, f.laneNs); !problem.empty())
        fail(problem);
    if (m_times.add(etNodeNs(f.durationMicros, f.laneNs)))
        fail("up to this node, " + etTotalProblem());
    switch (f.type) {
    case ChakraProtoMsg::COMP_NODE:
        n.kind = f.cpu ? NodeKind::Cpu : NodeKind::Gpu;
        break;
    case ChakraProtoMsg::COMM_COLL_NODE:
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE: {
        if (f.cpu)
            fail("a communication node with is_cpu_op true (ASTRA-sim stops there)");
        n.kind = f.type == ChakraProtoMsg::COMM_COLL_NODE   ? NodeKind::Collective
                 : f.type == ChakraProtoMsg::COMM_SEND_NODE ? NodeKind::Send
                                                            : NodeKind::Recv;
        SimComm comm = f.comm;
        comm.peer = n.kind == NodeKind::Send ? f.dst : n.kind == NodeKind::Recv ? f.src : -1;
        if (n.kind == NodeKind::Collective && f.hasPg && !f.pgName.empty() && f.pgName != "0") {
            std::int64_t id = 0;
            const auto [end, ec] = std::from_chars(f.pgName.data(), f.pgName.data() + f.pgName.size(), id);
            auto g = std::find(m_groupIds.begin(), m_groupIds.end(), id);
            const bool number = ec == std::errc() && end == f.pgName.data() + f.pgName.size();
            if (number && g == m_groupIds.end() && m_learnedGroupIds) {
                m_learnedGroupIds->push_back(id);
                g = m_groupIds.end() - 1;
            }
            if (!number || g == m_groupIds.end())
                fail("pg_name '" + f.pgName + "' is not a group of the comm group file");
            comm.group = static_cast<std::int32_t>(g - m_groupIds.begin());
        }
        n.comm = static_cast<std::int32_t>(m_rank.comms.size());
        m_rank.comms.push_back(comm);
        break;
    }
    default:
        n.kind = NodeKind::Skip;
        break;
    }
    if (n.kind == NodeKind::Cpu)
        n.lane = laneOf(m_rank.threads, m_threadLanes, f.tid);
    else if (n.kind == NodeKind::Gpu)
        n.lane = laneOf(m_rank.streams, m_streamLanes, f.stream);
    n.depBegin = static_cast<std::uint32_t>(depBegin);
    n.depEnd = static_cast<std::uint32_t>(m_rawDeps.size());
    m_rank.nodes.push_back(n);
    m_offsets.push_back(offset);
}

std::uint16_t RankBuilder::laneOf(std::vector<std::int64_t> &ids, LaneCache &cache, std::int64_t id)
{
    if (cache.lastLane >= 0 && id == cache.lastId)
        return static_cast<std::uint16_t>(cache.lastLane);
    auto [it, added] = cache.lanes.try_emplace(id, 0);
    if (added) {
        if (ids.size() < kMaxLanes)
            ids.push_back(id);
        it->second = static_cast<std::uint16_t>(ids.size() - 1);
    }
    cache.lastId = id;
    cache.lastLane = it->second;
    return it->second;
}

SimRank RankBuilder::finish()
{
    constexpr std::uint32_t kNoPosition = 0xffffffffu;
    SimRank &r = m_rank;
    r.names.assign(std::make_move_iterator(m_nameStore.begin()), std::make_move_iterator(m_nameStore.end()));
    m_nameStore.clear();
    m_names.clear();
    const std::size_t n = r.nodes.size();
    // Issue order is id order: sort when the file was not (it normally is; then nothing is copied).
    const bool sorted = std::is_sorted(r.nodes.begin(), r.nodes.end(),
                                       [](const SimNode &a, const SimNode &b) { return a.id < b.id; });
    std::vector<std::uint32_t> order; // position → the node's place in the file (empty: the same)
    if (!sorted) {
        // Dense distinct ids (an export's) are placed by id in one pass; otherwise, or at a repeated id,
        // a stable sort (the duplicate check below names the later one in the file).
        const auto [lo, hi] = std::minmax_element(r.nodes.begin(), r.nodes.end(),
                                                  [](const SimNode &a, const SimNode &b) { return a.id < b.id; });
        const std::uint64_t low = lo->id, width = hi->id - lo->id;
        if (width < 4 * static_cast<std::uint64_t>(n) + 1024) {
            std::vector<std::uint32_t> slot(static_cast<std::size_t>(width) + 1, kNoPosition);
            bool distinct = true;
            for (std::size_t i = 0; i < n && distinct; ++i) {
                std::uint32_t &s = slot[static_cast<std::size_t>(r.nodes[i].id - low)];
                distinct = s == kNoPosition;
                s = static_cast<std::uint32_t>(i);
            }
            if (distinct) {
                order.reserve(n);
                for (const std::uint32_t i : slot)
                    if (i != kNoPosition)
                        order.push_back(i);
            }
        }
        if (order.empty()) {
            order.resize(n);
            std::iota(order.begin(), order.end(), 0u);
            std::stable_sort(order.begin(), order.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return r.nodes[a].id < r.nodes[b].id; });
        }
        std::vector<SimNode> nodes;
        nodes.reserve(n);
        for (const std::uint32_t i : order)
            nodes.push_back(r.nodes[i]);
        r.nodes = std::move(nodes);
    }
    auto fileOffset = [&](std::size_t i) { return m_offsets[order.empty() ? i : order[i]]; };
    for (std::size_t i = 1; i < n; ++i)
        if (r.nodes[i].id == r.nodes[i - 1].id)
            throw LoadError(r.path, fileOffset(i), "node id " + std::to_string(r.nodes[i].id) + " appears twice");
    // A dependency's position: from a table when the ids are dense (an export numbers its nodes
    // 0, 1, 2, …), else by binary search.
    const std::uint64_t minId = n ? r.nodes.front().id : 0, span = n ? r.nodes.back().id - minId : 0;
    std::vector<std::uint32_t> byId;
    if (n && span < 4 * static_cast<std::uint64_t>(n) + 1024) {
        byId.assign(static_cast<std::size_t>(span) + 1, kNoPosition);
        for (std::size_t i = 0; i < n; ++i)
            byId[static_cast<std::size_t>(r.nodes[i].id - minId)] = static_cast<std::uint32_t>(i);
    }
    auto positionOf = [&](std::uint64_t id) -> std::uint32_t {
        if (!byId.empty())
            return id >= minId && id - minId < byId.size() ? byId[static_cast<std::size_t>(id - minId)] : kNoPosition;
        const auto it = std::lower_bound(r.nodes.begin(), r.nodes.end(), id,
                                         [](const SimNode &a, std::uint64_t v) { return a.id < v; });
        return it == r.nodes.end() || it->id != id ? kNoPosition : static_cast<std::uint32_t>(it - r.nodes.begin());
    };
    // Dependencies as positions (a repeated dependency counts once, as the feeder's set does).
    r.deps.clear();
    r.deps.reserve(m_rawDeps.size());
    for (std::size_t i = 0; i < n; ++i) {
        SimNode &node = r.nodes[i];
        const std::uint32_t begin = static_cast<std::uint32_t>(r.deps.size());
        for (std::uint32_t k = node.depBegin; k < node.depEnd; ++k) {
            const std::uint64_t dep = m_rawDeps[k];
            const std::uint32_t pos = positionOf(dep);
            if (pos == kNoPosition)
                throw LoadError(r.path, fileOffset(i),
                                "node " + std::to_string(node.id) + " (" + r.names[node.name] + ") depends on node "
                                    + std::to_string(dep) + ", which is not in the file");
            if (std::find(r.deps.begin() + begin, r.deps.end(), pos) == r.deps.end())
                r.deps.push_back(pos);
        }
        node.depBegin = begin;
        node.depEnd = static_cast<std::uint32_t>(r.deps.size());
    }
    // Successors (CSR) and a check that every node can become ready (Kahn).
    r.succBegin.assign(n + 1, 0);
    for (const std::uint32_t d : r.deps)
        ++r.succBegin[d + 1];
    for (std::size_t i = 0; i < n; ++i)
        r.succBegin[i + 1] += r.succBegin[i];
    r.succ.assign(r.deps.size(), 0);
    std::vector<std::uint32_t> fill(r.succBegin.begin(), r.succBegin.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t k = r.nodes[i].depBegin; k < r.nodes[i].depEnd; ++k)
            r.succ[fill[r.deps[k]]++] = static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> waiting(n), queue;
    queue.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        waiting[i] = r.nodes[i].depEnd - r.nodes[i].depBegin;
        if (!waiting[i])
            queue.push_back(static_cast<std::uint32_t>(i));
    }
    for (std::size_t q = 0; q < queue.size(); ++q)
        for (std::uint32_t k = r.succBegin[queue[q]]; k < r.succBegin[queue[q] + 1]; ++k)
            if (--waiting[r.succ[k]] == 0)
                queue.push_back(r.succ[k]);
    if (queue.size() != n) {
        std::size_t stuck = 0;
        while (!waiting[stuck])
            ++stuck;
        throw LoadError(r.path, fileOffset(stuck),
                        "node " + std::to_string(r.nodes[stuck].id) + " (" + r.names[r.nodes[stuck].name]
                            + ") can never start: " + std::to_string(n - queue.size()) + " nodes wait on a dependency cycle");
    }
    for (std::size_t i = 0; i < n; ++i)
        if (r.nodes[i].kind == NodeKind::Cpu && r.names[r.nodes[i].name].starts_with("ProfilerStep#"))
            r.steps.push_back(static_cast<std::uint32_t>(i));
    m_rawDeps.clear();
    m_offsets.clear();
    r.totalNs = m_times.total();
    return std::move(m_rank);
}

SimRank buildRank(const ChakraTrace &trace, std::int64_t rank, const std::vector<std::int64_t> &groupIds)
{
    RankBuilder builder(rank, trace.path, groupIds);
    for (const Node &node : trace.nodes)
        builder.add(node, 0);
    return builder.finish();
}

} // namespace linkscope::core::predict
