#include "ground/tracedocument.h"

#include "base/radixsort.h"
#include "edit/linkchange.h"
#include "io/formats.h"
#include "link/rules.h"

#include <QFileInfo>

#include <algorithm>
#include <array>
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
    DrawEdgeIndex id;
};

// Rows with fewer events are drawn event by event: their cost is already bounded by the width.
constexpr std::size_t kSummaryMinEvents = 256;

RowSummary buildRowSummary(const LaneRows &rows, int row, const core::DeviceTrace &trace, const std::vector<EventStyle> &styles)
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
        last = std::max(last, trace.event(rows.events[p]).end());
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
        const core::EventIndex e = rows.events[p];
        const core::DeviceEvent &event = trace.event(e);
        const std::uint64_t a = static_cast<std::uint64_t>(event.ts - origin);
        // A zero-length event still marks its bucket.
        const std::uint64_t b = static_cast<std::uint64_t>(std::max(event.end(), event.ts + 1) - origin);
        const std::uint8_t eventStyle = static_cast<std::uint8_t>(styles[e.get()]);
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
        if (static_cast<std::uint64_t>(std::max<core::Nanos>(trace.event(rows.events[p]).dur, 0)) >= width)
            summary.longEvents.push_back(p);
    summary.longBegin.push_back(static_cast<std::uint32_t>(summary.longEvents.size()));
    for (int level = 1; level < summary.levelCount(); ++level) {
        const std::uint64_t levelWidth = width << level;
        const std::uint32_t from = summary.longBegin[level - 1];
        const std::uint32_t to = summary.longBegin[level];
        for (std::uint32_t i = from; i < to; ++i) {
            const std::uint32_t p = summary.longEvents[i];
            if (static_cast<std::uint64_t>(trace.event(rows.events[p]).dur) >= levelWidth)
                summary.longEvents.push_back(p);
        }
        summary.longBegin.push_back(static_cast<std::uint32_t>(summary.longEvents.size()));
    }
    summary.coverage.shrink_to_fit();
    summary.style.shrink_to_fit();
    summary.longEvents.shrink_to_fit();
    return summary;
}

// The rows of `events` (sorted by start) by `depthOf` (an event's row; negative: left out).
template <typename DepthOf>
LaneRows buildRows(const std::vector<core::EventIndex> &events, std::size_t minRows, DepthOf depthOf,
                   const core::DeviceTrace &trace, const std::vector<EventStyle> &styles)
{
    LaneRows rows;
    std::size_t rowCount = minRows;
    std::size_t kept = 0;
    for (core::EventIndex e : events)
        if (const int d = depthOf(e); d >= 0) {
            rowCount = std::max<std::size_t>(rowCount, std::size_t(d) + 1);
            ++kept;
        }
    rows.rowBegin.assign(rowCount + 1, 0);
    for (core::EventIndex e : events)
        if (const int d = depthOf(e); d >= 0)
            ++rows.rowBegin[std::size_t(d) + 1];
    for (std::size_t r = 1; r <= rowCount; ++r)
        rows.rowBegin[r] += rows.rowBegin[r - 1];
    rows.events.resize(kept);
    rows.starts.resize(kept);
    std::vector<std::uint32_t> fill(rows.rowBegin.begin(), rows.rowBegin.end() - 1);
    // `events` is sorted by start, so a stable bucket pass keeps every row sorted.
    for (core::EventIndex e : events) {
        const int d = depthOf(e);
        if (d < 0)
            continue;
        const std::uint32_t at = fill[std::size_t(d)]++;
        rows.events[at] = e;
        rows.starts[at] = trace.event(e).ts;
    }
    rows.summaries.reserve(rowCount);
    for (std::size_t r = 0; r < rowCount; ++r)
        rows.summaries.push_back(buildRowSummary(rows, static_cast<int>(r), trace, styles));
    return rows;
}

LaneRows buildLaneRows(const core::Lane &lane, const core::TraceIndex &index, const core::DeviceTrace &trace,
                       const std::vector<EventStyle> &styles)
{
    return buildRows(
        lane.events, std::max<std::size_t>(lane.rowCount, 1), [&index](core::EventIndex e) { return int(index.depth[e.get()]); },
        trace, styles);
}

// PythonFreeRows for a trace with Python frames; null without any.
std::shared_ptr<const PythonFreeRows> buildPythonFreeRows(const core::TraceIndex &index, const core::DeviceTrace &trace,
                                                          const std::vector<EventStyle> &styles, const std::atomic<bool> *cancel)
{
    if (std::find(styles.begin(), styles.end(), EventStyle::Python) == styles.end())
        return nullptr;
    auto out = std::make_shared<PythonFreeRows>();
    out->depth.assign(styles.size(), -1);
    // How many enclosing events that are not Python frames each event has: a lane's events come
    // sorted by start, longest first, so an event's nesting parent is counted before it.
    std::vector<std::int32_t> above(styles.size(), 0);
    out->lanes.reserve(index.lanes.size());
    for (const core::Lane &lane : index.lanes) {
        for (core::EventIndex e : lane.events) {
            const core::EventIndex parent = index.nestParent[e.get()];
            if (parent.valid())
                above[e.get()] = above[parent.get()] + (styles[parent.get()] == EventStyle::Python ? 0 : 1);
            if (styles[e.get()] != EventStyle::Python)
                out->depth[e.get()] = above[e.get()];
        }
        out->lanes.push_back(buildRows(
            lane.events, 0, [&out](core::EventIndex e) { return int(out->depth[e.get()]); }, trace, styles));
        throwIfCancelled(cancel);
    }
    return out;
}

} // namespace

std::shared_ptr<const TraceDocument> TraceDocument::create(
    QString hostPath, QString devicePath, std::shared_ptr<const core::HostTrace> host,
    std::shared_ptr<const core::DeviceTrace> device, std::shared_ptr<const core::LinkSet> links, const std::atomic<bool> *cancel,
    std::shared_ptr<const core::ChakraLinks> chakra, const core::InputFormat *deviceFormat)
{
    std::shared_ptr<TraceDocument> doc(new TraceDocument());
    doc->m_chakra = std::move(chakra);
    doc->m_files = {std::move(hostPath), std::move(devicePath), deviceFormat};
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
        for (core::EventIndex e : lane.events) {
            start = std::min(start, trace.event(e).ts);
            end = std::max(end, trace.event(e).end());
        }
        throwIfCancelled(cancel);
    }
    doc->m_laneRows = laneRows;
    doc->m_pythonFree = buildPythonFreeRows(index, trace, *styles, cancel);
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
        return create(base->m_files.host, base->m_files.device, base->m_host, base->m_device, std::move(links), cancel, nullptr,
                      base->m_files.deviceFormat);

    std::shared_ptr<TraceDocument> doc(new TraceDocument());
    doc->m_files = base->m_files;
    doc->m_host = base->m_host;
    doc->m_device = base->m_device;
    doc->m_links = std::move(links);
    doc->m_chakra = base->m_chakra; // same traces and index: Chakra's links are the same
    doc->m_styles = base->m_styles;
    doc->m_styleData = base->m_styleData;
    doc->m_laneRows = base->m_laneRows;
    doc->m_pythonFree = base->m_pythonFree;
    doc->m_start = base->m_start;
    doc->m_end = base->m_end;
    doc->m_change = std::make_shared<const core::LinkSetChange>(core::changeBetween(base->links(), *doc->m_links));
    doc->m_changeBase = base->m_links;
    if (!doc->patch(*base, *doc->m_change)) {
        doc->buildFindingMarks();
        throwIfCancelled(cancel);
        doc->buildEdges(cancel);
    }
    return doc;
}

void TraceDocument::buildFindingMarks()
{
    const std::size_t eventCount = m_device->events.size();
    std::vector<std::uint8_t> marks(eventCount, 0);
    for (const core::Finding &finding : m_links->findings) {
        if (finding.subjectKind == core::SubjectKind::DeviceEvent && finding.event.in(eventCount)
            && finding.severity != core::FindingSeverity::Info)
            marks[finding.event.get()] = 1;
    }
    m_hasFinding.assign(std::move(marks));
    // The GPU ops that a trace-wide or host-side finding marks: a GPU op's mark after an edit is
    // these or its own findings (patch()).
    auto fixed = std::make_shared<std::vector<core::EventIndex>>();
    const auto &of = m_links->gpuLinkOf;
    for (const auto *part : {&m_links->findings.traceWide(), &m_links->findings.hostSide()})
        for (const core::Finding &finding : *part)
            if (finding.subjectKind == core::SubjectKind::DeviceEvent && finding.event.in(of.size()) && of[finding.event].valid()
                && finding.severity != core::FindingSeverity::Info)
                fixed->push_back(finding.event);
    std::sort(fixed->begin(), fixed->end());
    fixed->erase(std::unique(fixed->begin(), fixed->end()), fixed->end());
    m_fixedGpuMarks = std::move(fixed);
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

DrawEdge TraceDocument::parentEdgeOf(const core::GpuLink &link) const
{
    const std::size_t eventCount = m_device->events.size();
    if (!link.gpuEvent.in(eventCount) || !link.parent.in(eventCount))
        return {};
    return {link.parent, link.gpuEvent, core::EdgeKind::Parent,
            parentProvenance(*m_links, link, m_hasFinding[link.gpuEvent] != 0)};
}

DrawEdge TraceDocument::launchEdgeOf(const core::GpuLink &link) const
{
    const std::size_t eventCount = m_device->events.size();
    if (!link.gpuEvent.in(eventCount) || !link.launch.in(eventCount))
        return {};
    const EdgeProvenance provenance = link.launchMatch == core::LaunchMatch::Correlation ? EdgeProvenance::Rule
                                                                                         : EdgeProvenance::Fallback;
    return {link.launch, link.gpuEvent, core::EdgeKind::Launch, provenance};
}

DrawEdge TraceDocument::coreEdgeOf(const core::Edge &edge) const
{
    // Launch edges are drawn from gpuLinks (where their provenance lives): core's would be duplicates.
    const std::size_t eventCount = m_device->events.size();
    if (edge.kind == core::EdgeKind::Launch || !edge.from.in(eventCount) || !edge.to.in(eventCount))
        return {};
    return {edge.from, edge.to, edge.kind, EdgeProvenance::Rule};
}

void TraceDocument::buildEdges(const std::atomic<bool> *cancel)
{
    const core::DeviceTrace &trace = *m_device;
    const core::LinkSet &linkSet = *m_links;
    const std::size_t eventCount = trace.events.size();

    std::vector<DrawEdge> edges;
    edges.reserve(linkSet.gpuLinks.size() * 2 + linkSet.edges.size());
    LinkCounts &counts = m_counts;
    counts = LinkCounts();
    counts.findings = linkSet.findings.size();
    for (const core::GpuLink &link : linkSet.gpuLinks) {
        if (link.gpuEvent.in(eventCount)) {
            ++counts.gpuOps;
            ++(link.parent.in(eventCount) ? counts.linked : counts.orphans);
        }
        edges.push_back(parentEdgeOf(link));
        edges.push_back(launchEdgeOf(link));
    }
    for (const core::Edge &edge : linkSet.edges)
        edges.push_back(coreEdgeOf(edge));
    throwIfCancelled(cancel);

    auto sortedBy = [&](auto endpoint) {
        std::vector<TimeKeyed> keyed;
        keyed.reserve(edges.size());
        for (std::size_t i = 0; i < edges.size(); ++i)
            if (edges[i].drawn())
                keyed.push_back({trace.event(endpoint(edges[i])).ts, DrawEdgeIndex::at(i)});
        core::radixSortStable(keyed, [](const TimeKeyed &item) { return item.time; }); // stable: equal times in id order
        std::vector<DrawEdgeIndex> ids(keyed.size());
        for (std::size_t i = 0; i < keyed.size(); ++i)
            ids[i] = keyed[i].id;
        return EdgeOrder(ids);
    };
    m_edgesByFromTime = sortedBy([](const DrawEdge &e) { return e.from; });
    m_edgesByToTime = sortedBy([](const DrawEdge &e) { return e.to; });
    m_edges.assign(std::move(edges));
    throwIfCancelled(cancel);
    m_adjacency.build(eventCount, m_edges);
}

void EdgeAdjacency::build(std::size_t eventCount, const core::CowVector<DrawEdge> &edges)
{
    // Degrees first, then each chunk's CSR filled in edge id order.
    std::vector<std::uint32_t> degree(eventCount, 0);
    for (const DrawEdge &edge : edges) {
        if (!edge.drawn())
            continue;
        ++degree[edge.from.get()];
        if (edge.to != edge.from)
            ++degree[edge.to.get()];
    }
    const std::size_t chunkCount = (eventCount + kChunk) / kChunk; // one more event slot: of(eventCount - 1) + 1
    std::vector<std::shared_ptr<Chunk>> chunks(chunkCount);
    for (std::size_t c = 0; c < chunkCount; ++c) {
        auto chunk = std::make_shared<Chunk>();
        chunk->begin.assign(kChunk + 1, 0);
        const std::size_t first = c * kChunk;
        for (std::size_t k = 0; k < kChunk; ++k)
            chunk->begin[k + 1] = chunk->begin[k] + (first + k < eventCount ? degree[first + k] : 0);
        chunk->ids.resize(chunk->begin[kChunk]);
        chunks[c] = std::move(chunk);
    }
    // `degree` becomes each event's fill position within its chunk.
    for (std::size_t e = 0; e < eventCount; ++e)
        degree[e] = chunks[e >> kChunkBits]->begin[e & (kChunk - 1)];
    DrawEdgeIndex id{0};
    for (const DrawEdge &edge : edges) {
        if (edge.drawn()) {
            chunks[edge.from.get() >> kChunkBits]->ids[degree[edge.from.get()]++] = id;
            if (edge.to != edge.from)
                chunks[edge.to.get() >> kChunkBits]->ids[degree[edge.to.get()]++] = id;
        }
        ++id;
    }
    m_chunks.assign(chunks.begin(), chunks.end());
}

void EdgeAdjacency::apply(std::vector<Change> changes)
{
    std::sort(changes.begin(), changes.end(),
              [](const Change &a, const Change &b) { return a.event != b.event ? a.event < b.event : a.id < b.id; });
    std::size_t i = 0;
    while (i < changes.size()) {
        const std::size_t c = changes[i].event.get() >> kChunkBits;
        const Chunk &was = *m_chunks[c];
        auto chunk = std::make_shared<Chunk>();
        chunk->begin.reserve(kChunk + 1);
        chunk->ids.reserve(was.ids.size() + 4);
        chunk->begin.push_back(0);
        for (std::uint32_t local = 0; local < kChunk; ++local) {
            const core::EventIndex event = core::EventIndex::at((c << kChunkBits) + local);
            const DrawEdgeIndex *from = was.ids.data() + was.begin[local];
            const DrawEdgeIndex *to = was.ids.data() + was.begin[local + 1];
            if (i >= changes.size() || changes[i].event != event) {
                chunk->ids.insert(chunk->ids.end(), from, to);
            } else {
                // Merge the event's ids (ascending) with its changes (ascending by id).
                std::vector<DrawEdgeIndex> list(from, to);
                for (; i < changes.size() && changes[i].event == event; ++i) {
                    auto at = std::lower_bound(list.begin(), list.end(), changes[i].id);
                    if (changes[i].add) {
                        if (at == list.end() || *at != changes[i].id)
                            list.insert(at, changes[i].id);
                    } else if (at != list.end() && *at == changes[i].id) {
                        list.erase(at);
                    }
                }
                chunk->ids.insert(chunk->ids.end(), list.begin(), list.end());
            }
            chunk->begin.push_back(static_cast<std::uint32_t>(chunk->ids.size()));
        }
        m_chunks[c] = std::move(chunk);
    }
}

std::size_t EdgeAdjacency::sharedChunks(const EdgeAdjacency &other) const
{
    std::size_t shared = 0;
    for (std::size_t c = 0; c < m_chunks.size() && c < other.m_chunks.size(); ++c)
        shared += m_chunks[c] == other.m_chunks[c];
    return shared;
}

bool TraceDocument::gpuOpMarked(core::GpuLinkIndex linkIndex) const
{
    const core::EventIndex event = m_links->gpuLinks[linkIndex].gpuEvent;
    if (std::binary_search(m_fixedGpuMarks->begin(), m_fixedGpuMarks->end(), event))
        return true;
    for (auto [f, end] = m_links->findings.ofGpuOp(linkIndex.get()); f != end; ++f)
        if (f->subjectKind == core::SubjectKind::DeviceEvent && f->event == event && f->severity != core::FindingSeverity::Info)
            return true;
    return false;
}

const core::InputFormat &TraceDocument::deviceFormat() const
{
    return m_files.deviceFormat ? *m_files.deviceFormat : core::defaultInputFormat(core::TraceRole::Device);
}

const core::LinkSetChange *TraceDocument::changeSince(const TraceDocument &previous) const
{
    // The base's links are alive while `previous` holds them: then lock() gives them back, and no
    // other link set can be at their address.
    return m_change && m_changeBase.lock() == previous.m_links ? m_change.get() : nullptr;
}

bool TraceDocument::patch(const TraceDocument &base, const core::LinkSetChange &change)
{
    // Applies when the links are the same GPU ops over the same events (a correction, an undo):
    // then only the GPU links and core edges in chunks the edit copied can differ, and of those
    // only the ones whose values differ are patched in. Everything else is shared with `base`.
    const core::LinkSet &was = base.links();
    const core::LinkSet &now = *m_links;
    const std::size_t eventCount = m_device->events.size();
    if (!change.sameOps || change.traceWideFindingsChanged || change.hostSideFindingsChanged || was.policy != now.policy
        || base.m_hasFinding.size() != eventCount || !base.m_fixedGpuMarks)
        return false;
    const std::size_t gpuCount = now.gpuLinks.size();
    // GPU ops to look at: those whose link or findings the edit copied (a re-diagnosis included).
    const core::IndexRanges &ranges = change.gpuOps;

    m_hasFinding = base.m_hasFinding;
    m_fixedGpuMarks = base.m_fixedGpuMarks;
    m_edges = base.m_edges;
    m_counts = base.m_counts;
    m_counts.findings = now.findings.size();

    struct SlotChange {
        DrawEdgeIndex id;
        DrawEdge before;
    };
    std::vector<SlotChange> changed;
    auto setSlot = [&](DrawEdgeIndex id, const DrawEdge &edge) {
        const DrawEdge before = id.in(m_edges.size()) ? m_edges[id] : DrawEdge{};
        if (before == edge)
            return;
        changed.push_back({id, before});
        while (m_edges.size() <= id.get())
            m_edges.push_back({});
        m_edges.set(id, edge);
    };
    std::size_t next = 0; // ranges may overlap: each op once
    for (const auto &[rangeBegin, rangeEnd] : ranges) {
        for (std::size_t k = std::max(rangeBegin, next); k < rangeEnd; ++k) {
            const core::GpuLink &a = was.gpuLinks[k];
            const core::GpuLink &b = now.gpuLinks[k];
            if (a.gpuEvent != b.gpuEvent)
                return false; // other GPU ops: not an edit of these links
            const auto [f, fEnd] = now.findings.ofGpuOp(k);
            for (const core::Finding *it = f; it != fEnd; ++it)
                if (it->subjectKind == core::SubjectKind::DeviceEvent && it->event != b.gpuEvent)
                    return false; // a per-op finding about another event: marks cannot be patched per op
            if (b.gpuEvent.in(eventCount)) {
                const std::uint8_t mark = gpuOpMarked(core::GpuLinkIndex::at(k)) ? 1 : 0;
                if (m_hasFinding[b.gpuEvent] != mark)
                    m_hasFinding.set(b.gpuEvent, mark);
                const bool linkedBefore = a.parent.in(eventCount), linkedNow = b.parent.in(eventCount);
                if (linkedBefore != linkedNow) {
                    m_counts.linked += linkedNow ? 1 : -1;
                    m_counts.orphans += linkedNow ? -1 : 1;
                }
            }
            setSlot(DrawEdgeIndex::at(2 * k), parentEdgeOf(b));
            setSlot(DrawEdgeIndex::at(2 * k + 1), launchEdgeOf(b));
        }
        next = std::max(next, rangeEnd);
    }
    // Core edges: an added edge is appended, a removed one refilled from the end (LinkEditor).
    const std::size_t coreBase = 2 * gpuCount;
    for (const auto &[rangeBegin, rangeEnd] : change.edges)
        for (std::size_t j = rangeBegin; j < rangeEnd; ++j)
            setSlot(DrawEdgeIndex::at(coreBase + j), j < now.edges.size() ? coreEdgeOf(now.edges[j]) : DrawEdge{});
    while (m_edges.size() > coreBase + now.edges.size())
        m_edges.pop_back(); // trailing slots were set to gaps above
    // Many changed edges (a bulk edit): rebuilding is as cheap as patching them one by one.
    if (changed.size() > std::max<std::size_t>(4096, m_edges.size() / 64))
        return false;

    m_adjacency = base.m_adjacency;
    m_edgesByFromTime = base.m_edgesByFromTime;
    m_edgesByToTime = base.m_edgesByToTime;
    if (changed.empty())
        return true;
    const core::DeviceTrace &trace = *m_device;
    std::vector<EdgeAdjacency::Change> adjacency;
    for (const SlotChange &c : changed) {
        const DrawEdge &before = c.before;
        const DrawEdge now = c.id.in(m_edges.size()) ? m_edges[c.id] : DrawEdge{};
        auto ends = [](const DrawEdge &e) {
            std::array<core::EventIndex, 2> out{};
            if (e.drawn()) {
                out[0] = e.from;
                if (e.to != e.from)
                    out[1] = e.to;
            }
            return out;
        };
        const auto endsBefore = ends(before), endsNow = ends(now);
        for (core::EventIndex e : endsBefore)
            if (e.valid() && std::find(endsNow.begin(), endsNow.end(), e) == endsNow.end())
                adjacency.push_back({e, c.id, false});
        for (core::EventIndex e : endsNow)
            if (e.valid() && std::find(endsBefore.begin(), endsBefore.end(), e) == endsBefore.end())
                adjacency.push_back({e, c.id, true});
    }
    if (!adjacency.empty())
        m_adjacency.apply(std::move(adjacency));

    // The time orders, keyed (start of the endpoint, id) as create()'s stable sort leaves them:
    // the edges that left are found under their old keys, those that joined go in under the new.
    using Key = std::pair<core::Nanos, DrawEdgeIndex>;
    auto patchOrder = [&](EdgeOrder &order, bool byFrom) {
        auto endpoint = [&](const DrawEdge &e) { return byFrom ? e.from : e.to; };
        auto find = [&](const core::CowVector<DrawEdge> &edges, const Key &key) {
            return static_cast<std::size_t>(std::lower_bound(order.begin(), order.end(), key,
                                                             [&](DrawEdgeIndex id, const Key &k) {
                                                                 return Key{trace.event(endpoint(edges[id])).ts, id} < k;
                                                             })
                                            - order.begin());
        };
        std::vector<DrawEdgeIndex> joined;
        for (const SlotChange &c : changed) {
            const DrawEdge now = c.id.in(m_edges.size()) ? m_edges[c.id] : DrawEdge{};
            const bool moved = c.before.drawn() != now.drawn() || endpoint(c.before) != endpoint(now);
            if (!moved)
                continue;
            if (c.before.drawn()) {
                const std::size_t at = find(base.m_edges, {trace.event(endpoint(c.before)).ts, c.id});
                if (at < order.size() && order[at] == c.id)
                    order.erase(at);
            }
            if (now.drawn())
                joined.push_back(c.id);
        }
        for (DrawEdgeIndex id : joined)
            order.insert(find(m_edges, {trace.event(endpoint(m_edges[id])).ts, id}), id);
    };
    patchOrder(m_edgesByFromTime, true);
    patchOrder(m_edgesByToTime, false);
    return true;
}

TraceDocument::Sharing TraceDocument::sharingWith(const TraceDocument &other) const
{
    Sharing s;
    s.shared = m_hasFinding.sharedChunks(other.m_hasFinding) + m_edges.sharedChunks(other.m_edges)
               + m_adjacency.sharedChunks(other.m_adjacency) + m_edgesByFromTime.sharedChunks(other.m_edgesByFromTime)
               + m_edgesByToTime.sharedChunks(other.m_edgesByToTime);
    s.total = m_hasFinding.chunkCount() + m_edges.chunkCount()
              + (m_device->events.size() + EdgeAdjacency::kChunk) / EdgeAdjacency::kChunk + m_edgesByFromTime.chunkCount()
              + m_edgesByToTime.chunkCount();
    return s;
}

QString TraceDocument::eventName(core::EventIndex i) const
{
    const std::string_view name = m_device->name(m_device->event(i));
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

const core::GpuLink *TraceDocument::gpuLink(core::EventIndex event) const
{
    const auto &of = m_links->gpuLinkOf;
    if (!event.in(of.size()) || !of[event].in(m_links->gpuLinks.size()))
        return nullptr;
    return &m_links->gpuLinks[of[event]];
}

std::vector<core::FindingIndex> TraceDocument::findingsOf(core::EventIndex event) const
{
    std::vector<core::FindingIndex> out;
    if (!event.in(m_hasFinding.size()))
        return out;
    const auto &findings = m_links->findings;
    for (std::size_t i = 0; i < findings.size(); ++i)
        if (findings[i].subjectKind == core::SubjectKind::DeviceEvent && findings[i].event == event)
            out.push_back(core::FindingIndex::at(i));
    return out;
}

} // namespace linkscope::ui
