#pragma once
// Vertical layout of the timeline: groups (a process/rank's CPU threads, a GPU device's streams),
// each with a header row, then one row per nesting depth of each lane. Pure geometry, no painting.
//
// What the user chose to see: GPU groups first (the default: on a with_stack trace the GPU streams
// would otherwise sit below screens of Python frames), groups and lanes collapsed (a header, or one
// row) or hidden (no row at all), "hide Python rows": rows of a lane that hold python_function
// events only are left out, and the order of the groups and of the lanes in each group (moved by
// the user; named by stable keys, see groupKey() / laneKey(), so that a saved order survives a
// reload and ignores lanes that are gone). Flags are kept per group and lane index of the document.
//
// Pinned groups (the GPU groups by default, as Perfetto pins tracks to the top) come first, above
// the others; the view keeps them in place while the rest scrolls (pinnedHeight()). Python frames
// (rows of a lane that hold python_function events only) are folded, by default, into one summary
// row per run of such rows; a lane's Python rows can be expanded (setPythonExpanded).

#include "ground/tracedocument.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace linkscope::ui {

struct TimelineGroup {
    QString label;
    QString key; // stable: "gpu:DEVICE" or "pid:PID" (as in the file)
    bool gpu = false;
    int natural = 0;                    // its place in the index's lane order (the default order's tie-break)
    std::vector<core::LaneIndex> lanes; // TraceIndex lane indices, in display order (index order by default)
};

struct LayoutRow {
    enum class Kind : std::uint8_t { GroupHeader, LaneRow };
    Kind kind = Kind::LaneRow;
    int group = -1;
    core::LaneIndex lane{}; // LaneRow only
    int depth = 0;          // LaneRow only: the nesting depth it shows
    int y = 0;              // content coordinates (0 = top of the first group)
    int height = 0;
    int folded = 0; // LaneRow: how many more Python rows this summary row stands for
};

class TimelineLayout {
public:
    static constexpr int kGroupHeaderHeight = 22;
    static constexpr int kRowHeight = 18;    // the default row height
    static constexpr int kMinRowHeight = 10; // "fit rows" goes no lower (labels need about 12)
    static constexpr int kLaneGap = 4;

    // Groups the document's lanes (GPU groups first unless setGpuFirst(false)); every lane and group
    // shown and expanded, in the default order. With `keepArrangement` and a document with the same
    // lanes (a relink or a correction of the same device trace), the groups, their order and every
    // flag stay as they are.
    void setDocument(const TraceDocument *doc, bool keepArrangement = false);
    void setGroupCollapsed(int group, bool collapsed);
    void setLaneCollapsed(core::LaneIndex lane, bool collapsed);
    bool isGroupCollapsed(int group) const { return m_groupCollapsed.at(group); }
    bool isLaneCollapsed(core::LaneIndex lane) const { return m_laneCollapsed.at(lane.get()); }
    void setAllGroupsCollapsed(bool collapsed);

    void setGroupHidden(int group, bool hidden);
    void setLaneHidden(core::LaneIndex lane, bool hidden);
    bool isGroupHidden(int group) const { return m_groupHidden.at(group); }
    bool isLaneHidden(core::LaneIndex lane) const { return m_laneHidden.at(lane.get()); }
    int hiddenCount() const; // hidden groups + hidden lanes (of shown groups or not)
    void showAllHidden();
    // Leaves out the Python frames: each lane's rows are then its PythonFreeRows (every other event
    // one row below the nearest enclosing event that is not a frame), not its rows by nesting depth.
    void setHidePythonRows(bool hide);
    bool hidePythonRows() const { return m_hidePython; }
    // Rows that hold python_function events only (what setHidePythonRows(true) leaves out), over all lanes.
    int pythonOnlyRowCount() const;
    // Folds each run of Python-only rows of a lane into one summary row (the default), unless the
    // lane's Python rows are expanded.
    void setFoldPythonRows(bool fold);
    bool foldPythonRows() const { return m_foldPython; }
    void setPythonExpanded(core::LaneIndex lane, bool expanded);
    bool isPythonExpanded(core::LaneIndex lane) const { return m_pythonExpanded.at(lane.get()); }
    // Whether `lane` has Python-only rows (which a summary row can stand for).
    bool hasPythonRows(core::LaneIndex lane) const;

    // Shows only the lanes whose name contains `text` (case-insensitive; as Perfetto's track filter),
    // all the lanes of a group whose name contains it, and no group without such a lane. `context`
    // names what the whole view shows ("rank 3"): when it contains `text`, every lane is shown.
    // Empty `text`: no filter. Not a view setting: hidden and collapsed flags stay as they are.
    void setLaneFilter(const QString &text, const QString &context = {});
    const QString &laneFilter() const { return m_filter; }
    // Whether `lane` passes the filter (always without one).
    bool passesLaneFilter(core::LaneIndex lane) const;

    // Pinned groups stay at the top while the other rows scroll. A new document pins its GPU groups.
    void setGroupPinned(int group, bool pinned);
    bool isGroupPinned(int group) const { return m_groupPinned.at(group); }
    // The height of the pinned rows at the top (0 when nothing pinned is shown).
    int pinnedHeight() const { return m_pinnedHeight; }

    // The height of a lane row (kRowHeight by default; "fit rows" lowers it). Group headers keep theirs.
    void setRowHeight(int height);
    int rowHeight() const { return m_rowHeight; }
    // The row height at which every shown row fits `height` pixels (between kMinRowHeight and kRowHeight).
    int rowHeightToFit(int height) const;

    // GPU groups above CPU groups; changes the group indices (flags move with their groups). The
    // groups go back to the default order (a moved group's place is forgotten; lanes keep theirs).
    void setGpuFirst(bool gpuFirst);
    bool gpuFirst() const { return m_gpuFirst; }

    // --- Order ---
    // Moves group `group` to display position `position` (0 = top; clamped), or lane `lane` to
    // `position` among its group's lanes. Group indices change (flags move with their groups); lane
    // indices do not. Return false when nothing moved.
    bool moveGroup(int group, int position);
    bool moveLane(core::LaneIndex lane, int position);
    // Moves past the next shown group or lane above (delta < 0) or below (the menu's Move up /
    // Move down): hidden ones in between are stepped over. False at the end.
    bool moveGroupBy(int group, int delta);
    bool moveLaneBy(core::LaneIndex lane, int delta);
    // Whether moveGroupBy / moveLaneBy would move it.
    bool canMoveGroupBy(int group, int delta) const { return shownNeighbourGroup(group, delta) >= 0; }
    bool canMoveLaneBy(core::LaneIndex lane, int delta) const { return shownNeighbourLane(lane, delta) >= 0; }
    // Where a lane is among its group's lanes (display order).
    int lanePosition(core::LaneIndex lane) const;
    // True when a group or a lane is not where the default order puts it.
    bool hasCustomOrder() const;
    void resetOrder(); // the default order (GPU groups first if gpuFirst())
    // Stable names (the file's pid/tid, device/stream; not indices) for saving the order.
    const QString &groupKey(int group) const { return m_groups.at(group).key; }
    QString laneKey(core::LaneIndex lane) const;
    // The display order as keys: every group's key; every lane's "groupKey/laneKey".
    QStringList groupOrder() const;
    QStringList laneOrder() const;
    // Applies a saved order. Keys of groups or lanes that no longer exist are ignored; those not
    // listed keep their default places, and the listed ones fill the other places in the saved order.
    void applyOrder(const QStringList &groupKeys, const QStringList &laneKeys);

    const std::vector<TimelineGroup> &groups() const { return m_groups; }
    const std::vector<LayoutRow> &rows() const { return m_rows; }
    int totalHeight() const { return m_totalHeight; }
    int groupOfLane(core::LaneIndex lane) const { return m_groupOfLane.at(lane.get()); }
    // How many depth rows of `lane` are shown (0 when it or its group is collapsed away or hidden).
    int shownRowCount(core::LaneIndex lane) const { return m_shownRows.at(lane.get()); }
    // Index in rows() of the first row of `lane`, or of a group's header; -1 if not shown.
    int firstRowOfLane(core::LaneIndex lane) const { return m_laneFirstRow.at(lane.get()); }
    int headerRowOfGroup(int group) const { return m_groupHeaderRow.at(group); }
    // Index in rows() of the row showing depth `depth` of `lane`, or -1 when that row is not shown.
    // A depth is a row of rowsOf(lane): the nesting depth, or with hidden Python rows the depth
    // among the events that are not Python frames (depthOf()).
    int rowOfDepth(core::LaneIndex lane, int depth) const;
    // The rows the layout shows of `lane`: the document's laneRows(), or its PythonFreeRows while
    // Python rows are hidden. LayoutRow::depth indexes them.
    const LaneRows &rowsOf(core::LaneIndex lane) const;
    // The depth `event` is shown at in rowsOf() (-1: a Python frame while they are hidden).
    int depthOf(core::EventIndex event) const;
    // Index in rows() of the row showing `event`, or -1.
    int rowOfEvent(core::EventIndex event) const;
    // Content y just below the last shown row of a lane, or of a group (its last lane's gap
    // included); -1 when not shown. The sticky labels stop there.
    int laneBottom(core::LaneIndex lane) const { return m_laneBottom.at(lane.get()); }
    int groupBottom(int group) const { return m_groupBottom.at(group); }

    // Index in rows() of the row at content y, or -1.
    int rowAt(int y) const;

    // Where an event at (lane, depth) is drawn: the row's vertical middle, and whether that row is
    // the event's own (false: a stand-in — the lane's nearest shown row above, or the group's header
    // when the lane is collapsed away or hidden). A hidden group has no row: its stand-in is the
    // line where it would be (between the shown groups around it), with `hiddenGroup` set. Not
    // valid only without rows at all.
    struct Anchor {
        int y = 0;
        bool exact = false;
        bool valid = false;
        bool hiddenGroup = false;
    };
    Anchor anchorOf(core::LaneIndex lane, int depth) const;
    Anchor anchorOfEvent(core::EventIndex event) const; // at its lane and depthOf()

    // Bumped whenever rows move, so painters know their cached geometry is stale.
    std::uint64_t version() const { return m_version; }

private:
    void buildGroups();
    void computePythonRows();
    // Python rows hidden on a trace that has Python frames: rowsOf() are the PythonFreeRows.
    bool pythonFree() const { return m_hidePython && m_doc && m_doc->pythonFreeRows(); }
    void relayout();
    int layoutGroup(int group, int y);                             // appends the group's rows from y; returns the y below them
    void reorderGroups(const std::vector<int> &order);             // order[newIndex] = old index
    int shownNeighbourGroup(int group, int delta) const;           // index, or -1
    int shownNeighbourLane(core::LaneIndex lane, int delta) const; // position in its group, or -1
    std::vector<int> defaultGroupOrder() const;                    // current indices in the default order

    const TraceDocument *m_doc = nullptr;
    bool m_gpuFirst = true;
    bool m_hidePython = false;
    QString m_filter;             // the lane filter's text; empty: none
    bool m_filterContext = false; // the view's own name matches it: no lane is filtered out
    bool m_foldPython = true;
    int m_rowHeight = kRowHeight;
    int m_pinnedHeight = 0;
    std::vector<TimelineGroup> m_groups;
    std::vector<bool> m_groupCollapsed;
    std::vector<bool> m_groupHidden;
    std::vector<bool> m_groupPinned;
    std::vector<bool> m_pythonExpanded; // per lane
    std::vector<bool> m_laneCollapsed;
    std::vector<bool> m_laneHidden;
    std::vector<int> m_groupOfLane;
    std::vector<int> m_shownRows;
    std::vector<int> m_laneFirstRow;
    std::vector<int> m_groupHeaderRow;
    std::vector<int> m_laneBottom;
    std::vector<int> m_groupBottom;
    std::vector<int> m_groupTop;             // content y where each group starts (hidden: where it would)
    std::vector<std::uint32_t> m_depthBegin; // lane l's depths are [m_depthBegin[l], m_depthBegin[l+1]) below
    std::vector<int> m_rowOfDepth;
    std::vector<bool> m_pythonOnly; // same indexing; filled on first use
    bool m_pythonComputed = false;
    std::vector<LayoutRow> m_rows;
    int m_totalHeight = 0;
    std::uint64_t m_version = 0;
};

} // namespace linkscope::ui
