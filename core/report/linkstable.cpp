#include "report/linkstable.h"

#include <cmath>

namespace linkscope::core {

namespace {
using json = nlohmann::ordered_json;

json orNull(std::int64_t value, std::int64_t absent = kNoId) { return value == absent ? json(nullptr) : json(value); }
} // namespace

json traceIdJson(const DeviceTrace &trace, const TraceId &id)
{
    if (id.isString)
        return std::string(trace.strings.at(static_cast<StringId>(id.value)));
    return id.value;
}

json cpuChoiceJson(const DeviceTrace &trace, EventIndex event)
{
    if (event.isNone())
        return nullptr;
    const DeviceEvent &e = trace.event(event);
    return {
        {"name", std::string(trace.name(e))}, {"ev_idx", orNull(e.evIdx)}, {"rf_id", e.rfId == 0 ? json(nullptr) : json(e.rfId)}};
}

std::string linksJsonLines(const DeviceTrace &trace, const HostTrace *host, const LinkSet &ls)
{
    std::string out;
    for (const GpuLink &link : ls.gpuLinks) {
        const DeviceEvent &g = trace.event(link.gpuEvent);
        json line;
        line["pid"] = traceIdJson(trace, trace.threadKey(g).pid);
        line["device"] = g.device >= 0 ? json(g.device) : json(nullptr);
        line["stream"] = orNull(g.stream);
        line["correlation"] = orNull(g.correlation);
        line["name"] = std::string(trace.name(g));
        line["ts_ns"] = g.ts;
        if (link.parent.valid()) {
            const DeviceEvent &p = trace.event(link.parent);
            line["parent_name"] = std::string(trace.name(p));
            line["parent_ts_ns"] = p.ts;
            line["parent_ev_idx"] = orNull(p.evIdx);
            line["parent_ext_id"] = orNull(p.externalId);
            line["parent_rf_id"] = p.rfId == 0 ? json(nullptr) : json(p.rfId);
        } else {
            for (const char *key : {"parent_name", "parent_ts_ns", "parent_ev_idx", "parent_ext_id", "parent_rf_id"})
                line[key] = nullptr;
        }
        line["parent_host_id"] = (host && link.hostNode.valid()) ? json(host->node(link.hostNode).id) : json(nullptr);
        line["rule"] = std::string(parentRuleName(link.rule));
        line["launch_match"] = std::string(launchMatchName(link.launchMatch));
        line["orphan"] = link.orphan == OrphanReason::None ? json(nullptr) : json(std::string(orphanReasonName(link.orphan)));
        // Rounded so that 0.85f prints as 0.85, not 0.8500000238418579.
        line["confidence"] = std::round(static_cast<double>(link.confidence) * 1000.0) / 1000.0;
        json policies = json::object();
        for (int p = 0; p < kPolicyCount; ++p)
            policies[std::string(policyName(static_cast<Policy>(p)))] = cpuChoiceJson(trace, link.byPolicy[p]);
        line["policies"] = std::move(policies);
        out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        out += '\n';
    }
    return out;
}

} // namespace linkscope::core
