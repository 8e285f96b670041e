#pragma once
// Vertical layout of the timeline: groups (a process/rank's CPU threads, a GPU device's streams),
// each with a header row, then one row per nesting depth of each lane. Pure geometry, no painting.
//
// What the user chose to see: GPU groups first (the default: on a with_stack trace the GPU streams
// would otherwise sit below screens of Python frames), groups and lanes collapsed (a header, or one
// row) or hidden (no row at all), and "hide Python rows": rows of a lane that hold python_function
// events only are left out. Flags are kept per group and lane index of the document.

#include "tracedocument.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace linkscope::ui {

struct TimelineGroup {
    QString label;
    bool gpu = false;
    std::vector<std::uint32_t> lanes; // TraceIndex lane indices, in index order
};

struct LayoutRow {
    enum class Kind : std::uint8_t { GroupHeader, LaneRow };
    Kind kind = Kind::LaneRow;
    int group = -1;
    std::uint32_t lane = core::kNoIndex; // LaneRow only
    int depth = 0;                       // LaneRow only: the nesting depth it shows
    int y = 0;                           // content coordinates (0 = top of the first group)
    int height = 0;
};

class TimelineLayout {
public:
    static constexpr int kGroupHeaderHeight = 22;
    static constexpr int kRowHeight = 18;
    static constexpr int kLaneGap = 4;

    // Groups the document's lanes (GPU groups first unless setGpuFirst(false)); every lane and group
    // shown and expanded.
    void setDocument(const TraceDocument *doc);
    void setGroupCollapsed(int group, bool collapsed);
    void setLaneCollapsed(std::uint32_t lane, bool collapsed);
    bool isGroupCollapsed(int group) const { return m_groupCollapsed.at(group); }
    bool isLaneCollapsed(std::uint32_t lane) const { return m_laneCollapsed.at(lane); }
    void setAllGroupsCollapsed(bool collapsed);

    void setGroupHidden(int group, bool hidden);
    void setLaneHidden(std::uint32_t lane, bool hidden);
    bool isGroupHidden(int group) const { return m_groupHidden.at(group); }
    bool isLaneHidden(std::uint32_t lane) const { return m_laneHidden.at(lane); }
    int hiddenCount() const; // hidden groups + hidden lanes (of shown groups or not)
    void showAllHidden();
    // Leaves out the rows of each lane whose events are all python_function events.
    void setHidePythonRows(bool hide);
    bool hidePythonRows() const { return m_hidePython; }
    // Rows that hold python_function events only (what setHidePythonRows(true) leaves out), over all lanes.
    int pythonOnlyRowCount() const;
    // GPU groups above CPU groups; changes the group indices (flags move with their groups).
    void setGpuFirst(bool gpuFirst);
    bool gpuFirst() const { return m_gpuFirst; }

    const std::vector<TimelineGroup> &groups() const { return m_groups; }
    const std::vector<LayoutRow> &rows() const { return m_rows; }
    int totalHeight() const { return m_totalHeight; }
    int groupOfLane(std::uint32_t lane) const { return m_groupOfLane.at(lane); }
    // How many depth rows of `lane` are shown (0 when it or its group is collapsed away or hidden).
    int shownRowCount(std::uint32_t lane) const { return m_shownRows.at(lane); }
    // Index in rows() of the first row of `lane`, or of a group's header; -1 if not shown.
    int firstRowOfLane(std::uint32_t lane) const { return m_laneFirstRow.at(lane); }
    int headerRowOfGroup(int group) const { return m_groupHeaderRow.at(group); }
    // Index in rows() of the row showing depth `depth` of `lane`, or -1 when that row is not shown.
    int rowOfDepth(std::uint32_t lane, int depth) const;

    // Index in rows() of the row at content y, or -1.
    int rowAt(int y) const;

    // Where an event at (lane, depth) is drawn: the row's vertical middle, and whether that row is
    // the event's own (false: a stand-in — the lane's nearest shown row above, or the group's header
    // when the lane is collapsed away or hidden). Not valid when the group is hidden.
    struct Anchor {
        int y = 0;
        bool exact = false;
        bool valid = false;
    };
    Anchor anchorOf(std::uint32_t lane, int depth) const;

    // Bumped whenever rows move, so painters know their cached geometry is stale.
    std::uint64_t version() const { return m_version; }

private:
    void buildGroups();
    void computePythonRows();
    void relayout();

    const TraceDocument *m_doc = nullptr;
    bool m_gpuFirst = true;
    bool m_hidePython = false;
    std::vector<TimelineGroup> m_groups;
    std::vector<bool> m_groupCollapsed;
    std::vector<bool> m_groupHidden;
    std::vector<bool> m_laneCollapsed;
    std::vector<bool> m_laneHidden;
    std::vector<int> m_groupOfLane;
    std::vector<int> m_shownRows;
    std::vector<int> m_laneFirstRow;
    std::vector<int> m_groupHeaderRow;
    std::vector<std::uint32_t> m_depthBegin; // lane l's depths are [m_depthBegin[l], m_depthBegin[l+1]) below
    std::vector<int> m_rowOfDepth;
    std::vector<bool> m_pythonOnly;          // same indexing; filled on first use
    bool m_pythonComputed = false;
    std::vector<LayoutRow> m_rows;
    int m_totalHeight = 0;
    std::uint64_t m_version = 0;
};

} // namespace linkscope::ui
