#include "compare/compareui.h"

#include "compare/diffdock.h"
#include "docks/summarydock.h"
#include "job/runread.h"
#include "jobview/jobdock.h"
#include "shell/mainwindow.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

#include <variant>

namespace linkscope::ui {

namespace {

std::vector<std::string> toStd(const QStringList &paths)
{
    std::vector<std::string> out;
    for (const QString &p : paths)
        out.push_back(p.toStdString());
    return out;
}

QString runTitle(const QStringList &paths)
{
    QStringList names;
    for (const QString &p : paths)
        names << QFileInfo(p).fileName();
    return names.join(QStringLiteral(" + "));
}

// What the background work hands back: the diff, or why there is none.
using DiffOutcome = std::variant<std::shared_ptr<const core::RunDiff>, QString>;

} // namespace

CompareUi::CompareUi(MainWindow *window, QMenu *fileMenu) : QObject(window), m_window(window), m_job(1)
{
    m_action = new QAction(tr("Co&mpare with…"), this);
    m_action->setToolTip(tr("Compare the open trace or job with another run: the step, GPU busy, op times and what moved most"));
    connect(m_action, &QAction::triggered, this, &CompareUi::ask);
    fileMenu->addAction(m_action);
    // Enabled while something is open to compare.
    connect(fileMenu, &QMenu::aboutToShow, this, [this] { m_action->setEnabled(!currentRun().isEmpty()); });
}

QStringList CompareUi::currentRun() const
{
    if (auto *jobDock = m_window->findChild<JobDock *>(); jobDock && jobDock->job())
        return {jobDock->job()->folder};
    if (const DocumentPtr &doc = m_window->document())
        return doc->hostPath().isEmpty() ? QStringList{doc->devicePath()} : QStringList{doc->hostPath(), doc->devicePath()};
    return {};
}

void CompareUi::ask()
{
    const QStringList a = currentRun();
    if (a.isEmpty())
        return;
    // A job is compared with a job, a trace with a trace (docs/diff.md).
    const bool job = a.size() == 1 && QFileInfo(a.front()).isDir();
    const QString b = job ? QFileDialog::getExistingDirectory(m_window, tr("Compare with job folder"))
                          : QFileDialog::getOpenFileName(m_window, tr("Compare with Kineto trace"), QFileInfo(a.back()).path(),
                                                         QStringLiteral("Traces (*.json *.json.gz *.gz);;All files (*)"));
    if (!b.isEmpty())
        compareWith({b});
}

DiffDock *CompareUi::dock()
{
    if (!m_dock) {
        m_dock = new DiffDock(m_window);
        m_window->addDock(m_dock, Qt::BottomDockWidgetArea);
        if (auto *summary = m_window->findChild<SummaryDock *>())
            m_window->tabifyDockWidget(summary, m_dock);
    }
    return m_dock;
}

bool CompareUi::compareWith(const QStringList &b)
{
    const QStringList a = currentRun();
    if (a.isEmpty() || b.isEmpty())
        return false;
    DiffDock *d = dock();
    d->show();
    d->raise();
    d->setBusy(runTitle(a), runTitle(b));
    m_clock.start();
    m_job.run(
        [sideA = toStd(a), sideB = toStd(b)](const JobToken &token) -> DiffOutcome {
            try {
                core::job::RunReadOptions options;
                options.cancel = token.flag();
                const core::job::RunPair runs = core::job::readRunPair(sideA, sideB, options);
                if (token.cancelled())
                    return QString();
                if (const std::string problem = core::job::unreadableRun(runs); !problem.empty())
                    return QString::fromStdString(problem);
                core::RunDiff diff = core::diffRuns(runs.a, runs.b);
                // Where a trace was cut (read up to its cut): said with the diff's own warnings.
                diff.warnings.insert(diff.warnings.begin(), runs.truncated.begin(), runs.truncated.end());
                return std::make_shared<const core::RunDiff>(std::move(diff));
            } catch (const std::exception &e) {
                return QString::fromLocal8Bit(e.what());
            }
        },
        [this](DiffOutcome outcome) {
            const double seconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
            if (auto *diff = std::get_if<std::shared_ptr<const core::RunDiff>>(&outcome)) {
                m_dock->setDiff(*diff, seconds);
                emit compared();
            } else {
                m_dock->setError(std::get<QString>(outcome));
                emit failed(std::get<QString>(outcome));
            }
        });
    return true;
}

} // namespace linkscope::ui
