#include "predict/pairgraph.h"

#include "export/exporter.h"
#include "jobmodel/processgroups.h"
#include "predict/replay.h"

#include <algorithm>

namespace linkscope::core::predict {

std::uint32_t PairGraph::nodeOfEvent(EventIndex event) const { return event.in(byEvent.size()) ? byEvent[event.get()] : kNoNode; }

PairGraph buildPairGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links, const Network *network,
                         ChakraOptions options)
{
    options.target = EtTarget::AstraSim;
    const EtPlusGraph graph = buildEtPlusGraph(host, device, links);
    ChakraConversion conversion = convertToChakra(graph, host, device, links, options);
    PairGraph out;
    out.stats = conversion.stats;

    // The groups the export numbered its pg_names with (job::processGroupId), with their ranks.
    const std::int64_t world = device.distributed ? device.distributed->worldSize : -1;
    const std::int64_t rank = device.distributed ? std::max<std::int64_t>(0, device.distributed->rank) : 0;
    const std::vector<job::ProcessGroup> groups = job::mergeRankGroups(job::processGroupsFromKineto(device),
                                                                       job::processGroupsFromHostEt(host, world));
    SimJob &job = out.job;
    std::int64_t npus = std::max<std::int64_t>({world, rank + 1, 1});
    for (const job::ProcessGroup &g : groups) {
        const std::int64_t id = job::processGroupId(g.name);
        if (id <= 0 || g.ranks.empty())
            continue; // "0" is every rank already
        job.groupIds.push_back(id);
        job.groups.push_back(g.ranks);
        for (const std::int64_t r : g.ranks)
            npus = std::max(npus, r + 1);
    }
    // pg_names the export wrote that no group declares: the whole world stands in for them.
    for (ChakraProtoMsg::Node &n : conversion.trace.nodes)
        for (auto &a : *n.mutable_attr())
            if (a.name() == "pg_name" && a.value_case() == ChakraProtoMsg::AttributeProto::kStringVal) {
                std::int64_t id = 0;
                try {
                    id = std::stoll(a.string_val());
                } catch (const std::exception &) {
                    id = -1;
                }
                if (id != 0 && std::find(job.groupIds.begin(), job.groupIds.end(), id) == job.groupIds.end())
                    a.set_string_val("0");
            }
    conversion.trace.path = device.path;
    job.ranks.push_back(buildRank(conversion.trace, rank, job.groupIds));
    job.npus = npus;
    job.mirrored = npus > 1;
    if (network)
        job.network = *network;
    job.network.npus = npus;

    const SimRank &r = job.ranks[0];
    out.eventOf.assign(r.nodes.size(), EventIndex{});
    out.hostOf.assign(r.nodes.size(), HostNodeIndex{});
    out.byEvent.assign(device.events.size(), kNoNode);
    for (std::uint32_t i = 0; i < r.nodes.size(); ++i) {
        const std::uint64_t id = r.nodes[i].id;
        if (id >= graph.nodes.size())
            continue;
        const EtPlusNode &src = graph.nodes[id];
        out.eventOf[i] = src.event;
        out.hostOf[i] = src.host;
        if (src.event.in(out.byEvent.size()))
            out.byEvent[src.event.get()] = i;
    }
    return out;
}

} // namespace linkscope::core::predict
