#include "report/summaryreport.h"

#include "report/inspect.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>

namespace linkscope::core {

std::string durationText(Nanos ns)
{
    char text[48];
    const double v = double(ns);
    if (ns >= 1'000'000'000 || ns <= -1'000'000'000)
        std::snprintf(text, sizeof text, "%.3f s", v / 1e9);
    else if (ns >= 1'000'000 || ns <= -1'000'000)
        std::snprintf(text, sizeof text, "%.3f ms", v / 1e6);
    else if (ns >= 1'000 || ns <= -1'000)
        std::snprintf(text, sizeof text, "%.3f us", v / 1e3);
    else
        std::snprintf(text, sizeof text, "%" PRId64 " ns", static_cast<std::int64_t>(ns));
    return text;
}

namespace {

std::string fileName(const std::string &path) { return std::filesystem::path(path).filename().string(); }

std::string percent(double p)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", p);
    return text;
}

std::string pad(std::string s, std::size_t width, bool right = true)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

double share(Nanos part, Nanos whole) { return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0; }

std::size_t shown(std::size_t size, std::size_t top) { return top ? std::min(size, top) : size; }

nlohmann::json opsJson(const std::vector<SummaryOpStat> &ops, std::size_t top, Nanos extent, bool cpu)
{
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < shown(ops.size(), top); ++i) {
        const SummaryOpStat &op = ops[i];
        nlohmann::json j = {{"name", op.name},
                            {"category", op.category},
                            {"count", op.count},
                            {"total_ns", op.total},
                            {"mean_ns", op.mean()},
                            {"max_ns", op.max},
                            {"percent_of_extent", share(op.total, extent)}};
        if (cpu)
            j["self_ns"] = op.self;
        out.push_back(std::move(j));
    }
    return out;
}

nlohmann::json stepsJson(const TraceStats &s)
{
    const StepTimes t = s.stepTimes();
    nlohmann::json list = nlohmann::json::array();
    for (const SummaryStep &step : s.steps)
        list.push_back({{"step", step.number}, {"start_ns", step.start}, {"dur_ns", step.dur}});
    return {{"count", t.count},      {"mean_ns", t.mean}, {"min_ns", t.min},
            {"median_ns", t.median}, {"max_ns", t.max},   {"steps", std::move(list)}};
}

nlohmann::json traceJson(const TraceStats &s)
{
    nlohmann::json streams = nlohmann::json::array();
    for (const SummaryStream &st : s.streams)
        streams.push_back({{"label", st.label},
                           {"device", st.device},
                           {"stream", st.stream},
                           {"ops", st.ops},
                           {"busy_ns", st.busy},
                           {"utilisation_percent", s.percentOf(st.busy)},
                           {"comm_ns", st.comm},
                           {"comm_overlapped_ns", st.commOverlapped},
                           {"exposed_comm_ns", st.exposedComm()}});
    nlohmann::json devices = nlohmann::json::array();
    for (const SummaryDevice &d : s.devices)
        devices.push_back({{"device", d.device},
                           {"streams", d.streams},
                           {"ops", d.ops},
                           {"busy_ns", d.busy},
                           {"utilisation_percent", s.percentOf(d.busy)},
                           {"compute_ns", d.compute},
                           {"comm_ns", d.comm},
                           {"comm_overlapped_ns", d.commOverlapped},
                           {"exposed_comm_ns", d.exposedComm()}});
    return {{"start_ns", s.start},
            {"end_ns", s.end},
            {"extent_ns", s.span()},
            {"events", s.events},
            {"gpus", s.devices.size()},
            {"gpu_busy_ns", s.gpuBusy()},
            {"gpu_utilisation_percent", s.gpuUtilisation()},
            {"comm_ns", s.comm()},
            {"exposed_comm_ns", s.exposedComm()},
            {"streams", std::move(streams)},
            {"devices", std::move(devices)},
            {"steps", stepsJson(s)}};
}

Nanos extentOf(const SummaryReport &r)
{
    Nanos extent = 0;
    for (const SummaryPart &p : r.parts)
        if (p.stats)
            extent = std::max(extent, p.stats->span());
    return extent;
}

// RFC 4180 field.
std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

struct CsvRow {
    std::string section, rank, name, category, count, total, self, mean, max, pct, comm, exposed;
    std::string line() const
    {
        std::string out;
        for (const std::string *f :
             {&section, &rank, &name, &category, &count, &total, &self, &mean, &max, &pct, &comm, &exposed}) {
            if (!out.empty() || f != &section)
                out += ',';
            out += csvField(*f);
        }
        return out + '\n';
    }
};

std::string num(std::int64_t n) { return std::to_string(n); }

} // namespace

std::vector<SummaryOpStat> SummaryReport::gpuOps() const
{
    if (parts.size() == 1)
        return parts.front().stats ? parts.front().stats->gpuOps : std::vector<SummaryOpStat>{};
    std::vector<const std::vector<SummaryOpStat> *> lists;
    for (const SummaryPart &p : parts)
        if (p.stats)
            lists.push_back(&p.stats->gpuOps);
    return mergeOpStats(lists);
}

std::vector<SummaryOpStat> SummaryReport::cpuOps() const
{
    if (parts.size() == 1)
        return parts.front().stats ? parts.front().stats->cpuOps : std::vector<SummaryOpStat>{};
    std::vector<const std::vector<SummaryOpStat> *> lists;
    for (const SummaryPart &p : parts)
        if (p.stats)
            lists.push_back(&p.stats->cpuOps);
    return mergeOpStats(lists);
}

bool SummaryReport::hasErrors() const
{
    for (const SummaryPart &p : parts)
        if (!p.stats)
            return true;
    return parts.empty();
}

nlohmann::json summaryJson(const SummaryReport &report, std::size_t top)
{
    const Nanos extent = extentOf(report);
    nlohmann::json out;
    out["top"] = top;
    if (report.job) {
        out["job"] = report.folder;
        nlohmann::json ranks = nlohmann::json::array();
        for (const SummaryPart &p : report.parts) {
            nlohmann::json r = {{"rank", p.rank}, {"host", p.host}, {"device", p.device}};
            if (p.stats) {
                r.update(traceJson(*p.stats));
                r["gpu_ops"] = opsJson(p.stats->gpuOps, top, p.stats->span(), false);
                r["cpu_ops"] = opsJson(p.stats->cpuOps, top, p.stats->span(), true);
            } else {
                r["error"] = p.error;
            }
            r["warnings"] = warningsJson(p.warnings);
            ranks.push_back(std::move(r));
        }
        out["ranks"] = std::move(ranks);
        // The ops of every rank summed; percent is of the longest rank's extent.
        out["gpu_ops"] = opsJson(report.gpuOps(), top, extent, false);
        out["cpu_ops"] = opsJson(report.cpuOps(), top, extent, true);
        return out;
    }
    if (!report.parts.empty()) {
        const SummaryPart &p = report.parts.front();
        out["host"] = p.host;
        out["device"] = p.device;
        if (p.stats) {
            out.update(traceJson(*p.stats));
            out["gpu_ops"] = opsJson(p.stats->gpuOps, top, p.stats->span(), false);
            out["cpu_ops"] = opsJson(p.stats->cpuOps, top, p.stats->span(), true);
        } else {
            out["error"] = p.error;
        }
        out["warnings"] = warningsJson(p.warnings);
    }
    return out;
}

namespace {

void opsText(std::string &out, const char *title, const std::vector<SummaryOpStat> &ops, std::size_t top, Nanos extent, bool cpu)
{
    out += std::string(title)
           + (top && ops.size() > top ? " (top " + std::to_string(top) + " of " + std::to_string(ops.size()) + ")" : "") + ":\n";
    if (ops.empty()) {
        out += "  none\n";
        return;
    }
    out += "  " + pad("total", 12) + (cpu ? pad("self", 12) : "") + pad("count", 8) + pad("mean", 12) + pad("max", 12)
           + pad("% extent", 10) + "  name\n";
    for (std::size_t i = 0; i < shown(ops.size(), top); ++i) {
        const SummaryOpStat &op = ops[i];
        out += "  " + pad(durationText(op.total), 12) + (cpu ? pad(durationText(op.self), 12) : "")
               + pad(std::to_string(op.count), 8) + pad(durationText(op.mean()), 12) + pad(durationText(op.max), 12)
               + pad(percent(share(op.total, extent)), 10) + "  "
               + (cpu                       ? ""
                  : op.category == "kernel" ? ""
                                            : "[" + op.category + "] ")
               + op.name + '\n';
    }
}

void stepsLine(std::string &out, const TraceStats &s)
{
    const StepTimes t = s.stepTimes();
    if (!t.count) {
        out += "steps: none (no ProfilerStep#N span)\n";
        return;
    }
    out += "steps: " + std::to_string(t.count) + ", mean " + durationText(t.mean) + " (min " + durationText(t.min) + ", median "
           + durationText(t.median) + ", max " + durationText(t.max) + ")\n";
}

void traceText(std::string &out, const TraceStats &s, std::size_t top)
{
    out += "extent " + durationText(s.span()) + ", " + std::to_string(s.events) + " events; " + std::to_string(s.devices.size())
           + (s.devices.size() == 1 ? " GPU" : " GPUs") + ", utilisation " + percent(s.gpuUtilisation()) + " %\n";
    out += "communication " + durationText(s.comm()) + ", exposed " + durationText(s.exposedComm()) + " ("
           + percent(share(s.exposedComm(), s.comm())) + " % of it not overlapped by computation)\n";
    stepsLine(out, s);
    out += '\n';
    opsText(out, "GPU ops by total time", s.gpuOps, top, s.span(), false);
    out += '\n';
    opsText(out, "CPU ops by total time", s.cpuOps, top, s.span(), true);
    out += "\nGPU streams:\n";
    if (s.streams.empty())
        out += "  none\n";
    else
        out += "  " + pad("ops", 8) + pad("busy", 12) + pad("util %", 8) + pad("comm", 12) + pad("exposed", 12) + "  stream\n";
    for (const SummaryStream &st : s.streams)
        out += "  " + pad(std::to_string(st.ops), 8) + pad(durationText(st.busy), 12) + pad(percent(s.percentOf(st.busy)), 8)
               + pad(durationText(st.comm), 12) + pad(durationText(st.exposedComm()), 12) + "  " + st.label + '\n';
    for (const SummaryDevice &d : s.devices)
        out += "  " + pad(std::to_string(d.ops), 8) + pad(durationText(d.busy), 12) + pad(percent(s.percentOf(d.busy)), 8)
               + pad(durationText(d.comm), 12) + pad(durationText(d.exposedComm()), 12) + "  GPU " + std::to_string(d.device)
               + " (all streams)\n";
    if (!s.steps.empty()) {
        out += "\nSteps:\n";
        for (const SummaryStep &step : s.steps)
            out += "  ProfilerStep#" + std::to_string(step.number) + "  " + pad(durationText(step.dur), 12) + '\n';
    }
}

} // namespace

std::string summaryText(const SummaryReport &report, std::size_t top)
{
    std::string out;
    if (!report.job) {
        if (report.parts.empty())
            return out;
        const SummaryPart &p = report.parts.front();
        out += "Summary of " + fileName(p.device) + (p.host.empty() ? "" : " (host ET " + fileName(p.host) + ")") + '\n';
        if (!p.stats)
            return out + "could not be read: " + p.error + '\n';
        traceText(out, *p.stats, top);
        return out;
    }
    out += "Summary of the job in " + report.folder + ": " + std::to_string(report.parts.size()) + " ranks\n\n";
    out += "  " + pad("rank", 5) + pad("extent", 12) + pad("util %", 8) + pad("GPU busy", 12) + pad("comm", 12)
           + pad("exposed", 12) + pad("steps", 6) + pad("mean step", 12) + pad("max step", 12) + '\n';
    for (const SummaryPart &p : report.parts) {
        if (!p.stats) {
            out += "  " + pad(std::to_string(p.rank), 5) + "  could not be read: " + p.error + '\n';
            continue;
        }
        const TraceStats &s = *p.stats;
        const StepTimes t = s.stepTimes();
        out += "  " + pad(std::to_string(p.rank), 5) + pad(durationText(s.span()), 12) + pad(percent(s.gpuUtilisation()), 8)
               + pad(durationText(s.gpuBusy()), 12) + pad(durationText(s.comm()), 12) + pad(durationText(s.exposedComm()), 12)
               + pad(std::to_string(t.count), 6) + pad(t.count ? durationText(t.mean) : "-", 12)
               + pad(t.count ? durationText(t.max) : "-", 12) + '\n';
    }
    out += '\n';
    const Nanos extent = extentOf(report);
    opsText(out, "GPU ops by total time, all ranks", report.gpuOps(), top, extent, false);
    out += '\n';
    opsText(out, "CPU ops by total time, all ranks", report.cpuOps(), top, extent, true);
    return out;
}

std::string summaryCsv(const SummaryReport &report, std::size_t top)
{
    std::string out = CsvRow{"section", "rank",    "name",   "category", "count",   "total_ns",
                             "self_ns", "mean_ns", "max_ns", "percent",  "comm_ns", "exposed_comm_ns"}
                          .line();
    const Nanos extent = extentOf(report);
    auto ops = [&](const char *section, const std::vector<SummaryOpStat> &list, const std::string &rank, Nanos span) {
        for (std::size_t i = 0; i < shown(list.size(), top); ++i) {
            const SummaryOpStat &op = list[i];
            out += CsvRow{section,
                          rank,
                          op.name,
                          op.category,
                          num(std::int64_t(op.count)),
                          num(op.total),
                          num(op.self),
                          num(op.mean()),
                          num(op.max),
                          percent(share(op.total, span)),
                          "",
                          ""}
                       .line();
        }
    };
    for (const SummaryPart &p : report.parts) {
        if (!p.stats)
            continue;
        const TraceStats &s = *p.stats;
        const std::string rank = report.job ? num(p.rank) : "";
        if (report.job) {
            const StepTimes t = s.stepTimes();
            out += CsvRow{"rank",
                          rank,
                          "rank " + rank,
                          "",
                          num(std::int64_t(t.count)),
                          num(s.gpuBusy()),
                          "",
                          num(t.mean),
                          num(t.max),
                          percent(s.gpuUtilisation()),
                          num(s.comm()),
                          num(s.exposedComm())}
                       .line();
        } else {
            ops("gpu_op", s.gpuOps, rank, s.span());
            ops("cpu_op", s.cpuOps, rank, s.span());
        }
        for (const SummaryStream &st : s.streams)
            out += CsvRow{"stream",
                          rank,
                          st.label,
                          "GPU " + std::to_string(st.device),
                          num(std::int64_t(st.ops)),
                          num(st.busy),
                          "",
                          "",
                          "",
                          percent(s.percentOf(st.busy)),
                          num(st.comm),
                          num(st.exposedComm())}
                       .line();
        for (const SummaryDevice &d : s.devices)
            out +=
                CsvRow{"device", rank, "GPU " + std::to_string(d.device), "",          num(std::int64_t(d.ops)), num(d.busy), "",
                       "",       "",   percent(s.percentOf(d.busy)),      num(d.comm), num(d.exposedComm())}
                    .line();
        for (const SummaryStep &step : s.steps)
            out += CsvRow{"step",
                          rank,
                          "ProfilerStep#" + std::to_string(step.number),
                          "",
                          "1",
                          num(step.dur),
                          "",
                          "",
                          "",
                          percent(s.percentOf(step.dur)),
                          "",
                          ""}
                       .line();
    }
    if (report.job) {
        ops("gpu_op", report.gpuOps(), "", extent);
        ops("cpu_op", report.cpuOps(), "", extent);
    }
    return out;
}

} // namespace linkscope::core
