#include "shell/readnotice.h"

#include "io/json/truncation.h"

#include <QFileInfo>
#include <QLocale>

#include <string>
#include <vector>

namespace linkscope::ui {

namespace {

// "host ET h.json is cut short at byte N" (without an article: "the …" or "rank 2's …" goes before).
QString cutText(const QString &what, const QString &path, std::uint64_t at)
{
    const QString name = QFileInfo(path).fileName();
    return at == core::kUnknownOffset
               ? QObject::tr("%1 %2 is cut short").arg(what, name)
               : QObject::tr("%1 %2 is cut short at byte %3").arg(what, name, QLocale().toString(qulonglong(at)));
}

} // namespace

QString incompleteTraceSentence(const TraceDocument &doc)
{
    QStringList cuts;
    if (const core::HostTrace *host = doc.host())
        if (const std::uint64_t at = core::io::cutOffset(host->warnings); at != core::kUnknownOffset || host->recoveredTruncation)
            cuts << cutText(QObject::tr("host ET"), doc.hostPath(), at);
    if (const std::uint64_t at = core::io::cutOffset(doc.device().warnings); at != core::kUnknownOffset)
        cuts << cutText(QObject::tr("Kineto trace"), doc.devicePath(), at);
    if (cuts.isEmpty())
        return {};
    return QObject::tr("The %1: only what was recorded before the cut is shown, and whatever followed it is missing.")
        .arg(cuts.join(QObject::tr(" and the ")));
}

QStringList incompleteJobProblems(const JobDocument &job)
{
    QStringList problems;
    for (const core::job::JobFinding &f : job.report.findings)
        if ((f.kind == "missing_rank" && (!f.ranks.empty() || !f.rankRanges.empty())) || f.kind == "unreadable_rank")
            problems << QString::fromStdString(f.message);
    // A rank read up to a cut (a crashed job's last rank) is no finding: its traces are there, but
    // its lanes and its row of the overview stop at the cut.
    for (const core::job::RankSummary &rank : job.report.ranks) {
        QStringList cuts;
        if (rank.hostCutAt != core::kUnknownOffset)
            cuts << cutText(QObject::tr("host ET"), QString::fromStdString(rank.host), rank.hostCutAt);
        if (rank.deviceCutAt != core::kUnknownOffset)
            cuts << cutText(QObject::tr("Kineto trace"), QString::fromStdString(rank.device), rank.deviceCutAt);
        if (!cuts.isEmpty())
            problems << QObject::tr("rank %1's %2, and whatever followed the cut is missing")
                            .arg(rank.rank)
                            .arg(cuts.join(QObject::tr(" and its ")));
    }
    return problems;
}

QString incompleteJobSentence(const JobDocument &job)
{
    const QStringList problems = incompleteJobProblems(job);
    if (problems.isEmpty())
        return {};
    const QString first = problems.front();
    if (problems.size() == 1)
        return QObject::tr("This job cannot be read whole: %1.").arg(first);
    if (problems.size() == 2)
        return QObject::tr("This job cannot be read whole: %1; and %2.").arg(first, problems.back());
    return QObject::tr("This job cannot be read whole: %1; and %2 more (point here to list them).")
        .arg(first)
        .arg(problems.size() - 1);
}

} // namespace linkscope::ui
