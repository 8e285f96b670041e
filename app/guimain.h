#pragma once
// The desktop GUI's entry point, built only with LINKSCOPE_BUILD_GUI (app/guimain.cpp).

namespace linkscope::app {

// Opens the main window on the traces named in argv (HOST_ET DEVICE_TRACE, or DEVICE_TRACE alone)
// and runs the Qt event loop; returns the process exit code. Needs a display.
int runGui(int argc, char *argv[]);

} // namespace linkscope::app
