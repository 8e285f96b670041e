// The composition root: a known subcommand runs headless against core; anything else opens the GUI
// — the linkscope-gui executable beside this one (app/guientry.cpp), started with the same
// arguments — or, in a build without it (-DLINKSCOPE_BUILD_GUI=OFF), says how to run headless.
// This file uses no Qt and the executable links none: the CLI starts without loading Qt.

#include "commands/commands.h"
#include "io/json/jsonkernel.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

#ifdef LINKSCOPE_WITH_GUI
// linkscope-gui in the folder this executable is in (the build's app/ folder, or bin/ installed).
std::string guiExecutable(const char *argv0)
{
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || self.empty())
        self = std::filesystem::absolute(argv0, ec);
    return (self.parent_path() / "linkscope-gui").string();
}

bool hasDisplay()
{
    if (const char *platform = std::getenv("QT_QPA_PLATFORM"); platform && *platform)
        return true; // the user chose a platform (offscreen, vnc, ...)
    const char *x11 = std::getenv("DISPLAY");
    const char *wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}
#endif

void printHeadlessExamples(std::ostream &err)
{
    err << "Run it headless instead, for example:\n"
           "  linkscope inspect HOST_ET.json DEVICE_TRACE.json\n"
           "  linkscope link --host HOST_ET.json --device DEVICE_TRACE.json\n"
           "  linkscope export --host HOST_ET.json --device DEVICE_TRACE.json --et out.et\n";
}

// The version, and the JSON kernel simdjson chose for this CPU (the build runs on any CPU of its
// architecture; the kernel decides how fast traces are read).
void printVersion(std::ostream &out)
{
    const linkscope::core::JsonKernel active = linkscope::core::activeJsonKernel();
    out << "linkscope " << LINKSCOPE_VERSION << "\n"
        << "JSON reader kernel: " << active.name << " (" << active.description << "), chosen for this CPU from:";
    for (const linkscope::core::JsonKernel &k : linkscope::core::runnableJsonKernels())
        out << ' ' << k.name;
    out << "\n";
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
        if (first == "--version") {
            printVersion(std::cout);
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

#ifdef LINKSCOPE_WITH_GUI
    if (!hasDisplay()) {
        std::cerr << "linkscope: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open.\n";
        printHeadlessExamples(std::cerr);
        std::cerr << "or under a virtual display: xvfb-run linkscope HOST_ET.json DEVICE_TRACE.json\n\n";
        cli::printUsage(std::cerr);
        return 2;
    }
    const std::string gui = guiExecutable(argv[0]);
    std::vector<char *> guiArgs(argv, argv + argc);
    guiArgs.push_back(nullptr);
    guiArgs[0] = const_cast<char *>(gui.c_str());
    execv(gui.c_str(), guiArgs.data());
    std::cerr << "linkscope: cannot start the window (" << gui << "): " << std::strerror(errno) << '\n';
    printHeadlessExamples(std::cerr);
    return 2;
#else
    std::cerr << "linkscope: this build has no GUI (configured with -DLINKSCOPE_BUILD_GUI=OFF), so the window cannot open.\n";
    printHeadlessExamples(std::cerr);
    std::cerr << '\n';
    cli::printUsage(std::cerr);
    return 2;
#endif
}
