#include "pipeline/derivedhost.h"

#include "io/hostet/hosttree.h"
#include "link/hostjoin.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>

namespace linkscope::core {

namespace {

constexpr std::string_view kProcessRootName = "[pytorch|profiler|execution_trace|process]";
constexpr std::string_view kThreadRootName = "[pytorch|profiler|execution_trace|thread]";
// The schema the astra-sim target reads without a notice (export/etplus/etplusgraph.cpp).
constexpr std::string_view kDerivedSchema = "1.1.1-chakra.0.0.4";

bool isDerivedOp(const DeviceEvent &e) { return e.phase == Phase::Complete && isCpuOpCategory(e.category) && e.dur >= 0; }

// The innermost enclosing CPU op of `event` on its lane (python functions and runtime calls between
// them are skipped), or none.
EventIndex enclosingOp(const DeviceTrace &device, const TraceIndex &index, EventIndex event)
{
    EventIndex at = index.nestParentOf(event);
    for (std::size_t guard = 0; at.valid() && guard < device.events.size(); ++guard) {
        if (isDerivedOp(device.event(at)))
            return at;
        at = index.nestParentOf(at);
    }
    return kNone;
}

HostCommAttrs commAttrsOf(const CollectiveArgs &c, StringPool &to, const StringPool &from)
{
    HostCommAttrs a;
    auto copy = [&](StringId id) { return id == 0 ? StringId(0) : to.intern(from.at(id)); };
    a.collectiveName = copy(c.collectiveName);
    a.dtype = copy(c.dtype);
    a.pgName = copy(c.processGroupName);
    a.pgDesc = copy(c.processGroupDesc);
    a.inMsgNelems = c.inMsgNelems;
    a.outMsgNelems = c.outMsgNelems;
    a.pgSize = c.groupSize;
    return a;
}

// A record_param_comms without Kineto's collective args (traces before about PyTorch 2.1): the
// element count of its tensor inputs ("Input Dims" of its Tensor and TensorList inputs: what the
// collective moves) and their dtype when "Input type" names one (a TensorList does not: the export then
// takes the NCCL kernel's, collective/classify.h). None when the args say nothing usable.
std::optional<HostCommAttrs> commFromInputDims(const DeviceTrace &device, const DeviceEvent &e, StringPool &strings)
{
    const nlohmann::json args = nlohmann::json::parse(device.argsJson(e), nullptr, false);
    if (!args.is_object())
        return std::nullopt;
    const auto dims = args.find("Input Dims"), types = args.find("Input type");
    if (dims == args.end() || types == args.end() || !dims->is_array() || !types->is_array())
        return std::nullopt;
    // Saturating: a hostile shape must not wrap around.
    constexpr std::int64_t kMax = std::int64_t(1) << 62;
    auto numel = [&](const nlohmann::json &shape) -> std::int64_t {
        if (!shape.is_array() || shape.empty())
            return 0;
        std::int64_t n = 1;
        for (const nlohmann::json &d : shape) {
            if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
                return 0;
            const std::int64_t v = d.get<std::int64_t>();
            n = v != 0 && n > kMax / v ? kMax : n * v;
        }
        return n;
    };
    std::int64_t elements = 0;
    std::string dtype;
    for (std::size_t i = 0; i < dims->size() && i < types->size(); ++i) {
        if (!(*types)[i].is_string())
            continue;
        const std::string type = (*types)[i].get<std::string>();
        std::int64_t n = 0;
        if (type == "TensorList" || type.rfind("GenericList", 0) == 0) {
            if ((*dims)[i].is_array())
                for (const nlohmann::json &shape : (*dims)[i])
                    n = std::min(kMax, n + numel(shape));
        } else if (!type.empty() && type != "Scalar" && type != "ScalarList" && type != "String") {
            n = numel((*dims)[i]); // a Tensor: "Input type" is its dtype ("c10::Half", "float")
            if (n > 0 && dtype.empty())
                dtype = type;
        }
        elements = std::min(kMax, elements + n);
    }
    if (elements <= 0)
        return std::nullopt;
    HostCommAttrs a;
    a.inMsgNelems = elements;
    a.dtype = dtype.empty() ? StringId(0) : strings.intern(dtype);
    return a;
}

} // namespace

std::shared_ptr<const HostTrace> deriveHostEt(const DeviceTrace &device, const TraceIndex &index)
{
    auto host = std::make_shared<HostTrace>();
    HostTrace &h = *host;
    h.path = device.path;
    h.sourceBytes = 0;
    h.schema = std::string(kDerivedSchema);
    h.layout = HostLayout::Nested;

    // The ops in start order (longer first at a tie, then file order): ids follow it, so a parent's
    // id is below its children's, as the observer numbers them.
    std::vector<EventIndex> ops;
    for (EventIndex e{0}; e.in(device.events.size()); ++e)
        if (isDerivedOp(device.event(e)) && index.laneOfEvent(e).valid())
            ops.push_back(e);
    std::stable_sort(ops.begin(), ops.end(), [&](EventIndex a, EventIndex b) {
        const DeviceEvent &x = device.event(a), &y = device.event(b);
        return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
    });

    // Threads in order of their first op: tid 1, 2, ...
    std::map<ThreadIndex, std::int64_t> tidOf;
    for (EventIndex e : ops)
        tidOf.try_emplace(device.event(e).thread, static_cast<std::int64_t>(tidOf.size()) + 1);
    if (!ops.empty()) {
        const TraceId pid = device.threadKey(device.event(ops.front())).pid;
        h.pid = pid.isString ? -1 : pid.value;
    }

    const std::size_t threadCount = tidOf.size();
    h.nodes.reserve(1 + threadCount + ops.size());
    h.derivedFrom.reserve(1 + threadCount + ops.size());
    auto add = [&](std::int64_t id, std::int64_t parentId, std::string_view name, std::int64_t tid,
                   EventIndex from) -> HostNode & {
        HostNode &n = h.nodes.emplace_back();
        n.id = id;
        n.parentId = parentId;
        n.name = h.strings.intern(name);
        n.tid = tid;
        h.derivedFrom.push_back(from);
        return n;
    };
    add(1, -1, kProcessRootName, 0, kNone).scope = kUserScope;
    std::map<ThreadIndex, std::int64_t> rootOf;
    for (const auto &[thread, tid] : tidOf) {
        const std::int64_t id = 1 + tid;
        rootOf.emplace(thread, id);
        add(id, 1, kThreadRootName, tid, kNone).scope = kUserScope;
    }
    std::vector<std::int64_t> idOfEvent(device.events.size(), -1);
    std::int64_t nextId = 2 + static_cast<std::int64_t>(threadCount);
    for (EventIndex e : ops)
        idOfEvent[e.get()] = nextId++;
    for (EventIndex e : ops) {
        const DeviceEvent &ev = device.event(e);
        const EventIndex parent = enclosingOp(device, index, e);
        const std::int64_t parentId = parent.valid() && idOfEvent[parent.get()] >= 0 ? idOfEvent[parent.get()]
                                                                                     : rootOf.at(ev.thread);
        HostNode &n = add(idOfEvent[e.get()], parentId, device.name(ev), tidOf.at(ev.thread), e);
        n.rfId = ev.rfId;
        n.scope = ev.category == EventCategory::UserAnnotation ? kUserScope : 0;
        std::optional<HostCommAttrs> comm;
        if (const CollectiveArgs *c = ev.hasCollective() ? device.collectiveOf(e) : nullptr)
            comm = commAttrsOf(*c, h.strings, device.strings);
        else if (device.name(ev) == "record_param_comms")
            comm = commFromInputDims(device, ev, h.strings);
        if (comm) {
            n.comm = CommIndex::at(h.commAttrs.size());
            h.commAttrs.push_back(*comm);
        }
    }
    const std::size_t count = h.nodes.size();
    io::buildHostTree(h);
    if (h.nodes.size() != count) // ids are unique and sorted: the tree keeps every node in place
        h.derivedFrom.assign(h.nodes.size(), kNone);
    return host;
}

std::shared_ptr<const LinkSet> attachDerivedHost(const LinkSet &links, const HostTrace &host, const DeviceTrace &device)
{
    auto out = std::make_shared<LinkSet>(links);
    // The join of a derived host is its derivedFrom, read as is (link/hostjoin.h).
    HostJoin join = joinHostToDevice(host, device);
    const std::vector<HostNodeIndex> &hostOfEvent = join.hostOfEvent;
    for (std::size_t i = 0; i < out->gpuLinks.size(); ++i) {
        const EventIndex parent = out->gpuLinks[i].parent;
        const HostNodeIndex node = parent.in(hostOfEvent.size()) ? hostOfEvent[parent.get()] : HostNodeIndex(kNone);
        if (out->gpuLinks[i].hostNode != node)
            out->gpuLinks.mutate(i).hostNode = node;
    }
    out->hostOfEvent = SharedArray<HostNodeIndex>(std::move(join.hostOfEvent));
    out->eventOfHost = SharedArray<EventIndex>(std::move(join.eventOfHost));
    out->join = join.stats;
    return out;
}

DerivedHostPair withDerivedHost(const OpenedPair &pair)
{
    DerivedHostPair out;
    out.host = deriveHostEt(*pair.device, *pair.index);
    out.links = attachDerivedHost(*pair.links, *out.host, *pair.device);
    return out;
}

std::string derivedHostNotice(const DeviceTrace &device)
{
    return device.path
           + ": no host execution trace; its CPU ops stand for one (docs/prediction.md, "
             "\"From a Kineto trace alone\")";
}

} // namespace linkscope::core
