#include "shell/readnotice.h"

#include <QFileInfo>
#include <QLocale>

#include <string>
#include <vector>

namespace linkscope::ui {

namespace {

// Where a file read up to a cut ends: the offset of the reader's truncation warning (io/truncation.h:
// "the file is truncated: it ends at byte N …"; the host ET reader's: "the "nodes" array is cut off
// …", "…; kept all N nodes"); kUnknownOffset if there is none.
std::uint64_t cutAt(const std::vector<core::Diagnostic> &warnings)
{
    for (const core::Diagnostic &d : warnings)
        if (d.offset != core::kUnknownOffset
            && (d.message.rfind("the file is truncated", 0) == 0 || d.message.find("array is cut off") != std::string::npos
                || d.message.find("; kept all ") != std::string::npos))
            return d.offset;
    return core::kUnknownOffset;
}

QString cutText(const QString &what, const QString &path, std::uint64_t at)
{
    const QString name = QFileInfo(path).fileName();
    return at == core::kUnknownOffset
               ? QObject::tr("the %1 %2 is cut short").arg(what, name)
               : QObject::tr("the %1 %2 is cut short at byte %3").arg(what, name, QLocale().toString(qulonglong(at)));
}

} // namespace

QString incompleteTraceSentence(const TraceDocument &doc)
{
    QStringList cuts;
    if (const core::HostTrace *host = doc.host())
        if (const std::uint64_t at = cutAt(host->warnings); at != core::kUnknownOffset || host->recoveredTruncation)
            cuts << cutText(QObject::tr("host ET"), doc.hostPath(), at);
    if (const std::uint64_t at = cutAt(doc.device().warnings); at != core::kUnknownOffset)
        cuts << cutText(QObject::tr("Kineto trace"), doc.devicePath(), at);
    if (cuts.isEmpty())
        return {};
    QString sentence = cuts.join(QObject::tr(" and "));
    sentence[0] = sentence[0].toUpper();
    return QObject::tr("%1: only what was recorded before the cut is shown, and whatever followed it is missing.").arg(sentence);
}

QString incompleteJobSentence(const JobDocument &job)
{
    QStringList problems;
    for (const core::job::JobFinding &f : job.report.findings)
        if ((f.kind == "missing_rank" && (!f.ranks.empty() || !f.rankRanges.empty())) || f.kind == "unreadable_rank")
            problems << QString::fromStdString(f.message);
    if (problems.isEmpty())
        return {};
    const QString first = problems.front();
    return problems.size() == 1 ? QObject::tr("This job cannot be read whole: %1.").arg(first)
                                : QObject::tr("This job cannot be read whole: %1; and %2 more (the job's findings list them).")
                                      .arg(first)
                                      .arg(problems.size() - 1);
}

} // namespace linkscope::ui
