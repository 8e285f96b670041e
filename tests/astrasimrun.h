#pragma once
// ASTRA-sim's run.sh (paths::astraSimDir(), ../shared/tools/astra-sim) started from a test and its
// "sys[R] finished, T cycles" lines read. run.sh makes a folder with mktemp even when it is given a
// log folder: TMPDIR points into the log folder, so a test leaves nothing behind in /tmp.

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <map>

#include "testpaths.h"

namespace linkscope::test {

struct AstraSimRun {
    std::map<int, double> simulatedNs; // rank → cycles of its "finished" line (1 cycle = 1 ns)
    bool cleanExit = false;            // exited normally with status 0
    QString exit;                      // "exit status N" / "crashed" / "timed out"
    QString log;                       // standard output and error
};

inline QString astraSimDir() { return QDir(QString::fromStdString(paths::astraSimDir())).absolutePath(); }

// run.sh PREFIX NPUS LOG_DIR [OPTIONS...], in `env` (ASTRA_SIM_HOME picks another simulator).
inline AstraSimRun runAstraSim(const QString &prefix, int npus, const QString &logDir, const QStringList &options = {},
                               QProcessEnvironment env = QProcessEnvironment::systemEnvironment())
{
    QDir().mkpath(logDir);
    env.insert(QStringLiteral("TMPDIR"), logDir);
    QProcess run;
    run.setProcessEnvironment(env);
    run.setProcessChannelMode(QProcess::MergedChannels);
    run.start(QStringLiteral("bash"), QStringList{astraSimDir() + "/run.sh", prefix, QString::number(npus), logDir} + options);
    const bool finished = run.waitForFinished(30 * 60 * 1000);
    AstraSimRun out;
    out.log = QString::fromUtf8(run.readAll());
    out.cleanExit = finished && run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0;
    out.exit = !finished                                  ? QStringLiteral("timed out")
               : run.exitStatus() != QProcess::NormalExit ? QStringLiteral("crashed")
                                                          : QStringLiteral("exit status %1").arg(run.exitCode());
    static const QRegularExpression line(QStringLiteral("sys\\[(\\d+)\\] finished, (\\d+) cycles"));
    for (auto it = line.globalMatch(out.log); it.hasNext();) {
        const auto m = it.next();
        out.simulatedNs[m.captured(1).toInt()] = m.captured(2).toDouble();
    }
    return out;
}

// A job export in `dir` (trace.R.et, comm_group.json, network.yml, as `linkscope job` writes it)
// replayed: each rank's simulated time (the log's tail is printed when no rank finished).
inline std::map<int, double> simulateJobExport(const QString &dir, int npus)
{
    const AstraSimRun run = runAstraSim(
        dir + "/trace", npus, dir + "/log",
        {QStringLiteral("--comm-groups"), dir + "/comm_group.json", QStringLiteral("--network"), dir + "/network.yml"});
    if (run.simulatedNs.empty())
        qWarning("%s", qPrintable(run.log.right(2000)));
    return run.simulatedNs;
}

} // namespace linkscope::test
