// linkscope export --host H --device D [--policy P] [--corrections SIDECAR] [--et out.et]
//                  [--etplus out.json] [--perfetto out.json] [--gzip]
#include "commands/commands.h"

#include "export/astrasimtarget.h"
#include "export/exporter.h"
#include "io/atomicfile.h"
#include "io/outputguard.h"
#include "pipeline/pairpipeline.h"

#include <chrono>
#include <ostream>

namespace linkscope::cli {

namespace {

void printExportUsage(std::ostream &out)
{
    out << "usage: linkscope export --host HOST_ET --device KINETO [options]\n"
           "  Links the pair and writes the corrected Chakra traces. Inputs plain or gzip.\n"
           "  --policy P            nesting (default), external-id (Chakra 1.0), ev-idx (pre-1.0)\n"
           "  --corrections FILE    apply a corrections sidecar (its policy is used unless --policy is given);\n"
           "                        refused when it was made from other inputs (size or SHA-256 differ)\n"
           "  --force-corrections   apply the sidecar even so\n"
           "  --et OUT.et           Chakra protobuf trace\n"
           "  --target T            what the .et is for: chakra (default: what chakra_converter writes,\n"
           "                        corrected) or astra-sim (replays on ASTRA-sim: no METADATA node, durations\n"
           "                        of each node's own time, the dependencies below; docs/astra-sim-export.md)\n"
           "  --etplus OUT.json     ET+ JSON (what chakra_trace_link writes); alias --output-file\n"
           "  --perfetto OUT.json   Chrome/Perfetto trace with an arrow per GPU op -> parent link\n"
           "  --gzip                gzip every output\n"
           "  --no-stream-order     .et: leave out same-stream ordering between GPU ops\n"
           "  --no-sync-deps        .et: leave out synchronisation dependencies\n"
           "  --no-start-times      .et: leave start_time_micros unset (as chakra_converter does)\n"
           "  --inter-thread-deps   link with Chakra's 1 ms-gap inter-thread dependencies\n"
           "  astra-sim target only:\n"
           "  --no-own-time         CPU nodes keep their exclusive time (waits on other threads included)\n"
           "  --no-gaps             drop the gaps between a thread's ops instead of folding them into the next node\n"
           "  --keep-blocked        keep time blocked in synchronizes and waits for other threads in CPU durations\n"
           "                        (default: taken out, the work after it waits for what it waited for)\n"
           "  --no-pg-order         leave out: each collective waits for the previous one of its process group\n"
           "  --no-comm-waits-compute  leave out cudaStreamWaitEvent deps of a communication op on a compute op\n"
           "  --no-compute-waits-comm  ... and of a compute op on a communication op\n"
           "  --pg-ids FILE         JSON object {\"process group name\": integer id} (what comm_group.json numbers)\n"
           "  --report              print the export report as JSON on standard output\n"
           "At least one of --et, --etplus, --perfetto. Outputs are written atomically; a graph with a\n"
           "dependency cycle or a missing dependency is refused with the nodes named.\n";
}

bool takeValue(const Args &args, std::size_t &i, std::string &value, std::ostream &err)
{
    if (i + 1 >= args.size()) {
        err << "export: " << args[i] << " needs a value\n";
        return false;
    }
    value = args[++i];
    return true;
}

} // namespace

int runExport(const Args &args, std::ostream &out, std::ostream &err)
{
    std::string hostPath, devicePath, policyText, correctionsPath, pgIdsPath;
    core::ExportRequest request;
    bool printReport = false, interThread = false, forceCorrections = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        bool ok = true;
        if (a == "--help" || a == "-h") {
            printExportUsage(out);
            return 0;
        } else if (a == "--host") {
            ok = takeValue(args, i, hostPath, err);
        } else if (a == "--device") {
            ok = takeValue(args, i, devicePath, err);
        } else if (a == "--policy") {
            ok = takeValue(args, i, policyText, err);
        } else if (a == "--corrections") {
            ok = takeValue(args, i, correctionsPath, err);
        } else if (a == "--force-corrections") {
            forceCorrections = true;
        } else if (a == "--et") {
            ok = takeValue(args, i, request.etPath, err);
        } else if (a == "--etplus" || a == "--output-file") {
            ok = takeValue(args, i, request.etPlusPath, err);
        } else if (a == "--perfetto") {
            ok = takeValue(args, i, request.perfettoPath, err);
        } else if (a == "--gzip") {
            request.gzip = true;
        } else if (a == "--no-stream-order") {
            request.chakra.streamOrderDeps = false;
        } else if (a == "--no-sync-deps") {
            request.chakra.syncDeps = false;
        } else if (a == "--no-start-times") {
            request.chakra.startTimes = false;
        } else if (a == "--target") {
            std::string name;
            ok = takeValue(args, i, name, err);
            if (ok) {
                const auto target = core::etTargetFromName(name);
                if (!target) {
                    err << "export: unknown target '" << name << "' (chakra, astra-sim)\n";
                    return 2;
                }
                request.chakra.target = *target;
            }
        } else if (a == "--no-own-time") {
            request.chakra.ownTimeDurations = false;
        } else if (a == "--no-gaps") {
            request.chakra.keepGaps = false;
        } else if (a == "--keep-blocked") {
            request.chakra.blockedAsDependencies = false;
        } else if (a == "--no-pg-order") {
            request.chakra.pgOrderDeps = false;
        } else if (a == "--no-comm-waits-compute") {
            request.chakra.commWaitsComputeDeps = false;
        } else if (a == "--no-compute-waits-comm") {
            request.chakra.computeWaitsCommDeps = false;
        } else if (a == "--pg-ids") {
            ok = takeValue(args, i, pgIdsPath, err);
        } else if (a == "--inter-thread-deps") {
            interThread = true;
        } else if (a == "--report") {
            printReport = true;
        } else {
            err << "export: unknown argument " << a << "\n";
            printExportUsage(err);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (hostPath.empty() || devicePath.empty()) {
        err << "export: --host and --device are both required\n";
        printExportUsage(err);
        return 2;
    }
    if (request.etPath.empty() && request.etPlusPath.empty() && request.perfettoPath.empty()) {
        err << "export: nothing to write: give --et, --etplus (--output-file) or --perfetto\n";
        return 2;
    }
    try {
        // No output may replace an input, the sidecar (given or beside the device trace) or another output.
        const auto notes = core::checkOutputs({{"--et output", request.etPath},
                                               {"--etplus output", request.etPlusPath},
                                               {"--perfetto output", request.perfettoPath},
                                               {"--report", printReport ? std::string("-") : std::string()}},
                                              {{"host trace", hostPath},
                                               {"device trace", devicePath},
                                               {"corrections sidecar", correctionsPath},
                                               {"corrections sidecar", core::defaultSidecarPath(devicePath)}});
        for (const std::string &note : notes)
            err << "export: warning: " << note << '\n';
    } catch (const core::WriteError &e) {
        err << "export: " << e.what() << '\n';
        return 1;
    }
    core::PairRequest pairRequest;
    pairRequest.files = {hostPath, devicePath};
    pairRequest.link.interThreadDeps = interThread;
    pairRequest.policyGiven = !policyText.empty();
    if (!policyText.empty()) {
        auto policy = core::policyFromName(policyText);
        if (!policy) {
            err << "export: unknown policy '" << policyText << "' (nesting, external-id, ev-idx)\n";
            return 2;
        }
        pairRequest.link.policy = *policy;
    }
    pairRequest.sidecar = correctionsPath;
    pairRequest.forceSidecar = forceCorrections;

    try {
        if (!pgIdsPath.empty())
            request.chakra.pgIds = core::readProcessGroupIds(pgIdsPath);
        const core::OpenedPair pair = core::openPair(pairRequest);
        const core::HostTrace &host = *pair.host;
        const core::DeviceTrace &device = *pair.device;
        for (const auto &w : host.warnings)
            err << "export: warning: " << w.toString() << '\n';
        for (const auto &w : device.warnings)
            err << "export: warning: " << w.toString() << '\n';
        if (pair.sidecar) {
            // The GUI neither applies nor rewrites such a sidecar unless told to; neither does export.
            for (const std::string &problem : pair.sidecarCheck.problems)
                err << "export: " << (forceCorrections ? "warning: " : "") << correctionsPath << ": " << problem << '\n';
            if (!pair.sidecarApplied) {
                err << "export: " << correctionsPath
                    << " was made from other inputs; nothing written (--force-corrections applies it anyway)\n";
                return 1;
            }
            const core::ApplyResult &applied = pair.corrections;
            err << "export: corrections: " << applied.count(core::EditStatus::Applied) << " applied, "
                << applied.count(core::EditStatus::Unchanged) << " unchanged, " << applied.count(core::EditStatus::Stale)
                << " stale, " << applied.count(core::EditStatus::Rejected) << " rejected\n";
            for (const core::EditOutcome &o : applied.problems())
                err << "export: warning: correction " << o.entry << "." << o.edit << " " << core::editStatusName(o.status) << ": "
                    << o.reason << '\n';
        }
        const core::LinkSet &links = *pair.links;

        const auto start = std::chrono::steady_clock::now();
        const core::ExportReport report = core::exportLinkedPair(host, device, links, request);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (const auto &w : report.warnings)
            err << "export: warning: " << w.toString() << '\n';
        if (!request.etPlusPath.empty())
            err << "export: wrote " << request.etPlusPath << " (" << report.etPlusBytes << " bytes, " << report.etPlus.hostNodes
                << " host + " << report.etPlus.gpuNodes << " GPU nodes)\n";
        if (!request.etPath.empty())
            err << "export: wrote " << request.etPath << " (" << report.etBytes << " bytes, " << report.chakra.nodes
                << " nodes: " << report.chakra.commColl << " COMM_COLL, " << report.chakra.commSend << " COMM_SEND, "
                << report.chakra.commRecv << " COMM_RECV)\n";
        if (!request.perfettoPath.empty())
            err << "export: wrote " << request.perfettoPath << " (" << report.perfettoBytes << " bytes)\n";
        if (printReport) {
            nlohmann::json j = report.toJson();
            j["policy"] = std::string(core::policyName(links.policy));
            j["target"] = std::string(core::etTargetName(request.chakra.target));
            j["export_seconds"] = seconds;
            out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        }
        return 0;
    } catch (const core::LoadError &e) {
        err << "export: " << e.what() << '\n';
    } catch (const core::ExportError &e) {
        err << "export: " << e.what() << '\n';
    } catch (const core::WriteError &e) {
        err << "export: " << e.what() << '\n';
    } catch (const std::exception &e) {
        err << "export: " << e.what() << '\n';
    }
    return 1;
}

} // namespace linkscope::cli
