#pragma once
// The timeline's context menus and the lane actions shown in them (and in the window's View menu):
// the lane-header menu (hide, collapse, move a lane or group; hide Python rows; GPU streams first;
// the default order; show what is hidden), an event's menu and an edge's menu. They act through the
// view's public interface only.

#include "ground/tracedocument.h"
#include "model/common.h"

#include <QObject>
#include <QPoint>
#include <QString>

#include <functional>

class QAction;
class QMenu;

namespace linkscope::ui {

class TimelineView;

class TimelineMenus : public QObject {
    Q_OBJECT
public:
    explicit TimelineMenus(TimelineView &view);

    // Whoever can correct links adds its actions to the event and edge menus (called last, with the
    // menu and the event or edge; the other is none).
    using Provider = std::function<void(QMenu *menu, core::EventIndex event, DrawEdgeIndex edge)>;
    void setProvider(Provider provider) { m_provider = std::move(provider); }
    // What the view draws over the lanes (the critical path: on or off, the baseline's or the
    // what-if's) adds its actions at the end of the event and edge menus, and alone to the menu a
    // right-click between events opens.
    using ViewProvider = std::function<void(QMenu *menu)>;
    void setViewProvider(ViewProvider provider) { m_viewProvider = std::move(provider); }

    // Each call makes a new menu; the caller owns it.
    // The lane-header menu for widget position `pos`.
    QMenu *createHeaderMenu(const QPoint &pos);
    // What needs no corrections: on an event Select, Frame (it and its parent), Select parent /
    // Select launch (a GPU op's), Copy name; on an edge Select source, Select target, Copy
    // description (its tooltip as plain text); then the provider's actions. Read-only timelines
    // (the job's rank panes) have no provider.
    QMenu *createEventMenu(core::EventIndex event);
    QMenu *createEdgeMenu(DrawEdgeIndex edge);
    // The menu a right-click at widget position `pos` opens: the header menu left of the lanes, an
    // event's or an edge's menu on one, else the view provider's menu (null without one).
    QMenu *createContextMenu(const QPoint &pos);

    QAction *hidePythonRowsAction() const { return m_hidePython; }
    QAction *gpuFirstAction() const { return m_gpuFirst; }
    QAction *showHiddenAction() const { return m_showHidden; }
    QAction *resetOrderAction() const { return m_resetOrder; }
    QAction *foldPythonRowsAction() const { return m_foldPython; }
    // Brings the actions' checked and enabled states in step with the view's layout.
    void syncActions();

private:
    QString elidedName(core::EventIndex event) const;
    void addViewActions(QMenu *menu);

    TimelineView &m_view;
    Provider m_provider;
    ViewProvider m_viewProvider;
    QAction *m_hidePython = nullptr;
    QAction *m_gpuFirst = nullptr;
    QAction *m_showHidden = nullptr;
    QAction *m_resetOrder = nullptr;
    QAction *m_foldPython = nullptr;
};

} // namespace linkscope::ui
