// linkscope-gui: the desktop window (app/guimain.cpp). `linkscope` without a command starts it with
// the same arguments; it can also be run directly.

#include "guimain.h"

int main(int argc, char *argv[]) { return linkscope::app::runGui(argc, argv); }
