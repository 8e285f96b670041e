// libFuzzer target: what `linkscope job --merge` and `linkscope check` read besides traces — rank
// summaries and ASTRA-sim's comm group file (issue 29). The first byte picks the path:
//   0  one summary: parsed (bounded nesting, range-checked values), written back and read again
//      (toJson ∘ fromJson is stable), then merged with a copy of itself as another rank;
//   1  two summaries separated by a form feed (\f): both parsed, merged into a job report, the
//      report written (every loop bounded: world sizes, ranks, alignments);
//   2  a comm group file: checked with two ranks' calls on groups 1 and 5 (checkEtJob), read again
//      by the prediction's reader (parseCommGroups).
// A summary or group file either works or throws LoadError / std::runtime_error naming the input;
// nothing may crash, hang, or allocate per rank up to a number in the input.
#include "export/chakra/etcheck.h"
#include "io/json/boundedjson.h"
#include "job/jobrun.h"
#include "job/ranksummary.h"
#include "predict/simgraph.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

using namespace linkscope::core;

namespace {

job::RankSummary parseSummary(const std::string &text, const std::string &name)
{
    return job::RankSummary::fromJson(io::parseBoundedJson(text, name), name);
}

void roundTrip(const job::RankSummary &s)
{
    const std::string once = s.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string twice = job::RankSummary::fromJson(io::parseBoundedJson(once, "again"), "again")
                                  .toJson()
                                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (once != twice)
        std::abort();
}

void merge(std::vector<job::RankSummary> summaries)
{
    const job::JobReport report = job::buildJobReport(std::move(summaries));
    if (!job::plausibleWorldSize(report.worldSize))
        std::abort();
    for (const job::JobFinding &f : report.findings)
        if (f.ranks.size() > job::kListedRanks && f.kind == "missing_rank")
            std::abort();
    (void)report.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)job::commGroupJson(report.groups).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The comm group file as a file (checkEtJob reads a path): a memfd, named through /proc.
std::string groupFile(const std::string &text)
{
    static const int fd = memfd_create("comm_group.json", 0);
    if (fd < 0)
        std::abort();
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
        std::abort();
    return "/proc/self/fd/" + std::to_string(fd);
}

EtFileCheck rankFile(std::int64_t rank)
{
    EtFileCheck f;
    f.path = "trace." + std::to_string(rank) + ".et";
    f.readable = true;
    f.nodes = 3;
    f.calls.rank = rank;
    for (const char *group : {"1", "5", "0"}) {
        job::CollectiveCall c;
        c.processGroup = group;
        c.kind = job::CallKind::AllReduce;
        c.bytes = 1024;
        f.calls.calls.push_back(c);
        f.callNodes.push_back(static_cast<std::int64_t>(f.callNodes.size()));
        f.callNames.push_back("all_reduce");
    }
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    try {
        switch (data[0] % 3) {
        case 0: {
            const job::RankSummary s = parseSummary(text, "fuzz.summary.json");
            if (!job::plausibleRank(s.rank))
                std::abort();
            roundTrip(s);
            job::RankSummary other = s;
            other.rank = s.rank == job::kMaxRank ? 0 : s.rank + 1;
            merge({s, other});
            break;
        }
        case 1: {
            const std::size_t cut = text.find('\f');
            std::vector<job::RankSummary> summaries;
            summaries.push_back(parseSummary(text.substr(0, cut), "a.summary.json"));
            if (cut != std::string::npos)
                summaries.push_back(parseSummary(text.substr(cut + 1), "b.summary.json"));
            merge(std::move(summaries));
            break;
        }
        default: {
            const EtCheckResult r = checkEtJob({rankFile(0), rankFile(1)}, groupFile(text));
            if (r.findings.size() > 64 * kEtCheckListedPerRule)
                std::abort();
            (void)r.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            predict::SimJob job;
            predict::parseCommGroups(text, "fuzz.json", job);
            if (job.groupIds.size() != job.groups.size())
                std::abort();
            break;
        }
        }
    } catch (const LoadError &) {
    } catch (const std::runtime_error &) {
    }
    return 0;
}
