// The composition root: a known subcommand runs headless against core; anything else opens the GUI.

#include "commands/commands.h"
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace {

bool hasDisplay()
{
    if (const char *platform = std::getenv("QT_QPA_PLATFORM"); platform && *platform)
        return true; // the user chose a platform (offscreen, vnc, ...)
    const char *x11 = std::getenv("DISPLAY");
    const char *wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

} // namespace

int main(int argc, char *argv[])
{
    using namespace linkscope;
    if (argc >= 2) {
        const std::string first = argv[1];
        if (first == "--help" || first == "-h" || first == "help") {
            cli::printUsage(std::cout);
            return 0;
        }
        for (const cli::Command &command : cli::commands()) {
            if (first == command.name) {
                const cli::Args args(argv + 2, argv + argc);
                try {
                    return command.run(args, std::cout, std::cerr);
                } catch (const std::exception &e) {
                    std::cerr << "linkscope " << command.name << ": " << e.what() << '\n';
                    return 1;
                }
            }
        }
    }

    if (!hasDisplay()) {
        std::cerr << "linkscope: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open.\n"
                     "Run it headless instead, for example:\n"
                     "  linkscope inspect HOST_ET.json DEVICE_TRACE.json\n"
                     "  linkscope link --host HOST_ET.json --device DEVICE_TRACE.json\n"
                     "  linkscope export --host HOST_ET.json --device DEVICE_TRACE.json --et out.et\n"
                     "or under a virtual display: xvfb-run linkscope HOST_ET.json DEVICE_TRACE.json\n\n";
        cli::printUsage(std::cerr);
        return 2;
    }

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
