#pragma once

#include <QMainWindow>

namespace linkscope::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    void openPair(const QString &hostPath, const QString &devicePath);
    void openDevice(const QString &devicePath);
};

} // namespace linkscope::ui
