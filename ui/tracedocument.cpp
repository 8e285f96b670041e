#include "tracedocument.h"

#include "base/radixsort.h"
#include "link/rules.h"

#include <QFileInfo>

#include <algorithm>
#include <iterator>
#include <limits>

namespace linkscope::ui {

QString pairFileNames(const QString &hostPath, const QString &devicePath)
{
    const QString device = QFileInfo(devicePath).fileName();
    return hostPath.isEmpty() ? device : QStringLiteral("%1 + %2").arg(QFileInfo(hostPath).fileName(), device);
}

namespace {

void throwIfCancelled(const std::atomic<bool> *cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw core::Cancelled();
}

struct TimeKeyed {
    core::Nanos time;
    std::uint32_t id;
};

// Rows with fewer events are drawn event by event: their cost is already bounded by the width.
constexpr std::size_t kSummaryMinEvents = 256;

RowSummary buildRowSummary(const LaneRows &rows, int row, const core::DeviceTrace &trace,
                           const std::vector<EventStyle> &styles)
{
    RowSummary summary;
    const std::uint32_t begin = rows.rowBegin[row];
    const std::uint32_t end = rows.rowBegin[row + 1];
    const std::size_t n = end - begin;
    if (n < kSummaryMinEvents)
        return summary;
    const core::Nanos origin = rows.starts[begin];
    core::Nanos last = origin + 1;
    for (std::uint32_t p = begin; p < end; ++p)
        last = std::max(last, trace.events[rows.events[p]].end());
    // Level-0 buckets of about twice the mean spacing: at most n/2 buckets, and finer zooms have
    // few enough events per pixel column to visit them.
    const std::uint64_t span = static_cast<std::uint64_t>(last - origin);
    int shift = 0;
    while (shift < 62 && ((span >> shift) + 1) * 2 > n)
        ++shift;
    summary.baseShift = shift;
    summary.origin = origin;
    const std::uint64_t width = std::uint64_t(1) << shift;
    std::size_t count = static_cast<std::size_t>(((span - 1) >> shift) + 1);

    // Level 0: covered nanoseconds per bucket and the style of the event covering most of it.
    std::vector<std::uint64_t> covered(count, 0);
    std::vector<std::uint64_t> best(count, 0);
    std::vector<std::uint8_t> style(count, 0);
    for (std::uint32_t p = begin; p < end; ++p) {
        const std::uint32_t e = rows.events[p];
        const core::DeviceEvent &event = trace.events[e];
        const std::uint64_t a = static_cast<std::uint64_t>(event.ts - origin);
        // A zero-length event still marks its bucket.
        const std::uint64_t b = static_cast<std::uint64_t>(std::max(event.end(), event.ts + 1) - origin);
        const std::uint8_t eventStyle = static_cast<std::uint8_t>(styles[e]);
        for (std::uint64_t k = a >> shift; k <= (b - 1) >> shift && k < count; ++k) {
            const std::uint64_t lo = std::max(a, k << shift);
            const std::uint64_t hi = std::min(b, (k + 1) << shift);
            covered[k] += hi - lo;
            if (hi - lo > best[k]) {
                best[k] = hi - lo;
                style[k] = eventStyle;
            }
        }
    }
    summary.levelBegin.push_back(0);
    summary.coverage.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t share = std::min<std::uint64_t>(width, covered[k]) * 255 / width;
        summary.coverage[k] = covered[k] == 0 ? 0 : static_cast<std::uint8_t>(std::max<std::uint64_t>(1, share));
    }
    summary.style = std::move(style);
    summary.levelBegin.push_back(static_cast<std::uint32_t>(count));
    // Coarser levels: a bucket is its two children; it takes the colour of the more covered one.
    while (count > 1) {
        const std::size_t childBegin = summary.levelBegin[summary.levelBegin.size() - 2];
        const std::size_t parents = (count + 1) / 2;
        for (std::size_t j = 0; j < parents; ++j) {
            const std::uint8_t c0 = summary.coverage[childBegin + 2 * j];
            const std::uint8_t s0 = summary.style[childBegin + 2 * j];
            const std::uint8_t c1 = 2 * j + 1 < count ? summary.coverage[childBegin + 2 * j + 1] : 0;
            const std::uint8_t s1 = 2 * j + 1 < count ? summary.style[childBegin + 2 * j + 1] : 0;
            const unsigned sum = unsigned(c0) + unsigned(c1);
            summary.coverage.push_back(sum == 0 ? 0 : static_cast<std::uint8_t>(std::max(1u, sum / 2)));
            summary.style.push_back(c1 > c0 ? s1 : s0);
        }
        count = parents;
        summary.levelBegin.push_back(static_cast<std::uint32_t>(summary.coverage.size()));
    }
    // Per level, the events at least one bucket long (each level's list filters the previous one).
    summary.longBegin.push_back(0);
    for (std::uint32_t p = begin; p < end; ++p)
        if (static_cast<std::uint64_t>(std::max<core::Nanos>(trace.events[rows.events[p]].dur, 0)) >= width)
            summary.longEvents.push_back(p);
    summary.longBegin.push_back(static_cast<std::uint32_t>(summary.longEvents.size()));
    for (int level = 1; level < summary.levelCount(); ++level) {
        const std::uint64_t levelWidth = width << level;
        const std::uint32_t from = summary.longBegin[level - 1];
        const std::uint32_t to = summary.longBegin[level];
        for (std::uint32_t i = from; i < to; ++i) {
            const std::uint32_t p = summary.longEvents[i];
            if (static_cast<std::uint64_t>(trace.events[rows.events[p]].dur) >= levelWidth)
                summary.longEvents.push_back(p);
        }
        summary.longBegin.push_back(static_cast<std::uint32_t>(summary.longEvents.size()));
    }
    summary.coverage.shrink_to_fit();
    summary.style.shrink_to_fit();
    summary.longEvents.shrink_to_fit();
    return summary;
}

LaneRows buildLaneRows(const core::Lane &lane, const core::TraceIndex &index, const core::DeviceTrace &trace,
                       const std::vector<EventStyle> &styles)
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
    rows.summaries.reserve(rowCount);
    for (std::size_t r = 0; r < rowCount; ++r)
        rows.summaries.push_back(buildRowSummary(rows, static_cast<int>(r), trace, styles));
    return rows;
}

} // namespace

std::shared_ptr<const TraceDocument> TraceDocument::create(QString hostPath, QString devicePath,
                                                           std::shared_ptr<const core::HostTrace> host,
                                                           std::shared_ptr<const core::DeviceTrace> device,
                                                           std::shared_ptr<const core::LinkSet> links,
                                                           const std::atomic<bool> *cancel,
                                                           std::shared_ptr<const core::ChakraLinks> chakra)
{
    std::shared_ptr<TraceDocument> doc(new TraceDocument());
    doc->m_chakra = std::move(chakra);
    doc->m_hostPath = std::move(hostPath);
    doc->m_devicePath = std::move(devicePath);
    doc->m_host = std::move(host);
    doc->m_device = std::move(device);
    doc->m_links = std::move(links);
    const core::DeviceTrace &trace = *doc->m_device;
    const core::LinkSet &linkSet = *doc->m_links;
    const core::TraceIndex &index = *linkSet.index;
    const std::size_t eventCount = trace.events.size();

    auto styles = std::make_shared<std::vector<EventStyle>>(eventCount);
    for (std::size_t i = 0; i < eventCount; ++i)
        (*styles)[i] = eventStyleOf(trace, trace.events[i]);
    doc->m_styleData = styles->data();
    doc->m_styles = styles;
    throwIfCancelled(cancel);

    doc->buildFindingMarks();

    auto laneRows = std::make_shared<std::vector<LaneRows>>();
    laneRows->reserve(index.lanes.size());
    core::Nanos start = std::numeric_limits<core::Nanos>::max();
    core::Nanos end = std::numeric_limits<core::Nanos>::min();
    for (const core::Lane &lane : index.lanes) {
        laneRows->push_back(buildLaneRows(lane, index, trace, *styles));
        for (std::uint32_t e : lane.events) {
            start = std::min(start, trace.events[e].ts);
            end = std::max(end, trace.events[e].end());
        }
        throwIfCancelled(cancel);
    }
    doc->m_laneRows = laneRows;
    if (start > end) {
        start = index.minTs;
        end = std::max(index.maxTs, index.minTs + 1);
    }
    doc->m_start = start;
    doc->m_end = std::max(end, start + 1);

    doc->buildEdges(cancel);
    return doc;
}

std::shared_ptr<const TraceDocument> TraceDocument::createWithLinks(const std::shared_ptr<const TraceDocument> &base,
                                                                    std::shared_ptr<const core::LinkSet> links,
                                                                    const std::atomic<bool> *cancel)
{
    // The index stage runs once per load: every relink and correction shares its result, so the
    // lane rows built from it are shared too.
    const bool sameIndex = base->links().index == links->index;
    if (!sameIndex)
        return create(base->m_hostPath, base->m_devicePath, base->m_host, base->m_device, std::move(links), cancel);

    std::shared_ptr<TraceDocument> doc(new TraceDocument());
    doc->m_hostPath = base->m_hostPath;
    doc->m_devicePath = base->m_devicePath;
    doc->m_host = base->m_host;
    doc->m_device = base->m_device;
    doc->m_links = std::move(links);
    doc->m_chakra = base->m_chakra; // same traces and index: Chakra's links are the same
    doc->m_styles = base->m_styles;
    doc->m_styleData = base->m_styleData;
    doc->m_laneRows = base->m_laneRows;
    doc->m_start = base->m_start;
    doc->m_end = base->m_end;
    doc->buildFindingMarks();
    throwIfCancelled(cancel);
    if (!doc->patchParentEdges(*base))
        doc->buildEdges(cancel);
    return doc;
}

void TraceDocument::buildFindingMarks()
{
    const std::size_t eventCount = m_device->events.size();
    m_hasFinding.assign(eventCount, 0);
    for (const core::Finding &finding : m_links->findings) {
        if (finding.subjectKind == core::SubjectKind::DeviceEvent && finding.subject < eventCount
            && finding.severity != core::FindingSeverity::Info)
            m_hasFinding[finding.subject] = 1;
    }
}

namespace {

// The drawn provenance of a GPU op's parent edge.
EdgeProvenance parentProvenance(const core::LinkSet &linkSet, const core::GpuLink &link, bool hasFinding)
{
    if (link.rule == core::ParentRule::Manual)
        return EdgeProvenance::Manual;
    if (hasFinding)
        return EdgeProvenance::HasFinding;
    if (!core::isPrimaryRule(linkSet.policy, link.rule))
        return EdgeProvenance::Fallback;
    return EdgeProvenance::Rule;
}

} // namespace

void TraceDocument::buildEdges(const std::atomic<bool> *cancel)
{
    const core::DeviceTrace &trace = *m_device;
    const core::LinkSet &linkSet = *m_links;
    const std::size_t eventCount = trace.events.size();

    // Parent and Launch edges come from gpuLinks (where their provenance lives); the Launch
    // entries core also lists in LinkSet::edges would be duplicates, so they are skipped.
    std::vector<DrawEdge> &edges = m_edges;
    edges.clear();
    edges.reserve(linkSet.gpuLinks.size() * 2 + linkSet.edges.size());
    LinkCounts &counts = m_counts;
    counts = LinkCounts();
    counts.findings = linkSet.findings.size();
    for (const core::GpuLink &link : linkSet.gpuLinks) {
        if (link.gpuEvent >= eventCount)
            continue;
        ++counts.gpuOps;
        if (link.parent < eventCount) {
            ++counts.linked;
            edges.push_back({link.parent, link.gpuEvent, core::EdgeKind::Parent,
                             parentProvenance(linkSet, link, m_hasFinding[link.gpuEvent] != 0)});
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

    buildAdjacency();
    throwIfCancelled(cancel);

    auto sortedBy = [&](auto endpoint) {
        std::vector<TimeKeyed> keyed(edges.size());
        for (std::uint32_t id = 0; id < keyed.size(); ++id)
            keyed[id] = {trace.events[endpoint(edges[id])].ts, id};
        core::radixSortStable(keyed, [](const TimeKeyed &item) { return item.time; }); // stable: equal times in id order
        std::vector<std::uint32_t> ids(keyed.size());
        for (std::size_t i = 0; i < keyed.size(); ++i)
            ids[i] = keyed[i].id;
        return ids;
    };
    m_edgesByFromTime = sortedBy([](const DrawEdge &e) { return e.from; });
    m_edgesByToTime = sortedBy([](const DrawEdge &e) { return e.to; });
}

void TraceDocument::buildAdjacency()
{
    // CSR: edges touching each event, so the selection's chain is found in O(degree).
    const std::size_t eventCount = m_device->events.size();
    m_edgeBegin.assign(eventCount + 1, 0);
    for (const DrawEdge &edge : m_edges) {
        ++m_edgeBegin[edge.from + 1];
        if (edge.to != edge.from)
            ++m_edgeBegin[edge.to + 1];
    }
    for (std::size_t i = 1; i <= eventCount; ++i)
        m_edgeBegin[i] += m_edgeBegin[i - 1];
    m_edgeList.resize(m_edgeBegin[eventCount]);
    std::vector<std::uint32_t> fill(m_edgeBegin.begin(), m_edgeBegin.end() - 1);
    for (std::uint32_t id = 0; id < m_edges.size(); ++id) {
        m_edgeList[fill[m_edges[id].from]++] = id;
        if (m_edges[id].to != m_edges[id].from)
            m_edgeList[fill[m_edges[id].to]++] = id;
    }
}

bool TraceDocument::patchParentEdges(const TraceDocument &base)
{
    // Applies when the edge list keeps its shape: the same GPU ops, each with a parent edge in
    // both documents or in neither, the same launches and the same core edges. Then only the
    // `from` (and provenance) of some parent edges differ, and edge ids stay put.
    const core::LinkSet &was = base.links();
    const core::LinkSet &now = *m_links;
    if (was.gpuLinks.size() != now.gpuLinks.size() || was.edges.size() != now.edges.size())
        return false;
    for (std::size_t i = 0; i < now.edges.size(); ++i)
        if (was.edges[i].from != now.edges[i].from || was.edges[i].to != now.edges[i].to
            || was.edges[i].kind != now.edges[i].kind)
            return false;
    const std::size_t eventCount = m_device->events.size();
    struct Moved {
        std::uint32_t edge;
        std::uint32_t oldFrom;
    };
    std::vector<Moved> moved;
    std::vector<std::pair<std::uint32_t, EdgeProvenance>> restyled;
    std::uint32_t id = 0; // the edge id buildEdges gives each link's parent / launch edge
    for (std::size_t k = 0; k < now.gpuLinks.size(); ++k) {
        const core::GpuLink &a = was.gpuLinks[k];
        const core::GpuLink &b = now.gpuLinks[k];
        if (a.gpuEvent != b.gpuEvent || a.launch != b.launch || a.launchMatch != b.launchMatch
            || (a.parent < eventCount) != (b.parent < eventCount))
            return false;
        if (b.gpuEvent >= eventCount)
            continue;
        if (b.parent < eventCount) {
            const EdgeProvenance provenance = parentProvenance(now, b, m_hasFinding[b.gpuEvent] != 0);
            if (a.parent != b.parent)
                moved.push_back({id, a.parent});
            if (a.parent != b.parent || base.m_edges[id].provenance != provenance)
                restyled.push_back({id, provenance});
            ++id;
        }
        if (b.launch < eventCount)
            ++id;
    }
    std::size_t coreEdges = 0;
    for (const core::Edge &edge : now.edges)
        coreEdges += edge.kind != core::EdgeKind::Launch && edge.from < eventCount && edge.to < eventCount;
    if (base.m_edges.size() != id + coreEdges)
        return false; // not the layout buildEdges gives: rebuild rather than guess

    m_edges = base.m_edges;
    m_counts = base.m_counts;
    m_counts.findings = now.findings.size();
    m_edgesByToTime = base.m_edgesByToTime; // targets (the GPU ops) do not move
    for (const auto &[edge, provenance] : restyled) {
        m_edges[edge].from = now.gpuLinks[now.gpuLinkOf[m_edges[edge].to]].parent;
        m_edges[edge].provenance = provenance;
    }
    if (moved.empty()) {
        m_edgeBegin = base.m_edgeBegin;
        m_edgeList = base.m_edgeList;
        m_edgesByFromTime = base.m_edgesByFromTime;
        return true;
    }
    buildAdjacency(); // two linear passes; degrees changed at the old and new parents

    // By source time: take the moved edges out and put each back where create()'s stable radix
    // sort would have it (by time, then id).
    const core::DeviceTrace &trace = *m_device;
    std::vector<std::uint32_t> movedIds;
    for (const Moved &m : moved)
        movedIds.push_back(m.edge);
    std::sort(movedIds.begin(), movedIds.end());
    std::vector<std::uint32_t> &order = m_edgesByFromTime;
    order.clear();
    order.reserve(base.m_edgesByFromTime.size());
    for (std::uint32_t e : base.m_edgesByFromTime)
        if (!std::binary_search(movedIds.begin(), movedIds.end(), e))
            order.push_back(e);
    auto key = [&](std::uint32_t e) { return std::make_pair(trace.events[m_edges[e].from].ts, e); };
    std::sort(movedIds.begin(), movedIds.end(), [&](std::uint32_t x, std::uint32_t y) { return key(x) < key(y); });
    // One merge of the sorted remainder with the few moved ids.
    std::vector<std::uint32_t> merged;
    merged.reserve(base.m_edgesByFromTime.size());
    std::merge(order.begin(), order.end(), movedIds.begin(), movedIds.end(), std::back_inserter(merged),
               [&](std::uint32_t x, std::uint32_t y) { return key(x) < key(y); });
    order.swap(merged);
    return true;
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
    if (event >= m_hasFinding.size())
        return out;
    const auto &findings = m_links->findings;
    for (std::uint32_t i = 0; i < findings.size(); ++i)
        if (findings[i].subjectKind == core::SubjectKind::DeviceEvent && findings[i].subject == event)
            out.push_back(i);
    return out;
}

} // namespace linkscope::ui
