#include "job/jobrun.h"

#include "pipeline/derivedhost.h"

#include "base/parallel.h"
#include "edit/correction.h"
#include "edit/sidecar.h"
#include "export/chakra/etcheck.h"
#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"
#include "io/file/outputguard.h"
#include "io/json/truncation.h"
#include "io/tracereader.h"
#include "job/rankcalls.h"
#include "job/summaryrun.h"
#include "link/linker.h"
#include "pipeline/derivedhost.h"
#include "pipeline/pairpipeline.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace linkscope::core::job {

namespace fs = std::filesystem;

std::string etFileName(const std::string &prefix, std::int64_t rank) { return prefix + "." + std::to_string(rank) + ".et"; }

std::string summaryFileName(const std::string &prefix, std::int64_t rank)
{
    return prefix + "." + std::to_string(rank) + ".summary.json";
}

RankSummary processRank(const RankFiles &files, const JobOptions &options)
{
    RankSummary s;
    s.rank = files.rank;
    s.host = files.host;
    s.device = files.device;
    s.declaredRank = files.declaredRank;
    s.worldSize = files.worldSize;
    auto report = [&](std::string_view stage, double fraction) {
        if (options.progress && !options.progress({files.rank, stage, fraction}))
            throw Cancelled();
    };
    try {
        // One call per rank through the pair pipeline: load (host and device in parallel), index,
        // link, the rank's own sidecar, diagnose.
        PairRequest request;
        request.files = {files.host, files.device, files.hostFormat, files.deviceFormat};
        request.link = options.link;
        request.policyGiven = options.policyGiven;
        request.allowTruncated = options.allowTruncated;
        const std::string sidecarPath = defaultSidecarPath(files.device);
        std::error_code ec;
        if (fs::exists(sidecarPath, ec))
            request.sidecar = sidecarPath;
        if (options.progress)
            request.progress = [&](PairStage stage, std::uint64_t done, std::uint64_t total) {
                const bool load = stage == PairStage::HostEt || stage == PairStage::Device;
                return options.progress({files.rank, load ? "load" : "link", total ? double(done) / double(total) : 0.0});
            };
        report("load", 0);
        std::optional<OpenedPair> opened(openPair(request));
        const OpenedPair &pair = *opened;
        const HostTrace *host = pair.host.get();
        const DeviceTrace &device = *pair.device;
        const LinkSet &links = *pair.links;
        if (options.allowTruncated) {
            s.hostCutAt = host ? io::cutOffset(host->warnings) : kUnknownOffset;
            s.deviceCutAt = io::cutOffset(device.warnings);
        }
        if (device.distributed) {
            s.declaredRank = device.distributed->rank;
            s.worldSize = device.distributed->worldSize;
            if (s.declaredRank >= 0 && s.declaredRank != files.rank) {
                s.error = files.device + ": distributedInfo.rank is " + std::to_string(s.declaredRank) + ", not rank "
                          + std::to_string(files.rank) + " as its name says";
                report("failed", 1);
                return s;
            }
        }
        if (pair.sidecar) {
            if (!pair.sidecarApplied)
                s.note = sidecarPath + " was made from other inputs; not applied";
            else
                s.note = "corrections: " + std::to_string(pair.corrections.count(EditStatus::Applied)) + " applied, "
                         + std::to_string(pair.corrections.count(EditStatus::Stale)
                                          + pair.corrections.count(EditStatus::Rejected))
                         + " not applied";
        }
        // What identifies this run in the summary written (a merge tells a summary left from another
        // run by it, job/summaryrun.h); the GUI's open of a job writes none and skips the hashing.
        if (!options.outDir.empty() && options.identifyRun)
            s.run = runIdentity({{"host", files.host, host ? &host->sourceIdentity : nullptr},
                                 {"device", files.device, &device.sourceIdentity},
                                 {"sidecar", request.sidecar, nullptr}},
                                etTargetName(options.chakra.target), policyName(pair.options.policy));
        if (s.run.is_object() && !options.jobRun.id.empty())
            s.run["job_run"] = options.jobRun.toJson();
        s.gpuOps = links.gpuLinks.size();
        s.linked = static_cast<std::size_t>(
            std::count_if(links.gpuLinks.begin(), links.gpuLinks.end(), [](const GpuLink &l) { return l.parent.valid(); }));
        const auto counts = countFindingsByKind(links.findings);
        for (std::size_t k = 0; k < counts.size(); ++k)
            if (counts[k])
                s.findings[std::string(findingKindName(static_cast<FindingKind>(k)))] = counts[k];
        // A Kineto trace alone: the astra-sim target exports from the host ET its CPU ops imply; the
        // chakra target needs a recorded one, as chakra_converter does.
        std::optional<DerivedHostPair> derived;
        if (options.writeEt && !host && options.chakra.target == EtTarget::AstraSim) {
            derived = withDerivedHost(pair);
            host = derived->host.get();
            s.hostDerived = true;
            s.note += std::string(s.note.empty() ? "" : "; ") + "no host ET: derived from the Kineto trace's CPU ops";
        }
        const LinkSet &exportLinks = derived ? *derived->links : links;
        const std::int64_t world = s.worldSize;
        s.groups = mergeRankGroups(processGroupsFromKineto(device),
                                   host ? processGroupsFromHostEt(*host, world) : std::vector<ProcessGroup>{});
        s.calls = collectiveCallsOf(device, host, exportLinks);
        if (options.overview)
            s.overview = std::make_shared<const RankOverview>(overviewOf(device));
        if (options.stats || options.overview)
            s.stats = std::make_shared<const TraceStats>(computeTraceStats(device, *pair.index));
        if (options.stats) {
            s.readerWarnings = device.warnings;
            if (pair.host)
                s.readerWarnings.insert(s.readerWarnings.end(), pair.host->warnings.begin(), pair.host->warnings.end());
        }

        if (options.writeEt) {
            if (!host) {
                s.note += std::string(s.note.empty() ? "" : "; ")
                          + "a Kineto trace alone: no .et (the chakra target needs the host ET; --target astra-sim derives one)";
            } else {
                report("export", 0);
                ExportRequest request;
                request.outputs[std::string(kEtTarget)] =
                    (fs::path(options.outDir) / etFileName(options.prefix, files.rank)).string();
                request.chakra = options.chakra;
                if (options.etSinkFor)
                    request.etSink = options.etSinkFor(files.rank);
                if (options.progress)
                    request.progress = [&](std::string_view, std::size_t done, std::size_t total) {
                        return options.progress({files.rank, "export", total ? double(done) / double(total) : 1.0});
                    };
                const ExportReport exported = exportLinkedPair(*host, device, exportLinks, request);
                s.exportStats = exportSummary(exported);
                s.et = etFileName(options.prefix, files.rank);
                if (!options.jobRun.id.empty() && !request.etSink)
                    recordWrittenEt(s.run, request.path(kEtTarget));
                // The traces are released before the written file is read back, so a worker holds
                // one rank's traces or one rank's check, never both.
                opened.reset();
                derived.reset();
                if (options.checkEt && !request.etSink) {
                    report("check", 0);
                    s.etCheck = std::make_shared<const EtFileCheck>(checkEtFile(request.path(kEtTarget), files.rank));
                }
            }
        }
        report("done", 1);
    } catch (const Cancelled &) {
        throw;
    } catch (const WriteError &) {
        throw;
    } catch (const std::exception &e) {
        s.error = e.what();
        s.calls.clear();
        if (options.progress)
            options.progress({files.rank, "failed", 1});
    }
    return s;
}

std::vector<RankSummary> processRanks(const std::vector<RankFiles> &ranks, const JobOptions &options)
{
    const bool writeFiles = !options.outDir.empty() || (options.writeEt && !options.etSinkFor);
    if (writeFiles)
        fs::create_directories(options.outDir);
    std::vector<RankSummary> out(ranks.size());
    // The cores shared out between the ranks running at once: each rank's readers and writers use
    // its share, so `--jobs` ranks keep the cores busy without splitting each rank's work as well.
    const TaskThreadBudget budget(static_cast<int>(std::clamp<std::size_t>(ranks.size(), 1, std::max(1, options.jobs))));
    forEachIndexOnThreads(ranks.size(), options.jobs, [&](std::size_t i) {
        RankSummary s = processRank(ranks[i], options);
        if (writeFiles)
            writeRankSummary((fs::path(options.outDir) / summaryFileName(options.prefix, s.rank)).string(), s);
        out[i] = std::move(s);
    });
    return out;
}

std::string jobReportPath(const JobOptions &options, const std::string &reportPath)
{
    return reportPath.empty() ? (fs::path(options.outDir) / "job-report.json").string() : reportPath;
}

void checkJobOutputs(const std::vector<RankFiles> &ranks, const JobOptions &options, bool whole, const std::string &reportPath)
{
    std::vector<NamedFile> outputs, inputFiles;
    for (const RankFiles &r : ranks) {
        const std::string rank = "rank " + std::to_string(r.rank);
        inputFiles.push_back({rank + " host trace", r.host});
        inputFiles.push_back({rank + " Kineto trace", r.device});
        inputFiles.push_back({rank + " corrections sidecar", defaultSidecarPath(r.device)});
        if (options.writeEt)
            outputs.push_back({rank + " .et output", (fs::path(options.outDir) / etFileName(options.prefix, r.rank)).string()});
        outputs.push_back({rank + " summary", (fs::path(options.outDir) / summaryFileName(options.prefix, r.rank)).string()});
    }
    if (whole) {
        outputs.push_back({"comm_group.json", (fs::path(options.outDir) / "comm_group.json").string()});
        outputs.push_back({"job report", jobReportPath(options, reportPath)});
    }
    checkOutputs(outputs, inputFiles, false);
}

std::string etPathOf(const RankSummary &summary, const std::string &outDir)
{
    if (summary.et.empty())
        return {};
    const fs::path folder = summary.file.empty() ? fs::path(outDir) : fs::path(summary.file).parent_path();
    return (folder / summary.et).string();
}

void checkMergeOutputs(const std::vector<RankSummary> &summaries, const std::string &commGroupPath, const std::string &reportPath)
{
    std::vector<NamedFile> inputFiles;
    for (const RankSummary &s : summaries) {
        const std::string rank = "rank " + std::to_string(s.rank);
        inputFiles.push_back({rank + " summary", s.file});
        inputFiles.push_back({rank + " .et", etPathOf(s, fs::path(commGroupPath).parent_path().string())});
        inputFiles.push_back({rank + " host trace", s.host});
        inputFiles.push_back({rank + " Kineto trace", s.device});
        if (!s.device.empty())
            inputFiles.push_back({rank + " corrections sidecar", defaultSidecarPath(s.device)});
    }
    checkOutputs(
        {{"comm_group.json", commGroupPath}, {"network.yml", networkFilePath(commGroupPath)}, {"job report", reportPath}},
        inputFiles, false);
}

namespace {

// Ranks listed in one missing_rank finding at most (a rank number or a group can name any rank).
constexpr std::size_t kMaxMissingListed = 100000;

// The missing_rank finding when no trace declares a world size (empty `ranks`: none missing).
JobFinding missingRankFinding(const std::set<std::int64_t> &present, const std::vector<ProcessGroup> &groups)
{
    std::vector<std::int64_t> missing;
    // No trace declares a world size: the ranks below the largest one present (the gap discovery
    // sees) and the members the process groups list, walked from the ranks present rather than
    // counted up to the largest number.
    std::set<std::int64_t> expected;
    std::int64_t previous = -1;
    for (std::int64_t rank : present) {
        for (std::int64_t k = previous + 1; k < rank && expected.size() < kMaxMissingListed; ++k)
            expected.insert(k);
        previous = rank;
    }
    std::set<std::string> listing;
    for (const ProcessGroup &g : groups)
        for (std::int64_t k : g.ranks)
            if (k >= 0 && !present.count(k)) {
                if (expected.size() < kMaxMissingListed)
                    expected.insert(k);
                listing.insert(g.name);
            }
    missing.assign(expected.begin(), expected.end());
    if (missing.empty())
        return {"missing_rank", Severity::Error, "", -1, {}, ""}; // no rankRanges: none missing
    std::string why = "no trace declares a world size; ";
    const bool gap = !present.empty() && missing.front() < *present.rbegin();
    if (gap)
        why += "the ranks present run to " + std::to_string(*present.rbegin());
    if (!listing.empty()) {
        std::string names;
        for (const std::string &n : listing)
            names += (names.empty() ? "" : ", ") + n;
        why += std::string(gap ? " and " : "") + (listing.size() == 1 ? "process group " : "process groups ") + names + " list"
               + (listing.size() == 1 ? "s" : "") + " " + (missing.size() == 1 ? "it" : "them");
    }
    const std::vector<RankRange> ranges = rankRanges(missing);
    JobFinding f{"missing_rank",
                 Severity::Error,
                 "",
                 -1,
                 {},
                 std::string(missing.size() == 1 ? "rank " : "ranks ") + rankRangeText(ranges)
                     + (missing.size() == 1 ? " has" : " have") + " no trace files (" + why + ")"
                     + (expected.size() >= kMaxMissingListed ? "; the first " + std::to_string(kMaxMissingListed) + " listed"
                                                             : std::string())};
    if (missing.size() <= kListedRanks)
        f.ranks = std::move(missing);
    f.rankRanges = ranges;
    return f;
}

// The summaries in rank order, each rank once: a rank given twice keeps its first summary and is a
// duplicate_rank finding.
std::vector<RankSummary> uniqueRanks(std::vector<RankSummary> summaries, std::vector<JobFinding> &findings)
{
    std::stable_sort(summaries.begin(), summaries.end(),
                     [](const RankSummary &a, const RankSummary &b) { return a.rank < b.rank; });
    std::vector<RankSummary> ranks;
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        if (!ranks.empty() && ranks.back().rank == summaries[i].rank) {
            // Name the summaries when they were read from files (a merge), else the traces.
            const RankSummary &a = ranks.back(), &b = summaries[i];
            const bool files = !a.file.empty() && !b.file.empty();
            std::string what = files ? a.file + " and " + b.file : a.device + " and " + b.device;
            if (files)
                what += a.device == b.device ? " (both of " + a.device + ")" : " (of " + a.device + " and " + b.device + ")";
            findings.push_back({"duplicate_rank",
                                Severity::Error,
                                "",
                                -1,
                                {b.rank},
                                "rank " + std::to_string(b.rank) + " appears twice: " + what + " (the first is used)"});
            continue;
        }
        ranks.push_back(std::move(summaries[i]));
    }
    return ranks;
}

// The job's world size: the largest plausible one declared (or the hint); an implausible one, and
// ranks that disagree, are findings.
std::int64_t jobWorldSize(const std::vector<RankSummary> &ranks, std::int64_t worldSizeHint, std::vector<JobFinding> &findings)
{
    // A world size beyond kMaxWorldSize is a finding, not a size: nothing counts up to it.
    std::int64_t worldSize = plausibleWorldSize(worldSizeHint) ? worldSizeHint : -1;
    for (const RankSummary &s : ranks) {
        if (plausibleWorldSize(s.worldSize)) {
            worldSize = std::max(worldSize, s.worldSize);
            continue;
        }
        // Who says so: the summary read (a merge: it may have been edited since the trace was read),
        // else the trace.
        const std::string who = !s.file.empty()
                                    ? s.file + (s.device.empty() ? std::string() : " (the summary of " + s.device + ")")
                                : s.device.empty() ? std::string("its summary")
                                                   : s.device;
        findings.push_back({"implausible_world_size",
                            Severity::Error,
                            "",
                            -1,
                            {s.rank},
                            "rank " + std::to_string(s.rank) + ": " + who + " declares a world size of "
                                + std::to_string(s.worldSize) + ", more than the " + std::to_string(kMaxWorldSize)
                                + " ranks a job may have; it is not taken as the world size"});
    }

    // Ranks that disagree on the world size: the largest is used, and the disagreement is a finding
    // (one trace of another job, or a header written wrong, would otherwise decide it unseen).
    std::map<std::int64_t, std::vector<std::int64_t>> byWorldSize; // declared size -> ranks
    for (const RankSummary &s : ranks)
        if (s.worldSize > 0 && plausibleWorldSize(s.worldSize))
            byWorldSize[s.worldSize].push_back(s.rank);
    if (byWorldSize.size() > 1) {
        JobFinding f{"world_size_conflict", Severity::Error, "", -1, {}, "the ranks declare different world sizes: "};
        bool first = true;
        for (const auto &[size, declaring] : byWorldSize) {
            const std::vector<RankRange> ranges = rankRanges(declaring);
            f.message += std::string(first ? "" : "; ") + std::to_string(size) + " ("
                         + (declaring.size() == 1 ? "rank " : "ranks ") + rankRangeText(ranges) + ")";
            first = false;
            // The ranks of the sizes fewer ranks declare: the odd ones out (all of them when tied).
            if (declaring.size() * 2 <= ranks.size())
                f.ranks.insert(f.ranks.end(), declaring.begin(), declaring.end());
        }
        if (f.ranks.size() > kListedRanks)
            f.ranks.resize(kListedRanks);
        std::sort(f.ranks.begin(), f.ranks.end());
        f.message += "; the largest, " + std::to_string(worldSize) + ", is used";
        findings.push_back(std::move(f));
    }
    return worldSize;
}

// Ranks of the world size with no trace files, and ranks whose summary could not be used.
void rankPresenceFindings(const JobReport &r, const std::set<std::int64_t> &present, std::vector<JobFinding> &findings)
{
    if (const std::vector<RankRange> missing = missingRankRanges(present, r.worldSize); !missing.empty()) {
        const std::int64_t count = rankCount(missing);
        JobFinding f{"missing_rank",
                     Severity::Error,
                     "",
                     -1,
                     {},
                     std::string(count == 1 ? "rank " : "ranks ") + rankRangeText(missing) + " of the job's "
                         + std::to_string(r.worldSize) + (count == 1 ? " has" : " have") + " no trace files"
                         + (count > 1 ? " (" + std::to_string(count) + " ranks)" : std::string())};
        if (static_cast<std::size_t>(count) <= kListedRanks)
            f.ranks = expandRanks(missing);
        f.rankRanges = missing;
        findings.push_back(std::move(f));
    }
    for (const RankSummary &s : r.ranks)
        if (!s.error.empty())
            findings.push_back(
                {"unreadable_rank", Severity::Error, "", -1, {s.rank}, "rank " + std::to_string(s.rank) + ": " + s.error});
        else if (!s.stale.empty())
            findings.push_back(
                {"stale_summary", Severity::Error, "", -1, {s.rank}, "rank " + std::to_string(s.rank) + ": " + s.stale});
}

// The job's process groups: those the ranks declare, merged (conflicts are findings), the default
// group when no trace declares it, and groups only named by calls with their issuers as members;
// sorted by their comm_group.json id (ids that collide are findings). Fills `input`'s calls, groups
// and default group.
void jobGroups(JobReport &r, const std::set<std::int64_t> &present, CheckInput &input, std::vector<JobFinding> &findings)
{
    std::map<std::int64_t, std::vector<ProcessGroup>> byRank;
    for (const RankSummary &s : r.ranks) {
        if (!s.error.empty() || !s.stale.empty())
            continue;
        input.ranks.push_back({s.rank, s.calls});
        byRank[s.rank] = s.groups;
    }
    std::vector<GroupConflict> conflicts;
    r.groups = mergeJobGroups(byRank, &conflicts);
    if (r.worldSize <= 0)
        if (JobFinding gaps = missingRankFinding(present, r.groups); !gaps.rankRanges.empty())
            findings.push_back(std::move(gaps));
    for (const GroupConflict &c : conflicts)
        findings.push_back({"process_group_conflict",
                            Severity::Warning,
                            c.name,
                            -1,
                            {std::min(c.rank, c.firstRank), std::max(c.rank, c.firstRank)},
                            "process group " + c.name + ": rank " + std::to_string(c.rank) + " declares " + c.what + " of rank "
                                + std::to_string(c.firstRank)});
    input.defaultGroup = defaultGroupName(r.groups);
    // The default group when no trace declares it; groups only named by calls: their issuers.
    std::map<std::string, std::set<std::int64_t>> issuers;
    for (const RankCalls &rc : input.ranks)
        for (const CollectiveCall &c : rc.calls)
            issuers[c.processGroup.empty() ? input.defaultGroup : c.processGroup].insert(rc.rank);
    auto declared = [&](const std::string &name) {
        return std::any_of(r.groups.begin(), r.groups.end(), [&](const ProcessGroup &g) { return g.name == name; });
    };
    if (!declared(input.defaultGroup) && r.worldSize > 0) {
        ProcessGroup g{input.defaultGroup, "default_pg", {}, r.worldSize};
        for (std::int64_t k = 0; k < r.worldSize; ++k)
            g.ranks.push_back(k);
        r.groups.push_back(std::move(g));
    }
    for (const auto &[name, ranks] : issuers)
        if (!declared(name))
            r.groups.push_back(
                {name, "", std::vector<std::int64_t>(ranks.begin(), ranks.end()), static_cast<std::int64_t>(ranks.size())});
    for (ProcessGroup &g : r.groups)
        if (g.ranks.empty() && issuers.count(g.name))
            g.ranks.assign(issuers[g.name].begin(), issuers[g.name].end());
    std::sort(r.groups.begin(), r.groups.end(), [](const ProcessGroup &a, const ProcessGroup &b) {
        const auto ia = processGroupId(a.name), ib = processGroupId(b.name);
        return ia != ib ? ia < ib : a.name < b.name;
    });
    for (const auto &[a, b] : processGroupIdCollisions(r.groups))
        findings.push_back({"process_group_id_collision",
                            Severity::Error,
                            b,
                            -1,
                            {},
                            "process groups '" + a + "' and '" + b + "' map to the same id " + std::to_string(processGroupId(a))
                                + " in comm_group.json"});
    input.groups = r.groups;
}

} // namespace

JobReport buildJobReport(std::vector<RankSummary> summaries, std::int64_t worldSizeHint)
{
    JobReport r;
    std::vector<JobFinding> findings;
    r.ranks = uniqueRanks(std::move(summaries), findings);
    r.worldSize = jobWorldSize(r.ranks, worldSizeHint, findings);
    std::set<std::int64_t> present;
    for (const RankSummary &s : r.ranks)
        present.insert(s.rank);
    rankPresenceFindings(r, present, findings);
    CheckInput input;
    jobGroups(r, present, input, findings);

    const CheckResult check = checkCollectives(input);
    findings.insert(findings.end(), check.findings.begin(), check.findings.end());
    for (const GroupAlignment &g : check.groups)
        r.collectivesPerGroup[g.name] = g.length;
    r.timing = analyseTiming(input, check);
    r.alignments = check.groups;
    std::int64_t npus = r.worldSize;
    for (const RankSummary &s : r.ranks)
        npus = std::max(npus, s.rank + 1);
    r.network = fitNetwork(transferSamples(r), r, npus);
    sortFindings(findings);
    r.findings = std::move(findings);
    return r;
}

std::vector<std::pair<std::int64_t, std::size_t>> JobReport::callsAt(const std::string &group, std::int64_t index) const
{
    std::vector<std::pair<std::int64_t, std::size_t>> out;
    for (const GroupAlignment &g : alignments) {
        if (g.name != group)
            continue;
        for (const auto &[rank, positions] : g.positionOf) {
            const auto calls = g.callIndex.find(rank);
            if (calls == g.callIndex.end())
                continue;
            for (std::size_t k = 0; k < positions.size() && k < calls->second.size(); ++k)
                if (positions[k] == index) {
                    out.emplace_back(rank, calls->second[k]);
                    break;
                }
        }
    }
    return out;
}

std::pair<std::string, std::int64_t> JobReport::positionOf(std::int64_t rankNo, std::size_t call) const
{
    const RankSummary *s = rank(rankNo);
    if (!s || call >= s->calls.size())
        return {"", -1};
    for (const GroupAlignment &g : alignments) {
        const auto calls = g.callIndex.find(rankNo);
        const auto positions = g.positionOf.find(rankNo);
        if (calls == g.callIndex.end() || positions == g.positionOf.end())
            continue;
        const auto it = std::find(calls->second.begin(), calls->second.end(), call);
        if (it != calls->second.end()) {
            const std::size_t k = static_cast<std::size_t>(it - calls->second.begin());
            return {g.name, k < positions->second.size() ? positions->second[k] : -1};
        }
    }
    return {s->calls[call].processGroup, -1};
}

const RankSummary *JobReport::rank(std::int64_t rankNo) const
{
    const auto it = std::lower_bound(ranks.begin(), ranks.end(), rankNo,
                                     [](const RankSummary &s, std::int64_t r) { return s.rank < r; });
    return it != ranks.end() && it->rank == rankNo ? &*it : nullptr;
}

bool JobReport::hasErrors() const
{
    return std::any_of(findings.begin(), findings.end(), [](const JobFinding &f) { return f.severity == Severity::Error; });
}

std::vector<JobFinding> JobReport::listedFindings() const
{
    std::vector<JobFinding> listed;
    struct Unlisted {
        std::size_t n = 0;
        Severity severity = Severity::Error;
    };
    std::map<std::string, std::size_t> seen;
    std::map<std::string, Unlisted> unlisted;
    for (const JobFinding &f : findings) {
        if (++seen[f.kind] <= kListedFindingsPerKind) {
            listed.push_back(f);
            continue;
        }
        Unlisted &u = unlisted[f.kind];
        if (u.n == 0 || f.severity < u.severity)
            u.severity = f.severity;
        u.n += f.count;
    }
    for (const auto &[kind, u] : unlisted) {
        JobFinding more{kind,
                        u.severity,
                        "",
                        -1,
                        {},
                        "… and " + std::to_string(u.n) + " more " + kind + " findings, not listed (the first "
                            + std::to_string(kListedFindingsPerKind) + " are)"};
        more.count = u.n;
        listed.push_back(std::move(more));
    }
    return listed;
}

nlohmann::json JobReport::toJson() const
{
    nlohmann::json j;
    j["linkscope_job_report"] = 1;
    j["world_size"] = worldSize;
    nlohmann::json ranksJson = nlohmann::json::array();
    for (const RankSummary &s : ranks) {
        std::size_t collectives = 0;
        for (const CollectiveCall &c : s.calls)
            collectives += isP2P(c.kind) ? 0 : 1;
        nlohmann::json rj = {{"rank", s.rank},
                             {"host", s.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.host)},
                             {"device", s.device},
                             {"gpu_ops", s.gpuOps},
                             {"linked", s.linked},
                             {"findings", s.findings},
                             {"collectives", collectives},
                             {"p2p", s.calls.size() - collectives},
                             {"et", s.et.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.et)}};
        if (!s.exportStats.is_null())
            rj["export"] = s.exportStats;
        if (!s.note.empty())
            rj["note"] = s.note;
        if (!s.error.empty())
            rj["error"] = s.error;
        ranksJson.push_back(std::move(rj));
    }
    j["ranks"] = std::move(ranksJson);
    nlohmann::json groupsJson = nlohmann::json::array();
    for (const ProcessGroup &g : groups) {
        auto it = collectivesPerGroup.find(g.name);
        groupsJson.push_back({{"name", g.name},
                              {"id", processGroupId(g.name)},
                              {"desc", g.desc},
                              {"ranks", g.ranks},
                              {"collectives", it == collectivesPerGroup.end() ? 0 : it->second}});
    }
    j["process_groups"] = std::move(groupsJson);
    j["network"] = network.toJson();
    nlohmann::json findingsJson = nlohmann::json::array();
    for (const JobFinding &f : listedFindings())
        findingsJson.push_back(f.toJson());
    j["findings"] = std::move(findingsJson);
    nlohmann::json stragglers = nlohmann::json::array();
    for (const StragglerCount &s : timing.stragglers)
        stragglers.push_back({{"rank", s.rank},
                              {"last_arrivals", s.lastArrivals},
                              {"of", s.of},
                              {"expected", std::round(s.expected * 100) / 100},
                              {"straggler", s.straggler}});
    j["stragglers"] = std::move(stragglers);
    nlohmann::json offsets = nlohmann::json::array();
    for (const auto &[rank, off] : timing.clockOffsetNs)
        offsets.push_back({{"rank", rank}, {"offset_ns", off}});
    j["clocks"] = {{"reference_rank", timing.referenceRank}, {"offsets", std::move(offsets)}, {"unaligned", timing.unaligned}};
    nlohmann::json coll = nlohmann::json::array();
    for (const CollectiveTiming &c : timing.collectives)
        coll.push_back({{"process_group", c.processGroup},
                        {"index", c.index},
                        {"kind", std::string(callKindName(c.kind))},
                        {"skew_ns", c.skewNs},
                        {"last_rank", c.lastRank},
                        {"ranks", c.ranks}});
    j["collectives"] = std::move(coll);
    if (!jobRun.id.empty()) {
        nlohmann::json run = jobRun.toJson();
        if (!fromRuns.empty())
            run["from_runs"] = fromRuns;
        j["job_run"] = std::move(run); // job/runid.h
    }
    return j;
}

namespace {

// The rank a summary's file name gives (<prefix>.<rank>.summary.json), -1 when it gives none.
std::int64_t rankOfSummaryName(const std::string &name)
{
    const std::string tail = ".summary.json";
    std::size_t end = name.size() - tail.size(), start = end;
    while (start > 0 && end - start < 7 && name[start - 1] >= '0' && name[start - 1] <= '9')
        --start;
    if (start == end || start == 0 || name[start - 1] != '.' || end - start > 6)
        return -1;
    return std::stoll(name.substr(start, end - start));
}

} // namespace

std::vector<RankSummary> readSummaries(const std::vector<std::string> &dirs, std::vector<JobFinding> *notRead)
{
    std::vector<RankSummary> out;
    for (const std::string &dir : dirs) {
        std::error_code ec;
        if (!fs::exists(dir, ec))
            throw std::runtime_error("no rank summaries in " + dir + ": no such folder");
        if (!fs::is_directory(dir, ec))
            throw std::runtime_error("no rank summaries in " + dir + ": not a folder");
        std::vector<std::string> files;
        std::vector<JobFinding> skipped;
        fs::directory_iterator it(dir, ec);
        for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (!name.ends_with(".summary.json"))
                continue;
            std::error_code typeError;
            if (it->is_regular_file(typeError)) {
                files.push_back(it->path().string());
                continue;
            }
            // A FIFO, a directory, a dangling link under a summary's name: said, never waited on or
            // passed over in silence (its rank would only show as missing).
            const std::string path = it->path().string();
            struct stat st;
            const std::string why = ::stat(path.c_str(), &st) == 0
                                        ? "is " + io::describeFileType(st.st_mode) + ", not a regular file"
                                        : "cannot be read (" + std::string(std::strerror(errno)) + ")";
            const std::int64_t rank = rankOfSummaryName(name);
            skipped.push_back({"summary_not_read", Severity::Warning, "", -1,
                               rank >= 0 ? std::vector<std::int64_t>{rank} : std::vector<std::int64_t>{},
                               path + " " + why + ": not read as a rank summary"
                                   + (rank >= 0 ? " (rank " + std::to_string(rank) + " by its name)" : std::string())});
        }
        if (ec)
            throw std::runtime_error("no rank summaries in " + dir + ": cannot list the folder (" + ec.message() + ")");
        // A folder without summaries is a shard that never ran (or a mistyped name): never an empty job.
        if (files.empty())
            throw std::runtime_error("no rank summaries (*.summary.json) in " + dir
                                     + (skipped.empty() ? std::string() : ": " + skipped.front().message));
        std::sort(files.begin(), files.end());
        for (const std::string &f : files) {
            out.push_back(readRankSummary(f));
            out.back().file = f;
        }
        std::sort(skipped.begin(), skipped.end(), [](const JobFinding &a, const JobFinding &b) { return a.message < b.message; });
        if (notRead)
            notRead->insert(notRead->end(), skipped.begin(), skipped.end());
    }
    return out;
}

std::string networkFilePath(const std::string &commGroupPath)
{
    return (fs::path(commGroupPath).parent_path() / "network.yml").string();
}

void writeJobOutputs(const JobReport &report, const std::string &commGroupPath, const std::string &reportPath)
{
    writeCommGroupFile(commGroupPath, report.groups);
    if (report.network.fitted) {
        AtomicFile network(networkFilePath(commGroupPath));
        network.write(networkYaml(report.network));
        network.commit();
    }
    nlohmann::json json = report.toJson();
    recordJobOutputs(json, commGroupPath, report.network.fitted ? networkFilePath(commGroupPath) : std::string());
    AtomicFile file(reportPath);
    file.write(json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    file.write("\n");
    file.commit();
}

} // namespace linkscope::core::job
