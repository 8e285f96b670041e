#include "shell/recentfiles.h"

#include "ground/tracedocument.h"

#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QMenu>
#include <QSettings>
#include <QStringList>

namespace linkscope::ui {

namespace {

const QString kPairsKey = QStringLiteral("recentTraces");
const QString kJobsKey = QStringLiteral("recentJobs");

void remember(const QString &key, const QString &entry)
{
    QSettings settings;
    QStringList list = settings.value(key).toStringList();
    list.removeAll(entry);
    list.prepend(entry);
    while (list.size() > recent::kMax)
        list.removeLast();
    settings.setValue(key, list);
}

} // namespace

bool RecentEntry::exists() const
{
    if (isJob())
        return QFileInfo(folder).isDir();
    return QFileInfo(device).isFile() && (host.isEmpty() || QFileInfo(host).isFile());
}

QString RecentEntry::text(const QFontMetrics &metrics, int folderWidth) const
{
    // The names, then the folder (elided at its start), so that two runs' kineto.json can be told apart.
    if (isJob())
        return QObject::tr("Job %1 \u2014 %2")
            .arg(QFileInfo(folder).fileName(),
                 metrics.elidedText(QDir::toNativeSeparators(QFileInfo(folder).absolutePath()), Qt::ElideLeft, folderWidth));
    return QStringLiteral("%1 \u2014 %2")
        .arg(pairFileNames(host, device),
             metrics.elidedText(QDir::toNativeSeparators(QFileInfo(device).absolutePath()), Qt::ElideLeft, folderWidth));
}

QString RecentEntry::toolTip() const
{
    const QString where = isJob() ? folder : host.isEmpty() ? device : host + QLatin1Char('\n') + device;
    return exists() ? where : QObject::tr("%1\n(no longer there)").arg(where);
}

namespace recent {

QList<RecentEntry> pairs()
{
    QList<RecentEntry> out;
    for (const QString &entry : QSettings().value(kPairsKey).toStringList()) {
        const QStringList parts = entry.split(QLatin1Char('\n'));
        if (parts.size() == 2 && !parts.at(1).isEmpty())
            out.push_back({parts.at(0), parts.at(1), {}});
    }
    return out;
}

QList<RecentEntry> jobs()
{
    QList<RecentEntry> out;
    for (const QString &folder : QSettings().value(kJobsKey).toStringList())
        if (!folder.isEmpty())
            out.push_back({{}, {}, folder});
    return out;
}

void rememberPair(const QString &hostPath, const QString &devicePath)
{
    remember(kPairsKey, (hostPath.isEmpty() ? QString() : QFileInfo(hostPath).absoluteFilePath()) + QLatin1Char('\n')
                            + QFileInfo(devicePath).absoluteFilePath());
}

void rememberJob(const QString &folder) { remember(kJobsKey, QFileInfo(folder).absoluteFilePath()); }

void fillMenu(QMenu *menu, const std::function<void(const RecentEntry &)> &open)
{
    menu->clear();
    const QList<RecentEntry> pairList = pairs(), jobList = jobs();
    for (const QList<RecentEntry> *list : {&pairList, &jobList}) {
        if (list == &jobList && !jobList.isEmpty() && !pairList.isEmpty())
            menu->addSeparator();
        for (const RecentEntry &entry : *list) {
            QAction *action = menu->addAction(entry.text(menu->fontMetrics(), 360), menu, [open, entry] { open(entry); });
            action->setToolTip(entry.toolTip());
            action->setEnabled(entry.exists()); // greyed: its files are gone
        }
    }
    menu->setToolTipsVisible(true);
    if (menu->isEmpty())
        menu->addAction(QObject::tr("(none)"))->setEnabled(false);
}

} // namespace recent

} // namespace linkscope::ui
