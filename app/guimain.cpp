// The GUI half of the composition root: the QApplication and the main window (Qt Widgets).

#include "guimain.h"

#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <iostream>

namespace linkscope::app {

int runGui(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Linkscope"));
    QApplication::setOrganizationName(QStringLiteral("Linkscope"));
    QApplication::setApplicationVersion(QStringLiteral(LINKSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/linkscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Inspect and correct GPU→CPU links in PyTorch traces"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("traces"), QStringLiteral("HOST_ET DEVICE_TRACE, or DEVICE_TRACE alone"));
    parser.process(app);

    ui::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (files.size() == 2)
        window.openPair(files.at(0), files.at(1));
    else if (files.size() == 1)
        window.openDevice(files.at(0));
    else if (files.size() > 2) {
        std::cerr << "linkscope: expected at most two trace files, got " << files.size() << '\n';
        return 2;
    }
    return app.exec();
}

} // namespace linkscope::app
