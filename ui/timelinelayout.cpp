#include "timelinelayout.h"

#include <QCoreApplication>

#include <algorithm>
#include <map>

namespace linkscope::ui {

namespace {

QString fromStd(const std::string &text) { return QString::fromStdString(text); }

QString groupLabel(const core::TraceIndex &index, const core::DeviceTrace &trace, const core::Lane &lane, bool gpu)
{
    if (gpu) {
        const std::int64_t device = lane.device >= 0 ? lane.device : lane.key.pid.value;
        QString label = QCoreApplication::translate("TimelineLayout", "GPU %1").arg(device);
        for (const core::DeviceProperties &props : trace.devices)
            if (props.id == device && !props.name.empty())
                label += QStringLiteral(" · ") + fromStd(props.name);
        return label;
    }
    QString label;
    if (trace.distributed && trace.distributed->rank >= 0)
        label = QCoreApplication::translate("TimelineLayout", "Rank %1 · ").arg(trace.distributed->rank);
    const auto name = trace.processNames.find(lane.key.pid);
    const QString pid = fromStd(trace.idText(lane.key.pid));
    if (name != trace.processNames.end() && !name->second.empty())
        label += QCoreApplication::translate("TimelineLayout", "%1 (pid %2)").arg(fromStd(name->second), pid);
    else
        label += QCoreApplication::translate("TimelineLayout", "Process %1").arg(pid);
    (void)index;
    return label;
}

} // namespace

void TimelineLayout::setDocument(const TraceDocument *doc)
{
    m_doc = doc;
    m_pythonComputed = false;
    m_pythonOnly.clear();
    m_depthBegin.assign(1, 0);
    if (doc) {
        for (const LaneRows &rows : doc->laneRows())
            m_depthBegin.push_back(m_depthBegin.back() + static_cast<std::uint32_t>(std::max(1, rows.rowCount())));
    }
    buildGroups();
    m_groupCollapsed.assign(m_groups.size(), false);
    m_groupHidden.assign(m_groups.size(), false);
    m_laneCollapsed.assign(m_groupOfLane.size(), false);
    m_laneHidden.assign(m_groupOfLane.size(), false);
    if (m_hidePython)
        computePythonRows();
    relayout();
}

void TimelineLayout::buildGroups()
{
    m_groups.clear();
    m_groupOfLane.clear();
    if (!m_doc)
        return;
    const core::TraceIndex &index = m_doc->index();
    const core::DeviceTrace &trace = m_doc->device();
    // Key: (is GPU, device or pid). Groups appear in the index's lane order (CPU first), then the
    // GPU groups move above the CPU ones when asked (a stable partition).
    std::map<std::pair<bool, core::TraceId>, int> groupOfKey;
    std::vector<int> groupOfLane(index.lanes.size(), -1);
    std::vector<TimelineGroup> groups;
    for (std::uint32_t l = 0; l < index.lanes.size(); ++l) {
        const core::Lane &lane = index.lanes[l];
        const bool gpu = lane.kind == core::LaneKind::GpuStream;
        const core::TraceId key = gpu && lane.device >= 0 ? core::TraceId{lane.device, false} : lane.key.pid;
        auto [it, inserted] = groupOfKey.try_emplace({gpu, key}, static_cast<int>(groups.size()));
        if (inserted)
            groups.push_back({groupLabel(index, trace, lane, gpu), gpu, {}});
        groups[it->second].lanes.push_back(l);
        groupOfLane[l] = it->second;
    }
    std::vector<int> order(groups.size());
    for (std::size_t g = 0; g < order.size(); ++g)
        order[g] = static_cast<int>(g);
    if (m_gpuFirst)
        std::stable_partition(order.begin(), order.end(), [&](int g) { return groups[g].gpu; });
    std::vector<int> newIndex(groups.size());
    for (std::size_t g = 0; g < order.size(); ++g) {
        newIndex[order[g]] = static_cast<int>(g);
        m_groups.push_back(std::move(groups[order[g]]));
    }
    m_groupOfLane.resize(groupOfLane.size());
    for (std::size_t l = 0; l < groupOfLane.size(); ++l)
        m_groupOfLane[l] = newIndex[groupOfLane[l]];
}

void TimelineLayout::computePythonRows()
{
    if (m_pythonComputed || !m_doc)
        return;
    m_pythonComputed = true;
    m_pythonOnly.assign(m_depthBegin.back(), false);
    const auto &lanes = m_doc->laneRows();
    for (std::size_t l = 0; l < lanes.size(); ++l) {
        const LaneRows &rows = lanes[l];
        for (int r = 0; r < rows.rowCount(); ++r) {
            const std::uint32_t begin = rows.rowBegin[r], end = rows.rowBegin[r + 1];
            bool python = end > begin;
            for (std::uint32_t p = begin; p < end && python; ++p)
                python = m_doc->style(rows.events[p]) == EventStyle::Python;
            m_pythonOnly[m_depthBegin[l] + r] = python;
        }
    }
}

int TimelineLayout::pythonOnlyRowCount() const
{
    const_cast<TimelineLayout *>(this)->computePythonRows();
    return static_cast<int>(std::count(m_pythonOnly.begin(), m_pythonOnly.end(), true));
}

void TimelineLayout::setGroupCollapsed(int group, bool collapsed)
{
    if (m_groupCollapsed.at(group) == collapsed)
        return;
    m_groupCollapsed[group] = collapsed;
    relayout();
}

void TimelineLayout::setLaneCollapsed(std::uint32_t lane, bool collapsed)
{
    if (m_laneCollapsed.at(lane) == collapsed)
        return;
    m_laneCollapsed[lane] = collapsed;
    relayout();
}

void TimelineLayout::setAllGroupsCollapsed(bool collapsed)
{
    std::fill(m_groupCollapsed.begin(), m_groupCollapsed.end(), collapsed);
    relayout();
}

void TimelineLayout::setGroupHidden(int group, bool hidden)
{
    if (m_groupHidden.at(group) == hidden)
        return;
    m_groupHidden[group] = hidden;
    relayout();
}

void TimelineLayout::setLaneHidden(std::uint32_t lane, bool hidden)
{
    if (m_laneHidden.at(lane) == hidden)
        return;
    m_laneHidden[lane] = hidden;
    relayout();
}

int TimelineLayout::hiddenCount() const
{
    return static_cast<int>(std::count(m_groupHidden.begin(), m_groupHidden.end(), true)
                            + std::count(m_laneHidden.begin(), m_laneHidden.end(), true));
}

void TimelineLayout::showAllHidden()
{
    std::fill(m_groupHidden.begin(), m_groupHidden.end(), false);
    std::fill(m_laneHidden.begin(), m_laneHidden.end(), false);
    relayout();
}

void TimelineLayout::setHidePythonRows(bool hide)
{
    if (m_hidePython == hide)
        return;
    m_hidePython = hide;
    if (hide)
        computePythonRows();
    relayout();
}

void TimelineLayout::setGpuFirst(bool gpuFirst)
{
    if (m_gpuFirst == gpuFirst)
        return;
    // Flags follow their groups: remember them by the first lane of each group.
    std::vector<std::pair<bool, bool>> flagsOfLane(m_groupOfLane.size());
    for (std::size_t l = 0; l < m_groupOfLane.size(); ++l)
        flagsOfLane[l] = {m_groupCollapsed[m_groupOfLane[l]], m_groupHidden[m_groupOfLane[l]]};
    m_gpuFirst = gpuFirst;
    buildGroups();
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const std::uint32_t lane = m_groups[g].lanes.front();
        m_groupCollapsed[g] = flagsOfLane[lane].first;
        m_groupHidden[g] = flagsOfLane[lane].second;
    }
    relayout();
}

int TimelineLayout::rowOfDepth(std::uint32_t lane, int depth) const
{
    if (lane + 1 >= m_depthBegin.size() || depth < 0)
        return -1;
    const std::uint32_t at = m_depthBegin[lane] + static_cast<std::uint32_t>(depth);
    return at < m_depthBegin[lane + 1] ? m_rowOfDepth[at] : -1;
}

void TimelineLayout::relayout()
{
    ++m_version;
    m_rows.clear();
    m_shownRows.assign(m_groupOfLane.size(), 0);
    m_laneFirstRow.assign(m_groupOfLane.size(), -1);
    m_groupHeaderRow.assign(m_groups.size(), -1);
    m_rowOfDepth.assign(m_depthBegin.empty() ? 0 : m_depthBegin.back(), -1);
    int y = 0;
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        if (m_groupHidden[g])
            continue;
        m_groupHeaderRow[g] = static_cast<int>(m_rows.size());
        m_rows.push_back({LayoutRow::Kind::GroupHeader, g, core::kNoIndex, 0, y, kGroupHeaderHeight});
        y += kGroupHeaderHeight;
        if (m_groupCollapsed[g])
            continue;
        for (std::uint32_t lane : m_groups[g].lanes) {
            if (m_laneHidden[lane])
                continue;
            const int depths = static_cast<int>(m_depthBegin[lane + 1] - m_depthBegin[lane]);
            int shown = 0;
            for (int depth = 0; depth < depths; ++depth) {
                if (m_hidePython && m_pythonOnly[m_depthBegin[lane] + depth])
                    continue;
                if (m_laneCollapsed[lane] && shown >= 1)
                    break;
                if (shown == 0)
                    m_laneFirstRow[lane] = static_cast<int>(m_rows.size());
                m_rowOfDepth[m_depthBegin[lane] + depth] = static_cast<int>(m_rows.size());
                m_rows.push_back({LayoutRow::Kind::LaneRow, g, lane, depth, y, kRowHeight});
                y += kRowHeight;
                ++shown;
            }
            m_shownRows[lane] = shown;
            if (shown > 0)
                y += kLaneGap;
        }
    }
    m_totalHeight = y;
}

int TimelineLayout::rowAt(int y) const
{
    if (m_rows.empty() || y < 0 || y >= m_totalHeight)
        return -1;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int value, const LayoutRow &row) {
        return value < row.y;
    });
    if (it == m_rows.begin())
        return -1;
    --it;
    if (y >= it->y + it->height)
        return -1; // in the gap below a lane
    return static_cast<int>(it - m_rows.begin());
}

TimelineLayout::Anchor TimelineLayout::anchorOf(std::uint32_t lane, int depth) const
{
    Anchor anchor;
    if (lane >= m_groupOfLane.size())
        return anchor;
    const int header = m_groupHeaderRow[m_groupOfLane[lane]];
    if (header < 0)
        return anchor; // the group is hidden
    anchor.valid = true;
    int row = rowOfDepth(lane, depth);
    anchor.exact = row >= 0;
    // A stand-in: the nearest shown row above in the lane, else its first shown row, else the header.
    for (int d = depth - 1; row < 0 && d >= 0; --d)
        row = rowOfDepth(lane, d);
    if (row < 0)
        row = m_laneFirstRow[lane];
    if (row < 0)
        row = header;
    anchor.y = m_rows[row].y + m_rows[row].height / 2;
    return anchor;
}

} // namespace linkscope::ui
