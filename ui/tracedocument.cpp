#include "tracedocument.h"

#include <algorithm>
#include <limits>

namespace linkscope::ui {

namespace {

void throwIfCancelled(const std::atomic<bool> *cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw core::Cancelled();
}

// The rules a policy applies first; anything else it returned is its fallback.
bool isPrimaryRule(core::Policy policy, core::ParentRule rule)
{
    switch (policy) {
    case core::Policy::Nesting:
        return rule == core::ParentRule::Nesting || rule == core::ParentRule::NestingAncestor;
    case core::Policy::ExternalId:
        return rule == core::ParentRule::ExternalId;
    case core::Policy::EvIdx:
        return rule == core::ParentRule::LatestStarting;
    }
    return false;
}

struct TimeKeyed {
    core::Nanos time;
    std::uint32_t id;
};

// Stable LSD radix sort on time (11-bit digits, only as many passes as the time span needs).
// A comparison sort of 10M (time, id) pairs takes seconds on a busy 2-core machine; this is a few
// hundred milliseconds, and stability keeps equal times in id order.
void radixSortByTime(std::vector<TimeKeyed> &items)
{
    if (items.size() < 2)
        return;
    core::Nanos lo = items.front().time, hi = lo;
    for (const TimeKeyed &item : items) {
        lo = std::min(lo, item.time);
        hi = std::max(hi, item.time);
    }
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    constexpr int kBits = 11;
    constexpr std::size_t kBuckets = std::size_t(1) << kBits;
    std::vector<TimeKeyed> buffer(items.size());
    for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
        std::vector<std::size_t> counts(kBuckets + 1, 0);
        auto digit = [&](const TimeKeyed &item) {
            return ((static_cast<std::uint64_t>(item.time) - static_cast<std::uint64_t>(lo)) >> shift) & (kBuckets - 1);
        };
        for (const TimeKeyed &item : items)
            ++counts[digit(item) + 1];
        for (std::size_t b = 1; b <= kBuckets; ++b)
            counts[b] += counts[b - 1];
        for (const TimeKeyed &item : items)
            buffer[counts[digit(item)]++] = item;
        items.swap(buffer);
    }
}

LaneRows buildLaneRows(const core::Lane &lane, const core::TraceIndex &index, const core::DeviceTrace &trace)
{
    LaneRows rows;
    std::size_t rowCount = std::max<std::size_t>(lane.rowCount, 1);
    for (std::uint32_t e : lane.events)
        rowCount = std::max<std::size_t>(rowCount, std::size_t(index.depth[e]) + 1);
    rows.rowBegin.assign(rowCount + 1, 0);
    for (std::uint32_t e : lane.events)
        ++rows.rowBegin[std::size_t(index.depth[e]) + 1];
    for (std::size_t r = 1; r <= rowCount; ++r)
        rows.rowBegin[r] += rows.rowBegin[r - 1];
    rows.events.resize(lane.events.size());
    rows.starts.resize(lane.events.size());
    std::vector<std::uint32_t> fill(rows.rowBegin.begin(), rows.rowBegin.end() - 1);
    // lane.events is sorted by start, so a stable bucket pass keeps every row sorted.
    for (std::uint32_t e : lane.events) {
        const std::uint32_t at = fill[index.depth[e]]++;
        rows.events[at] = e;
        rows.starts[at] = trace.events[e].ts;
    }
    return rows;
}

} // namespace

std::shared_ptr<const TraceDocument> TraceDocument::create(QString hostPath, QString devicePath,
                                                           std::shared_ptr<const core::HostTrace> host,
                                                           std::shared_ptr<const core::DeviceTrace> device,
                                                           std::shared_ptr<const core::LinkSet> links,
                                                           const std::atomic<bool> *cancel)
{
    std::shared_ptr<TraceDocument> doc(new TraceDocument());
    doc->m_hostPath = std::move(hostPath);
    doc->m_devicePath = std::move(devicePath);
    doc->m_host = std::move(host);
    doc->m_device = std::move(device);
    doc->m_links = std::move(links);
    const core::DeviceTrace &trace = *doc->m_device;
    const core::LinkSet &linkSet = *doc->m_links;
    const core::TraceIndex &index = linkSet.index;
    const std::size_t eventCount = trace.events.size();

    doc->m_styles.resize(eventCount);
    for (std::size_t i = 0; i < eventCount; ++i)
        doc->m_styles[i] = eventStyleOf(trace, trace.events[i]);
    throwIfCancelled(cancel);

    doc->m_flagged.assign(eventCount, 0);
    for (const core::Finding &finding : linkSet.findings) {
        if (finding.subjectKind == core::SubjectKind::DeviceEvent && finding.subject < eventCount
            && finding.severity != core::FindingSeverity::Info)
            doc->m_flagged[finding.subject] = 1;
    }

    doc->m_laneRows.reserve(index.lanes.size());
    core::Nanos start = std::numeric_limits<core::Nanos>::max();
    core::Nanos end = std::numeric_limits<core::Nanos>::min();
    for (const core::Lane &lane : index.lanes) {
        doc->m_laneRows.push_back(buildLaneRows(lane, index, trace));
        for (std::uint32_t e : lane.events) {
            start = std::min(start, trace.events[e].ts);
            end = std::max(end, trace.events[e].end());
        }
        throwIfCancelled(cancel);
    }
    if (start > end) {
        start = index.minTs;
        end = std::max(index.maxTs, index.minTs + 1);
    }
    doc->m_start = start;
    doc->m_end = std::max(end, start + 1);

    // Edges. Parent and Launch edges come from gpuLinks (where their provenance lives); the
    // Launch entries core also lists in LinkSet::edges would be duplicates, so they are skipped.
    std::vector<DrawEdge> &edges = doc->m_edges;
    edges.reserve(linkSet.gpuLinks.size() * 2 + linkSet.edges.size());
    LinkCounts &counts = doc->m_counts;
    counts.findings = linkSet.findings.size();
    for (const core::GpuLink &link : linkSet.gpuLinks) {
        if (link.gpuEvent >= eventCount)
            continue;
        ++counts.gpuOps;
        const bool flagged = doc->m_flagged[link.gpuEvent] != 0;
        if (link.parent < eventCount) {
            ++counts.linked;
            EdgeProvenance provenance = EdgeProvenance::Rule;
            if (link.rule == core::ParentRule::Manual)
                provenance = EdgeProvenance::Manual;
            else if (flagged)
                provenance = EdgeProvenance::Flagged;
            else if (!isPrimaryRule(linkSet.policy, link.rule))
                provenance = EdgeProvenance::Fallback;
            edges.push_back({link.parent, link.gpuEvent, core::EdgeKind::Parent, provenance});
        } else {
            ++counts.orphans;
        }
        if (link.launch < eventCount) {
            const EdgeProvenance provenance =
                link.launchMatch == core::LaunchMatch::Correlation ? EdgeProvenance::Rule : EdgeProvenance::Fallback;
            edges.push_back({link.launch, link.gpuEvent, core::EdgeKind::Launch, provenance});
        }
    }
    for (const core::Edge &edge : linkSet.edges) {
        if (edge.kind == core::EdgeKind::Launch || edge.from >= eventCount || edge.to >= eventCount)
            continue;
        edges.push_back({edge.from, edge.to, edge.kind, EdgeProvenance::Rule});
    }
    throwIfCancelled(cancel);

    // Adjacency (CSR): edges touching each event, so the selection's chain is found in O(degree).
    doc->m_edgeBegin.assign(eventCount + 1, 0);
    for (const DrawEdge &edge : edges) {
        ++doc->m_edgeBegin[edge.from + 1];
        if (edge.to != edge.from)
            ++doc->m_edgeBegin[edge.to + 1];
    }
    for (std::size_t i = 1; i <= eventCount; ++i)
        doc->m_edgeBegin[i] += doc->m_edgeBegin[i - 1];
    doc->m_edgeList.resize(doc->m_edgeBegin[eventCount]);
    {
        std::vector<std::uint32_t> fill(doc->m_edgeBegin.begin(), doc->m_edgeBegin.end() - 1);
        for (std::uint32_t id = 0; id < edges.size(); ++id) {
            doc->m_edgeList[fill[edges[id].from]++] = id;
            if (edges[id].to != edges[id].from)
                doc->m_edgeList[fill[edges[id].to]++] = id;
        }
    }
    throwIfCancelled(cancel);

    auto sortedBy = [&](auto endpoint) {
        std::vector<TimeKeyed> keyed(edges.size());
        for (std::uint32_t id = 0; id < keyed.size(); ++id)
            keyed[id] = {trace.events[endpoint(edges[id])].ts, id};
        radixSortByTime(keyed);
        std::vector<std::uint32_t> ids(keyed.size());
        for (std::size_t i = 0; i < keyed.size(); ++i)
            ids[i] = keyed[i].id;
        return ids;
    };
    doc->m_edgesByFromTime = sortedBy([](const DrawEdge &e) { return e.from; });
    doc->m_edgesByToTime = sortedBy([](const DrawEdge &e) { return e.to; });
    return doc;
}

QString TraceDocument::eventName(std::uint32_t i) const
{
    const std::string_view name = m_device->name(m_device->events[i]);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

const core::GpuLink *TraceDocument::gpuLink(std::uint32_t event) const
{
    const auto &of = m_links->gpuLinkOf;
    if (event >= of.size() || of[event] == core::kNoIndex || of[event] >= m_links->gpuLinks.size())
        return nullptr;
    return &m_links->gpuLinks[of[event]];
}

std::vector<std::uint32_t> TraceDocument::findingsOf(std::uint32_t event) const
{
    std::vector<std::uint32_t> out;
    if (event >= m_flagged.size())
        return out;
    const auto &findings = m_links->findings;
    for (std::uint32_t i = 0; i < findings.size(); ++i)
        if (findings[i].subjectKind == core::SubjectKind::DeviceEvent && findings[i].subject == event)
            out.push_back(i);
    return out;
}

} // namespace linkscope::ui
