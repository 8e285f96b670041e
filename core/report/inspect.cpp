#include "report/inspect.h"

#include "export/chakra/etformat.h"
#include "link/hostjoin.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <ostream>
#include <set>
#include <sstream>

namespace linkscope::core {

namespace {

std::string layoutName(HostLayout l) { return l == HostLayout::Flat ? "flat (1.0.0/1.0.1)" : "nested (1.0.2+)"; }

void summariseDevice(const DeviceTrace &t, TraceSummary &s)
{
    s.wasGzip = t.wasGzip;
    s.sourceBytes = t.sourceBytes;
    s.schema = t.schemaVersion >= 0 ? std::to_string(t.schemaVersion) : std::string();
    s.events = t.events.size();
    s.collectives = t.collectives.size();
    s.namedThreads = t.threadNames.size();
    s.baseTimeNs = t.baseTimeNs;
    s.distributed = t.distributed;
    s.devices = t.devices.size();
    std::set<ThreadKey> threads;
    std::set<std::pair<std::int64_t, std::int64_t>> streams;
    std::map<std::int64_t, std::size_t> cpuPids;
    for (const DeviceEvent &e : t.events) {
        const std::string_view cat = t.strings.at(e.categoryText);
        ++s.eventsByCategory[cat.empty() ? std::string("(none)") : std::string(cat)];
        if (e.phase == Phase::Metadata)
            continue;
        if (!s.firstTs || e.ts < *s.firstTs)
            s.firstTs = e.ts;
        if (!s.lastEnd || e.end() > *s.lastEnd)
            s.lastEnd = e.end();
        if (isGpuOpCategory(e.category)) {
            streams.insert({e.device, e.stream});
        } else if (isCpuOpCategory(e.category) || isRuntimeCategory(e.category) || e.category == EventCategory::PythonFunction
                   || e.category == EventCategory::CpuInstant) {
            threads.insert(t.threadKey(e));
            if (isCpuOpCategory(e.category) && !t.threadKey(e).pid.isString)
                ++cpuPids[t.threadKey(e).pid.value];
        }
    }
    s.cpuThreads = threads.size();
    s.gpuStreams = streams.size();
    std::size_t best = 0;
    for (const auto &[pid, count] : cpuPids)
        if (count > best) {
            best = count;
            s.pid = pid;
        }
    s.warnings = t.warnings;
}

void summariseHost(const HostTrace &t, TraceSummary &s)
{
    s.wasGzip = t.wasGzip;
    s.sourceBytes = t.sourceBytes;
    s.schema = t.schema;
    s.layout = t.layout;
    s.pid = t.pid;
    s.nodes = t.nodes.size();
    s.roots = t.roots.size();
    s.recoveredTruncation = t.recoveredTruncation;
    s.startTs = t.startTs;
    s.finishTs = t.finishTs;
    s.time = t.time;
    s.commNodes = t.commAttrs.size();
    std::set<std::int64_t> tids;
    for (const HostNode &n : t.nodes) {
        if (n.tid >= 0)
            tids.insert(n.tid);
        s.nodesWithRfId += n.rfId != 0;
        s.parentMissing += n.parentMissing;
    }
    s.hostThreads = tids.size();
    s.warnings = t.warnings;
}

std::string formatBytes(std::uint64_t b)
{
    char buf[64];
    if (b >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MB", double(b) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
    return buf;
}

std::string formatMs(Nanos ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

} // namespace

nlohmann::json warningsJson(const std::vector<Diagnostic> &warnings)
{
    nlohmann::json out = nlohmann::json::array();
    for (const Diagnostic &d : warnings) {
        nlohmann::json w = {{"message", d.message}, {"file", d.file}};
        w["severity"] = d.severity == Diagnostic::Severity::Error  ? "error"
                        : d.severity == Diagnostic::Severity::Info ? "info"
                                                                   : "warning";
        if (d.offset != kUnknownOffset)
            w["offset"] = d.offset;
        out.push_back(std::move(w));
    }
    return out;
}

bool InspectReport::allLoaded() const
{
    return std::all_of(traces.begin(), traces.end(), [](const TraceSummary &s) { return s.loaded; });
}

InspectReport inspectTraces(const std::vector<std::string> &paths)
{
    InspectReport report;
    std::vector<std::optional<HostTrace>> hosts(paths.size());
    std::vector<std::optional<DeviceTrace>> devices(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        TraceSummary s;
        s.path = paths[i];
        try {
            const InputFormat *format = detectInputFormat(paths[i]);
            if (!format)
                throw LoadError(paths[i], 0,
                                "not a recognised trace: neither a host execution trace (\"nodes\"), a Kineto trace "
                                "(\"traceEvents\") nor a Chakra protobuf .et file");
            s.kind = format->kind;
            s.pairable = format->role == TraceRole::Host || format->role == TraceRole::Device;
            if (format->readDevice) {
                devices[i] = format->readDevice(paths[i], {});
                summariseDevice(*devices[i], s);
                s.content = TraceSummary::Content::Device;
            } else if (format->readHost) {
                hosts[i] = format->readHost(paths[i], {});
                summariseHost(*hosts[i], s);
                s.content = TraceSummary::Content::Host;
            } else if (format->kind == kChakraEtKind) {
                // Streamed: a multi-gigabyte .et is summarised without a Node per op in memory.
                s.chakraSummary = summarizeEtFile(paths[i]);
                s.wasGzip = (*s.chakraSummary)["gzip"].get<bool>();
                s.sourceBytes = (*s.chakraSummary)["bytes"].get<std::uint64_t>();
                for (const auto &w : (*s.chakraSummary)["warnings"])
                    s.warnings.push_back({Diagnostic::Severity::Warning, {}, kUnknownOffset, w.get<std::string>()});
                s.content = TraceSummary::Content::ChakraEt;
            } else {
                throw LoadError(paths[i], 0, "a " + format->name + ": Linkscope recognises it but has no reader for it");
            }
            s.loaded = true;
        } catch (const LoadError &e) {
            s.error = e.what();
        } catch (const std::exception &e) {
            // Nothing else is expected; if it comes, it is about this file, and the others go on.
            s.error = paths[i] + ": " + e.what();
        }
        report.traces.push_back(std::move(s));
    }

    // Pair host and device traces of the same process by pid; the rest in argument order.
    std::vector<std::size_t> hostIdx, deviceIdx;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (hosts[i] && report.traces[i].pairable)
            hostIdx.push_back(i);
        if (devices[i] && report.traces[i].pairable)
            deviceIdx.push_back(i);
    }
    std::vector<bool> deviceUsed(paths.size(), false), hostUsed(paths.size(), false);
    for (std::size_t h : hostIdx) {
        for (std::size_t d : deviceIdx) {
            if (!deviceUsed[d] && report.traces[h].pid >= 0 && report.traces[h].pid == report.traces[d].pid) {
                report.pairs.push_back(PairSummary{h, d, "pid", {}, {}});
                deviceUsed[d] = hostUsed[h] = true;
                break;
            }
        }
    }
    std::vector<std::size_t> restHosts, restDevices;
    for (std::size_t h : hostIdx)
        if (!hostUsed[h])
            restHosts.push_back(h);
    for (std::size_t d : deviceIdx)
        if (!deviceUsed[d])
            restDevices.push_back(d);
    for (std::size_t k = 0; k < std::min(restHosts.size(), restDevices.size()); ++k)
        report.pairs.push_back(PairSummary{restHosts[k], restDevices[k], "argument order", {}, {}});
    std::sort(report.pairs.begin(), report.pairs.end(),
              [](const PairSummary &a, const PairSummary &b) { return a.host < b.host; });
    for (PairSummary &p : report.pairs) {
        HostJoin join = joinHostToDevice(*hosts[p.host], *devices[p.device]);
        p.stats = join.stats;
        p.warnings = std::move(join.warnings);
        if (p.pairedBy != "pid" && report.traces[p.host].pid >= 0 && report.traces[p.device].pid >= 0)
            p.warnings.push_back(Diagnostic{Diagnostic::Severity::Warning, "", kUnknownOffset,
                                            "paired by argument order, but the pids differ (host "
                                                + std::to_string(report.traces[p.host].pid) + ", device "
                                                + std::to_string(report.traces[p.device].pid) + ")"});
    }
    return report;
}

namespace {

// One figure of `linkscope inspect`: its text and its --json fields side by side, so that a figure is
// added in one place. `text` writes whole lines, or none when the figure does not apply to this
// subject; `json` sets the figure's fields (JSON keeps them even where the text leaves a line out).
template <class Subject>
struct Figure {
    std::function<void(std::ostream &, const Subject &)> text;
    std::function<void(nlohmann::json &, const Subject &)> json;
};
using TraceFigure = Figure<TraceSummary>;

struct PairView {
    const InspectReport &report;
    const PairSummary &pair;
};
using PairFigure = Figure<PairView>;

std::string orAbsent(const std::string &text) { return text.empty() ? "(absent)" : text; }

TraceFigure countFigure(const char *label, const char *key, std::size_t TraceSummary::*count)
{
    return {[=](std::ostream &out, const TraceSummary &s) { out << "  " << label << ": " << s.*count << '\n'; },
            [=](nlohmann::json &j, const TraceSummary &s) { j[key] = s.*count; }};
}

template <class Subject>
Figure<Subject> warningsFigure(const std::vector<Diagnostic> &(*warningsOf)(const Subject &))
{
    return {[=](std::ostream &out, const Subject &subject) {
                const std::vector<Diagnostic> &warnings = warningsOf(subject);
                out << "  warnings: " << warnings.size() << '\n';
                for (const Diagnostic &d : warnings)
                    out << "    - " << d.toString() << '\n';
            },
            [=](nlohmann::json &j, const Subject &subject) { j["warnings"] = warningsJson(warningsOf(subject)); }};
}

const std::vector<TraceFigure> &deviceFigures()
{
    static const std::vector<TraceFigure> figures = {
        {[](std::ostream &out, const TraceSummary &s) { out << "  schemaVersion: " << orAbsent(s.schema) << '\n'; },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["schemaVersion"] = s.schema.empty() ? nlohmann::json() : nlohmann::json(std::stoll(s.schema));
         }},
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.pid >= 0)
                 out << "  pid (CPU ops): " << s.pid << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) { j["pid"] = s.pid >= 0 ? nlohmann::json(s.pid) : nlohmann::json(); }},
        {[](std::ostream &out, const TraceSummary &s) {
             out << "  events: " << s.events << '\n';
             std::vector<std::pair<std::string, std::size_t>> cats(s.eventsByCategory.begin(), s.eventsByCategory.end());
             std::sort(cats.begin(), cats.end(), [](const auto &a, const auto &b) {
                 return a.second > b.second || (a.second == b.second && a.first < b.first);
             });
             for (const auto &[cat, count] : cats)
                 out << "    " << cat << ": " << count << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["events"] = s.events;
             j["eventsByCategory"] = s.eventsByCategory;
         }},
        {[](std::ostream &out, const TraceSummary &s) {
             out << "  CPU threads: " << s.cpuThreads << " (" << s.namedThreads << " named)\n";
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["cpuThreads"] = s.cpuThreads;
             j["namedThreads"] = s.namedThreads;
         }},
        countFigure("GPU streams", "gpuStreams", &TraceSummary::gpuStreams),
        countFigure("collectives", "collectives", &TraceSummary::collectives),
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.firstTs)
                 out << "  time span: " << *s.firstTs << " … " << *s.lastEnd << " ns (" << formatMs(*s.lastEnd - *s.firstTs)
                     << ")"
                     << (s.baseTimeNs ? ", relative to baseTimeNanoseconds " + std::to_string(*s.baseTimeNs) : std::string())
                     << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             if (s.firstTs)
                 j["timeSpan"] = {{"firstNs", *s.firstTs}, {"lastNs", *s.lastEnd}, {"durationNs", *s.lastEnd - *s.firstTs}};
             if (s.baseTimeNs)
                 j["baseTimeNanoseconds"] = *s.baseTimeNs;
         }},
        countFigure("devices", "devices", &TraceSummary::devices),
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.distributed)
                 out << "  distributed: backend " << (s.distributed->backend.empty() ? "?" : s.distributed->backend) << ", rank "
                     << s.distributed->rank << " of "
                     << (s.distributed->worldSize >= 0 ? std::to_string(s.distributed->worldSize) : std::string("?")) << ", "
                     << s.distributed->processGroups.size() << " process group(s)\n";
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             if (s.distributed)
                 j["distributed"] = {{"backend", s.distributed->backend},
                                     {"rank", s.distributed->rank},
                                     {"worldSize", s.distributed->worldSize},
                                     {"ncclVersion", s.distributed->ncclVersion},
                                     {"processGroups", s.distributed->processGroups.size()}};
         }},
    };
    return figures;
}

const std::vector<TraceFigure> &hostFigures()
{
    static const std::vector<TraceFigure> figures = {
        {[](std::ostream &out, const TraceSummary &s) {
             out << "  schema: " << orAbsent(s.schema) << ", layout " << layoutName(*s.layout) << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["schema"] = s.schema;
             j["layout"] = *s.layout == HostLayout::Flat ? "flat" : "nested";
         }},
        {[](std::ostream &out, const TraceSummary &s) { out << "  pid: " << s.pid << ", time: " << s.time << '\n'; },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["pid"] = s.pid;
             j["time"] = s.time;
         }},
        {[](std::ostream &out, const TraceSummary &s) {
             out << "  nodes: " << s.nodes << " (" << s.nodesWithRfId << " with rf_id), roots: " << s.roots
                 << ", threads: " << s.hostThreads << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["nodes"] = s.nodes;
             j["nodesWithRfId"] = s.nodesWithRfId;
             j["roots"] = s.roots;
             j["threads"] = s.hostThreads;
         }},
        countFigure("record_param_comms with comm attrs", "commNodes", &TraceSummary::commNodes),
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.parentMissing)
                 out << "  nodes whose parent is missing: " << s.parentMissing << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) { j["parentMissing"] = s.parentMissing; }},
        {[](std::ostream &out, const TraceSummary &s) {
             out << "  start_ts … finish_ts: " << s.startTs << " … " << s.finishTs << " (steady-clock ms, not Kineto time)\n";
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             j["startTs"] = s.startTs;
             j["finishTs"] = s.finishTs;
         }},
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.recoveredTruncation)
                 out << "  recovered from truncation: yes\n";
         },
         [](nlohmann::json &j, const TraceSummary &s) { j["recoveredTruncation"] = s.recoveredTruncation; }},
    };
    return figures;
}

const std::vector<TraceFigure> &chakraFigures()
{
    static const std::vector<TraceFigure> figures = {
        {[](std::ostream &out, const TraceSummary &s) {
             if (s.chakraSummary)
                 out << "  summary (as `linkscope dump FILE --summary`): " << s.chakraSummary->dump() << '\n';
         },
         [](nlohmann::json &j, const TraceSummary &s) {
             if (s.chakraSummary)
                 j["summary"] = *s.chakraSummary;
         }},
    };
    return figures;
}

// The figures of a loaded trace, in print order: its size, what its kind has, its warnings.
std::vector<const TraceFigure *> traceFigures(TraceSummary::Content content)
{
    // The size finishes the "kind:" line, which is printed before we know the trace loaded.
    static const TraceFigure size = {[](std::ostream &out, const TraceSummary &s) {
                                         out << (s.wasGzip ? " (gzip, " : " (") << formatBytes(s.sourceBytes)
                                             << (s.wasGzip ? " decompressed)" : ")") << '\n';
                                     },
                                     [](nlohmann::json &j, const TraceSummary &s) {
                                         j["gzip"] = s.wasGzip;
                                         j["decompressedBytes"] = s.sourceBytes;
                                     }};
    static const TraceFigure warnings = warningsFigure<TraceSummary>(
        [](const TraceSummary &s) -> const std::vector<Diagnostic> & { return s.warnings; });
    static const std::vector<TraceFigure> none;
    using Content = TraceSummary::Content;
    const std::vector<TraceFigure> &ofKind = content == Content::Device     ? deviceFigures()
                                             : content == Content::Host     ? hostFigures()
                                             : content == Content::ChakraEt ? chakraFigures()
                                                                            : none;
    std::vector<const TraceFigure *> figures{&size};
    for (const TraceFigure &figure : ofKind)
        figures.push_back(&figure);
    figures.push_back(&warnings);
    return figures;
}

const std::vector<PairFigure> &pairFigures()
{
    static const std::vector<PairFigure> figures = {
        {[](std::ostream &out, const PairView &v) {
             out << "pair: " << v.report.traces[v.pair.host].path << " + " << v.report.traces[v.pair.device].path << " (by "
                 << v.pair.pairedBy << ")\n";
         },
         [](nlohmann::json &j, const PairView &v) {
             j["host"] = v.report.traces[v.pair.host].path;
             j["device"] = v.report.traces[v.pair.device].path;
             j["pairedBy"] = v.pair.pairedBy;
         }},
        {[](std::ostream &out, const PairView &v) {
             const HostJoinStats &st = v.pair.stats;
             out << "  join: " << hostJoinMethodName(st.method);
             if (st.method == HostJoinMethod::EvIdxOffset || st.method == HostJoinMethod::ExternalIdOffset)
                 out << " (offset " << st.offset << ")";
             out << '\n';
         },
         [](nlohmann::json &j, const PairView &v) {
             j["method"] = std::string(hostJoinMethodName(v.pair.stats.method));
             j["offset"] = v.pair.stats.offset;
         }},
        {[](std::ostream &out, const PairView &v) {
             const HostJoinStats &st = v.pair.stats;
             char pct[32];
             std::snprintf(pct, sizeof pct, "%.1f%%",
                           st.hostNodesWithRfId ? 100.0 * double(st.matched) / double(st.hostNodesWithRfId) : 0.0);
             out << "  host nodes with rf_id matched: " << st.matched << " / " << st.hostNodesWithRfId << " (" << pct << ")\n";
         },
         [](nlohmann::json &j, const PairView &v) {
             const HostJoinStats &st = v.pair.stats;
             j["matched"] = st.matched;
             j["hostNodesWithRfId"] = st.hostNodesWithRfId;
             j["coverage"] = st.hostNodesWithRfId ? double(st.matched) / double(st.hostNodesWithRfId) : 0.0;
         }},
        {[](std::ostream &out, const PairView &v) {
             out << "  device CPU ops: " << v.pair.stats.deviceCpuOps
                 << ", name mismatches among matches: " << v.pair.stats.nameMismatches << '\n';
         },
         [](nlohmann::json &j, const PairView &v) {
             j["deviceCpuOps"] = v.pair.stats.deviceCpuOps;
             j["nameMismatches"] = v.pair.stats.nameMismatches;
         }},
        warningsFigure<PairView>([](const PairView &v) -> const std::vector<Diagnostic> & { return v.pair.warnings; }),
    };
    return figures;
}

} // namespace

std::string formatInspectText(const InspectReport &report)
{
    std::ostringstream out;
    for (const TraceSummary &s : report.traces) {
        out << s.path << '\n';
        out << "  kind: " << s.kind;
        if (!s.loaded) {
            out << "\n  error: " << s.error << "\n\n";
            continue;
        }
        for (const TraceFigure *figure : traceFigures(s.content))
            figure->text(out, s);
        out << '\n';
    }
    for (const PairSummary &p : report.pairs) {
        for (const PairFigure &figure : pairFigures())
            figure.text(out, PairView{report, p});
        out << '\n';
    }
    return out.str();
}

nlohmann::json inspectToJson(const InspectReport &report)
{
    nlohmann::json traces = nlohmann::json::array();
    for (const TraceSummary &s : report.traces) {
        nlohmann::json j = {{"path", s.path}, {"kind", s.kind}, {"loaded", s.loaded}};
        if (!s.loaded)
            j["error"] = s.error;
        else
            for (const TraceFigure *figure : traceFigures(s.content))
                figure->json(j, s);
        traces.push_back(std::move(j));
    }
    nlohmann::json pairs = nlohmann::json::array();
    for (const PairSummary &p : report.pairs) {
        nlohmann::json j = nlohmann::json::object();
        for (const PairFigure &figure : pairFigures())
            figure.json(j, PairView{report, p});
        pairs.push_back(std::move(j));
    }
    return {{"traces", traces}, {"pairs", pairs}};
}

} // namespace linkscope::core
