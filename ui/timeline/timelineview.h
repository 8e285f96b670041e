#pragma once
// The timeline: ONE custom-painted widget for all lanes (no item per event). From top to bottom it
// paints an overview strip of the whole trace, a time ruler, then the lanes (group headers, one
// row per nesting depth) with a lane-header column on the left, and the dependency edges on top.
//
// The widget keeps the view's state (document, selection, hover, re-parent drag, the visible time
// span) and composes the parts, each in its own file as in Qt Creator's tracing library:
//   timelineviewport     which time span is visible and how it maps onto pixels (pure maths)
//   timelinelayout       which rows exist and where they are vertically
//   timelinescroll       the vertical offset, the pinned rows, the scroll bar, fit rows
//   timerangeselection   the Shift+drag time range
//   timelinearrangement  what the user arranged of the lanes (collapsed, hidden, pinned, folded, order)
//   timelinesettings     that arrangement saved per trace
//   timelineinput        mouse, keys (QActions; the shortcut sheet lists them), menus and tooltips
//   timelinemenus        the context menus and the lane actions
//   timelinenavigation   fit, frame, reveal, follow edges, step along a row
//   timelinetooltips     the hover texts
// A paint builds one TimelineFrame (timelineframe.h); TimelineRenderer runs the render passes over it:
//   timelinelanes        lane shading, the events (timelinegeometry, cached until the frame changes), outlines
//   timelineedges        which dependency edges are shown, and their curves
//   timelineoverlays     time range, markers, re-parent drag, status boxes
//   timelineheaders      the header column, sticky labels, the header drop line
//   timelineruler        the ruler and the overview strip
// The passes return what hit-testing needs (TimelinePainted); the view keeps the last frame's.
// What the view shows (window, time range, hover, selection) is its state() (timelineviewstate.h);
// arranging lanes, the menus, navigation and the edge filter's state are reached through
// arrangement(), menus(), navigation() and edgeOverlay(); the view does not forward to them.

#include "ground/eventnotes.h"
#include "ground/eventselection.h"
#include "ground/tracedocument.h"
#include "timeline/timelinearrangement.h"
#include "timeline/timelinebookmarks.h"
#include "timeline/timelineedges.h"
#include "timeline/timelineframe.h"
#include "timeline/timelineheaders.h"
#include "timeline/timelineinput.h"
#include "timeline/timelinelayout.h"
#include "timeline/timelinemenus.h"
#include "timeline/timelinenavigation.h"
#include "timeline/timelineoverlays.h"
#include "timeline/timelinepath.h"
#include "timeline/timelinerenderer.h"
#include "timeline/timelineruler.h"
#include "timeline/timelinescroll.h"
#include "timeline/timelinesettings.h"
#include "timeline/timelineviewstate.h"

#include <QImage>
#include <QList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QAction;

namespace linkscope::ui {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kOverviewHeight = 34;
    static constexpr int kRulerHeight = 24;
    static constexpr int kHeaderWidth = 240; // the header column's default width
    static constexpr int kMinHeaderWidth = 100;
    static constexpr int kEdgeCap = TimelineEdgeOverlay::kEdgeCap; // "all edges in view" draws at most this many

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    // A new document fits everything; a relinked one (same device trace) keeps the view.
    void setDocument(DocumentPtr doc);
    const DocumentPtr &document() const { return m_doc; }

    // What the view shows (timelineviewstate.h): the visible window, the time range, the hovered
    // event and edge, and the selection shared with the docks. Its helpers and whoever follows the
    // view (rank panes, the job overview) read and change them there; the view redraws.
    TimelineViewState &state() const { return *m_state; }

    // --- Geometry (times in trace nanoseconds, x in widget pixels) ---
    // The state's window zoomed by `factor` (< 1 zooms in) keeping the time under widget x fixed, and
    // panned by dx pixels: what the wheel and a drag do.
    void zoomAt(double factor, double x);
    void panByPixels(double dx);
    // Vertical scrolling (TimelineScroll) over the lanes' area.
    int verticalOffset() const { return m_scroll->offset(); }
    void setVerticalOffset(int offset);
    int maxVerticalOffset() const { return m_scroll->maxOffset(contentRect().height()); } // 0: all rows in view
    int pinnedHeight() const { return m_scroll->pinnedHeight(contentRect().height()); }
    // The content y (TimelineLayout's) under widget y `y`, pinned rows included.
    int contentYAt(int y) const;
    // Scrolls layout row `row` into view (a third of the way down) unless it already is.
    void scrollToRow(int row);
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
    // What the view says over its empty content when the lane filter leaves no lane (empty otherwise).
    QString filteredOutText() const;

    // The instant the ruler counts from, in the document's clock (default: the trace's start). A
    // job's rank panes set the job's aligned origin, so one x reads the same time in every pane.
    void setRulerOrigin(std::optional<core::Nanos> origin)
    {
        m_rulerOrigin = origin;
        update();
    }
    core::Nanos rulerOrigin() const { return m_rulerOrigin ? *m_rulerOrigin : m_doc ? m_doc->startTime() : 0; }

    // The strip of the whole trace above the ruler (shown by default; a job's rank panes hide it).
    void setOverviewVisible(bool visible);
    int overviewHeight() const { return m_overviewVisible ? kOverviewHeight : 0; }

    // --- Lanes ---
    const TimelineLayout &layout() const { return m_layout; }
    // What is shown and in which order (TimelineArrangement: collapsed, hidden, pinned, folded
    // Python rows, moved groups and lanes); each change but a lane's Python frames expanded is
    // saved in the trace's view settings, and the view follows it.
    TimelineArrangement &arrangement() const { return *m_arrangement; }
    // "Fit rows": the rows shrink so that all fit the view's height (down to TimelineLayout::kMinRowHeight),
    // and keep fitting as the view or the lanes change; off: the normal height.
    void setFitRows(bool fit);
    bool fitRows() const { return m_scroll->fitRows(); }
    void setGpuFirst(bool gpuFirst); // also pins the GPU groups (or unpins them)
    // The lane-header column's width (drag its right edge); at least kMinHeaderWidth, at most half the view.
    int headerWidth() const { return m_headerWidth; }
    void setHeaderWidth(int width);
    // The layout row a header click or menu at `pos` is about (a sticky label's lane or group first), or -1.
    int headerRowAt(const QPoint &pos) const;
    // A click on a header: collapses or expands its group, or its lane if it has several rows.
    void toggleHeaderAt(const QPoint &pos);

    // The context menus (header, event, edge) and the lane actions of the View menu (TimelineMenus);
    // whoever can correct links adds its actions to the event and edge menus there.
    TimelineMenus &menus() const { return *m_menus; }
    // Fit and frame the selection, follow its edges, step along its row (TimelineNavigation).
    TimelineNavigation &navigation() { return m_navigation; }

    // A header dragged to a new place (timelineheaders.h): TimelineInput sets it while the drag
    // lasts, the view draws its drop line.
    using HeaderDrag = TimelineHeaderDrag;
    const HeaderDrag &headerDrag() const { return m_headerDrag; }
    void setHeaderDrag(const HeaderDrag &drag);

    // What the last paint's passes returned for hit-testing (widget coordinates): the header labels
    // drawn (sticky ones stand for a lane or group whose own label row has scrolled off), the flag
    // and note markers, the re-parent drag curve's ends (null points when not drawn).
    using HeaderLabel = TimelineHeaderLabel;
    using PaintedMarker = TimelinePaintedMarker;
    const TimelinePainted &painted() const { return m_painted; }

    // --- Notes and flags (EventNotes; set after every edit) ---
    // A flagged event gets a flag marker, a noted one a note marker (the text is their tooltip, and
    // the event's); a flagged GPU op's parent edge is drawn "Flagged by you". Notes of another trace
    // than the document's are ignored.
    void setEventNotes(EventNotesPtr notes);
    const EventNotesPtr &eventNotes() const { return m_notes; }
    // The notes that apply to the document shown (null when none or of another trace).
    const EventNotes *currentNotes() const;
    // The event whose marker is under `pos`, or none.
    core::EventIndex markerAt(const QPoint &pos) const;

    // Per-trace view settings (QSettings, keyed by the Kineto trace's absolute path): GPU streams
    // first, hidden Python rows, hidden and collapsed groups and lanes (by label), the order of
    // groups and lanes (by stable key: pid/tid, device/stream), header width. Saved on every change
    // made through the view, restored when a new trace is set.
    void saveViewSettings() const;

    // --- Bookmarks (timelinebookmarks.h; the list is the sidecar's, set by BookmarkUi) ---
    void setBookmarks(core::BookmarkList list)
    {
        m_bookmarks.setBookmarks(std::move(list));
        update();
        emit bookmarksChanged();
    }
    // Other ranks' bookmarks on this trace's clock (rank panes): drawn fainter, named with their rank.
    void setBookmarkEchoes(core::BookmarkList list)
    {
        m_bookmarks.setEchoes(std::move(list));
        update();
    }
    const TimelineBookmarks &bookmarkOverlay() const { return m_bookmarks; }
    // --- Hit testing (widget coordinates) ---
    core::EventIndex eventAt(const QPoint &pos) const; // none if none
    QRectF eventRect(core::EventIndex event) const;    // empty if its row is hidden

    // Events to mark (search hits), sorted by start time; only those in view are drawn.
    void setHighlightedEvents(std::vector<core::EventIndex> events);
    const std::vector<core::EventIndex> &highlightedEvents() const { return m_highlighted; }

    // Critical-path mode (timelinepath.h): the path's ops in path order are outlined, joined and
    // the rest dimmed; empty turns it off. A new trace turns it off.
    void setPathEvents(std::vector<core::EventIndex> chain);
    const TimelinePathOverlay &pathOverlay() const { return m_path; }

    // --- Edges ---
    // Which edges are drawn (the filter, the focused and hovered edge) and what the last paint drew
    // (TimelineEdgeOverlay: painted(), inView(), …; tests and the status line read it). The view's
    // setters below redraw and announce the change.
    const TimelineEdgeOverlay &edgeOverlay() const { return m_edges; }
    using PaintedEdge = TimelineEdgeOverlay::PaintedEdge;
    void setShowAllEdgesInView(bool show);
    void setEdgeKindVisible(core::EdgeKind kind, bool visible);
    void setFocusedEdge(DrawEdgeIndex edge); // drawn thicker; `[`/`]` go along it
    // The drawn edge under widget position `pos` (within 4 px of its curve), or none. Events win:
    // a click or hover on an event is the event's.
    DrawEdgeIndex edgeAt(const QPoint &pos) const;
    // A click on an edge: selects its target (the GPU op of a parent edge, the waiting call of a
    // sync), focuses the edge (drawn thicker; `[`/`]` go along it) and emits edgeSelected.
    void selectEdge(DrawEdgeIndex edge);
    // The hover text of an edge: its kind, the rule or provenance, and both ends with their times.
    QString edgeTooltip(DrawEdgeIndex edge) const;

    // --- Time-range (area) selection ---
    // Shift+drag on the lanes or the ruler selects a time range (the state's timeRange()); it is drawn
    // as a band over all lanes with its duration in the ruler. A click or Esc clears it, F zooms to it.
    bool timeRangeDragging() const;

    // --- Re-parent drag overlay ---
    // Whoever handles a Ctrl+drag (ReviewUi) describes it here and the view draws it: a curve from
    // the dragged GPU op to the cursor, the event under the cursor outlined as a valid (green) or
    // invalid (red, hatched, with `reason` beside the cursor) new parent. The view does not decide
    // validity and does not act on the drop.
    using LinkDrag = TimelineLinkDrag;
    void setLinkDrag(const LinkDrag &drag);
    void clearLinkDrag();
    bool linkDragActive() const { return m_linkDrag.from.valid(); }
    const LinkDrag &linkDrag() const { return m_linkDrag; }

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
    // The frame-time overlay (F12): the last frame's duration and merged columns.
    bool frameTimeShown() const { return m_showFrameTime; }
    void setFrameTimeShown(bool shown);

    // --- Keys ---
    // The key bindings (TimelineInput); they act while the view has the focus. The shortcut sheet is
    // generated from them.
    const QList<QAction *> &keyActions() const;
    QAction *keyAction(TimelineKey key) const;

signals:
    void viewChanged();
    void framePainted(qint64 nanos);
    void edgeFilterChanged();
    // An edge was clicked (selectEdge); the selection already holds its target.
    void edgeSelected(DrawEdgeIndex edge);
    // `M`: bookmark this instant (the time range's or selection's start, else the time under the
    // cursor, else the view's centre). The view only asks; BookmarkUi adds it (undoable, saved).
    void bookmarkRequested(core::Nanos ts);
    // setBookmarks() was called: the rank panes draw this trace's bookmarks on the others.
    void bookmarksChanged();

protected:
    // Input (mouse, keys, wheel, context menus, tooltips) goes to TimelineInput, an event filter.
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QRect contentRectFor(const QSize &size) const;
    void viewportChanged(bool changed);
    void updateScrollBar();
    void onSelectionChanged(core::EventIndex event);
    void watchSelection();
    void layoutChanged(bool save);

    DocumentPtr m_doc;
    TimelineViewState *m_state = new TimelineViewState(this);
    EventSelection *m_watched = nullptr; // the state's selection model the view follows
    TimelineArrangement *m_arrangement = new TimelineArrangement(this);
    TimelineLayout &m_layout = m_arrangement->layout();
    TimelineScroll *m_scroll = new TimelineScroll(this, m_layout);
    TimelineInput *m_input = nullptr;
    TimelineMenus *m_menus = nullptr;
    TimelineNavigation m_navigation{*this};

    TimelineRenderer m_renderer;
    TimelineEdgeOverlay m_edges;
    TimelinePathOverlay m_path;
    TimelineBookmarks m_bookmarks;
    TimelinePainted m_painted; // what the last frame's passes returned

    bool m_showFrameTime = false;
    bool m_overviewVisible = true;
    int m_headerWidth = kHeaderWidth;
    HeaderDrag m_headerDrag;
    EventNotesPtr m_notes;
    QString m_placeholder;
    std::optional<core::Nanos> m_rulerOrigin;
    std::vector<core::EventIndex> m_highlighted;
    LinkDrag m_linkDrag;
    qint64 m_lastFrameNanos = 0;
};

} // namespace linkscope::ui
