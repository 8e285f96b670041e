#include "job.h"

#include "pair.h"

#include "io/file/atomicfile.h"

#include <pybind11/stl.h>

#include <filesystem>
#include <stdexcept>

namespace linkscope::python {

namespace py = pybind11;
using namespace linkscope::core;
using job::CollectiveCall;
using job::JobFinding;
using job::kUnknownTime;

Job::Job(const std::vector<std::string> &paths, const std::string &policy, int jobs) : paths_(paths)
{
    if (!policy.empty()) {
        const auto p = policyFromName(policy);
        if (!p)
            throw std::invalid_argument("unknown policy '" + policy + "' (nesting, external-id, ev-idx)");
        options_.link.policy = *p;
        options_.policyGiven = true;
    }
    options_.writeEt = false;
    options_.checkEt = false;
    options_.stats = true;
    options_.jobs = std::max(1, jobs);
    py::gil_scoped_release release;
    layout_ = job::discoverJob(paths);
    if (layout_.ranks.empty()) {
        std::string why = layout_.errors.empty() ? std::string("no ranks (host ET + Kineto, or Kineto alone)")
                                                 : layout_.errors.front();
        throw std::runtime_error(paths.empty() ? why : paths.front() + ": " + why);
    }
    std::vector<job::RankSummary> summaries = job::processRanks(layout_.ranks, options_);
    report_ = job::buildJobReport(std::move(summaries), layout_.worldSize);
}

py::dict Job::ranksTable() const
{
    Table t(report_.ranks.size());
    auto &rank = t.ints("rank");
    auto &declared = t.ints("declared_rank");
    auto &world = t.ints("world_size");
    auto &gpuOps = t.ints("gpu_ops");
    auto &linked = t.ints("linked");
    auto &findings = t.ints("findings");
    auto &calls = t.ints("collectives");
    std::vector<std::string> host, device, error, note;
    for (const job::RankSummary &r : report_.ranks) {
        rank.push_back(r.rank);
        declared.push_back(r.declaredRank);
        world.push_back(r.worldSize);
        gpuOps.push_back(static_cast<std::int64_t>(r.gpuOps));
        linked.push_back(static_cast<std::int64_t>(r.linked));
        std::size_t n = 0;
        for (const auto &[kind, count] : r.findings)
            n += count;
        findings.push_back(static_cast<std::int64_t>(n));
        calls.push_back(static_cast<std::int64_t>(r.calls.size()));
        host.push_back(r.host);
        device.push_back(r.device);
        error.push_back(r.error);
        note.push_back(r.note);
    }
    t.strings("host", host);
    t.strings("device", device);
    t.strings("error", error);
    t.strings("note", note);
    return t.toPython();
}

py::dict Job::findingsTable() const
{
    const std::vector<JobFinding> &list = report_.findings;
    Table t(list.size());
    std::vector<std::string> kind, severity, group, ranks, message;
    auto &index = t.ints("index");
    auto &count = t.ints("count");
    for (const JobFinding &f : list) {
        kind.push_back(f.kind);
        severity.emplace_back(job::severityName(f.severity));
        group.push_back(f.processGroup);
        index.push_back(f.index);
        std::string r;
        for (const std::int64_t rank : f.ranks)
            r += (r.empty() ? "" : ",") + std::to_string(rank);
        ranks.push_back(r);
        message.push_back(f.message);
        count.push_back(static_cast<std::int64_t>(f.count));
    }
    t.strings("kind", kind);
    t.strings("severity", severity);
    t.strings("process_group", group);
    t.strings("ranks", ranks);
    t.strings("message", message);
    return t.toPython();
}

py::dict Job::collectivesTable() const
{
    Table t;
    auto &rank = t.ints("rank");
    auto &call = t.ints("call");
    auto &position = t.ints("position");
    Column &elements = t.nullableInts("elements");
    Column &bytes = t.nullableInts("bytes");
    Column &root = t.nullableInts("root");
    Column &peer = t.nullableInts("peer");
    Column &launch = t.nullableInts("launch_ns");
    Column &start = t.nullableInts("start_ns");
    Column &end = t.nullableInts("end_ns");
    std::vector<std::string> group, kind, dtype;
    {
        py::gil_scoped_release release;
        for (const job::RankSummary &r : report_.ranks) {
            for (std::size_t i = 0; i < r.calls.size(); ++i) {
                const CollectiveCall &c = r.calls[i];
                rank.push_back(r.rank);
                call.push_back(static_cast<std::int64_t>(i));
                const auto [g, at] = report_.positionOf(r.rank, i);
                group.push_back(g);
                position.push_back(at);
                kind.emplace_back(job::callKindName(c.kind));
                dtype.push_back(c.dtype);
                Table::push(elements, c.elements, c.elements < 0);
                Table::push(bytes, c.bytes, c.bytes <= 0);
                Table::push(root, c.root, c.root < 0);
                Table::push(peer, c.peer, c.peer < 0);
                Table::push(launch, c.launchNs, c.launchNs == kUnknownTime);
                Table::push(start, c.startNs, c.startNs == kUnknownTime);
                Table::push(end, c.endNs, c.endNs == kUnknownTime);
            }
        }
    }
    t.strings("process_group", group);
    t.strings("kind", kind);
    t.strings("dtype", dtype);
    return t.toPython();
}

py::object Job::reportJson() const
{
    const std::string text = report_.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return py::module_::import("json").attr("loads")(text);
}

py::list Job::statsTables(const std::string &which, std::size_t top) const
{
    py::list out;
    for (const job::RankSummary &r : report_.ranks) {
        if (!r.stats)
            continue;
        if (which == "gpu_ops")
            out.append(gpuOpsTable(*r.stats, top, r.rank).toPython());
        else if (which == "cpu_ops")
            out.append(cpuOpsTable(*r.stats, top, r.rank).toPython());
        else if (which == "streams")
            out.append(streamsTable(*r.stats, r.rank).toPython());
        else if (which == "devices")
            out.append(devicesTable(*r.stats, r.rank).toPython());
        else if (which == "steps")
            out.append(stepsTable(*r.stats, r.rank).toPython());
        else
            throw std::invalid_argument("unknown table '" + which + "'");
    }
    return out;
}

py::dict Job::exportTo(const std::string &outDir, const std::string &prefix, const std::string &target)
{
    job::JobOptions options = options_;
    options.outDir = outDir;
    options.prefix = prefix.empty() ? "trace" : prefix;
    options.writeEt = true;
    options.checkEt = true;
    options.stats = false;
    if (!target.empty()) {
        const auto t = etTargetFromName(target);
        if (!t)
            throw std::invalid_argument("unknown .et target '" + target + "' (chakra, astra-sim)");
        options.chakra.target = *t;
    }
    const std::string reportPath = job::jobReportPath(options, "");
    const std::string commGroup = (std::filesystem::path(outDir) / "comm_group.json").string();
    job::JobReport report;
    {
        py::gil_scoped_release release;
        try {
            job::checkJobOutputs(layout_.ranks, options, true, reportPath);
        } catch (const std::runtime_error &e) {
            throw WriteError(outDir, std::string(e.what()) + "; nothing written");
        }
        std::filesystem::create_directories(outDir);
        report = job::buildJobReport(job::processRanks(layout_.ranks, options), layout_.worldSize);
        job::writeJobOutputs(report, commGroup, reportPath);
    }
    py::list et;
    for (const job::RankSummary &r : report.ranks)
        if (!r.et.empty())
            et.append((std::filesystem::path(outDir) / r.et).string());
    py::dict out;
    out["et"] = et;
    out["comm_group"] = commGroup;
    out["network"] = report.network.fitted ? py::object(py::str(job::networkFilePath(commGroup))) : py::object(py::none());
    out["report"] = reportPath;
    return out;
}

} // namespace linkscope::python
