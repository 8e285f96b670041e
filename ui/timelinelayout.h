#pragma once
// Vertical layout of the timeline: groups (a process/rank's CPU threads, a GPU device's streams),
// each with a header row, then one row per nesting depth of each lane. Pure geometry, no painting.

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
    int depth = 0;                       // LaneRow only
    int y = 0;                           // content coordinates (0 = top of the first group)
    int height = 0;
};

class TimelineLayout {
public:
    static constexpr int kGroupHeaderHeight = 22;
    static constexpr int kRowHeight = 18;
    static constexpr int kLaneGap = 4;

    // Groups the document's lanes; collapse flags persist across rebuilds by group/lane index.
    void setDocument(const TraceDocument *doc);
    void setGroupCollapsed(int group, bool collapsed);
    void setLaneCollapsed(std::uint32_t lane, bool collapsed);
    bool isGroupCollapsed(int group) const { return m_groupCollapsed.at(group); }
    bool isLaneCollapsed(std::uint32_t lane) const { return m_laneCollapsed.at(lane); }
    void setAllGroupsCollapsed(bool collapsed);

    const std::vector<TimelineGroup> &groups() const { return m_groups; }
    const std::vector<LayoutRow> &rows() const { return m_rows; }
    int totalHeight() const { return m_totalHeight; }
    int groupOfLane(std::uint32_t lane) const { return m_groupOfLane.at(lane); }
    // How many depth rows of `lane` are shown (0 when its group is collapsed).
    int shownRowCount(std::uint32_t lane) const { return m_shownRows.at(lane); }
    // Index in rows() of the first row of `lane`, or of a group's header; -1 if hidden.
    int firstRowOfLane(std::uint32_t lane) const { return m_laneFirstRow.at(lane); }
    int headerRowOfGroup(int group) const { return m_groupHeaderRow.at(group); }

    // Index in rows() of the row at content y, or -1.
    int rowAt(int y) const;

    // Where an event at (lane, depth) is drawn: the row's vertical middle, and whether that row is
    // the event's own (false: the lane or group is collapsed and the point is a stand-in).
    struct Anchor {
        int y = 0;
        bool exact = false;
        bool valid = false;
    };
    Anchor anchorOf(std::uint32_t lane, int depth) const;

    // Bumped whenever rows move, so painters know their cached geometry is stale.
    std::uint64_t version() const { return m_version; }

private:
    void relayout();

    const TraceDocument *m_doc = nullptr;
    std::vector<TimelineGroup> m_groups;
    std::vector<bool> m_groupCollapsed;
    std::vector<bool> m_laneCollapsed;
    std::vector<int> m_groupOfLane;
    std::vector<int> m_shownRows;
    std::vector<int> m_laneFirstRow;
    std::vector<int> m_groupHeaderRow;
    std::vector<LayoutRow> m_rows;
    int m_totalHeight = 0;
    std::uint64_t m_version = 0;
};

} // namespace linkscope::ui
