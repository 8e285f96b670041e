#pragma once
// A loaded trace pair as the UI sees it: the core results (immutable, shared between the GUI thread
// and background jobs) plus the derived, draw-ready arrays the timeline and docks need.
// Built once per load or relink, off the GUI thread; never modified afterwards.

#include "base/cowvector.h"
#include "base/indices.h"
#include "base/segmentedvector.h"
#include "ground/eventstyle.h"
#include "link/chakracompare.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace linkscope::core {
struct InputFormat;
}

namespace linkscope::core {
struct LinkSetChange;
}

namespace linkscope::ui {

// One lane's events split by nesting depth, each row sorted by start. Within a row, events do not
// nest, so a binary search on `starts` finds the visible ones, and sub-pixel events can be skipped
// by jumping to the next pixel's time (LOD, timeline-ux A.4) instead of visiting each one.
// Level of detail for one dense row: a pyramid of its event coverage per power-of-two time bucket
// (level k buckets are 2^(baseShift+k) ns wide, counted from `origin`), so that a zoomed-out frame
// reads about two buckets per pixel column instead of visiting the events. Events at least as long
// as a level's bucket are listed per level, so the ones wider than a pixel are still drawn (and
// labelled) one by one. Built with the document, off the GUI thread.
struct RowSummary {
    int baseShift = -1; // -1: the row is sparse enough to draw event by event
    core::Nanos origin = 0;
    std::vector<std::uint32_t> levelBegin; // level k is [levelBegin[k], levelBegin[k+1]) in coverage/style
    std::vector<std::uint8_t> coverage;    // 0: empty; else share of the bucket covered, 1..255
    std::vector<std::uint8_t> style;       // EventStyle covering most of the bucket
    std::vector<std::uint32_t> longBegin;  // level k is [longBegin[k], longBegin[k+1]) in longEvents
    std::vector<std::uint32_t> longEvents; // positions in LaneRows::events with dur >= the bucket width
    int levelCount() const { return levelBegin.empty() ? 0 : static_cast<int>(levelBegin.size()) - 1; }
};

struct LaneRows {
    std::vector<std::uint32_t> rowBegin;  // row r is [rowBegin[r], rowBegin[r+1]) in events/starts
    std::vector<core::EventIndex> events; // DeviceTrace event indices
    std::vector<core::Nanos> starts;      // starts[i] == events[i].ts, contiguous for the search
    std::vector<RowSummary> summaries;    // one per row
    int rowCount() const { return rowBegin.empty() ? 0 : static_cast<int>(rowBegin.size()) - 1; }
};

// The lanes' rows with the Python frames left out (View ▸ Hide Python rows): each other event one
// row below its nearest enclosing event that is not a Python frame, so that an op called under 15
// frames sits right under the op (or the top) that encloses it, whatever the frames' depth there.
struct PythonFreeRows {
    std::vector<LaneRows> lanes;     // per lane, as TraceDocument::laneRows()
    std::vector<std::int32_t> depth; // per event: its row in lanes; -1 for a Python frame or an event on no lane
};

// Every edge the timeline can draw, Parent edges included (core keeps those in gpuLinks). An edge
// id is a slot that stays put across corrections: GPU link k's parent edge is slot 2k and its
// launch edge 2k+1; LinkSet::edges[j] is slot 2·gpuLinks + j. A slot without an edge (an orphan's
// parent, a core Launch edge, which gpuLinks already draws) is a gap: drawn() is false, and it is
// in neither the adjacency nor the time orders. An edge id is a DrawEdgeIndex; none (core::kNone)
// names no edge.
using DrawEdgeIndex = core::StrongIndex<struct DrawEdgeIndexTag>;

struct DrawEdge {
    core::EventIndex from{}; // DeviceTrace event indices
    core::EventIndex to{};
    core::EdgeKind kind = core::EdgeKind::Parent;
    EdgeProvenance provenance = EdgeProvenance::Rule;
    bool drawn() const { return from.valid(); }
    friend bool operator==(const DrawEdge &, const DrawEdge &) = default;
};

// The edges touching each event (either end), in edge id order: a CSR split into chunks of
// 4,096 events held by shared_ptr, so that a correction copies the chunks of the few events whose
// edges changed and shares the rest with the document it was made from.
class EdgeAdjacency {
public:
    static constexpr unsigned kChunkBits = 12;
    static constexpr std::size_t kChunk = std::size_t(1) << kChunkBits;

    void build(std::size_t eventCount, const core::CowVector<DrawEdge> &edges);
    std::pair<const DrawEdgeIndex *, const DrawEdgeIndex *> of(core::EventIndex event) const
    {
        const Chunk &chunk = *m_chunks[event.get() >> kChunkBits];
        const std::size_t local = event.get() & (kChunk - 1);
        return {chunk.ids.data() + chunk.begin[local], chunk.ids.data() + chunk.begin[local + 1]};
    }
    // Edge `id` leaves (add = false) or joins (add = true) `event`'s list.
    struct Change {
        core::EventIndex event;
        DrawEdgeIndex id;
        bool add;
    };
    void apply(std::vector<Change> changes);
    std::size_t sharedChunks(const EdgeAdjacency &other) const;

private:
    struct Chunk {
        std::vector<std::uint32_t> begin; // events in the chunk + 1 offsets into ids
        std::vector<DrawEdgeIndex> ids;
    };
    std::vector<std::shared_ptr<const Chunk>> m_chunks;
};

struct LinkCounts {
    std::size_t gpuOps = 0;
    std::size_t linked = 0;  // GPU ops with a parent CPU op
    std::size_t orphans = 0; // GPU ops without one
    std::size_t findings = 0;
};

// "host_et.json + kineto.json" (the files' names, not their folders), or the Kineto trace's name alone.
QString pairFileNames(const QString &hostPath, const QString &devicePath);

class TraceDocument {
public:
    // Derives the timeline arrays from the core results. `cancel` (optional) is polled between
    // stages; core::Cancelled is thrown when it is set. `host` may be null (Kineto only).
    // `deviceFormat`: the input-format row that read the device trace (io/formats.h; null: the device
    // role's default row, the Kineto trace's), what names the files made from it.
    static std::shared_ptr<const TraceDocument> create(QString hostPath, QString devicePath,
                                                       std::shared_ptr<const core::HostTrace> host,
                                                       std::shared_ptr<const core::DeviceTrace> device,
                                                       std::shared_ptr<const core::LinkSet> links,
                                                       const std::atomic<bool> *cancel = nullptr,
                                                       std::shared_ptr<const core::ChakraLinks> chakra = nullptr,
                                                       const core::InputFormat *deviceFormat = nullptr);

    // The document for corrected links over the same events and index as `base` (each correction
    // publishes one). Styles, lane rows and their LOD summaries depend only on the events and the
    // index, so they are shared with `base`. The finding marks, edges, adjacency and time orders are
    // chunked and shared with `base` too: only the GPU ops and core edges in chunks the correction
    // copied (told apart by their chunks' addresses) are compared, and only the
    // edges that differ are patched in, so the cost follows the edit, not the trace. Equal to
    // create() on the same links. Falls back to create() when the links were made over another
    // index (another load), or when the edit changed too many edges for patching to pay.
    static std::shared_ptr<const TraceDocument> createWithLinks(const std::shared_ptr<const TraceDocument> &base,
                                                                std::shared_ptr<const core::LinkSet> links,
                                                                const std::atomic<bool> *cancel = nullptr);
    // What changed in the links since `previous` (edit/linkchange.h) when this document was made
    // from it by createWithLinks over the same index (a correction, an undo or redo, a relink):
    // computed once there, for the document and every view that follows the edit (the findings'
    // causes, the comparison with Chakra). Null for any other `previous`, and for a document made by
    // create(): a view then derives in full.
    const core::LinkSetChange *changeSince(const TraceDocument &previous) const;
    // True when this document's lane rows are `other`'s (shared, not rebuilt).
    bool sharesLaneRowsWith(const TraceDocument &other) const { return m_laneRows == other.m_laneRows; }
    // What this document shares with `other` (tests, benchmarks: what a correction copied): chunks
    // of the finding marks, edges, adjacency and the two time orders, each shared / total.
    struct Sharing {
        std::size_t shared = 0;
        std::size_t total = 0;
    };
    Sharing sharingWith(const TraceDocument &other) const;

    const QString &hostPath() const { return m_files.host; }
    const QString &devicePath() const { return m_files.device; }
    // The input-format row the device trace was read with (the device role's default row when the
    // document was made without one): its name and name suffixes name the exports' default files.
    const core::InputFormat &deviceFormat() const;
    const core::HostTrace *host() const { return m_host.get(); }
    const core::DeviceTrace &device() const { return *m_device; }
    const core::LinkSet &links() const { return *m_links; }
    const core::TraceIndex &index() const { return *m_links->index; }
    std::shared_ptr<const core::HostTrace> hostShared() const { return m_host; }
    std::shared_ptr<const core::DeviceTrace> deviceShared() const { return m_device; }
    std::shared_ptr<const core::LinkSet> linksShared() const { return m_links; }
    // The pair linked under both Chakra rules (once per load, shared by every relink and correction
    // of it), for compared_with_chakra; null when the loader did not make them.
    const std::shared_ptr<const core::ChakraLinks> &chakraLinks() const { return m_chakra; }

    std::size_t eventCount() const { return m_device->events.size(); }
    const core::DeviceEvent &event(core::EventIndex i) const { return m_device->event(i); }
    QString eventName(core::EventIndex i) const;
    EventStyle style(core::EventIndex i) const { return m_styleData[i.get()]; }
    // The event is the subject of a warning or error finding (drawn "Has finding").
    bool hasFinding(core::EventIndex i) const { return i.in(m_hasFinding.size()) && m_hasFinding[i] != 0; }
    const core::GpuLink *gpuLink(core::EventIndex event) const;

    const std::vector<LaneRows> &laneRows() const { return *m_laneRows; }
    const LaneRows &laneRows(core::LaneIndex lane) const { return (*m_laneRows)[lane.get()]; }
    // The rows without Python frames; null for a trace that has none (shared as laneRows() is).
    const PythonFreeRows *pythonFreeRows() const { return m_pythonFree.get(); }
    // Indexed by edge id; gaps included (DrawEdge::drawn()).
    const core::CowVector<DrawEdge> &edges() const { return m_edges; }
    // Edge ids touching `event` (either end), ascending.
    std::pair<const DrawEdgeIndex *, const DrawEdgeIndex *> edgesOf(core::EventIndex event) const
    {
        return m_adjacency.of(event);
    }
    // Drawn edge ids sorted by the start time of their `from` / `to` event, then id (for "all
    // edges in view"); their size is the count of drawn edges (gaps not counted).
    using EdgeOrder = core::SegmentedVector<DrawEdgeIndex>;
    const EdgeOrder &edgesByFromTime() const { return m_edgesByFromTime; }
    const EdgeOrder &edgesByToTime() const { return m_edgesByToTime; }

    // Findings whose subject is this device event (indices into links().findings).
    std::vector<core::FindingIndex> findingsOf(core::EventIndex event) const;

    const LinkCounts &counts() const { return m_counts; }
    core::Nanos startTime() const { return m_start; }
    core::Nanos endTime() const { return m_end; }

private:
    TraceDocument() = default;
    void buildFindingMarks();
    void buildEdges(const std::atomic<bool> *cancel);
    DrawEdge parentEdgeOf(const core::GpuLink &link) const;
    DrawEdge launchEdgeOf(const core::GpuLink &link) const;
    DrawEdge coreEdgeOf(const core::Edge &edge) const;
    bool gpuOpMarked(core::GpuLinkIndex linkIndex) const;
    bool patch(const TraceDocument &base, const core::LinkSetChange &change);

    // The files read, and the row the device trace was read with.
    struct Files {
        QString host;
        QString device;
        const core::InputFormat *deviceFormat = nullptr; // null: the device role's default row
    } m_files;
    std::shared_ptr<const core::HostTrace> m_host;
    std::shared_ptr<const core::DeviceTrace> m_device;
    std::shared_ptr<const core::LinkSet> m_links;
    std::shared_ptr<const core::ChakraLinks> m_chakra;
    std::shared_ptr<const PythonFreeRows> m_pythonFree;
    // What changed since the links of the document this one was made from (createWithLinks), and
    // those links, held weakly: to tell them apart, not to keep them.
    std::shared_ptr<const core::LinkSetChange> m_change;
    std::weak_ptr<const core::LinkSet> m_changeBase;

    // Shared between the documents of one trace's corrections (createWithLinks).
    std::shared_ptr<const std::vector<EventStyle>> m_styles;
    const EventStyle *m_styleData = nullptr; // m_styles->data(), for the painter's inner loop
    std::shared_ptr<const std::vector<LaneRows>> m_laneRows;
    // Shared chunk by chunk with the document a correction was made from (createWithLinks).
    core::CowVector<std::uint8_t, 16> m_hasFinding;
    // GPU op events marked by a trace-wide or host-side finding (no correction changes those).
    std::shared_ptr<const std::vector<core::EventIndex>> m_fixedGpuMarks;
    core::CowVector<DrawEdge> m_edges;
    EdgeAdjacency m_adjacency;
    EdgeOrder m_edgesByFromTime;
    EdgeOrder m_edgesByToTime;
    LinkCounts m_counts;
    core::Nanos m_start = 0;
    core::Nanos m_end = 0;
};

using DocumentPtr = std::shared_ptr<const TraceDocument>;

} // namespace linkscope::ui
