#include "shell/loadprogress.h"

#include "ground/traceloader.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>

namespace linkscope::ui {

LoadProgress::LoadProgress(TraceLoader *loader, QWidget *parent) : QWidget(parent), m_loader(loader), m_timer(new QTimer(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    for (int s = 0; s < kLoadStageCount; ++s) {
        auto *label = new QLabel(loadStageName(s), this);
        auto *bar = new QProgressBar(this);
        bar->setMaximumWidth(120);
        bar->setMaximumHeight(14);
        bar->setTextVisible(false);
        layout->addWidget(label);
        layout->addWidget(bar);
        m_labels.push_back(label);
        m_bars.push_back(bar);
    }
    auto *cancel = new QPushButton(tr("Cancel"), this);
    layout->addWidget(cancel);
    connect(cancel, &QPushButton::clicked, m_loader, &TraceLoader::cancel);
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &LoadProgress::update);
    hide();
}

void LoadProgress::start()
{
    for (QProgressBar *bar : m_bars) {
        bar->setRange(0, 1000);
        bar->setValue(0);
    }
    show();
    m_timer->start();
    update();
}

void LoadProgress::stop()
{
    m_timer->stop();
    hide();
}

void LoadProgress::update()
{
    const auto stages = m_loader->progress();
    for (std::size_t s = 0; s < stages.size() && s < m_bars.size(); ++s) {
        const auto &stage = stages[s];
        QProgressBar *bar = m_bars[s];
        m_labels[s]->setVisible(stage.used);
        bar->setVisible(stage.used);
        if (stage.finished) {
            bar->setRange(0, 1000);
            bar->setValue(1000);
        } else if (!stage.started) {
            bar->setRange(0, 1000);
            bar->setValue(0);
        } else if (stage.total == 0) {
            bar->setRange(0, 0); // busy indicator
        } else {
            bar->setRange(0, 1000);
            bar->setValue(static_cast<int>(1000.0 * stage.done / stage.total));
        }
    }
}

} // namespace linkscope::ui
