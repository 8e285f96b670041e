// `linkscope link`: link GPU ops to their CPU parents, print a summary, optionally write the
// findings report (JSON) and one line per GPU op (JSON Lines, format in docs/links-format.md).
#include "commands/commands.h"

#include "io/atomicfile.h"
#include "io/tracereader.h"
#include "link/linker.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <future>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

namespace linkscope::cli {

namespace {

using namespace linkscope::core;

constexpr const char *kUsage =
    "usage: linkscope link --device KINETO [--host HOST_ET] [options]\n"
    "\n"
    "Links every GPU op (kernel, memcpy, memset) to the runtime call that launched it and to its parent\n"
    "CPU op, then prints what was linked, what was not and why, and the findings.\n"
    "\n"
    "  --device, --chakra-device-trace FILE   Kineto trace (JSON, plain or gzip)\n"
    "  --host, --chakra-host-trace FILE       PyTorch execution trace (optional)\n"
    "  --policy nesting|external-id|ev-idx    parent rule (default nesting; external-id = Chakra 1.0,\n"
    "                                         ev-idx = Chakra before PR #185)\n"
    "  --report FILE                          write the findings as JSON\n"
    "  --links FILE                           write one JSON object per GPU op (JSON Lines)\n"
    "  --rank N                               rank of this pair (accepted for chakra_trace_link parity)\n"
    "  --inter-thread-deps                    also derive Chakra's 1 ms-gap inter-thread edges\n"
    "  --tolerance-ns N                       enclosure tolerance for clock skew (default 1000)\n";

struct Options {
    std::string device;
    std::string host;
    Policy policy = Policy::Nesting;
    std::string report;
    std::string links;
    std::optional<std::int64_t> rank;
    bool interThread = false;
    Nanos tolerance = 1000;
};

// Returns an error message, or empty on success.
std::string parse(const Args &args, Options &o, bool &help)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&](std::string &out) -> std::string {
            if (i + 1 >= args.size())
                return a + " needs a value";
            out = args[++i];
            return {};
        };
        std::string text, error;
        if (a == "-h" || a == "--help") {
            help = true;
        } else if (a == "--device" || a == "--chakra-device-trace") {
            error = value(o.device);
        } else if (a == "--host" || a == "--chakra-host-trace") {
            error = value(o.host);
        } else if (a == "--report") {
            error = value(o.report);
        } else if (a == "--links") {
            error = value(o.links);
        } else if (a == "--policy") {
            if (error = value(text); error.empty()) {
                auto policy = policyFromName(text);
                if (!policy)
                    return "unknown policy '" + text + "' (nesting, external-id, ev-idx)";
                o.policy = *policy;
            }
        } else if (a == "--rank" || a == "--tolerance-ns") {
            if (error = value(text); error.empty()) {
                try {
                    std::size_t used = 0;
                    const long long n = std::stoll(text, &used);
                    if (used != text.size() || n < 0)
                        throw std::invalid_argument(text);
                    if (a == "--rank")
                        o.rank = n;
                    else
                        o.tolerance = n;
                } catch (const std::exception &) {
                    return a + " needs a non-negative integer, got '" + text + "'";
                }
            }
        } else if (a == "--inter-thread-deps") {
            o.interThread = true;
        } else {
            return "unknown argument '" + a + "'";
        }
        if (!error.empty())
            return error;
    }
    if (!help && o.device.empty())
        return "--device is required";
    return {};
}

nlohmann::ordered_json idJson(const DeviceTrace &trace, const TraceId &id)
{
    if (id.isString)
        return std::string(trace.strings.at(static_cast<StringId>(id.value)));
    return id.value;
}

nlohmann::ordered_json orNull(std::int64_t value, std::int64_t absent = kNoId)
{
    return value == absent ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(value);
}

nlohmann::ordered_json cpuChoice(const DeviceTrace &trace, std::uint32_t event)
{
    if (event == kNoIndex)
        return nullptr;
    const DeviceEvent &e = trace.events[event];
    return {{"name", std::string(trace.name(e))},
            {"ev_idx", orNull(e.evIdx)},
            {"rf_id", e.rfId == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.rfId)}};
}

std::string linksJsonLines(const DeviceTrace &trace, const HostTrace *host, const LinkSet &ls)
{
    std::string out;
    for (const GpuLink &link : ls.gpuLinks) {
        const DeviceEvent &g = trace.events[link.gpuEvent];
        nlohmann::ordered_json line;
        line["pid"] = idJson(trace, g.thread.pid);
        line["device"] = g.device >= 0 ? nlohmann::ordered_json(g.device) : nlohmann::ordered_json(nullptr);
        line["stream"] = orNull(g.stream);
        line["correlation"] = orNull(g.correlation);
        line["name"] = std::string(trace.name(g));
        line["ts_ns"] = g.ts;
        if (link.parent != kNoIndex) {
            const DeviceEvent &p = trace.events[link.parent];
            line["parent_name"] = std::string(trace.name(p));
            line["parent_ts_ns"] = p.ts;
            line["parent_ev_idx"] = orNull(p.evIdx);
            line["parent_ext_id"] = orNull(p.externalId);
            line["parent_rf_id"] = p.rfId == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.rfId);
        } else {
            for (const char *key : {"parent_name", "parent_ts_ns", "parent_ev_idx", "parent_ext_id", "parent_rf_id"})
                line[key] = nullptr;
        }
        line["parent_host_id"] =
            (host && link.hostNode != kNoIndex) ? nlohmann::ordered_json(host->nodes[link.hostNode].id) : nlohmann::ordered_json(nullptr);
        line["rule"] = std::string(parentRuleName(link.rule));
        line["launch_match"] = std::string(launchMatchName(link.launchMatch));
        line["orphan"] = link.orphan == OrphanReason::None ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(std::string(orphanReasonName(link.orphan)));
        // Rounded so that 0.85f prints as 0.85, not 0.8500000238418579.
        line["confidence"] = std::round(static_cast<double>(link.confidence) * 1000.0) / 1000.0;
        nlohmann::ordered_json policies = nlohmann::ordered_json::object();
        for (int p = 0; p < kPolicyCount; ++p)
            policies[std::string(policyName(static_cast<Policy>(p)))] = cpuChoice(trace, link.byPolicy[p]);
        line["policies"] = std::move(policies);
        out += line.dump();
        out += '\n';
    }
    return out;
}

nlohmann::ordered_json subjectJson(const DeviceTrace &trace, const HostTrace *host, const Finding &f)
{
    switch (f.subjectKind) {
    case SubjectKind::DeviceEvent: {
        if (f.subject >= trace.events.size())
            return nullptr;
        const DeviceEvent &e = trace.events[f.subject];
        return {{"kind", "device_event"},
                {"name", std::string(trace.name(e))},
                {"category", std::string(trace.strings.at(e.categoryText))},
                {"pid", idJson(trace, e.thread.pid)},
                {"tid", idJson(trace, e.thread.tid)},
                {"ts_ns", e.ts},
                {"correlation", orNull(e.correlation)},
                {"ev_idx", orNull(e.evIdx)}};
    }
    case SubjectKind::HostNode: {
        if (!host || f.subject >= host->nodes.size())
            return nullptr;
        const HostNode &n = host->nodes[f.subject];
        return {{"kind", "host_node"}, {"id", n.id}, {"name", std::string(host->name(n))}, {"rf_id", n.rfId}};
    }
    case SubjectKind::Trace:
        return {{"kind", "trace"}};
    }
    return nullptr;
}

std::string reportJson(const Options &o, const DeviceTrace &trace, const HostTrace *host, const LinkSet &ls)
{
    nlohmann::ordered_json report;
    report["device"] = o.device;
    report["host"] = o.host.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.host);
    report["policy"] = std::string(policyName(ls.policy));
    const auto counts = countFindingsByKind(ls.findings);
    nlohmann::ordered_json summary = nlohmann::ordered_json::object();
    for (int k = 0; k < kFindingKindCount; ++k)
        summary[std::string(findingKindName(static_cast<FindingKind>(k)))] = counts[static_cast<std::size_t>(k)];
    report["summary"] = std::move(summary);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Finding &f : ls.findings) {
        nlohmann::ordered_json item;
        item["kind"] = std::string(findingKindName(f.kind));
        item["severity"] = std::string(findingSeverityName(f.severity));
        item["subject"] = subjectJson(trace, host, f);
        item["message"] = f.message;
        item["suggestion"] = f.suggestion;
        item["suggested_parent"] = cpuChoice(trace, f.suggestedParent);
        list.push_back(std::move(item));
    }
    report["findings"] = std::move(list);
    return report.dump(2) + "\n";
}

std::string percent(std::size_t part, std::size_t whole)
{
    if (whole == 0)
        return "n/a";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(part) / static_cast<double>(whole) << '%';
    return s.str();
}

void printSummary(std::ostream &out, const Options &o, const DeviceTrace &device, const HostTrace *host,
                  const LinkSet &ls)
{
    out << "device: " << o.device << " (" << device.events.size() << " events)\n";
    if (host)
        out << "host:   " << o.host << " (" << host->nodes.size() << " nodes, schema " << host->schema << ")\n";
    if (o.rank)
        out << "rank:   " << *o.rank << '\n';
    out << "policy: " << policyName(ls.policy) << "\n\n";

    if (host) {
        const HostJoinStats &j = ls.join;
        out << "host join: " << hostJoinMethodName(j.method);
        if (j.method == HostJoinMethod::EvIdxOffset || j.method == HostJoinMethod::ExternalIdOffset)
            out << " (Kineto id = rf_id " << (j.offset >= 0 ? "+ " : "- ") << std::llabs(j.offset) << ")";
        out << "\n  host ops with rf_id matched: " << j.matched << " / " << j.hostNodesWithRfId << " ("
            << percent(j.matched, j.hostNodesWithRfId) << ")\n"
            << "  Kineto CPU ops matched:      " << j.matched << " / " << j.deviceCpuOps << " ("
            << percent(j.matched, j.deviceCpuOps) << ")\n"
            << "  name mismatches:             " << j.nameMismatches << "\n\n";
    }

    std::array<std::size_t, 6> byRule{};
    std::array<std::size_t, 4> byLaunch{};
    std::array<std::size_t, 6> byOrphan{};
    std::size_t linked = 0;
    for (const GpuLink &link : ls.gpuLinks) {
        ++byLaunch[static_cast<std::size_t>(link.launchMatch)];
        if (link.parent != kNoIndex) {
            ++linked;
            ++byRule[static_cast<std::size_t>(link.rule)];
        } else {
            ++byOrphan[static_cast<std::size_t>(link.orphan)];
        }
    }
    out << "GPU ops: " << ls.gpuLinks.size() << ", linked to a parent: " << linked << " ("
        << percent(linked, ls.gpuLinks.size()) << ")\n";
    out << "  launch found by:\n";
    for (std::size_t m = 0; m < byLaunch.size(); ++m)
        if (byLaunch[m])
            out << "    " << std::left << std::setw(22) << launchMatchName(static_cast<LaunchMatch>(m)) << byLaunch[m]
                << '\n';
    out << "  parent rule:\n";
    for (std::size_t r = 0; r < byRule.size(); ++r)
        if (byRule[r])
            out << "    " << std::left << std::setw(22) << parentRuleName(static_cast<ParentRule>(r)) << byRule[r] << '\n';
    out << "  orphans:" << (linked == ls.gpuLinks.size() ? " none" : "") << '\n';
    for (std::size_t r = 0; r < byOrphan.size(); ++r)
        if (byOrphan[r])
            out << "    " << std::left << std::setw(22) << orphanReasonName(static_cast<OrphanReason>(r)) << byOrphan[r]
                << '\n';

    std::array<std::size_t, kEdgeKindCount> edges{};
    for (const Edge &e : ls.edges)
        ++edges[static_cast<std::size_t>(e.kind)];
    out << "\nedges:";
    for (int k = 0; k < kEdgeKindCount; ++k)
        if (static_cast<EdgeKind>(k) != EdgeKind::Parent)
            out << ' ' << edgeKindName(static_cast<EdgeKind>(k)) << ' ' << edges[static_cast<std::size_t>(k)];
    out << "\n\nfindings:\n";
    const auto counts = countFindingsByKind(ls.findings);
    for (int k = 0; k < kFindingKindCount; ++k)
        if (static_cast<FindingKind>(k) != FindingKind::ExportCycle)
            out << "  " << std::left << std::setw(36) << findingKindName(static_cast<FindingKind>(k))
                << counts[static_cast<std::size_t>(k)] << '\n';
    if (!ls.warnings.empty()) {
        out << "\nwarnings:\n";
        for (const Diagnostic &d : ls.warnings)
            out << "  " << d.toString() << '\n';
    }
}

} // namespace

int runLink(const Args &args, std::ostream &out, std::ostream &err)
{
    Options o;
    bool help = false;
    if (const std::string error = parse(args, o, help); !error.empty()) {
        err << "link: " << error << "\n\n" << kUsage;
        return 2;
    }
    if (help) {
        out << kUsage;
        return 0;
    }

    DeviceTrace device;
    std::optional<HostTrace> host;
    try {
        // Host and device load in parallel: both are large, independent reads.
        std::future<HostTrace> hostFuture;
        if (!o.host.empty())
            hostFuture = std::async(std::launch::async, [&] { return readHostTrace(o.host); });
        device = readKinetoTrace(o.device);
        if (hostFuture.valid())
            host = hostFuture.get();
    } catch (const LoadError &e) {
        err << "link: " << e.what() << '\n';
        return 1;
    } catch (const std::exception &e) {
        err << "link: " << e.what() << '\n';
        return 1;
    }
    for (const Diagnostic &d : device.warnings)
        err << "warning: " << d.toString() << '\n';
    if (host)
        for (const Diagnostic &d : host->warnings)
            err << "warning: " << d.toString() << '\n';

    LinkOptions options;
    options.policy = o.policy;
    options.interThreadDeps = o.interThread;
    options.enclosureTolerance = o.tolerance;
    const HostTrace *hostPtr = host ? &*host : nullptr;
    const LinkSet ls = linkTraces(device, hostPtr, options);
    printSummary(out, o, device, hostPtr, ls);

    try {
        if (!o.links.empty())
            writeFileAtomically(o.links, linksJsonLines(device, hostPtr, ls));
        if (!o.report.empty())
            writeFileAtomically(o.report, reportJson(o, device, hostPtr, ls));
    } catch (const WriteError &e) {
        err << "link: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

} // namespace linkscope::cli
