#pragma once
// The status bar's progress of a load: a bar per stage the load shows (traceloader.h: core's
// PairStage and the timeline's), polled from the loader's atomics while it runs, and Cancel.

#include <QWidget>

#include <vector>

class QLabel;
class QProgressBar;
class QTimer;

namespace linkscope::ui {

class TraceLoader;

class LoadProgress : public QWidget {
    Q_OBJECT
public:
    explicit LoadProgress(TraceLoader *loader, QWidget *parent = nullptr);

    void start(); // shown, every bar at 0, polled until stop()
    void stop();  // hidden

private:
    void update();

    TraceLoader *m_loader;
    std::vector<QLabel *> m_labels;
    std::vector<QProgressBar *> m_bars;
    QTimer *m_timer;
};

} // namespace linkscope::ui
