#include "timeline/timelinesettings.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QSet>
#include <QSettings>
#include <QStringList>

#include <algorithm>

namespace linkscope::ui {

namespace {

QString laneKey(const TimelineLayout &layout, const core::TraceIndex &index, core::LaneIndex lane)
{
    return layout.groups()[layout.groupOfLane(lane)].label + QChar(0x1f) + QString::fromStdString(index.lane(lane).label);
}

} // namespace

QString TimelineViewSettings::group(const QString &devicePath)
{
    const QByteArray path = QFileInfo(devicePath).absoluteFilePath().toUtf8();
    return QStringLiteral("traceViews/") + QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}

void TimelineViewSettings::save(const TraceDocument &doc, const TimelineLayout &layout, int headerWidth)
{
    if (doc.devicePath().isEmpty())
        return;
    QStringList hiddenGroups, collapsedGroups, pinnedGroups, hiddenLanes, collapsedLanes;
    const core::TraceIndex &index = doc.index();
    for (int g = 0; g < static_cast<int>(layout.groups().size()); ++g) {
        const TimelineGroup &group = layout.groups()[g];
        if (layout.isGroupHidden(g))
            hiddenGroups << group.label;
        if (layout.isGroupCollapsed(g))
            collapsedGroups << group.label;
        if (layout.isGroupPinned(g))
            pinnedGroups << group.label;
        for (core::LaneIndex lane : group.lanes) {
            if (layout.isLaneHidden(lane))
                hiddenLanes << laneKey(layout, index, lane);
            if (layout.isLaneCollapsed(lane))
                collapsedLanes << laneKey(layout, index, lane);
        }
    }
    QSettings settings;
    settings.beginGroup(group(doc.devicePath()));
    settings.setValue(QStringLiteral("path"), QFileInfo(doc.devicePath()).absoluteFilePath());
    settings.setValue(QStringLiteral("gpuFirst"), layout.gpuFirst());
    settings.setValue(QStringLiteral("hidePythonRows"), layout.hidePythonRows());
    settings.setValue(QStringLiteral("headerWidth"), headerWidth);
    settings.setValue(QStringLiteral("hiddenGroups"), hiddenGroups);
    settings.setValue(QStringLiteral("collapsedGroups"), collapsedGroups);
    settings.setValue(QStringLiteral("pinnedGroups"), pinnedGroups);
    settings.setValue(QStringLiteral("foldPythonRows"), layout.foldPythonRows());
    settings.setValue(QStringLiteral("hiddenLanes"), hiddenLanes);
    settings.setValue(QStringLiteral("collapsedLanes"), collapsedLanes);
    // The order by stable keys (pid, pid/tid, device/stream), only when the user moved something:
    // a trace never rearranged keeps following the default (GPU streams first).
    const bool custom = layout.hasCustomOrder();
    settings.setValue(QStringLiteral("groupOrder"), custom ? layout.groupOrder() : QStringList());
    settings.setValue(QStringLiteral("laneOrder"), custom ? layout.laneOrder() : QStringList());
}

int TimelineViewSettings::restore(const TraceDocument *doc, TimelineLayout &layout, int defaultHeaderWidth, int minHeaderWidth)
{
    // Defaults for a trace never seen: GPU streams first, everything shown, the default width.
    layout.setGpuFirst(true);
    layout.setHidePythonRows(false);
    layout.setFoldPythonRows(true);
    if (!doc || doc->devicePath().isEmpty())
        return defaultHeaderWidth;
    QSettings settings;
    settings.beginGroup(group(doc->devicePath()));
    if (!settings.contains(QStringLiteral("gpuFirst")))
        return defaultHeaderWidth;
    layout.setGpuFirst(settings.value(QStringLiteral("gpuFirst"), true).toBool());
    layout.setHidePythonRows(settings.value(QStringLiteral("hidePythonRows"), false).toBool());
    layout.setFoldPythonRows(settings.value(QStringLiteral("foldPythonRows"), true).toBool());
    const int headerWidth = std::max(minHeaderWidth, settings.value(QStringLiteral("headerWidth"), defaultHeaderWidth).toInt());
    // Keys of lanes that are gone are ignored; new lanes take their default places.
    layout.applyOrder(settings.value(QStringLiteral("groupOrder")).toStringList(),
                      settings.value(QStringLiteral("laneOrder")).toStringList());
    auto set = [&](const QString &key) {
        const QStringList list = settings.value(key).toStringList();
        return QSet<QString>(list.begin(), list.end());
    };
    const QSet<QString> hiddenGroups = set(QStringLiteral("hiddenGroups"));
    const QSet<QString> collapsedGroups = set(QStringLiteral("collapsedGroups"));
    const bool hasPins = settings.contains(QStringLiteral("pinnedGroups"));
    const QSet<QString> pinnedGroups = set(QStringLiteral("pinnedGroups"));
    const QSet<QString> hiddenLanes = set(QStringLiteral("hiddenLanes"));
    const QSet<QString> collapsedLanes = set(QStringLiteral("collapsedLanes"));
    const core::TraceIndex &index = doc->index();
    for (int g = 0; g < static_cast<int>(layout.groups().size()); ++g) {
        const TimelineGroup &group = layout.groups()[g];
        layout.setGroupHidden(g, hiddenGroups.contains(group.label));
        layout.setGroupCollapsed(g, collapsedGroups.contains(group.label));
        // Saved before pins existed: GPU groups pinned when they come first (the default).
        layout.setGroupPinned(g, hasPins ? pinnedGroups.contains(group.label) : group.gpu && layout.gpuFirst());
        for (core::LaneIndex lane : group.lanes) {
            const QString key = laneKey(layout, index, lane);
            layout.setLaneHidden(lane, hiddenLanes.contains(key));
            layout.setLaneCollapsed(lane, collapsedLanes.contains(key));
        }
    }
    return headerWidth;
}

} // namespace linkscope::ui
