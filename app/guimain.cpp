// The GUI half of the composition root: the QApplication and the main window (Qt Widgets).

#include "guimain.h"

#include "compare/compareui.h"
#include "docks/detailsdock.h"
#include "docks/summarydock.h"
#include "jobview/jobdock.h"
#include "jobview/joboverview.h"
#include "jobview/rankpanes.h"
#include "prediction/jobpredictor.h"
#include "prediction/predictdock.h"
#include "prediction/predictioncontroller.h"
#include "review/correctioncontroller.h"
#include "shell/mainwindow.h"
#include "shell/reviewui.h"
#include "shell/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPushButton>
#include <QSettings>
#include <QSize>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

namespace linkscope::app {

namespace {

// What the command line asks the window to do.
struct GuiOptions {
    QStringList files;
    bool jobFolder = false; // files is one folder: a job
    QString screenshotFile; // empty: no screenshot
    bool settled = false, criticalPath = false, summary = false;
    std::optional<ui::ThemeChoice> theme; // --theme: for this run only, not saved
    QSize size;                           // invalid: the default
    std::vector<qint64> ranks;            // --ranks, in order, without repeats
    QStringList compare;                  // --compare: run B (a Kineto trace, a pair, a job folder)
};

// The command line read (--help and --version answered and exited by Qt); an exit status after a
// usage error.
std::optional<int> parseGuiOptions(const QApplication &app, GuiOptions &o)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Inspect and correct GPU→CPU links in PyTorch traces"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("traces"),
        QStringLiteral("HOST_ET DEVICE_TRACE, DEVICE_TRACE alone, or a job's folder (a trace pair per rank)"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Once the traces (or the job) are open and drawn, save the window as PNG to FILE, "
                       "print the time it took and quit (exit 1 if the open failed)"),
        QStringLiteral("FILE"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1920x1080"), QStringLiteral("WxH"));
    QCommandLineOption ranks(QStringLiteral("ranks"),
                             QStringLiteral("With a job's folder: once the job is open, show these ranks' full lanes, the first "
                                            "as the rank the docks act on and the others beside it (e.g. 0,3,5)"),
                             QStringLiteral("LIST"));
    QCommandLineOption criticalPath(
        QStringLiteral("critical-path"),
        QStringLiteral("Turn on critical-path mode (View ▸ Critical path) and show the Prediction dock; "
                       "with --screenshot, the window is saved once the prediction is drawn"));
    parser.addOption(screenshot);
    QCommandLineOption settled(QStringLiteral("settled"),
                               QStringLiteral("With --screenshot of a pair: save the window once the corrections sidecar beside "
                                              "the device trace is read and applied (its corrections and bookmarks drawn)"));
    parser.addOption(settled);
    parser.addOption(size);
    parser.addOption(ranks);
    QCommandLineOption summaryDock(
        QStringLiteral("summary"),
        QStringLiteral("Show the Summary dock (View ▸ Trace summary): the trace's, or the job's ranks', "
                       "top ops, GPU utilisation, exposed communication and step times"));
    QCommandLineOption theme(QStringLiteral("theme"),
                             QStringLiteral("The theme for this run (light, dark or system), as View ▸ Theme sets it, "
                                            "without saving it"),
                             QStringLiteral("NAME"));
    QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("Once the traces (or the job) are open, compare them with run B as File ▸ Compare with… does: a "
                       "Kineto trace, a job folder, or a pair given as --compare HOST_ET --compare KINETO; with "
                       "--screenshot, the window is saved once the Diff dock shows the result"),
        QStringLiteral("PATH"));
    parser.addOption(criticalPath);
    parser.addOption(summaryDock);
    parser.addOption(compare);
    parser.addOption(theme);
    parser.process(app);

    o.files = parser.positionalArguments();
    o.jobFolder = o.files.size() == 1 && QFileInfo(o.files.at(0)).isDir();
    if (parser.isSet(screenshot))
        o.screenshotFile = parser.value(screenshot);
    o.settled = parser.isSet(settled);
    o.criticalPath = parser.isSet(criticalPath);
    o.summary = parser.isSet(summaryDock);
    o.compare = parser.values(compare);
    if (o.compare.size() > 2 || (!o.compare.isEmpty() && o.files.isEmpty())) {
        std::cerr << "linkscope: --compare wants one run B (a trace, a job folder, or --compare HOST_ET --compare KINETO) "
                     "and traces or a job to compare it with\n";
        return 2;
    }
    if (parser.isSet(theme)) {
        const QString name = parser.value(theme).toLower();
        if (name == QLatin1String("light"))
            o.theme = ui::ThemeChoice::Light;
        else if (name == QLatin1String("dark"))
            o.theme = ui::ThemeChoice::Dark;
        else if (name == QLatin1String("system"))
            o.theme = ui::ThemeChoice::System;
        else {
            std::cerr << "linkscope: --theme wants light, dark or system\n";
            return 2;
        }
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.size() == 2 ? wh.at(0).toInt(&okW) : 0, h = wh.size() == 2 ? wh.at(1).toInt(&okH) : 0;
        if (!okW || !okH || w < 200 || h < 150) {
            std::cerr << "linkscope: --size wants WxH, e.g. 1920x1080\n";
            return 2;
        }
        o.size = QSize(w, h);
    }
    if (parser.isSet(ranks)) {
        for (const QString &part : parser.value(ranks).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qint64 r = part.trimmed().toLongLong(&ok);
            if (!ok || r < 0) {
                std::cerr << "linkscope: --ranks wants rank numbers separated by commas, e.g. 0,3,5\n";
                return 2;
            }
            if (std::find(o.ranks.begin(), o.ranks.end(), r) == o.ranks.end())
                o.ranks.push_back(r);
        }
    }
    if (!o.ranks.empty() && !o.jobFolder) {
        std::cerr << "linkscope: --ranks goes with a job's folder\n";
        return 2;
    }
    return std::nullopt;
}

// --ranks: once the job is open, the first rank opened and the others shown beside it, as the user
// does it (the rank clicked in the overview, then Open rank / Show beside).
void openRanksOnceJobOpens(ui::MainWindow &window, const GuiOptions &o)
{
    QObject::connect(window.jobDock(), &ui::JobDock::jobOpened, &window,
                     [&window, rankList = o.ranks, quit = !o.screenshotFile.isEmpty()] {
                         ui::JobDock *dock = window.jobDock();
                         for (const qint64 r : rankList)
                             if (!dock->job()->report.rank(r)) {
                                 std::cerr << "linkscope: --ranks: the job in " << dock->job()->folder.toStdString()
                                           << " has no rank " << r << '\n';
                                 if (quit)
                                     QApplication::exit(1);
                                 return;
                             }
                         dock->selectRank(rankList.front());
                         dock->openRankButton()->click();
                         for (std::size_t i = 1; i < rankList.size(); ++i) {
                             dock->selectRank(rankList[i]);
                             dock->besideButton()->click();
                         }
                     });
}

// --screenshot of a job's folder: the window saved once the overview (its prediction, or the ranks
// asked for) is drawn; the time of the overview's first rank row printed on the way.
void shootJobWhenDrawn(ui::MainWindow &window, const GuiOptions &o, const QElapsedTimer &clock,
                       const std::function<void(const char *)> &shoot)
{
    if (o.ranks.empty() && o.criticalPath) {
        // The job's prediction (export, fit, replay) finishes after the overview is drawn.
        ui::JobPredictor *predictor = window.jobDock()->predictor();
        QObject::connect(predictor, &ui::JobPredictor::predicted, &window, [shoot, predictor] {
            // Opening the job first clears the last prediction (no result, no error): not yet.
            if (!predictor->running() && (predictor->prediction() || !predictor->error().isEmpty()))
                shoot(predictor->prediction() ? "job overview and its critical path" : "job overview (its prediction failed)");
        });
    } else if (o.ranks.empty()) {
        QObject::connect(window.jobDock(), &ui::JobDock::jobOpened, &window, [shoot] { shoot("job overview"); });
    } else {
        // The requested ranks are all drawn (the first in the main timeline, the rest beside).
        auto check = [shoot, &window, rankList = o.ranks] {
            ui::RankPanes *panes = window.rankPanes();
            if (!window.document() || panes->mainRank() != rankList.front())
                return;
            for (std::size_t i = 1; i < rankList.size(); ++i)
                if (!panes->pane(rankList[i]) || !panes->pane(rankList[i])->isLoaded())
                    return;
            shoot("job overview and ranks");
        };
        QObject::connect(&window, &ui::MainWindow::documentChanged, &window, check);
        QObject::connect(window.rankPanes(), &ui::RankPanes::panesChanged, &window, check);
    }
    QObject::connect(window.jobDock(), &ui::JobDock::failed, &window, [](const QString &message) {
        std::cerr << "linkscope: " << message.toStdString() << '\n';
        QApplication::exit(1);
    });
    // When the overview's first rank row appeared (bench/gui-job-open.sh reads it): rows
    // come as ranks finish, long before the job is whole.
    auto *firstRow = new QTimer(&window);
    firstRow->setInterval(5);
    QObject::connect(firstRow, &QTimer::timeout, &window, [firstRow, &window, &clock] {
        if (window.jobDock()->overview()->rowCount() == 0)
            return;
        firstRow->stop();
        std::cerr << "linkscope: first rank row after " << clock.elapsed() / 1000.0 << " s\n";
    });
    firstRow->start();
}

// --screenshot: the window saved as PNG once what was opened is drawn (with its critical path, or
// its sidecar applied, when asked), the time it took printed, and the application quit.
void shootWhenDrawn(ui::MainWindow &window, const GuiOptions &o, const QElapsedTimer &clock)
{
    auto shot = std::make_shared<bool>(false);
    const std::function<void(const char *)> shoot = [&window, &clock, file = o.screenshotFile, shot](const char *what) {
        if (*shot)
            return;
        *shot = true;
        // After the event loop has drawn the new document once.
        QTimer::singleShot(0, &window, [&window, &clock, file, what] {
            window.repaint();
            const bool saved = window.grab().toImage().save(file);
            std::cerr << "linkscope: " << what << " drawn after " << clock.elapsed() / 1000.0 << " s; "
                      << (saved ? "saved " : "could not save ") << file.toStdString() << '\n';
            QApplication::exit(saved ? 0 : 1);
        });
    };
    if (!o.compare.isEmpty()) {
        // --compare: the diff and run B's lanes beside, once shown, are what is saved (compareOnceOpen
        // starts it; a job's B lanes come with its rank shown, --ranks).
        ui::CompareUi *compare = window.findChild<ui::CompareUi *>();
        auto diffShown = std::make_shared<bool>(false);
        auto ready = [shoot, &window, diffShown, ranks = !o.ranks.empty()] {
            ui::RankPane *pane = window.rankPanes()->runPane();
            if (ranks && !pane)
                return; // B's lanes come once A's rank is shown
            if (*diffShown && (!pane || pane->isLoaded() || !pane->errorText().isEmpty()))
                shoot(pane ? "traces, run B beside and their diff" : "traces and their diff");
        };
        QObject::connect(compare, &ui::CompareUi::compared, &window, [ready, diffShown, &window] {
            *diffShown = true;
            if (ui::RankPane *pane = window.rankPanes()->runPane())
                QObject::connect(pane, &ui::RankPane::failed, &window, ready);
            ready();
        });
        QObject::connect(window.rankPanes(), &ui::RankPanes::panesChanged, &window, ready);
        QObject::connect(window.findChild<ui::CompareUi *>(), &ui::CompareUi::failed, &window, [](const QString &message) {
            std::cerr << "linkscope: --compare: " << message.toStdString() << '\n';
            QApplication::exit(1);
        });
    } else if (!o.jobFolder && o.criticalPath)
        // The prediction is built after the document is shown, in the background.
        QObject::connect(window.predictionController(), &ui::PredictionController::predicted, &window, [shoot, &window] {
            if (window.document() && !window.predictionController()->building())
                shoot("traces and their critical path");
        });
    else if (!o.jobFolder && o.settled) {
        ui::CorrectionController *corrections = window.review()->controller();
        auto check = [shoot, &window, corrections] {
            if (window.document() && corrections->ready() && !corrections->publishing())
                shoot("traces with their sidecar");
        };
        QObject::connect(corrections, &ui::CorrectionController::sidecarChanged, &window, check);
        QObject::connect(corrections, &ui::CorrectionController::published, &window, check);
        // A load's sidecar is applied before its document is shown (MainWindow::pairOpened).
        QObject::connect(&window, &ui::MainWindow::documentChanged, &window, check);
    } else if (!o.jobFolder)
        QObject::connect(&window, &ui::MainWindow::documentChanged, &window, [shoot] { shoot("traces"); });
    QObject::connect(&window, &ui::MainWindow::loadFailed, &window, [](const QString &message) {
        std::cerr << "linkscope: " << message.toStdString() << '\n';
        QApplication::exit(1);
    });
    if (o.files.isEmpty()) {
        // Nothing to open: the window as it first shows (else it would wait for a document forever).
        shoot("the empty window");
        return;
    }
    if (o.jobFolder && o.compare.isEmpty())
        shootJobWhenDrawn(window, o, clock, shoot);
    else if (o.jobFolder)
        QObject::connect(window.jobDock(), &ui::JobDock::failed, &window, [](const QString &message) {
            std::cerr << "linkscope: " << message.toStdString() << '\n';
            QApplication::exit(1);
        });
}

// The settings written while the application was named "Linkscope" (Linkscope/Linkscope.conf: the
// layout, the recent files, the theme) carried over once to the current name's file.
void adoptOlderSettings()
{
    QSettings current;
    if (!current.allKeys().isEmpty())
        return;
    QSettings older(QCoreApplication::organizationName(), QStringLiteral("Linkscope"));
    if (older.fileName() == current.fileName())
        return; // a file system that ignores case: the same file
    for (const QString &key : older.allKeys())
        current.setValue(key, older.value(key));
}

// --compare: once the traces are shown (or the job is open), the comparison with run B started, once.
void compareOnceOpen(ui::MainWindow &window, const GuiOptions &o)
{
    auto started = std::make_shared<bool>(false);
    auto start = [&window, b = o.compare, started] {
        if (*started)
            return;
        *started = true;
        window.findChild<ui::CompareUi *>()->compareWith(b);
    };
    if (o.jobFolder)
        QObject::connect(window.jobDock(), &ui::JobDock::jobOpened, &window, start);
    else
        QObject::connect(&window, &ui::MainWindow::documentChanged, &window, start);
}

// --critical-path and --summary: the docks they name shown.
void showRequestedDocks(ui::MainWindow &window, const GuiOptions &o)
{
    if (o.criticalPath) {
        window.predictDock()->criticalPathAction()->setChecked(true);
        window.predictDock()->show();
        window.predictDock()->raise();
        // Details stays above it, shorter: the dock's path, top ops and what-ifs get the height.
        window.resizeDocks({window.detailsDock()}, {std::max(150, window.height() / 6)}, Qt::Vertical);
    }
    if (o.summary)
        if (auto *dock = window.findChild<ui::SummaryDock *>()) {
            dock->show();
            dock->raise();
        }
}

} // namespace

int runGui(int argc, char *argv[])
{
    QApplication app(argc, argv);
    // The folders are named from these: ~/.cache/Linkscope/linkscope (Open in Perfetto's files, as the
    // README says) and ~/.config/Linkscope/linkscope.conf.
    QApplication::setApplicationName(QStringLiteral("linkscope"));
    QApplication::setOrganizationName(QStringLiteral("Linkscope"));
    adoptOlderSettings();
    QApplication::setApplicationVersion(QStringLiteral(LINKSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/linkscope.svg")));

    GuiOptions o;
    if (const std::optional<int> status = parseGuiOptions(app, o))
        return *status;

    QElapsedTimer clock;
    clock.start();
    ui::MainWindow window;
    if (o.theme)
        ui::applyTheme(*o.theme);
    if (o.size.isValid())
        window.resize(o.size);
    window.show();
    if (!o.ranks.empty())
        openRanksOnceJobOpens(window, o);
    if (!o.screenshotFile.isEmpty())
        shootWhenDrawn(window, o, clock);
    showRequestedDocks(window, o);
    if (!o.compare.isEmpty())
        compareOnceOpen(window, o);
    const QStringList &files = o.files;
    if (files.size() == 2)
        window.openPair(files.at(0), files.at(1));
    else if (o.jobFolder)
        window.openJob(files.at(0));
    else if (files.size() == 1)
        window.openDevice(files.at(0));
    else if (files.size() > 2) {
        std::cerr << "linkscope: expected at most two trace files, got " << files.size() << '\n';
        return 2;
    }
    return app.exec();
}

} // namespace linkscope::app
