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
    // The right column: Details over the Search / Warnings / Prediction tabs, a bit under a third
    // of the width; Details gets the larger share (an op's parent, rule and findings).
    QDockWidget *details = dock("DetailsDock"), *search = dock("SearchDock");
    if (details && search && !details->isFloating() && !search->isFloating()) {
        window->resizeDocks({details}, {std::clamp(width * 30 / 100, 360, 620)}, Qt::Horizontal);
        const int column = std::max(200, height - 200);
        window->resizeDocks({details, search}, {column * 55 / 100, column * 45 / 100}, Qt::Vertical);
    }
    // The bottom: Findings (with Edits and Time range in tabs) a third of the height, so that the
    // list shows a handful of findings under the Chakra comparison.
    if (QDockWidget *findings = dock("FindingsDock"); findings && findings->isVisible() && !findings->isFloating())
        window->resizeDocks({findings}, {std::max(240, height * 34 / 100)}, Qt::Vertical);
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
