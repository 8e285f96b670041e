#include "pair.h"

#include "errors.h"

#include "edit/sidecar.h"
#include "export/exportrequest.h"
#include "export/targets.h"
#include "io/file/outputguard.h"
#include "link/finding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace linkscope::python {

namespace py = pybind11;
using namespace linkscope::core;

namespace {

std::string_view subjectKindName(SubjectKind kind)
{
    switch (kind) {
    case SubjectKind::DeviceEvent:
        return "device_event";
    case SubjectKind::HostNode:
        return "host_node";
    case SubjectKind::Trace:
        break;
    }
    return "trace";
}

// An id from the trace: missing when it is kNoId.
void pushId(Column &c, std::int64_t value, std::int64_t absent = kNoId) { Table::push(c, value, value == absent); }
void pushEvent(Column &c, EventIndex e) { Table::push(c, e.valid() ? static_cast<std::int64_t>(e.get()) : 0, !e.valid()); }

void addRank(Table &t, std::size_t rows, std::int64_t rank)
{
    if (rank >= 0)
        t.ints("rank").assign(rows, rank);
}

Table opsTable(const std::vector<SummaryOpStat> &ops, std::size_t top, const TraceStats &stats, bool cpu, std::int64_t rank)
{
    const std::size_t n = top ? std::min(top, ops.size()) : ops.size();
    Table t(n);
    addRank(t, n, rank);
    Column &name = t.category("name");
    Column &category = t.category("category");
    auto &count = t.ints("count");
    auto &total = t.ints("total_ns");
    std::vector<std::int64_t> *self = cpu ? &t.ints("self_ns") : nullptr;
    auto &mean = t.ints("mean_ns");
    auto &max = t.ints("max_ns");
    auto &percent = t.floats("percent_of_extent");
    Categories names, categories;
    for (std::size_t i = 0; i < n; ++i) {
        const SummaryOpStat &op = ops[i];
        name.codes.push_back(names.code(op.name));
        category.codes.push_back(categories.code(op.category));
        count.push_back(static_cast<std::int64_t>(op.count));
        total.push_back(op.total);
        if (self)
            self->push_back(op.self);
        mean.push_back(op.mean());
        max.push_back(op.max);
        percent.push_back(stats.percentOf(op.total));
    }
    name.labels = names.take();
    category.labels = categories.take();
    return t;
}

} // namespace

PairProgressFn interruptible()
{
    // Python runs signal handlers on its main thread only: the caller's thread (where the readers'
    // first chunk and the link run) checks, at most every 50 ms, with the GIL taken back for it.
    struct State {
        std::thread::id thread = std::this_thread::get_id();
        std::chrono::steady_clock::time_point next = std::chrono::steady_clock::now();
    };
    auto state = std::make_shared<State>();
    return [state](PairStage, std::uint64_t, std::uint64_t) {
        if (std::this_thread::get_id() != state->thread)
            return true;
        const auto now = std::chrono::steady_clock::now();
        if (now < state->next)
            return true;
        state->next = now + std::chrono::milliseconds(50);
        py::gil_scoped_acquire acquire;
        return PyErr_CheckSignals() == 0;
    };
}

Table gpuOpsTable(const TraceStats &stats, std::size_t top, std::int64_t rank)
{
    return opsTable(stats.gpuOps, top, stats, false, rank);
}
Table cpuOpsTable(const TraceStats &stats, std::size_t top, std::int64_t rank)
{
    return opsTable(stats.cpuOps, top, stats, true, rank);
}

Table streamsTable(const TraceStats &stats, std::int64_t rank)
{
    Table t(stats.streams.size());
    addRank(t, stats.streams.size(), rank);
    std::vector<std::string> labels;
    auto &device = t.ints("device");
    auto &stream = t.ints("stream");
    auto &ops = t.ints("ops");
    auto &busy = t.ints("busy_ns");
    auto &util = t.floats("utilisation_percent");
    auto &comm = t.ints("comm_ns");
    auto &overlapped = t.ints("comm_overlapped_ns");
    auto &exposed = t.ints("exposed_comm_ns");
    for (const SummaryStream &s : stats.streams) {
        labels.push_back(s.label);
        device.push_back(s.device);
        stream.push_back(s.stream);
        ops.push_back(static_cast<std::int64_t>(s.ops));
        busy.push_back(s.busy);
        util.push_back(stats.percentOf(s.busy));
        comm.push_back(s.comm);
        overlapped.push_back(s.commOverlapped);
        exposed.push_back(s.exposedComm());
    }
    t.strings("label", labels);
    return t;
}

Table devicesTable(const TraceStats &stats, std::int64_t rank)
{
    Table t(stats.devices.size());
    addRank(t, stats.devices.size(), rank);
    auto &device = t.ints("device");
    auto &streams = t.ints("streams");
    auto &ops = t.ints("ops");
    auto &busy = t.ints("busy_ns");
    auto &util = t.floats("utilisation_percent");
    auto &compute = t.ints("compute_ns");
    auto &comm = t.ints("comm_ns");
    auto &overlapped = t.ints("comm_overlapped_ns");
    auto &exposed = t.ints("exposed_comm_ns");
    for (const SummaryDevice &d : stats.devices) {
        device.push_back(d.device);
        streams.push_back(static_cast<std::int64_t>(d.streams));
        ops.push_back(static_cast<std::int64_t>(d.ops));
        busy.push_back(d.busy);
        util.push_back(stats.percentOf(d.busy));
        compute.push_back(d.compute);
        comm.push_back(d.comm);
        overlapped.push_back(d.commOverlapped);
        exposed.push_back(d.exposedComm());
    }
    return t;
}

Table stepsTable(const TraceStats &stats, std::int64_t rank)
{
    Table t(stats.steps.size());
    addRank(t, stats.steps.size(), rank);
    auto &step = t.ints("step");
    auto &start = t.ints("start_ns");
    auto &dur = t.ints("dur_ns");
    for (const SummaryStep &s : stats.steps) {
        step.push_back(s.number);
        start.push_back(s.start);
        dur.push_back(s.dur);
    }
    return t;
}

Pair::Pair(const PairOptions &options) : options_(options)
{
    PairRequest request;
    if (options.resolveOrder) {
        py::gil_scoped_release release;
        request.files = resolvePairFiles(options.host, options.device);
    } else {
        request.files = {options.host, options.device};
    }
    sidecarPath_ = options.sidecar.empty() ? defaultSidecarPath(request.files.device) : options.sidecar;
    request.policyGiven = !options.policy.empty();
    if (request.policyGiven) {
        const auto policy = policyFromName(options.policy);
        if (!policy)
            throw std::invalid_argument("unknown policy '" + options.policy + "' (nesting, external-id, ev-idx)");
        request.link.policy = *policy;
    }
    request.link.interThreadDeps = options.interThreadDeps;
    request.link.enclosureTolerance = options.toleranceNs;
    request.allowTruncated = options.allowTruncated;
    request.progress = interruptible(); // Ctrl+C stops a long read or link: KeyboardInterrupt
    // A sidecar on disk is read, fingerprinted, checked and applied as the GUI does (Session); without
    // one the inputs are not hashed until the first correction needs their fingerprints.
    std::error_code ec;
    if (std::filesystem::exists(sidecarPath_, ec)) {
        request.sidecarUse = SidecarUse::Session;
        request.sidecar = sidecarPath_;
        request.forceSidecar = options.forceCorrections;
    }
    py::gil_scoped_release release;
    pair_ = openPair(request);
}

Pair::~Pair() = default;

const LinkSet &Pair::links() const { return session_ ? session_->working() : *pair_.links; }

py::dict Pair::info() const
{
    const LinkSet &ls = links();
    std::size_t linked = 0;
    for (const GpuLink &l : ls.gpuLinks)
        linked += l.parent.valid() ? 1 : 0;
    py::dict d;
    d["host"] = pair_.files.host.empty() ? py::object(py::none()) : py::object(py::str(pair_.files.host));
    d["device"] = pair_.files.device;
    d["policy"] = std::string(policyName(ls.policy));
    d["events"] = pair_.device->events.size();
    d["host_nodes"] = pair_.host ? pair_.host->nodes.size() : 0;
    d["gpu_ops"] = ls.gpuLinks.size();
    d["linked"] = linked;
    d["findings"] = ls.findings.size();
    d["sidecar"] = sidecarPath_;
    const SidecarStatus &status = session_ ? session_->sidecar() : pair_.found.status;
    d["sidecar_state"] = std::string(
        sidecarStateName(session_ || !pair_.found.status.path.empty() ? status.state : SidecarState::None));
    d["sidecar_problems"] = status.problems;
    py::list warnings;
    for (const Diagnostic &w : pair_.device->warnings)
        warnings.append(w.toString());
    if (pair_.host)
        for (const Diagnostic &w : pair_.host->warnings)
            warnings.append(w.toString());
    for (const Diagnostic &w : ls.warnings)
        warnings.append(w.toString());
    d["warnings"] = warnings;
    return d;
}

py::dict Pair::linksTable() const
{
    const DeviceTrace &trace = *pair_.device;
    const HostTrace *host = pair_.host.get();
    const LinkSet &ls = links();
    Table t(ls.gpuLinks.size());
    {
        py::gil_scoped_release release;
        IdCategories names(trace.strings.size());
        const auto nameOf = [&](std::uint32_t id) { return std::string(trace.strings.at(id)); };
        auto &gpuEvent = t.ints("gpu_event");
        Column &pid = t.nullableInts("pid");
        Column &device = t.nullableInts("device");
        Column &stream = t.nullableInts("stream");
        Column &correlation = t.nullableInts("correlation");
        Column &name = t.category("name");
        auto &ts = t.ints("ts_ns");
        auto &dur = t.ints("dur_ns");
        Column &launch = t.nullableInts("launch_event");
        Column &parent = t.nullableInts("parent_event");
        Column &parentName = t.category("parent_name");
        Column &parentTs = t.nullableInts("parent_ts_ns");
        Column &parentEvIdx = t.nullableInts("parent_ev_idx");
        Column &parentExtId = t.nullableInts("parent_ext_id");
        Column &parentRfId = t.nullableInts("parent_rf_id");
        Column &parentHostId = t.nullableInts("parent_host_id");
        Column &rule = t.category("rule");
        Column &launchMatch = t.category("launch_match");
        Column &orphan = t.category("orphan");
        auto &confidence = t.floats("confidence");
        std::array<Column *, kPolicyCount> byPolicy{};
        for (int p = 0; p < kPolicyCount; ++p) {
            std::string policy(policyName(static_cast<Policy>(p)));
            for (char &c : policy)
                c = c == '-' ? '_' : c;
            byPolicy[static_cast<std::size_t>(p)] = &t.nullableInts(policy + "_parent_event");
        }
        for (int r = 0; r <= static_cast<int>(ParentRule::None); ++r)
            rule.labels.emplace_back(parentRuleName(static_cast<ParentRule>(r)));
        for (int m = 0; m <= static_cast<int>(LaunchMatch::None); ++m)
            launchMatch.labels.emplace_back(launchMatchName(static_cast<LaunchMatch>(m)));
        std::vector<std::int32_t> orphanCode;
        for (int o = 0; o <= static_cast<int>(OrphanReason::Detached); ++o) {
            if (static_cast<OrphanReason>(o) == OrphanReason::None) {
                orphanCode.push_back(-1);
                continue;
            }
            orphanCode.push_back(static_cast<std::int32_t>(orphan.labels.size()));
            orphan.labels.emplace_back(orphanReasonName(static_cast<OrphanReason>(o)));
        }
        for (const GpuLink &link : ls.gpuLinks) {
            const DeviceEvent &g = trace.event(link.gpuEvent);
            gpuEvent.push_back(static_cast<std::int64_t>(link.gpuEvent.get()));
            const TraceId &p = trace.threadKey(g).pid;
            Table::push(pid, p.value, p.isString);
            Table::push(device, g.device, g.device < 0);
            pushId(stream, g.stream);
            pushId(correlation, g.correlation);
            name.codes.push_back(names.code(g.name, nameOf));
            ts.push_back(g.ts);
            dur.push_back(g.dur);
            pushEvent(launch, link.launch);
            pushEvent(parent, link.parent);
            if (link.parent.valid()) {
                const DeviceEvent &e = trace.event(link.parent);
                parentName.codes.push_back(names.code(e.name, nameOf));
                Table::push(parentTs, e.ts, false);
                pushId(parentEvIdx, e.evIdx);
                pushId(parentExtId, e.externalId);
                Table::push(parentRfId, static_cast<std::int64_t>(e.rfId), e.rfId == 0);
            } else {
                parentName.codes.push_back(-1);
                for (Column *c : {&parentTs, &parentEvIdx, &parentExtId, &parentRfId})
                    Table::push(*c, 0, true);
            }
            const bool hasHost = host && link.hostNode.valid();
            Table::push(parentHostId, hasHost ? host->node(link.hostNode).id : 0, !hasHost);
            rule.codes.push_back(static_cast<std::int32_t>(link.rule));
            launchMatch.codes.push_back(static_cast<std::int32_t>(link.launchMatch));
            orphan.codes.push_back(orphanCode.at(static_cast<std::size_t>(link.orphan)));
            confidence.push_back(std::round(static_cast<double>(link.confidence) * 1000.0) / 1000.0);
            for (std::size_t p = 0; p < byPolicy.size(); ++p)
                pushEvent(*byPolicy[p], link.byPolicy[p]);
        }
        name.labels = names.take();
        // parent_name shares the name column's categories (both index `names`): filled below.
    }
    py::dict out = t.toPython();
    // parent_name's codes index the same categories as name's: give it the final list.
    py::tuple nameColumn = out["name"];
    py::tuple parentColumn = out["parent_name"];
    out["parent_name"] = py::make_tuple("cat", parentColumn[1], nameColumn[2]);
    return out;
}

py::dict Pair::findingsTable() const
{
    const DeviceTrace &trace = *pair_.device;
    const HostTrace *host = pair_.host.get();
    const LinkSet &ls = links();
    Table t(ls.findings.size());
    {
        py::gil_scoped_release release;
        Categories kinds, severities, subjects, names, messages, suggestions;
        auto &index = t.ints("finding");
        Column &kind = t.category("kind");
        Column &severity = t.category("severity");
        Column &subjectKind = t.category("subject_kind");
        Column &event = t.nullableInts("event");
        Column &hostNode = t.nullableInts("host_node_id");
        Column &name = t.category("name");
        Column &ts = t.nullableInts("ts_ns");
        Column &message = t.category("message");
        Column &suggestion = t.category("suggestion");
        Column &suggested = t.nullableInts("suggested_parent_event");
        Column &suggestedName = t.category("suggested_parent_name");
        Categories suggestedNames;
        for (std::size_t i = 0; i < ls.findings.size(); ++i) {
            const Finding &f = ls.findings[i];
            index.push_back(static_cast<std::int64_t>(i));
            kind.codes.push_back(kinds.code(findingKindName(f.kind)));
            severity.codes.push_back(severities.code(findingSeverityName(f.severity)));
            subjectKind.codes.push_back(subjects.code(subjectKindName(f.subjectKind)));
            if (f.subjectKind == SubjectKind::DeviceEvent && f.event.valid()) {
                const DeviceEvent &e = trace.event(f.event);
                pushEvent(event, f.event);
                name.codes.push_back(names.code(trace.name(e)));
                Table::push(ts, e.ts, false);
            } else if (f.subjectKind == SubjectKind::HostNode && host && f.hostNode.valid()) {
                pushEvent(event, EventIndex{});
                name.codes.push_back(names.code(host->name(host->node(f.hostNode))));
                Table::push(ts, 0, true);
            } else {
                pushEvent(event, EventIndex{});
                name.codes.push_back(-1);
                Table::push(ts, 0, true);
            }
            const bool hasNode = f.subjectKind == SubjectKind::HostNode && host && f.hostNode.valid();
            Table::push(hostNode, hasNode ? host->node(f.hostNode).id : 0, !hasNode);
            message.codes.push_back(messages.code(f.message));
            suggestion.codes.push_back(f.suggestion.empty() ? -1 : suggestions.code(f.suggestion));
            pushEvent(suggested, f.suggestedParent);
            suggestedName.codes.push_back(
                f.suggestedParent.valid() ? suggestedNames.code(trace.name(trace.event(f.suggestedParent))) : -1);
        }
        kind.labels = kinds.take();
        severity.labels = severities.take();
        subjectKind.labels = subjects.take();
        name.labels = names.take();
        message.labels = messages.take();
        suggestion.labels = suggestions.take();
        suggestedName.labels = suggestedNames.take();
    }
    return t.toPython();
}

const TraceStats &Pair::stats()
{
    if (!stats_) {
        py::gil_scoped_release release;
        stats_ = std::make_unique<TraceStats>(computeTraceStats(*pair_.device, *pair_.index));
    }
    return *stats_;
}

py::dict Pair::gpuOps(std::size_t top) { return gpuOpsTable(stats(), top).toPython(); }
py::dict Pair::cpuOps(std::size_t top) { return cpuOpsTable(stats(), top).toPython(); }
py::dict Pair::streams() { return streamsTable(stats()).toPython(); }
py::dict Pair::devices() { return devicesTable(stats()).toPython(); }
py::dict Pair::steps() { return stepsTable(stats()).toPython(); }

EventIndex Pair::eventArg(std::int64_t event, const char *what) const
{
    if (event < 0 || static_cast<std::uint64_t>(event) >= pair_.device->events.size())
        throw py::index_error(std::string(what) + " " + std::to_string(event) + " is not an event of " + pair_.files.device);
    return EventIndex::at(static_cast<std::size_t>(event));
}

CorrectionSession &Pair::session()
{
    if (session_)
        return *session_;
    SidecarFound found;
    {
        py::gil_scoped_release release;
        if (!pair_.found.status.path.empty()) {
            found = pair_.found; // openPair read and checked it (Session)
        } else {
            found = readSidecarAt(sidecarPath_);
            const LoadedInputs inputs{pair_.files.device, pair_.device->sourceIdentity, pair_.files.host,
                                      pair_.host ? pair_.host->sourceIdentity : FileIdentity{}};
            checkSidecar(found, inputs, options_.forceCorrections);
        }
    }
    if (!found.inputsError.empty())
        throw CorrectionError(found.inputsError);
    const SidecarState state = found.status.state;
    if (state == SidecarState::Mismatch || state == SidecarState::Invalid) {
        std::string why = sidecarPath_ + (state == SidecarState::Mismatch ? ": made from other inputs" : ": unreadable");
        for (const std::string &p : found.status.problems)
            why += "; " + p;
        throw CorrectionError(
            why + (state == SidecarState::Mismatch ? " (open with force_corrections=True to apply it anyway)" : ""));
    }
    auto s = std::make_unique<CorrectionSession>();
    s->generator = "linkscope " LINKSCOPE_VERSION " (python)";
    s->adopt(std::move(found));
    s->setLinkOptions(pair_.options.policy, pair_.options.interThreadDeps);
    {
        py::gil_scoped_release release;
        s->attach(pair_.linked, *pair_.device, pair_.host.get());
    }
    session_ = std::move(s);
    return *session_;
}

py::list Pair::push(LogEntry entry)
{
    CorrectionSession &s = session();
    if (entry.label.empty())
        entry.label = entry.edits.size() == 1 ? entry.edits.front().describe() : std::to_string(entry.edits.size()) + " edits";
    std::vector<EditOutcome> outcomes;
    {
        py::gil_scoped_release release;
        outcomes = s.push(std::move(entry));
    }
    if (!s.lastSaveError().empty())
        throw CorrectionError(sidecarPath_ + ": " + s.lastSaveError());
    py::list out;
    for (const EditOutcome &o : outcomes) {
        py::dict d;
        d["entry"] = o.entry;
        d["edit"] = o.edit;
        d["status"] = std::string(editStatusName(o.status));
        d["reason"] = o.reason;
        out.append(d);
    }
    return out;
}

py::list Pair::reparent(std::int64_t gpuEvent, std::int64_t parentEvent, const std::string &label)
{
    const EventIndex gpu = eventArg(gpuEvent, "gpu_event"), parent = eventArg(parentEvent, "parent_event");
    return push({label, {session().editor().reparent(gpu, parent)}});
}
py::list Pair::detach(std::int64_t gpuEvent, const std::string &label)
{
    const EventIndex gpu = eventArg(gpuEvent, "gpu_event");
    return push({label, {session().editor().detach(gpu)}});
}
py::list Pair::restore(std::int64_t gpuEvent, const std::string &label)
{
    const EventIndex gpu = eventArg(gpuEvent, "gpu_event");
    return push({label, {session().editor().restore(gpu)}});
}
py::list Pair::flag(std::int64_t event, const std::string &note, const std::string &label)
{
    const EventIndex e = eventArg(event, "event");
    return push({label, {session().editor().flag(e, note)}});
}
py::list Pair::note(std::int64_t event, const std::string &text, const std::string &label)
{
    const EventIndex e = eventArg(event, "event");
    return push({label, {session().editor().note(e, text)}});
}
py::list Pair::applySuggestions(const std::string &findingKind, const std::string &label)
{
    const auto kind = findingKindFromName(findingKind);
    if (!kind)
        throw std::invalid_argument("unknown finding kind '" + findingKind + "'");
    LogEntry entry = session().editor().applySuggestions(*kind);
    if (entry.edits.empty())
        return py::list();
    entry.label = label.empty() ? "apply suggestions: " + findingKind : label;
    return push(std::move(entry));
}

bool Pair::undo()
{
    if (!session_ && pair_.found.status.path.empty())
        return false; // no sidecar at open, no correction since
    CorrectionSession &s = session();
    if (s.log().entries.empty())
        return false;
    bool undone = false;
    {
        py::gil_scoped_release release;
        undone = s.undo();
    }
    if (!s.lastSaveError().empty())
        throw CorrectionError(sidecarPath_ + ": " + s.lastSaveError());
    return undone;
}

py::dict Pair::correctionsTable() const
{
    CorrectionLog log;
    if (session_)
        log = session_->log();
    else if (pair_.sidecarApplied && pair_.sidecar)
        log = pair_.sidecar->log;
    Table t;
    auto &entry = t.ints("entry");
    auto &edit = t.ints("edit");
    std::vector<std::string> labels, kinds, descriptions, notes;
    for (std::size_t i = 0; i < log.entries.size(); ++i) {
        for (std::size_t j = 0; j < log.entries[i].edits.size(); ++j) {
            const Edit &e = log.entries[i].edits[j];
            entry.push_back(static_cast<std::int64_t>(i));
            edit.push_back(static_cast<std::int64_t>(j));
            labels.push_back(log.entries[i].label);
            kinds.emplace_back(editKindName(e.kind));
            descriptions.push_back(e.describe());
            notes.push_back(e.note);
        }
    }
    t.strings("label", labels);
    t.strings("kind", kinds);
    t.strings("description", descriptions);
    t.strings("note", notes);
    return t.toPython();
}

py::dict Pair::exportTo(const py::dict &outputs, const std::string &target, bool gzip)
{
    ExportRequest request;
    request.gzip = gzip;
    if (!target.empty()) {
        const auto t = etTargetFromName(target);
        if (!t)
            throw std::invalid_argument("unknown .et target '" + target + "' (chakra, astra-sim)");
        request.chakra.target = *t;
    }
    std::vector<NamedFile> written;
    for (const auto &[key, value] : outputs) {
        if (value.is_none())
            continue;
        const std::string name = py::str(key);
        const ExportTarget *row = exportTargets().find(name);
        if (!row)
            throw std::invalid_argument("unknown export target '" + name + "'");
        const std::string path = py::str(value);
        request.outputs[row->name] = path;
        written.push_back({row->title + " output", path});
    }
    if (request.outputs.empty())
        throw std::invalid_argument("nothing to export: give a path for at least one target");
    ExportReport report;
    {
        py::gil_scoped_release release;
        checkOutputs(
            written,
            {{"host trace", pair_.files.host}, {"device trace", pair_.files.device}, {"corrections sidecar", sidecarPath_}});
        report = exportLinkedPair(pair_.host.get(), *pair_.device, links(), request);
    }
    py::dict out;
    for (const auto &[name, bytes] : report.bytes)
        out[py::str(name)] = bytes;
    return out;
}

} // namespace linkscope::python
