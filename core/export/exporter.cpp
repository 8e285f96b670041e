// Orchestration of one export: the ET+ graph, then each requested target of the export-target table
// (export/targets.h) in turn.

#include "export/exporter.h"

#include "export/targets.h"

#include <cstdio>
#include <optional>

namespace linkscope::core {

void requireHostSource(const HostTrace &host)
{
    if (const std::string reason = host.sourceUnavailableReason(); !reason.empty())
        throw ExportError("cannot read the host ET's node text: " + reason);
}

std::string_view etTargetName(EtTarget target) { return target == EtTarget::AstraSim ? "astra-sim" : "chakra"; }

std::optional<EtTarget> etTargetFromName(std::string_view name)
{
    if (name == "chakra")
        return EtTarget::Chakra;
    if (name == "astra-sim" || name == "astrasim")
        return EtTarget::AstraSim;
    return std::nullopt;
}

nlohmann::json ExportReport::toJson() const
{
    nlohmann::json j;
    j["etplus"] = {{"host_nodes", etPlus.hostNodes},
                   {"linked_host_nodes", etPlus.linkedHostNodes},
                   {"gpu_nodes", etPlus.gpuNodes},
                   {"gpu_ops_not_exported", etPlus.gpuOpsNotExported},
                   {"reparented_host_nodes", etPlus.reparentedHostNodes},
                   {"inter_thread_deps", etPlus.interThreadDeps},
                   {"sync_deps", etPlus.syncDeps},
                   {"sync_edges_not_exported", etPlus.syncEdgesNotExported},
                   {"sync_edges_not_causal", etPlus.syncEdgesNotCausal}};
    j["chakra"] = {{"nodes", chakra.nodes},
                   {"comp", chakra.comp},
                   {"comm_coll", chakra.commColl},
                   {"comm_send", chakra.commSend},
                   {"comm_recv", chakra.commRecv},
                   {"metadata", chakra.metadata},
                   {"chain_deps", chakra.chainDeps},
                   {"launch_deps", chakra.launchDeps},
                   {"inter_thread_deps", chakra.interThreadDeps},
                   {"stream_order_deps", chakra.streamOrderDeps},
                   {"sync_deps", chakra.syncDeps},
                   {"dangling_removed", chakra.danglingRemoved},
                   {"unclassified_collectives", chakra.unclassifiedCollectives},
                   {"comm_without_size", chakra.commWithoutSize},
                   {"pg_order_deps", chakra.pgOrderDeps},
                   {"comm_waits_compute_deps", chakra.commWaitsComputeDeps},
                   {"compute_waits_comm_deps", chakra.computeWaitsCommDeps},
                   {"thread_wait_deps", chakra.threadWaitDeps},
                   {"thread_start_deps", chakra.threadStartDeps},
                   {"metadata_dropped", chakra.metadataDropped},
                   {"comm_replayed", chakra.commReplayed},
                   {"p2p_rendezvous", chakra.p2pRendezvous},
                   {"span_ns", chakra.spanEnd - chakra.spanBegin},
                   {"iteration_ns", chakra.iterationEnd - chakra.iterationBegin},
                   {"measured_ns", chakra.measuredNs()},
                   {"window_begin_ns", chakra.windowBegin()},
                   {"cpu_duration_us", chakra.cpuDurationMicros},
                   {"gpu_comp_duration_us", chakra.gpuCompDurationMicros},
                   {"gpu_busy_ns", chakra.gpuBusyNs},
                   {"stream_overlap_ns", chakra.gpuOverlapNs},
                   {"stream_overlap_pct", chakra.gpuOverlapPct()}};
    j["chakra"]["blocked"] = chakra.blocked.toJson();
    j["bytes"] = nlohmann::json::object();
    for (const ExportTarget &target : exportTargets())
        j["bytes"][target.name] = bytesOf(target.name);
    nlohmann::json list = nlohmann::json::array();
    for (const Diagnostic &d : warnings)
        list.push_back(d.toString());
    j["warnings"] = list;
    return j;
}

nlohmann::json exportSummary(const ExportReport &report)
{
    nlohmann::json j = report.toJson()["chakra"];
    for (const char *drop :
         {"nodes", "comp", "comm_coll", "comm_send", "comm_recv", "metadata", "dangling_removed", "unclassified_collectives",
          "comm_without_size", "metadata_dropped", "comm_replayed", "p2p_rendezvous", "span_ns"})
        j.erase(drop);
    return j;
}

std::string streamOverlapWarning(Nanos overlapNs, Nanos busyNs)
{
    if (busyNs <= 0 || overlapNs <= 0)
        return {};
    const double pct = 100.0 * double(overlapNs) / double(busyNs);
    if (pct < kStreamOverlapWarnPct)
        return {};
    char text[512];
    std::snprintf(text, sizeof text,
                  "%.3f ms of kernel time (%.1f %% of the GPU's busy time) ran beside another stream's kernel; ASTRA-sim "
                  "runs one kernel at a time, so the .et cuts it: a what-if that changes how streams overlap (kernels "
                  "faster or slower) is off in ASTRA-sim by up to that much. `linkscope predict` (its faithful model) "
                  "replays each stream on its own",
                  double(overlapNs) / 1e6, pct);
    return text;
}

namespace {

// The stages of one export, in order, for progress reporting: the graph, then each requested
// target's check and write (export/targets.h).
class ExportStages {
public:
    ExportStages(const ExportRequest &request, bool graph) : progress_(request.progress), total_(graph ? 1 : 0)
    {
        for (const ExportTarget &target : exportTargets())
            if (request.requests(target.name))
                total_ += (target.check ? 1 : 0) + 1;
    }
    // Announces the next stage; throws Cancelled if the caller asked to stop.
    void begin(std::string_view stage)
    {
        if (progress_ && !progress_(stage, done_, total_))
            throw Cancelled();
        ++done_;
    }
    void finish()
    {
        if (progress_)
            progress_("done", total_, total_);
    }

private:
    const ExportProgressFn &progress_;
    std::size_t total_ = 1;
    std::size_t done_ = 0;
};

} // namespace

ExportReport exportLinkedPair(const HostTrace *host, const DeviceTrace &device, const LinkSet &links,
                              const ExportRequest &request)
{
    for (const auto &[name, path] : request.outputs) {
        const ExportTarget *target = exportTargets().find(name);
        if (!target || target->name != name)
            throw ExportError("no export target is called '" + name + "'");
        if (!path.empty() && target->needsHost && !host)
            throw ExportError(path + ": " + target->title + " needs the host execution trace; this is a Kineto trace alone");
    }
    ExportStages stages(request, host != nullptr);
    ExportReport report;
    std::optional<EtPlusGraph> graph;
    if (host) {
        stages.begin("building the ET+ graph");
        graph = buildEtPlusGraph(*host, device, links);
        report.etPlus = graph->stats;
        report.warnings = graph->warnings;
    }

    ExportContext context{host, device, links, request, graph ? &*graph : nullptr, report, {}};
    // Every check before anything is written, so a refused graph leaves no partial export.
    for (const ExportTarget &target : exportTargets())
        if (request.requests(target.name) && target.check) {
            stages.begin(target.checkStage);
            target.check(context);
        }
    for (const ExportTarget &target : exportTargets())
        if (request.requests(target.name)) {
            stages.begin(target.writeStage);
            report.bytes[target.name] = target.write(context, request.path(target.name));
        }
    stages.finish();
    return report;
}

} // namespace linkscope::core
