#include "shell/windowlayout.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>

#include <algorithm>

namespace linkscope::ui {

namespace {

const QString kGroup = QStringLiteral("layout");
const QString kVersionKey = QStringLiteral("layout/version");
const QString kGeometryKey = QStringLiteral("layout/geometry");
const QString kStateKey = QStringLiteral("layout/state");
const QString kSplittersKey = QStringLiteral("layout/splitters/");

bool savedLayoutUsable(const QSettings &settings)
{
    return settings.value(kVersionKey).toInt() == WindowLayout::kVersion && settings.contains(kStateKey);
}

} // namespace

bool WindowLayout::restore(QMainWindow *window)
{
    const QSettings settings;
    if (!savedLayoutUsable(settings))
        return false;
    window->restoreGeometry(settings.value(kGeometryKey).toByteArray());
    const bool restored = window->restoreState(settings.value(kStateKey).toByteArray(), kVersion);
    restoreSplitters(window);
    return restored;
}

bool WindowLayout::restoreDock(QMainWindow *window, QDockWidget *dock)
{
    const QSettings settings;
    if (!savedLayoutUsable(settings) || !window->restoreDockWidget(dock))
        return false;
    restoreSplitters(dock);
    return true;
}

void WindowLayout::restoreSplitters(QWidget *root)
{
    const QSettings settings;
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        if (splitter->objectName().isEmpty())
            continue;
        const QByteArray state = settings.value(kSplittersKey + splitter->objectName()).toByteArray();
        if (!state.isEmpty())
            splitter->restoreState(state);
    }
}

void WindowLayout::save(const QMainWindow *window)
{
    QSettings settings;
    settings.remove(kGroup);
    settings.setValue(kVersionKey, kVersion);
    settings.setValue(kGeometryKey, window->saveGeometry());
    settings.setValue(kStateKey, window->saveState(kVersion));
    for (const QSplitter *splitter : window->findChildren<QSplitter *>())
        if (!splitter->objectName().isEmpty())
            settings.setValue(kSplittersKey + splitter->objectName(), splitter->saveState());
}

void WindowLayout::forget() { QSettings().remove(kGroup); }

void WindowLayout::applyDefaults(QMainWindow *window)
{
    const int height = window->height(), width = window->width();
    auto dock = [window](const char *name) { return window->findChild<QDockWidget *>(QString::fromLatin1(name)); };
    // The right column, the window's whole height (MainWindow gives it the bottom-right corner):
    // Details over the Search / Warnings / Prediction tabs, a bit under a third of the width; the
    // tabs get the larger share, so that the Prediction dock shows the step, its breakdown and the
    // what-if without scrolling (issue 40, item 5).
    QDockWidget *details = dock("DetailsDock"), *search = dock("SearchDock");
    if (details && search && !details->isFloating() && !search->isFloating()) {
        window->resizeDocks({details}, {std::clamp(width * 30 / 100, 360, 620)}, Qt::Horizontal);
        const int column = std::max(200, height - 120);
        window->resizeDocks({details, search}, {column / 4, column * 3 / 4}, Qt::Vertical);
    }
    // The bottom, under the lanes: Findings (with Edits, Time range and Summary in tabs) a fifth of
    // the height, so that the lanes keep 60 % of it at 1400x900; the list scrolls.
    if (QDockWidget *findings = dock("FindingsDock"); findings && findings->isVisible() && !findings->isFloating())
        window->resizeDocks({findings}, {std::max(170, height * 20 / 100)}, Qt::Vertical);
}

void WindowLayout::fitColumnUnder(QMainWindow *window, int topHeight)
{
    auto *details = window->findChild<QDockWidget *>(QStringLiteral("DetailsDock"));
    auto *search = window->findChild<QDockWidget *>(QStringLiteral("SearchDock"));
    if (!details || !search || details->isFloating() || search->isFloating() || !details->isVisible())
        return;
    const int column = std::max(200, window->height() - topHeight - 120);
    window->resizeDocks({details, search}, {column / 4, column * 3 / 4}, Qt::Vertical);
}

int WindowLayout::contentsMinimumHeight(const QDockWidget *dock)
{
    const QWidget *body = dock->widget();
    if (const auto *scroll = qobject_cast<const QScrollArea *>(body))
        body = scroll->widget();
    return body ? body->minimumSizeHint().height() : 0;
}

void WindowLayout::scrollWhenShort(QDockWidget *dock)
{
    QWidget *body = dock->widget();
    if (!body || qobject_cast<QScrollArea *>(body))
        return;
    auto *scroll = new QScrollArea(dock);
    scroll->setObjectName(dock->objectName() + QStringLiteral("Scroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true); // as tall as the dock, or scrolled when the dock is shorter
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->viewport()->setBackgroundRole(QPalette::Window);
    scroll->setWidget(body);
    // A few lines at least, so the dock never collapses to nothing.
    scroll->setMinimumHeight(std::min(body->minimumSizeHint().height(), 6 * dock->fontMetrics().height()));
    dock->setWidget(scroll);
}

} // namespace linkscope::ui
