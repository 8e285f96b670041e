#include "mainwindow.h"

namespace linkscope::ui {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("Linkscope"));
    resize(1280, 800);
}

void MainWindow::openPair(const QString &, const QString &) {}
void MainWindow::openDevice(const QString &) {}

} // namespace linkscope::ui
