#include "report/findingsreport.h"

#include "report/linkstable.h"

namespace linkscope::core {

namespace {
using json = nlohmann::ordered_json;

json orNull(std::int64_t value, std::int64_t absent = kNoId) { return value == absent ? json(nullptr) : json(value); }

json subjectJson(const DeviceTrace &trace, const HostTrace *host, const Finding &f)
{
    switch (f.subjectKind) {
    case SubjectKind::DeviceEvent: {
        if (!trace.contains(f.event))
            return nullptr;
        const DeviceEvent &e = trace.event(f.event);
        return {{"kind", "device_event"},
                {"name", std::string(trace.name(e))},
                {"category", std::string(trace.strings.at(e.categoryText))},
                {"pid", traceIdJson(trace, trace.threadKey(e).pid)},
                {"tid", traceIdJson(trace, trace.threadKey(e).tid)},
                {"ts_ns", e.ts},
                {"correlation", orNull(e.correlation)},
                {"ev_idx", orNull(e.evIdx)}};
    }
    case SubjectKind::HostNode: {
        if (!host || !host->contains(f.hostNode))
            return nullptr;
        const HostNode &n = host->node(f.hostNode);
        return {{"kind", "host_node"}, {"id", n.id}, {"name", std::string(host->name(n))}, {"rf_id", n.rfId}};
    }
    case SubjectKind::Trace:
        return {{"kind", "trace"}};
    }
    return nullptr;
}

json ruleComparisonJson(const RuleComparison &c)
{
    json rule;
    rule["policy"] = std::string(policyName(c.policy));
    rule["gpu_ops"] = c.gpuOps;
    rule["different_parent"] = c.differentParent.size();
    rule["collective_on_record_param_comms"] = c.collectiveOnRecordParamComms.size();
    rule["dropped"] = c.dropped.size();
    json by = json::object();
    for (int r = 0; r < kChakraDropReasonCount; ++r)
        by[std::string(chakraDropReasonName(static_cast<ChakraDropReason>(r)))] = c.droppedBy[static_cast<std::size_t>(r)];
    rule["dropped_by"] = std::move(by);
    rule["sync_edges"] = c.syncEdges;
    rule["sync_edges_lost"] = c.syncEdgesLost;
    return rule;
}

} // namespace

std::string findingsReportJson(const std::string &devicePath, const std::string &hostPath, const DeviceTrace &trace,
                               const HostTrace *host, const LinkSet &ls, const ChakraComparison *comparison,
                               const std::vector<Notice> *notices)
{
    json report;
    report["device"] = devicePath;
    report["host"] = hostPath.empty() ? json(nullptr) : json(hostPath);
    report["policy"] = std::string(policyName(ls.policy));
    const auto counts = countFindingsByKind(ls.findings);
    json summary = json::object();
    for (int k = 0; k < kFindingKindCount; ++k)
        summary[std::string(findingKindName(static_cast<FindingKind>(k)))] = counts[static_cast<std::size_t>(k)];
    report["summary"] = std::move(summary);
    if (comparison) {
        json compared;
        compared["chakra_1_0"] = ruleComparisonJson(comparison->chakra10);
        compared["chakra_pre_185"] = ruleComparisonJson(comparison->pre185);
        report["compared_with_chakra"] = std::move(compared);
    }
    if (notices) {
        json list = json::array();
        for (const Notice &n : *notices)
            list.push_back(
                {{"kind", std::string(noticeKindName(n.kind))}, {"count", n.count}, {"total", n.total}, {"message", n.message}});
        report["notices"] = std::move(list);
    }
    json list = json::array();
    for (const Finding &f : ls.findings) {
        json item;
        item["kind"] = std::string(findingKindName(f.kind));
        item["severity"] = std::string(findingSeverityName(f.severity));
        item["subject"] = subjectJson(trace, host, f);
        item["message"] = f.message;
        item["suggestion"] = f.suggestion;
        item["suggested_parent"] = cpuChoiceJson(trace, f.suggestedParent);
        list.push_back(std::move(item));
    }
    report["findings"] = std::move(list);
    return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; // paths need not be UTF-8
}

} // namespace linkscope::core
