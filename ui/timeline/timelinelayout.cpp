#include "timeline/timelinelayout.h"

#include <QCoreApplication>
#include <QHash>

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

void TimelineLayout::setDocument(const TraceDocument *doc, bool keepArrangement)
{
    const bool sameLanes = keepArrangement && doc && m_doc && doc->laneRows().size() == m_groupOfLane.size();
    // A correction shares the lane rows and styles of the document it was made from: which rows
    // are Python-only (a pass over every event) stays known.
    const bool sameRows = sameLanes && doc->sharesLaneRowsWith(*m_doc);
    m_doc = doc;
    if (sameRows) {
        relayout();
        return;
    }
    m_pythonComputed = false;
    m_pythonOnly.clear();
    m_depthBegin.assign(1, 0);
    if (doc) {
        for (const LaneRows &rows : doc->laneRows())
            m_depthBegin.push_back(m_depthBegin.back() + static_cast<std::uint32_t>(std::max(1, rows.rowCount())));
    }
    if (sameLanes) {
        // A relink or a correction: the same lanes; the user's groups, order and flags stay.
        if (m_hidePython || m_foldPython)
            computePythonRows();
        relayout();
        return;
    }
    buildGroups();
    m_groupCollapsed.assign(m_groups.size(), false);
    m_groupHidden.assign(m_groups.size(), false);
    m_groupPinned.resize(m_groups.size());
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        m_groupPinned[g] = m_groups[g].gpu; // GPU streams stay in view while the CPU threads scroll
    m_laneCollapsed.assign(m_groupOfLane.size(), false);
    m_laneHidden.assign(m_groupOfLane.size(), false);
    m_pythonExpanded.assign(m_groupOfLane.size(), false);
    if (m_hidePython || m_foldPython)
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
    for (core::LaneIndex l{0}; l.get() < index.lanes.size(); ++l) {
        const core::Lane &lane = index.lane(l);
        const bool gpu = lane.kind == core::LaneKind::GpuStream;
        const core::TraceId key = gpu && lane.device >= 0 ? core::TraceId{lane.device, false} : lane.key.pid;
        auto [it, inserted] = groupOfKey.try_emplace({gpu, key}, static_cast<int>(groups.size()));
        if (inserted) {
            const QString stableKey = gpu && lane.device >= 0 ? QStringLiteral("gpu:%1").arg(lane.device)
                                                              : (gpu ? QStringLiteral("gpu:pid:") : QStringLiteral("pid:"))
                                                                    + fromStd(trace.idText(lane.key.pid));
            groups.push_back({groupLabel(index, trace, lane, gpu), stableKey, gpu, static_cast<int>(groups.size()), {}});
        }
        groups[it->second].lanes.push_back(l);
        groupOfLane[l.get()] = it->second;
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

bool TimelineLayout::hasPythonRows(core::LaneIndex lane) const
{
    const_cast<TimelineLayout *>(this)->computePythonRows();
    if (lane.get() + 1 >= m_depthBegin.size())
        return false;
    return std::find(m_pythonOnly.begin() + m_depthBegin[lane.get()], m_pythonOnly.begin() + m_depthBegin[lane.get() + 1], true)
           != m_pythonOnly.begin() + m_depthBegin[lane.get() + 1];
}

void TimelineLayout::setFoldPythonRows(bool fold)
{
    if (m_foldPython == fold)
        return;
    m_foldPython = fold;
    if (fold)
        computePythonRows();
    relayout();
}

void TimelineLayout::setPythonExpanded(core::LaneIndex lane, bool expanded)
{
    if (m_pythonExpanded.at(lane.get()) == expanded)
        return;
    m_pythonExpanded[lane.get()] = expanded;
    relayout();
}

void TimelineLayout::setGroupPinned(int group, bool pinned)
{
    if (m_groupPinned.at(group) == pinned)
        return;
    m_groupPinned[group] = pinned;
    relayout();
}

void TimelineLayout::setRowHeight(int height)
{
    height = std::clamp(height, int(kMinRowHeight), int(kRowHeight));
    if (height == m_rowHeight)
        return;
    m_rowHeight = height;
    relayout();
}

int TimelineLayout::rowHeightToFit(int height) const
{
    int laneRows = 0;
    int fixed = m_totalHeight; // headers and gaps: what does not shrink
    for (const LayoutRow &row : m_rows)
        if (row.kind == LayoutRow::Kind::LaneRow) {
            ++laneRows;
            fixed -= row.height;
        }
    if (laneRows == 0)
        return kRowHeight;
    return std::clamp((height - fixed) / laneRows, int(kMinRowHeight), int(kRowHeight));
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

void TimelineLayout::setLaneCollapsed(core::LaneIndex lane, bool collapsed)
{
    if (m_laneCollapsed.at(lane.get()) == collapsed)
        return;
    m_laneCollapsed[lane.get()] = collapsed;
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

void TimelineLayout::setLaneHidden(core::LaneIndex lane, bool hidden)
{
    if (m_laneHidden.at(lane.get()) == hidden)
        return;
    m_laneHidden[lane.get()] = hidden;
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

void TimelineLayout::setLaneFilter(const QString &text, const QString &context)
{
    const QString filter = text.trimmed();
    const bool inContext = !filter.isEmpty() && context.contains(filter, Qt::CaseInsensitive);
    if (filter == m_filter && inContext == m_filterContext)
        return;
    m_filter = filter;
    m_filterContext = inContext;
    relayout();
}

bool TimelineLayout::passesLaneFilter(core::LaneIndex lane) const
{
    if (m_filter.isEmpty() || m_filterContext || !m_doc || !lane.in(m_groupOfLane.size()))
        return true;
    if (m_groups[m_groupOfLane[lane.get()]].label.contains(m_filter, Qt::CaseInsensitive))
        return true;
    const std::string &label = m_doc->index().lane(lane).label;
    const QString name = label.empty() ? QStringLiteral("lane %1").arg(lane.get()) : QString::fromStdString(label);
    return name.contains(m_filter, Qt::CaseInsensitive);
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
    m_gpuFirst = gpuFirst;
    reorderGroups(defaultGroupOrder()); // flags move with their groups; lanes keep their order
}

std::vector<int> TimelineLayout::defaultGroupOrder() const
{
    std::vector<int> order(m_groups.size());
    for (std::size_t g = 0; g < order.size(); ++g)
        order[g] = static_cast<int>(g);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const TimelineGroup &ga = m_groups[a], &gb = m_groups[b];
        if (m_gpuFirst && ga.gpu != gb.gpu)
            return ga.gpu;
        return ga.natural < gb.natural;
    });
    return order;
}

void TimelineLayout::reorderGroups(const std::vector<int> &order)
{
    std::vector<TimelineGroup> groups;
    std::vector<bool> collapsed, hidden, pinned;
    std::vector<int> newIndex(m_groups.size());
    groups.reserve(order.size());
    for (std::size_t g = 0; g < order.size(); ++g) {
        newIndex[order[g]] = static_cast<int>(g);
        groups.push_back(std::move(m_groups[order[g]]));
        collapsed.push_back(m_groupCollapsed[order[g]]);
        hidden.push_back(m_groupHidden[order[g]]);
        pinned.push_back(m_groupPinned[order[g]]);
    }
    m_groups = std::move(groups);
    m_groupCollapsed = std::move(collapsed);
    m_groupHidden = std::move(hidden);
    m_groupPinned = std::move(pinned);
    for (int &group : m_groupOfLane)
        group = newIndex[group];
    relayout();
}

bool TimelineLayout::moveGroup(int group, int position)
{
    const int count = static_cast<int>(m_groups.size());
    if (group < 0 || group >= count)
        return false;
    position = std::clamp(position, 0, count - 1);
    if (position == group)
        return false;
    std::vector<int> order(m_groups.size());
    for (int g = 0; g < count; ++g)
        order[g] = g;
    order.erase(order.begin() + group);
    order.insert(order.begin() + position, group);
    reorderGroups(order);
    return true;
}

int TimelineLayout::shownNeighbourGroup(int group, int delta) const
{
    if (group < 0 || group >= static_cast<int>(m_groups.size()) || delta == 0)
        return -1;
    const int step = delta < 0 ? -1 : 1;
    for (int g = group + step; g >= 0 && g < static_cast<int>(m_groups.size()); g += step)
        if (!m_groupHidden[g])
            return g;
    return -1;
}

int TimelineLayout::shownNeighbourLane(core::LaneIndex lane, int delta) const
{
    if (!lane.in(m_groupOfLane.size()) || delta == 0)
        return -1;
    const std::vector<core::LaneIndex> &lanes = m_groups[m_groupOfLane[lane.get()]].lanes;
    const int step = delta < 0 ? -1 : 1;
    for (int p = lanePosition(lane) + step; p >= 0 && p < static_cast<int>(lanes.size()); p += step)
        if (!m_laneHidden[lanes[p].get()])
            return p;
    return -1;
}

bool TimelineLayout::moveGroupBy(int group, int delta)
{
    const int to = shownNeighbourGroup(group, delta);
    return to >= 0 && moveGroup(group, to);
}

bool TimelineLayout::moveLaneBy(core::LaneIndex lane, int delta)
{
    const int to = shownNeighbourLane(lane, delta);
    return to >= 0 && moveLane(lane, to);
}

int TimelineLayout::lanePosition(core::LaneIndex lane) const
{
    const std::vector<core::LaneIndex> &lanes = m_groups.at(m_groupOfLane.at(lane.get())).lanes;
    return static_cast<int>(std::find(lanes.begin(), lanes.end(), lane) - lanes.begin());
}

bool TimelineLayout::moveLane(core::LaneIndex lane, int position)
{
    if (!lane.in(m_groupOfLane.size()))
        return false;
    std::vector<core::LaneIndex> &lanes = m_groups[m_groupOfLane[lane.get()]].lanes;
    const int from = lanePosition(lane);
    position = std::clamp(position, 0, static_cast<int>(lanes.size()) - 1);
    if (position == from)
        return false;
    lanes.erase(lanes.begin() + from);
    lanes.insert(lanes.begin() + position, lane);
    relayout();
    return true;
}

bool TimelineLayout::hasCustomOrder() const
{
    const std::vector<int> order = defaultGroupOrder();
    for (std::size_t g = 0; g < order.size(); ++g)
        if (order[g] != static_cast<int>(g) || !std::is_sorted(m_groups[g].lanes.begin(), m_groups[g].lanes.end()))
            return true;
    return false;
}

void TimelineLayout::resetOrder()
{
    for (TimelineGroup &group : m_groups)
        std::sort(group.lanes.begin(), group.lanes.end());
    reorderGroups(defaultGroupOrder());
}

QString TimelineLayout::laneKey(core::LaneIndex lane) const
{
    if (!m_doc || !lane.in(m_doc->index().lanes.size()))
        return {};
    const core::Lane &l = m_doc->index().lane(lane);
    const core::DeviceTrace &trace = m_doc->device();
    return (l.kind == core::LaneKind::GpuStream ? QStringLiteral("gpu:") : QStringLiteral("cpu:"))
           + fromStd(trace.idText(l.key.pid)) + QLatin1Char('/') + fromStd(trace.idText(l.key.tid));
}

QStringList TimelineLayout::groupOrder() const
{
    QStringList keys;
    for (const TimelineGroup &group : m_groups)
        keys << group.key;
    return keys;
}

QStringList TimelineLayout::laneOrder() const
{
    QStringList keys;
    for (const TimelineGroup &group : m_groups)
        for (core::LaneIndex lane : group.lanes)
            keys << laneKey(lane);
    return keys;
}

namespace {

// The saved order merged into the default one: the items the saved list names take the places
// those items have by default, in the saved order; the others stay where the default puts them.
template <typename T, typename KeyOf>
std::vector<T> mergeOrder(const std::vector<T> &defaults, const QStringList &saved, KeyOf keyOf)
{
    QHash<QString, int> rank;
    for (int i = 0; i < saved.size(); ++i)
        rank.insert(saved[i], i);
    std::vector<T> listed;
    for (const T &item : defaults)
        if (rank.contains(keyOf(item)))
            listed.push_back(item);
    std::stable_sort(listed.begin(), listed.end(), [&](const T &a, const T &b) { return rank[keyOf(a)] < rank[keyOf(b)]; });
    std::vector<T> out;
    out.reserve(defaults.size());
    std::size_t next = 0;
    for (const T &item : defaults)
        out.push_back(rank.contains(keyOf(item)) ? listed[next++] : item);
    return out;
}

} // namespace

void TimelineLayout::applyOrder(const QStringList &groupKeys, const QStringList &laneKeys)
{
    for (TimelineGroup &group : m_groups) {
        std::sort(group.lanes.begin(), group.lanes.end());
        if (!laneKeys.isEmpty())
            group.lanes = mergeOrder(group.lanes, laneKeys, [&](core::LaneIndex lane) { return laneKey(lane); });
    }
    reorderGroups(mergeOrder(defaultGroupOrder(), groupKeys, [&](int g) { return m_groups[g].key; }));
}

const LaneRows &TimelineLayout::rowsOf(core::LaneIndex lane) const
{
    return pythonFree() ? m_doc->pythonFreeRows()->lanes[lane.get()] : m_doc->laneRows(lane);
}

int TimelineLayout::depthOf(core::EventIndex event) const
{
    if (pythonFree())
        return event.in(m_doc->pythonFreeRows()->depth.size()) ? m_doc->pythonFreeRows()->depth[event.get()] : -1;
    return m_doc ? m_doc->index().depthOf(event) : -1;
}

int TimelineLayout::rowOfEvent(core::EventIndex event) const
{
    if (!m_doc || !event.in(m_doc->index().laneOf.size()) || m_doc->index().laneOf[event.get()].isNone())
        return -1;
    return rowOfDepth(m_doc->index().laneOf[event.get()], depthOf(event));
}

TimelineLayout::Anchor TimelineLayout::anchorOfEvent(core::EventIndex event) const
{
    if (!m_doc || !event.in(m_doc->index().laneOf.size()))
        return {};
    // A Python frame left out stands at its lane's first row (depth 0's stand-in).
    return anchorOf(m_doc->index().laneOf[event.get()], std::max(0, depthOf(event)));
}

int TimelineLayout::rowOfDepth(core::LaneIndex lane, int depth) const
{
    if (lane.get() + 1 >= m_depthBegin.size() || depth < 0)
        return -1;
    const std::uint32_t at = m_depthBegin[lane.get()] + static_cast<std::uint32_t>(depth);
    return at < m_depthBegin[lane.get() + 1] ? m_rowOfDepth[at] : -1;
}

void TimelineLayout::relayout()
{
    ++m_version;
    m_rows.clear();
    m_shownRows.assign(m_groupOfLane.size(), 0);
    m_laneFirstRow.assign(m_groupOfLane.size(), -1);
    m_groupHeaderRow.assign(m_groups.size(), -1);
    m_laneBottom.assign(m_groupOfLane.size(), -1);
    m_groupBottom.assign(m_groups.size(), -1);
    m_groupTop.assign(m_groups.size(), 0);
    m_rowOfDepth.assign(m_depthBegin.empty() ? 0 : m_depthBegin.back(), -1);
    // The pinned groups first (they stay at the top), then the others, each in display order.
    int y = 0;
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        if (m_groupPinned[g])
            y = layoutGroup(g, y);
    m_pinnedHeight = y;
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        if (!m_groupPinned[g])
            y = layoutGroup(g, y);
    m_totalHeight = y;
}

int TimelineLayout::layoutGroup(int g, int y)
{
    m_groupTop[g] = y;
    if (m_groupHidden[g])
        return y;
    // A group none of whose lanes passes the lane filter is left out, as a hidden one.
    if (!m_filter.isEmpty() && std::none_of(m_groups[g].lanes.begin(), m_groups[g].lanes.end(), [this](core::LaneIndex lane) {
            return passesLaneFilter(lane);
        }))
        return y;
    m_groupHeaderRow[g] = static_cast<int>(m_rows.size());
    m_rows.push_back({LayoutRow::Kind::GroupHeader, g, core::kNone, 0, y, kGroupHeaderHeight});
    y += kGroupHeaderHeight;
    m_groupBottom[g] = y;
    if (m_groupCollapsed[g])
        return y;
    for (core::LaneIndex lane : m_groups[g].lanes) {
        if (m_laneHidden[lane.get()] || !passesLaneFilter(lane))
            continue;
        const std::uint32_t base = m_depthBegin[lane.get()];
        // Python frames left out: the lane's Python-free rows, none of them Python-only (never
        // more than its rows by nesting depth, so m_depthBegin has room for them).
        const bool free = pythonFree();
        const int depths = free ? m_doc->pythonFreeRows()->lanes[lane.get()].rowCount()
                                : static_cast<int>(m_depthBegin[lane.get() + 1] - base);
        const bool fold = !free && m_foldPython && !m_pythonExpanded[lane.get()];
        int shown = 0;
        int summary = -1; // the row standing for the current run of Python rows
        for (int depth = 0; depth < depths; ++depth) {
            const bool python = !free && (m_hidePython || m_foldPython) && m_pythonOnly[base + depth];
            if (m_hidePython && python)
                continue;
            if (m_laneCollapsed[lane.get()] && shown >= 1)
                break;
            if (fold && python && summary >= 0) {
                m_rowOfDepth[base + depth] = summary;
                ++m_rows[summary].folded;
                continue;
            }
            if (shown == 0)
                m_laneFirstRow[lane.get()] = static_cast<int>(m_rows.size());
            summary = fold && python ? static_cast<int>(m_rows.size()) : -1;
            m_rowOfDepth[base + depth] = static_cast<int>(m_rows.size());
            m_rows.push_back({LayoutRow::Kind::LaneRow, g, lane, depth, y, m_rowHeight});
            y += m_rowHeight;
            ++shown;
        }
        m_shownRows[lane.get()] = shown;
        if (shown > 0) {
            m_laneBottom[lane.get()] = y;
            y += kLaneGap;
        }
    }
    m_groupBottom[g] = y;
    return y;
}

int TimelineLayout::rowAt(int y) const
{
    if (m_rows.empty() || y < 0 || y >= m_totalHeight)
        return -1;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int value, const LayoutRow &row) { return value < row.y; });
    if (it == m_rows.begin())
        return -1;
    --it;
    if (y >= it->y + it->height)
        return -1; // in the gap below a lane
    return static_cast<int>(it - m_rows.begin());
}

TimelineLayout::Anchor TimelineLayout::anchorOf(core::LaneIndex lane, int depth) const
{
    Anchor anchor;
    if (!lane.in(m_groupOfLane.size()))
        return anchor;
    const int group = m_groupOfLane[lane.get()];
    const int header = m_groupHeaderRow[group];
    if (header < 0) {
        // The group is hidden: the line where it would be.
        anchor.valid = !m_rows.empty();
        anchor.hiddenGroup = true;
        anchor.y = std::min(m_groupTop[group], std::max(0, m_totalHeight - 1));
        return anchor;
    }
    anchor.valid = true;
    int row = rowOfDepth(lane, depth);
    anchor.exact = row >= 0 && m_rows[row].depth == depth; // not a Python summary standing in
    // A stand-in: the nearest shown row above in the lane, else its first shown row, else the header.
    for (int d = depth - 1; row < 0 && d >= 0; --d)
        row = rowOfDepth(lane, d);
    if (row < 0)
        row = m_laneFirstRow[lane.get()];
    if (row < 0)
        row = header;
    anchor.y = m_rows[row].y + m_rows[row].height / 2;
    return anchor;
}

} // namespace linkscope::ui
