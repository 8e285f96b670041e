#include "timeline/timelinemenus.h"

#include "timeline/timelineview.h"

#include <QAction>
#include <QClipboard>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QMenu>
#include <QTextDocument>

namespace linkscope::ui {

TimelineMenus::TimelineMenus(TimelineView &view) : QObject(&view), m_view(view)
{
    m_hidePython = new QAction(tr("Hide Python rows"), this);
    m_hidePython->setCheckable(true);
    m_hidePython->setToolTip(tr("Leave out the rows of each thread that hold python_function events only"));
    connect(m_hidePython, &QAction::triggered, this, [this](bool on) { m_view.arrangement().setHidePythonRows(on); });
    m_foldPython = new QAction(tr("Fold Python rows"), this);
    m_foldPython->setCheckable(true);
    m_foldPython->setChecked(m_view.layout().foldPythonRows());
    m_foldPython->setToolTip(tr("Show each thread's python_function frames as one summary row (click it to expand)"));
    connect(m_foldPython, &QAction::triggered, this, [this](bool on) { m_view.arrangement().setFoldPythonRows(on); });
    m_gpuFirst = new QAction(tr("GPU streams first"), this);
    m_gpuFirst->setCheckable(true);
    m_gpuFirst->setChecked(m_view.layout().gpuFirst());
    m_gpuFirst->setToolTip(tr("Show the GPU groups above the CPU threads"));
    connect(m_gpuFirst, &QAction::triggered, this, [this](bool on) { m_view.setGpuFirst(on); });
    m_showHidden = new QAction(tr("Show hidden lanes and groups"), this);
    m_showHidden->setEnabled(false);
    connect(m_showHidden, &QAction::triggered, &m_view.arrangement(), &TimelineArrangement::showAllHidden);
    m_resetOrder = new QAction(tr("Default order of lanes and groups"), this);
    m_resetOrder->setToolTip(tr("Put moved lanes and groups back where they were (GPU streams first if that is on)"));
    m_resetOrder->setEnabled(false);
    connect(m_resetOrder, &QAction::triggered, &m_view.arrangement(), &TimelineArrangement::resetOrder);
}

void TimelineMenus::syncActions()
{
    const TimelineLayout &layout = m_view.layout();
    m_hidePython->setChecked(layout.hidePythonRows());
    m_foldPython->setChecked(layout.foldPythonRows());
    m_gpuFirst->setChecked(layout.gpuFirst());
    const int hidden = layout.hiddenCount();
    m_showHidden->setEnabled(hidden > 0);
    m_showHidden->setText(hidden > 0 ? tr("Show hidden lanes and groups (%L1)").arg(hidden) : tr("Show hidden lanes and groups"));
    m_resetOrder->setEnabled(layout.hasCustomOrder());
}

QMenu *TimelineMenus::createHeaderMenu(const QPoint &pos)
{
    auto *menu = new QMenu(&m_view);
    const DocumentPtr &doc = m_view.document();
    if (!doc)
        return menu;
    const TimelineLayout &layout = m_view.layout();
    TimelineView *view = &m_view;
    const int r = m_view.headerRowAt(pos);
    if (r >= 0) {
        const LayoutRow row = layout.rows()[r];
        const QString groupLabel = layout.groups()[row.group].label;
        // Move up / down / to top / to bottom; disabled where it cannot go.
        auto addMoves = [this](QMenu *moves, bool canUp, bool canDown, std::function<void(int)> by,
                               std::function<void(bool)> toEnd) {
            moves->addAction(tr("Move up"), this, [by] { by(-1); })->setEnabled(canUp);
            moves->addAction(tr("Move down"), this, [by] { by(1); })->setEnabled(canDown);
            moves->addAction(tr("Move to top"), this, [toEnd] { toEnd(false); })->setEnabled(canUp);
            moves->addAction(tr("Move to bottom"), this, [toEnd] { toEnd(true); })->setEnabled(canDown);
            moves->setEnabled(canUp || canDown);
        };
        if (row.kind == LayoutRow::Kind::LaneRow) {
            const core::LaneIndex lane = row.lane;
            const QString label = QString::fromStdString(doc->index().lane(lane).label);
            menu->addAction(tr("Hide lane “%1”").arg(label), this,
                            [view, lane] { view->arrangement().setLaneHidden(lane, true); });
            if (doc->laneRows(lane).rowCount() > 1) {
                const bool collapsed = layout.isLaneCollapsed(lane);
                menu->addAction(collapsed ? tr("Expand lane") : tr("Collapse lane"), this,
                                [view, lane, collapsed] { view->arrangement().setLaneCollapsed(lane, !collapsed); });
            }
            if (layout.foldPythonRows() && !layout.hidePythonRows() && layout.hasPythonRows(lane)) {
                const bool expanded = layout.isPythonExpanded(lane);
                menu->addAction(expanded ? tr("Fold Python frames of this lane") : tr("Expand Python frames of this lane"), this,
                                [view, lane, expanded] { view->arrangement().setPythonExpanded(lane, !expanded); })
                    ->setObjectName(QStringLiteral("togglePythonRows"));
            }
            addMoves(
                menu->addMenu(tr("Move lane “%1”").arg(label)), layout.canMoveLaneBy(lane, -1), layout.canMoveLaneBy(lane, 1),
                [view, lane](int delta) { view->arrangement().moveLaneBy(lane, delta); },
                [view, lane](bool bottom) {
                    const TimelineLayout &l = view->layout();
                    view->arrangement().moveLane(lane,
                                                 bottom ? static_cast<int>(l.groups()[l.groupOfLane(lane)].lanes.size()) : 0);
                });
        }
        const int group = row.group;
        menu->addAction(tr("Hide group “%1”").arg(groupLabel), this,
                        [view, group] { view->arrangement().setGroupHidden(group, true); });
        const bool collapsed = layout.isGroupCollapsed(group);
        menu->addAction(collapsed ? tr("Expand group") : tr("Collapse group"), this,
                        [view, group, collapsed] { view->arrangement().setGroupCollapsed(group, !collapsed); });
        const bool pinned = layout.isGroupPinned(group);
        menu->addAction(pinned ? tr("Unpin group “%1”").arg(groupLabel) : tr("Pin group “%1” to the top").arg(groupLabel), this,
                        [view, group, pinned] { view->arrangement().setGroupPinned(group, !pinned); })
            ->setObjectName(QStringLiteral("togglePinned"));
        addMoves(
            menu->addMenu(tr("Move group “%1”").arg(groupLabel)), layout.canMoveGroupBy(group, -1),
            layout.canMoveGroupBy(group, 1), [view, group](int delta) { view->arrangement().moveGroupBy(group, delta); },
            [view, group](bool bottom) {
                view->arrangement().moveGroup(group, bottom ? static_cast<int>(view->layout().groups().size()) : 0);
            });
        menu->addSeparator();
    }
    m_hidePython->setText(tr("Hide Python rows (%L1)").arg(layout.pythonOnlyRowCount()));
    menu->addAction(m_hidePython);
    menu->addAction(m_foldPython);
    menu->addAction(m_gpuFirst);
    menu->addAction(m_view.keyAction(TimelineKey::FitRows));
    if (m_resetOrder->isEnabled())
        menu->addAction(m_resetOrder);
    if (layout.hiddenCount() > 0) {
        menu->addSeparator();
        QMenu *hidden = menu->addMenu(tr("Show"));
        for (int g = 0; g < static_cast<int>(layout.groups().size()); ++g) {
            const TimelineGroup &group = layout.groups()[g];
            if (layout.isGroupHidden(g))
                hidden->addAction(tr("Group “%1”").arg(group.label), this,
                                  [view, g] { view->arrangement().setGroupHidden(g, false); });
            for (core::LaneIndex lane : group.lanes)
                if (layout.isLaneHidden(lane))
                    hidden->addAction(
                        tr("Lane “%1” (%2)").arg(QString::fromStdString(doc->index().lane(lane).label), group.label), this,
                        [view, lane] { view->arrangement().setLaneHidden(lane, false); });
        }
        menu->addAction(m_showHidden);
    }
    return menu;
}

QMenu *TimelineMenus::createEventMenu(core::EventIndex e)
{
    auto *menu = new QMenu(&m_view);
    const DocumentPtr &doc = m_view.document();
    if (!doc || !e.in(doc->eventCount()))
        return menu;
    TimelineView *view = &m_view;
    auto select = [view](core::EventIndex target) {
        if (EventSelection *selection = view->state().selectionModel())
            selection->select(target);
    };
    QAction *selectAction = menu->addAction(tr("Select"), this, [view, e] {
        if (EventSelection *selection = view->state().selectionModel())
            selection->selectInPlace(e);
    });
    selectAction->setObjectName(QStringLiteral("selectEvent"));
    menu->addAction(tr("Frame"), this, [view, e] { view->navigation().frameEvent(e); })
        ->setObjectName(QStringLiteral("frameEvent"));
    if (const core::GpuLink *link = doc->gpuLink(e)) {
        const core::EventIndex parent = link->parent;
        const core::EventIndex launch = link->launch;
        QAction *parentAction = menu->addAction(parent.in(doc->eventCount()) ? tr("Select parent “%1”").arg(elidedName(parent))
                                                                             : tr("Select parent (none)"),
                                                this, [select, parent] { select(parent); });
        parentAction->setObjectName(QStringLiteral("selectParent"));
        parentAction->setEnabled(parent.in(doc->eventCount()));
        QAction *launchAction = menu->addAction(launch.in(doc->eventCount()) ? tr("Select launch “%1”").arg(elidedName(launch))
                                                                             : tr("Select launch (none)"),
                                                this, [select, launch] { select(launch); });
        launchAction->setObjectName(QStringLiteral("selectLaunch"));
        launchAction->setEnabled(launch.in(doc->eventCount()));
    }
    menu->addSeparator();
    const QString name = doc->eventName(e);
    menu->addAction(tr("Copy name"), this, [name] { QGuiApplication::clipboard()->setText(name); })
        ->setObjectName(QStringLiteral("copyName"));
    if (m_provider) {
        menu->addSeparator();
        m_provider(menu, e, core::kNone);
    }
    addViewActions(menu);
    return menu;
}

QMenu *TimelineMenus::createEdgeMenu(DrawEdgeIndex id)
{
    auto *menu = new QMenu(&m_view);
    const DocumentPtr &doc = m_view.document();
    if (!doc || !id.in(doc->edges().size()))
        return menu;
    const DrawEdge edge = doc->edges()[id];
    TimelineView *view = &m_view;
    auto select = [view](core::EventIndex target) {
        if (EventSelection *selection = view->state().selectionModel())
            selection->select(target);
    };
    menu->addAction(tr("Select source “%1”").arg(elidedName(edge.from)), this, [select, edge] { select(edge.from); })
        ->setObjectName(QStringLiteral("selectEdgeSource"));
    menu->addAction(tr("Select target “%1”").arg(elidedName(edge.to)), this, [select, edge] { select(edge.to); })
        ->setObjectName(QStringLiteral("selectEdgeTarget"));
    menu->addSeparator();
    QTextDocument text;
    text.setHtml(m_view.edgeTooltip(id));
    const QString description = text.toPlainText();
    menu->addAction(tr("Copy description"), this, [description] { QGuiApplication::clipboard()->setText(description); })
        ->setObjectName(QStringLiteral("copyEdge"));
    if (m_provider) {
        menu->addSeparator();
        m_provider(menu, core::kNone, id);
    }
    addViewActions(menu);
    return menu;
}

QMenu *TimelineMenus::createContextMenu(const QPoint &pos)
{
    if (!m_view.document() || pos.y() < m_view.overviewHeight() + TimelineView::kRulerHeight)
        return nullptr;
    if (pos.x() < m_view.headerWidth())
        return createHeaderMenu(pos);
    // As for hover and click: a marker is its event's, events win over edges.
    const core::EventIndex marked = m_view.markerAt(pos);
    const core::EventIndex e = marked.valid() ? marked : m_view.eventAt(pos);
    if (e.valid())
        return createEventMenu(e);
    const DrawEdgeIndex edge = m_view.edgeAt(pos);
    if (edge.valid())
        return createEdgeMenu(edge);
    if (!m_viewProvider)
        return nullptr;
    auto *menu = new QMenu(&m_view);
    m_viewProvider(menu);
    return menu;
}

void TimelineMenus::addViewActions(QMenu *menu)
{
    if (!m_viewProvider)
        return;
    menu->addSeparator();
    m_viewProvider(menu);
}

QString TimelineMenus::elidedName(core::EventIndex e) const
{
    // A kernel's full signature would make the menu as wide as the screen.
    return QFontMetrics(m_view.font()).elidedText(m_view.document()->eventName(e), Qt::ElideMiddle, 360);
}

} // namespace linkscope::ui
