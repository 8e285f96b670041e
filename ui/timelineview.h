#pragma once
// The timeline: ONE custom-painted widget for all lanes (no item per event). From top to bottom it
// paints an overview strip of the whole trace, a time ruler, then the lanes (group headers, one
// row per nesting depth) with a lane-header column on the left, and the dependency edges on top.
//
// Level of detail (timeline-ux A.4): lanes outside the viewport are culled; per row, a binary
// search finds the first visible event; events narrower than a pixel are merged into one rect per
// pixel column by jumping (binary search) to the first event of the next column, so the cost of a
// row is bounded by its width in pixels, not by its event count. Rects are grouped by colour and
// cached with their labels; hover, selection and edges are drawn over the cached geometry, which is
// rebuilt only when the time range, the size, the vertical offset or the layout change.
//
// Keys (timeline-ux A.5): W/S zoom at the cursor, A/D pan (Shift: faster), Ctrl+wheel zoom,
// wheel scrolls lanes, Shift+wheel / horizontal wheel pans, drag pans, click selects,
// F fits the time range or else the selection (again: with its edges' ends), 0 or Home fits
// everything, Esc clears the time range or else deselects,
// [ / ] follow the selected event's incoming / outgoing edge, Ctrl+[ / Ctrl+] cycle which edge
// is focused, , / . previous / next event on the same row, E toggles all edges in view,
// F12 toggles the frame-time overlay. Shift+drag (lanes or ruler) selects a time range: F then
// fits the range, Esc or a click clears it.

#include "eventselection.h"
#include "timelinelayout.h"
#include "tracedocument.h"

#include <QImage>
#include <QWidget>

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QScrollBar;

namespace linkscope::ui {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kOverviewHeight = 34;
    static constexpr int kRulerHeight = 24;
    static constexpr int kHeaderWidth = 240;
    static constexpr int kEdgeCap = 2000; // "all edges in view" draws at most this many

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    // A new document fits everything; a relinked one (same device trace) keeps the view.
    void setDocument(DocumentPtr doc);
    const DocumentPtr &document() const { return m_doc; }

    // The selection this view shows and changes; it is shared with the docks. Not owned.
    void setSelectionModel(EventSelection *selection);
    EventSelection *selectionModel() const { return m_selection; }

    // --- Viewport (times in trace nanoseconds, x in widget pixels) ---
    core::Nanos viewStart() const { return m_viewStart; }
    core::Nanos viewEnd() const { return m_viewEnd; }
    void setVisibleRange(core::Nanos start, core::Nanos end);
    // Multiplies the visible span by `factor` (< 1 zooms in) keeping the time under widget x fixed.
    void zoomAt(double factor, double x);
    void panByPixels(double dx);
    void fitAll();
    void fitSelection();
    int verticalOffset() const { return m_verticalOffset; }
    void setVerticalOffset(int offset);
    // Where the events are painted, in widget coordinates (right of the headers, below the ruler).
    QRect contentRect() const { return contentRectFor(rect().size()); }
    double nanosPerPixel() const;
    double timeToX(core::Nanos t) const;
    core::Nanos xToTime(double x) const;

    // Text shown while no document is set (empty: the default hint to open a trace).
    void setPlaceholderText(const QString &text)
    {
        m_placeholder = text;
        update();
    }

    // --- Lanes ---
    const TimelineLayout &layout() const { return m_layout; }
    void setGroupCollapsed(int group, bool collapsed);
    void setLaneCollapsed(std::uint32_t lane, bool collapsed);

    // --- Hit testing (widget coordinates) ---
    std::uint32_t eventAt(const QPoint &pos) const; // core::kNoIndex if none
    QRectF eventRect(std::uint32_t event) const;    // empty if its row is hidden

    // Events to mark (search hits), sorted by start time; only those in view are drawn.
    void setHighlightedEvents(std::vector<std::uint32_t> events);
    const std::vector<std::uint32_t> &highlightedEvents() const { return m_highlighted; }

    // --- Edges ---
    void setShowAllEdgesInView(bool show);
    bool showAllEdgesInView() const { return m_showAllEdges; }
    void setEdgeKindVisible(core::EdgeKind kind, bool visible);
    bool isEdgeKindVisible(core::EdgeKind kind) const { return m_edgeKinds.test(static_cast<std::size_t>(kind)); }
    void followEdge(bool outgoing); // selects the far end of the focused incoming/outgoing edge
    void cycleFocusedEdge(int delta);
    std::uint32_t focusedEdge() const { return m_focusedEdge; } // DrawEdge id or kNoIndex

    struct PaintedEdge {
        std::uint32_t edge = core::kNoIndex; // TraceDocument::edges() id
        QPointF from;                        // widget coordinates
        QPointF to;
        bool toExact = true;                 // false: the target's row is collapsed (drawn as a dot)
    };
    // What the last paint drew (tests and the status line read it).
    const std::vector<PaintedEdge> &paintedEdges() const { return m_paintedEdges; }
    // Edges in view that pass the filter when "all edges" is on (may exceed what was drawn).
    std::size_t edgesInView() const { return m_edgesInView; }
    // True when edgesInView() was estimated from a sample (more than 100,000 candidates in view).
    bool edgesInViewEstimated() const { return m_edgesInViewEstimated; }

    // --- Time-range (area) selection ---
    // Shift+drag on the lanes or the ruler selects a time range; it is drawn as a band over all
    // lanes with its duration in the ruler. A click or Esc clears it, F zooms to it.
    bool hasTimeRange() const { return m_rangeEnd > m_rangeStart; }
    core::Nanos timeRangeStart() const { return m_rangeStart; }
    core::Nanos timeRangeEnd() const { return m_rangeEnd; }
    void setTimeRange(core::Nanos start, core::Nanos end); // empty (end <= start) clears
    void clearTimeRange() { setTimeRange(0, 0); }
    void fitTimeRange();
    bool timeRangeDragging() const { return m_rangeDragging; }

    // --- Re-parent drag overlay ---
    // Whoever handles a Ctrl+drag (ReviewUi) describes it here and the view draws it: a curve from
    // the dragged GPU op to the cursor, the event under the cursor outlined as a valid (green) or
    // invalid (red, hatched, with `reason` beside the cursor) new parent. The view does not decide
    // validity and does not act on the drop.
    struct LinkDrag {
        std::uint32_t from = core::kNoIndex;   // the GPU op being re-parented
        QPoint cursor;                         // widget coordinates
        std::uint32_t target = core::kNoIndex; // event under the cursor, or kNoIndex
        bool valid = false;                    // target is an acceptable new parent
        QString reason;                        // why not (empty when valid or no target)
    };
    void setLinkDrag(const LinkDrag &drag);
    void clearLinkDrag();
    bool linkDragActive() const { return m_linkDrag.from != core::kNoIndex; }
    const LinkDrag &linkDrag() const { return m_linkDrag; }
    // Where the last paint drew the drag curve (widget coordinates); null points when not drawn.
    QPointF paintedLinkDragFrom() const { return m_paintedDragFrom; }
    QPointF paintedLinkDragTo() const { return m_paintedDragTo; }
    static QColor linkDragColor(bool valid);

    // --- Offscreen painting ---
    // Paints the complete timeline (overview, ruler, lane headers, events, edges, selection) into
    // `painter` as if the widget were `target.size()`, with its top-left corner at
    // `target.topLeft()`. The widget need not be shown or have that size: the visible time range
    // and vertical offset are the view's, the pixel scale follows `target.width()`. Geometry is
    // cached as for on-screen painting; call invalidateCache() first to time a full rebuild
    // (this is what `linkscope-bench render` measures at 1920x1080). GUI thread only.
    void paint(QPainter &painter, const QRect &target);
    // Convenience: paint() into a new ARGB32 image of `size`.
    QImage renderToImage(const QSize &size);
    void invalidateCache();
    // Duration of the last paint() in nanoseconds (also emitted by framePainted).
    qint64 lastFrameNanos() const { return m_lastFrameNanos; }

signals:
    void viewChanged();
    void framePainted(qint64 nanos);
    void edgeFilterChanged();
    // The time range was set (on release, not during the drag) or cleared.
    void timeRangeChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Label {
        QRect rect;
        std::uint32_t event;
        QString text;        // elided on first paint, then reused by hover/selection repaints
        bool elided = false;
    };
    struct Geometry {
        const TraceDocument *doc = nullptr;
        core::Nanos start = 0;
        core::Nanos end = 0;
        QSize contentSize;
        int verticalOffset = 0;
        std::uint64_t layoutVersion = 0;
        std::array<std::vector<QRect>, kEventStyleCount> rects; // content coordinates
        std::vector<Label> labels;
        std::size_t mergedColumns = 0;
    };

    QRect contentRectFor(const QSize &size) const;
    int maxVerticalOffset(int contentHeight) const;
    void clampView();
    void updateScrollBar();
    void buildGeometry(Geometry &geometry, const QRect &content, int verticalOffset) const;
    void buildRow(Geometry &geometry, const LaneRows &rows, int row, int y, int width, double nanosPerPixel) const;
    void buildRowFromSummary(Geometry &geometry, const LaneRows &rows, const RowSummary &summary, int top, int width,
                             double nanosPerPixel) const;
    void paintOverview(QPainter &painter, const QRect &area, core::Nanos start, core::Nanos end);
    void paintRuler(QPainter &painter, const QRect &area, core::Nanos start, core::Nanos end, const QRect &content);
    void paintHeaders(QPainter &painter, const QRect &area, int verticalOffset);
    // The selected time range's ends in pixels of `content`; nullopt when there is none or it is out of view.
    std::optional<std::pair<double, double>> timeRangePixels(const QRect &content, double nanosPerPixel) const;
    void paintTimeRange(QPainter &painter, const QRect &content, double nanosPerPixel);
    void paintTimeRangeLabel(QPainter &painter, const QRect &ruler, const QRect &content, double nanosPerPixel);
    core::Nanos clampedTimeAt(double x) const;
    void paintLinkDrag(QPainter &painter, const QRect &content, double nanosPerPixel, int verticalOffset);
    void paintEdges(QPainter &painter, const QRect &content, core::Nanos start, double nanosPerPixel,
                    int verticalOffset);
    void collectEdges(std::vector<std::uint32_t> &out, core::Nanos start, core::Nanos end);
    std::uint32_t findEventInRow(const LayoutRow &row, core::Nanos t, core::Nanos tolerance) const;
    QRectF eventRectIn(std::uint32_t event, const QRect &content, core::Nanos start, double nanosPerPixel,
                       int verticalOffset) const;
    void revealEvent(std::uint32_t event);
    void onSelectionChanged(std::uint32_t event);
    void stepOnRow(int delta);
    std::vector<std::uint32_t> selectedEdges(bool incoming) const;
    QString tooltipFor(std::uint32_t event) const;
    void toggleHeaderAt(const QPoint &pos);

    DocumentPtr m_doc;
    EventSelection *m_selection = nullptr;
    TimelineLayout m_layout;
    core::Nanos m_viewStart = 0;
    core::Nanos m_viewEnd = 1;
    int m_verticalOffset = 0;
    QScrollBar *m_scrollBar = nullptr;

    bool m_showAllEdges = false;
    std::bitset<core::kEdgeKindCount> m_edgeKinds;
    std::uint32_t m_focusedEdge = core::kNoIndex;
    std::vector<PaintedEdge> m_paintedEdges;
    std::size_t m_edgesInView = 0;
    bool m_edgesInViewEstimated = false;
    bool m_fitSelectionWide = false;

    std::uint32_t m_hoverEvent = core::kNoIndex;
    QPoint m_pressPos;
    bool m_pressed = false;
    bool m_panning = false;
    bool m_overviewDrag = false;
    core::Nanos m_pressViewStart = 0;
    int m_pressVerticalOffset = 0;

    Geometry m_geometry;
    QImage m_overviewImage;
    const TraceDocument *m_overviewDoc = nullptr;
    bool m_showFrameTime = false;
    int m_headerClipWidth = kHeaderWidth;
    QString m_placeholder;
    std::vector<std::uint32_t> m_highlighted;
    core::Nanos m_rangeStart = 0;
    core::Nanos m_rangeEnd = 0;
    bool m_rangeDragging = false;
    core::Nanos m_rangeAnchor = 0;
    LinkDrag m_linkDrag;
    QPointF m_paintedDragFrom;
    QPointF m_paintedDragTo;
    qint64 m_lastFrameNanos = 0;
};

} // namespace linkscope::ui
