// linkscope export [--host H] --device D [--policy P] [--corrections SIDECAR] [--et out.et]
//                  [--etplus out.json] [--perfetto out.json] [--gzip]
// One option per row of the export-target table (export/targets.h): its name, aliases and help.
#include "commands/commands.h"

#include "export/chakra/astrasimtarget.h"
#include "export/exporter.h"
#include "export/targets.h"
#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "pipeline/derivedhost.h"
#include "pipeline/pairpipeline.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <ostream>

namespace linkscope::cli {

namespace {

// "--et, --etplus (--output-file) or --perfetto": the table's options, for messages.
std::string targetOptions(bool (*keep)(const core::ExportTarget &))
{
    std::vector<std::string> names;
    for (const core::ExportTarget &target : core::exportTargets()) {
        if (!keep(target))
            continue;
        std::string name = "--" + target.name;
        for (const std::string &alias : target.aliases)
            name += " (--" + alias + ")";
        names.push_back(std::move(name));
    }
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return text;
}

bool anyTarget(const core::ExportTarget &) { return true; }
bool kinetoAloneTarget(const core::ExportTarget &target) { return !target.needsHost; }

void printExportUsage(std::ostream &out)
{
    out << "usage: linkscope export [--host HOST_ET] --device KINETO [options]\n"
           "  Links the pair and writes the corrected Chakra traces. Inputs plain or gzip. Without --host the\n"
           "  Kineto trace alone is linked, and only "
        << targetOptions(kinetoAloneTarget)
        << " can be written.\n"
           "  --policy P            nesting (default), external-id (Chakra 1.0), ev-idx (pre-1.0)\n"
           "  --corrections FILE    apply a corrections sidecar (its policy is used unless --policy is given);\n"
           "                        refused when it was made from other inputs (size or SHA-256 differ)\n"
           "  --force-corrections   apply the sidecar even so\n";
    for (const core::ExportTarget &target : core::exportTargets()) {
        std::string option = "  --" + target.name + " " + target.metavar;
        option.resize(std::max<std::size_t>(option.size() + 1, 24), ' ');
        out << option << target.help;
        for (const std::string &alias : target.aliases)
            out << "; alias --" << alias;
        out << '\n';
    }
    out << "  --target T            what the .et is for: chakra (default: what chakra_converter writes,\n"
           "                        corrected) or astra-sim (replays on ASTRA-sim: no METADATA node, durations\n"
           "                        of each node's own time, the dependencies below; docs/astra-sim-export.md)\n"
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
           "At least one of "
        << targetOptions(anyTarget)
        << ". Outputs are written atomically; a graph with a\n"
           "dependency cycle or a missing dependency is refused with the nodes named.\n";
}

// The .et of the astra-sim target from a Kineto trace alone: exported from the host ET its CPU ops
// imply (pipeline/derivedhost.h).
bool derivesHost(const std::string &target, const core::ExportRequest &request)
{
    return target == core::kEtTarget && request.chakra.target == core::EtTarget::AstraSim;
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

namespace {

// What the command line asks for.
struct ExportArgs {
    std::string hostPath, devicePath, policyText, correctionsPath, pgIdsPath;
    core::ExportRequest request;
    bool printReport = false, interThread = false, forceCorrections = false;
};

// Reads the arguments into `a` and checks that they ask for something writable; an exit status
// when the command ends here (--help, a usage error, said on `err`).
std::optional<int> parseExportArgs(const Args &args, ExportArgs &a, std::ostream &out, std::ostream &err)
{
    core::ExportRequest &request = a.request;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        bool ok = true;
        if (arg == "--help" || arg == "-h") {
            printExportUsage(out);
            return 0;
        } else if (arg == "--host") {
            ok = takeValue(args, i, a.hostPath, err);
        } else if (arg == "--device") {
            ok = takeValue(args, i, a.devicePath, err);
        } else if (arg == "--policy") {
            ok = takeValue(args, i, a.policyText, err);
        } else if (arg == "--corrections") {
            ok = takeValue(args, i, a.correctionsPath, err);
        } else if (arg == "--force-corrections") {
            a.forceCorrections = true;
        } else if (arg == "--gzip") {
            request.gzip = true;
        } else if (arg == "--no-stream-order") {
            request.chakra.streamOrderDeps = false;
        } else if (arg == "--no-sync-deps") {
            request.chakra.syncDeps = false;
        } else if (arg == "--no-start-times") {
            request.chakra.startTimes = false;
        } else if (arg == "--target") {
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
        } else if (arg == "--no-own-time") {
            request.chakra.ownTimeDurations = false;
        } else if (arg == "--no-gaps") {
            request.chakra.keepGaps = false;
        } else if (arg == "--keep-blocked") {
            request.chakra.blockedAsDependencies = false;
        } else if (arg == "--no-pg-order") {
            request.chakra.pgOrderDeps = false;
        } else if (arg == "--no-comm-waits-compute") {
            request.chakra.commWaitsComputeDeps = false;
        } else if (arg == "--no-compute-waits-comm") {
            request.chakra.computeWaitsCommDeps = false;
        } else if (arg == "--pg-ids") {
            ok = takeValue(args, i, a.pgIdsPath, err);
        } else if (arg == "--inter-thread-deps") {
            a.interThread = true;
        } else if (arg == "--report") {
            a.printReport = true;
        } else if (const core::ExportTarget *target = arg.starts_with("--") ? core::exportTargets().find(arg.substr(2))
                                                                            : nullptr) {
            ok = takeValue(args, i, request.outputs[target->name], err); // one option per export target
        } else {
            err << "export: unknown argument " << arg << "\n";
            printExportUsage(err);
            return 2;
        }
        if (!ok)
            return 2;
    }
    std::erase_if(request.outputs, [](const auto &output) { return output.second.empty(); });
    if (a.devicePath.empty()) {
        err << "export: --device is required\n";
        printExportUsage(err);
        return 2;
    }
    if (request.outputs.empty()) {
        err << "export: nothing to write: give " << targetOptions(anyTarget) << "\n";
        return 2;
    }
    if (a.hostPath.empty())
        for (const auto &[name, path] : request.outputs)
            if (core::exportTargets().find(name)->needsHost && !derivesHost(name, request)) {
                err << "export: --" << name << " needs the host ET (--host); a Kineto trace alone can be written with "
                    << targetOptions(kinetoAloneTarget) << ", and --et with --target astra-sim (the host ET derived from "
                    << "its CPU ops; the chakra target needs a recorded one, as chakra_converter does)\n";
                return 2;
            }
    return std::nullopt;
}

// No output may replace an input, the sidecar (given or beside the device trace) or another output;
// false after saying which.
bool checkExportOutputs(const ExportArgs &a, std::ostream &err)
{
    try {
        std::vector<core::NamedFile> outputs;
        for (const core::ExportTarget &target : core::exportTargets())
            outputs.push_back({"--" + target.name + " output", a.request.path(target.name)});
        outputs.push_back({"--report", a.printReport ? std::string("-") : std::string()});
        const auto notes = core::checkOutputs(outputs, {{"host trace", a.hostPath},
                                                        {"device trace", a.devicePath},
                                                        {"corrections sidecar", a.correctionsPath},
                                                        {"corrections sidecar", core::defaultSidecarPath(a.devicePath)}});
        for (const std::string &note : notes)
            err << "export: warning: " << note << '\n';
        return true;
    } catch (const core::WriteError &e) {
        err << "export: " << e.what() << '\n';
        return false;
    }
}

// The readers' warnings and what the sidecar did; false when the sidecar was made from other inputs
// and not forced (nothing may be written then).
bool reportOpenedPair(const core::OpenedPair &pair, const ExportArgs &a, std::ostream &err)
{
    if (pair.host)
        for (const auto &w : pair.host->warnings)
            err << "export: warning: " << w.toString() << '\n';
    for (const auto &w : pair.device->warnings)
        err << "export: warning: " << w.toString() << '\n';
    if (!pair.sidecar)
        return true;
    for (const std::string &cut : pair.sidecar->warnings)
        err << "export: warning: " << cut << '\n';
    // The GUI neither applies nor rewrites such a sidecar unless told to; neither does export.
    for (const std::string &problem : pair.sidecarCheck.problems)
        err << "export: " << (a.forceCorrections ? "warning: " : "") << a.correctionsPath << ": " << problem << '\n';
    if (!pair.sidecarApplied) {
        err << "export: " << a.correctionsPath
            << " was made from other inputs; nothing written (--force-corrections applies it anyway)\n";
        return false;
    }
    const core::ApplyResult &applied = pair.corrections;
    err << "export: corrections: " << applied.count(core::EditStatus::Applied) << " applied, "
        << applied.count(core::EditStatus::Unchanged) << " unchanged, " << applied.count(core::EditStatus::Stale) << " stale, "
        << applied.count(core::EditStatus::Rejected) << " rejected\n";
    for (const core::EditOutcome &o : applied.problems())
        err << "export: warning: correction " << o.entry << "." << o.edit << " " << core::editStatusName(o.status) << ": "
            << o.reason << '\n';
    return true;
}

} // namespace

int runExport(const Args &args, std::ostream &out, std::ostream &err)
{
    ExportArgs a;
    if (const std::optional<int> status = parseExportArgs(args, a, out, err))
        return *status;
    if (!checkExportOutputs(a, err))
        return 1;
    core::PairRequest pairRequest;
    pairRequest.files = {a.hostPath, a.devicePath};
    pairRequest.link.interThreadDeps = a.interThread;
    pairRequest.policyGiven = !a.policyText.empty();
    if (!a.policyText.empty()) {
        auto policy = core::policyFromName(a.policyText);
        if (!policy) {
            err << "export: unknown policy '" << a.policyText << "' (nesting, external-id, ev-idx)\n";
            return 2;
        }
        pairRequest.link.policy = *policy;
    }
    pairRequest.sidecar = a.correctionsPath;
    pairRequest.forceSidecar = a.forceCorrections;

    core::ExportRequest &request = a.request;
    try {
        if (!a.pgIdsPath.empty())
            request.chakra.pgIds = core::readProcessGroupIds(a.pgIdsPath);
        const core::OpenedPair pair = core::openPair(pairRequest);
        if (!reportOpenedPair(pair, a, err))
            return 1;
        const core::LinkSet &links = *pair.links;

        const auto start = std::chrono::steady_clock::now();
        core::ExportReport report;
        if (!pair.host && request.requests(core::kEtTarget)) {
            // The .et from the derived host ET; every other output from the Kineto trace as linked.
            err << "export: " << core::derivedHostNotice(*pair.device) << '\n';
            const core::DerivedHostPair derived = core::withDerivedHost(pair);
            core::ExportRequest etOnly = request, rest = request;
            std::erase_if(etOnly.outputs, [](const auto &o) { return o.first != core::kEtTarget; });
            rest.outputs.erase(std::string(core::kEtTarget));
            report = core::exportLinkedPair(derived.host.get(), *pair.device, *derived.links, etOnly);
            if (!rest.outputs.empty()) {
                const core::ExportReport others = core::exportLinkedPair(nullptr, *pair.device, links, rest);
                for (const auto &[target, size] : others.bytes)
                    if (size)
                        report.bytes[target] = size;
                report.warnings.insert(report.warnings.end(), others.warnings.begin(), others.warnings.end());
            }
        } else {
            report = core::exportLinkedPair(pair.host.get(), *pair.device, links, request);
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (const auto &w : report.warnings)
            err << "export: warning: " << w.toString() << '\n';
        if (request.requests(core::kEtTarget) && request.chakra.target == core::EtTarget::AstraSim)
            if (const std::string overlap = core::streamOverlapWarning(report.chakra.gpuOverlapNs, report.chakra.gpuBusyNs);
                !overlap.empty())
                err << "export: warning: stream overlap: " << overlap << '\n';
        for (const core::ExportTarget &target : core::exportTargets())
            if (request.requests(target.name))
                err << "export: wrote " << request.path(target.name) << " (" << report.bytesOf(target.name) << " bytes"
                    << (target.details ? target.details(report) : std::string()) << ")\n";
        if (a.printReport) {
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
