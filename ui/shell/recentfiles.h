#pragma once
// What was opened lately, most recent first, in QSettings: trace pairs ("recentTraces": the host ET
// and the device trace's absolute paths, one entry a pair, as File ▸ Open recent always kept them)
// and job folders ("recentJobs"). The File menu and the start page list them; an entry whose files
// are gone is shown greyed and cannot be opened.

#include <QList>
#include <QString>

#include <functional>

class QFontMetrics;
class QMenu;

namespace linkscope::ui {

struct RecentEntry {
    QString host;   // a pair's host ET (empty: a Kineto trace alone, or a job)
    QString device; // a pair's device trace
    QString folder; // a job's folder (empty for a pair)
    bool isJob() const { return !folder.isEmpty(); }
    // The files (or the folder) are still there.
    bool exists() const;
    // "host.json + kineto.json — /path/to/folder" (the folder elided at its start to `folderWidth`).
    QString text(const QFontMetrics &metrics, int folderWidth) const;
    QString toolTip() const;
};

namespace recent {
constexpr int kMax = 10;
QList<RecentEntry> pairs();
QList<RecentEntry> jobs();
void rememberPair(const QString &hostPath, const QString &devicePath);
void rememberJob(const QString &folder);
// Fills File ▸ Open recent: the pairs, then the jobs, each most recent first; `open` opens one.
void fillMenu(QMenu *menu, const std::function<void(const RecentEntry &)> &open);
} // namespace recent

} // namespace linkscope::ui
