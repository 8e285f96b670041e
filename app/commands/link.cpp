// `linkscope link`: link GPU ops to their CPU parents, print a summary, optionally write the
// findings report (JSON) and one line per GPU op (JSON Lines, format in docs/links-format.md).
#include "commands/commands.h"

#include "edit/sidecar.h"
#include "io/file/atomicfile.h"
#include "io/file/outputguard.h"
#include "link/chakracompare.h"
#include "link/policynotices.h"
#include "pipeline/pairpipeline.h"
#include "report/findingsreport.h"
#include "report/linkstable.h"

#include <array>
#include <cstdlib>
#include <exception>
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
    "  --corrections SIDECAR                  apply a corrections sidecar first (its policy is used unless\n"
    "                                         --policy is given); refused when it was made from other inputs\n"
    "  --force-corrections                    apply the sidecar even so\n"
    "  --rank N                               rank of this pair (accepted for chakra_trace_link parity)\n"
    "  --inter-thread-deps                    also derive Chakra's 1 ms-gap inter-thread edges\n"
    "  --allow-truncated                      read a trace cut short up to its cut (a warning names the byte)\n"
    "  --tolerance-ns N                       enclosure tolerance for clock skew (default 1000)\n";

struct Options {
    std::string device;
    std::string host;
    Policy policy = Policy::Nesting;
    bool policyGiven = false;
    std::string corrections;
    bool forceCorrections = false;
    std::string report;
    std::string links;
    std::optional<std::int64_t> rank;
    bool interThread = false;
    bool allowTruncated = false;
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
        } else if (a == "--corrections") {
            error = value(o.corrections);
        } else if (a == "--force-corrections") {
            o.forceCorrections = true;
        } else if (a == "--policy") {
            if (error = value(text); error.empty()) {
                auto policy = policyFromName(text);
                if (!policy)
                    return "unknown policy '" + text + "' (nesting, external-id, ev-idx)";
                o.policy = *policy;
                o.policyGiven = true;
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
        } else if (a == "--allow-truncated") {
            o.allowTruncated = true;
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

std::string percent(std::size_t part, std::size_t whole)
{
    if (whole == 0)
        return "n/a";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(part) / static_cast<double>(whole) << '%';
    return s.str();
}

void printSummary(std::ostream &out, const Options &o, const DeviceTrace &device, const HostTrace *host, const LinkSet &ls)
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
        if (link.parent.valid()) {
            ++linked;
            ++byRule[static_cast<std::size_t>(link.rule)];
        } else {
            ++byOrphan[static_cast<std::size_t>(link.orphan)];
        }
    }
    out << "GPU ops: " << ls.gpuLinks.size() << ", linked to a parent: " << linked << " (" << percent(linked, ls.gpuLinks.size())
        << ")\n";
    out << "  launch found by:\n";
    for (std::size_t m = 0; m < byLaunch.size(); ++m)
        if (byLaunch[m])
            out << "    " << std::left << std::setw(22) << launchMatchName(static_cast<LaunchMatch>(m)) << byLaunch[m] << '\n';
    out << "  parent rule:\n";
    for (std::size_t r = 0; r < byRule.size(); ++r)
        if (byRule[r])
            out << "    " << std::left << std::setw(22) << parentRuleName(static_cast<ParentRule>(r)) << byRule[r] << '\n';
    out << "  orphans:" << (linked == ls.gpuLinks.size() ? " none" : "") << '\n';
    for (std::size_t r = 0; r < byOrphan.size(); ++r)
        if (byOrphan[r])
            out << "    " << std::left << std::setw(22) << orphanReasonName(static_cast<OrphanReason>(r)) << byOrphan[r] << '\n';

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
        out << "  " << std::left << std::setw(36) << findingKindName(static_cast<FindingKind>(k))
            << counts[static_cast<std::size_t>(k)] << '\n';
    if (!ls.warnings.empty()) {
        out << "\nwarnings:\n";
        for (const Diagnostic &d : ls.warnings)
            out << "  " << d.toString() << '\n';
    }
}

std::string counted(std::size_t n, std::string_view one, std::string_view many)
{
    return std::to_string(n) + ' ' + std::string(n == 1 ? one : many);
}

void printRuleComparison(std::ostream &out, std::string_view title, const RuleComparison &c)
{
    out << "  " << title << " (" << policyName(c.policy) << "): another parent for "
        << counted(c.differentParent.size(), "GPU op", "GPU ops");
    if (!c.collectiveOnRecordParamComms.empty())
        out << " (" << counted(c.collectiveOnRecordParamComms.size(), "NCCL/RCCL kernel", "NCCL/RCCL kernels")
            << " on record_param_comms)";
    out << ", drops " << c.dropped.size() << ", loses " << c.syncEdgesLost << " of "
        << counted(c.syncEdges, "sync edge", "sync edges") << '\n';
    if (!c.dropped.empty()) {
        out << "    dropped:";
        for (int r = 0; r < kChakraDropReasonCount; ++r)
            if (const std::size_t n = c.droppedBy[static_cast<std::size_t>(r)])
                out << ' ' << chakraDropReasonName(static_cast<ChakraDropReason>(r)) << ' ' << n;
        out << '\n';
    }
}

void printComparison(std::ostream &out, const ChakraComparison &c)
{
    out << "\ncompared with Chakra (against these links):\n";
    printRuleComparison(out, "Chakra 1.0", c.chakra10);
    printRuleComparison(out, "before PR #185", c.pre185);
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

    PairRequest request;
    request.files = {o.host, o.device};
    request.link.policy = o.policy;
    request.link.interThreadDeps = o.interThread;
    request.link.enclosureTolerance = o.tolerance;
    request.policyGiven = o.policyGiven;
    request.sidecar = o.corrections;
    request.forceSidecar = o.forceCorrections;
    request.allowTruncated = o.allowTruncated;
    OpenedPair pair;
    try {
        pair = openPair(request);
    } catch (const std::exception &e) {
        err << "link: " << e.what() << '\n';
        return 1;
    }
    for (const Diagnostic &d : pair.device->warnings)
        err << "warning: " << d.toString() << '\n';
    if (pair.host)
        for (const Diagnostic &d : pair.host->warnings)
            err << "warning: " << d.toString() << '\n';
    if (pair.sidecar) {
        for (const std::string &cut : pair.sidecar->warnings)
            err << "link: warning: " << cut << '\n';
        for (const std::string &problem : pair.sidecarCheck.problems)
            err << "link: " << (o.forceCorrections ? "warning: " : "") << o.corrections << ": " << problem << '\n';
        if (!pair.sidecarApplied) {
            err << "link: " << o.corrections
                << " was made from other inputs; nothing written (--force-corrections applies it anyway)\n";
            return 1;
        }
        const ApplyResult &applied = pair.corrections;
        err << "link: corrections: " << applied.count(EditStatus::Applied) << " applied, " << applied.count(EditStatus::Unchanged)
            << " unchanged, " << applied.count(EditStatus::Stale) << " stale, " << applied.count(EditStatus::Rejected)
            << " rejected\n";
        for (const EditOutcome &outcome : applied.problems())
            err << "link: warning: correction " << outcome.entry << "." << outcome.edit << " " << editStatusName(outcome.status)
                << ": " << outcome.reason << '\n';
    }

    const HostTrace *hostPtr = pair.host.get();
    const DeviceTrace &device = *pair.device;
    const LinkSet &ls = *pair.links;
    printSummary(out, o, device, hostPtr, ls);
    const ChakraComparison comparison = compareWithChakra(device, hostPtr, pair.index, ls, pair.options);
    printComparison(out, comparison);
    const std::vector<Notice> notices = policyNotices(device, hostPtr, ls, &comparison);
    if (!notices.empty()) {
        out << "\nnotices:\n";
        for (const Notice &n : notices)
            out << "  " << noticeKindName(n.kind) << ": " << n.message << '\n';
    }

    try {
        for (const std::string &note : checkOutputs(
                 {{"--links output", o.links}, {"--report output", o.report}},
                 {{"host trace", o.host}, {"device trace", o.device}, {"corrections sidecar", defaultSidecarPath(o.device)}}))
            err << "link: warning: " << note << '\n';
        if (!o.links.empty())
            writeFileAtomically(o.links, linksJsonLines(device, hostPtr, ls));
        if (!o.report.empty())
            writeFileAtomically(o.report, findingsReportJson(o.device, o.host, device, hostPtr, ls, &comparison, &notices));
    } catch (const WriteError &e) {
        err << "link: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

} // namespace linkscope::cli
