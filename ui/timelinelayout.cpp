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
    m_groups.clear();
    m_groupOfLane.clear();
    if (doc) {
        const core::TraceIndex &index = doc->index();
        const core::DeviceTrace &trace = doc->device();
        // Key: (is GPU, device or pid). Groups appear in the index's lane order (CPU first).
        std::map<std::pair<bool, core::TraceId>, int> groupOfKey;
        m_groupOfLane.resize(index.lanes.size(), -1);
        for (std::uint32_t l = 0; l < index.lanes.size(); ++l) {
            const core::Lane &lane = index.lanes[l];
            const bool gpu = lane.kind == core::LaneKind::GpuStream;
            const core::TraceId key = gpu && lane.device >= 0 ? core::TraceId{lane.device, false} : lane.key.pid;
            auto [it, inserted] = groupOfKey.try_emplace({gpu, key}, static_cast<int>(m_groups.size()));
            if (inserted)
                m_groups.push_back({groupLabel(index, trace, lane, gpu), gpu, {}});
            m_groups[it->second].lanes.push_back(l);
            m_groupOfLane[l] = it->second;
        }
    }
    m_groupCollapsed.assign(m_groups.size(), false);
    m_laneCollapsed.assign(m_groupOfLane.size(), false);
    relayout();
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

void TimelineLayout::relayout()
{
    ++m_version;
    m_rows.clear();
    m_shownRows.assign(m_groupOfLane.size(), 0);
    m_laneFirstRow.assign(m_groupOfLane.size(), -1);
    m_groupHeaderRow.assign(m_groups.size(), -1);
    int y = 0;
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        m_groupHeaderRow[g] = static_cast<int>(m_rows.size());
        m_rows.push_back({LayoutRow::Kind::GroupHeader, g, core::kNoIndex, 0, y, kGroupHeaderHeight});
        y += kGroupHeaderHeight;
        if (m_groupCollapsed[g])
            continue;
        for (std::uint32_t lane : m_groups[g].lanes) {
            const int laneRows = std::max(1, m_doc->laneRows()[lane].rowCount());
            const int shown = m_laneCollapsed[lane] ? 1 : laneRows;
            m_shownRows[lane] = shown;
            m_laneFirstRow[lane] = static_cast<int>(m_rows.size());
            for (int depth = 0; depth < shown; ++depth) {
                m_rows.push_back({LayoutRow::Kind::LaneRow, g, lane, depth, y, kRowHeight});
                y += kRowHeight;
            }
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
    anchor.valid = true;
    const int first = m_laneFirstRow[lane];
    if (first < 0) { // group collapsed: the group header stands in
        const LayoutRow &header = m_rows[m_groupHeaderRow[m_groupOfLane[lane]]];
        anchor.y = header.y + header.height / 2;
        return anchor;
    }
    const int shown = m_shownRows[lane];
    const int row = first + std::min(depth, shown - 1);
    anchor.y = m_rows[row].y + m_rows[row].height / 2;
    anchor.exact = depth < shown;
    return anchor;
}

} // namespace linkscope::ui
