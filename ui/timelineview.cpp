#include "timelineview.h"

#include "timeformat.h"
#include "timelineinput.h"
#include "timelinepalette.h"

#include <QAction>
#include <QClipboard>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QTextDocument>
#include <QContextMenuEvent>
#include <QCryptographicHash>
#include <QFileInfo>
#include <QMenu>
#include <QSet>
#include <QSettings>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScopeGuard>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <functional>

namespace linkscope::ui {

namespace {

constexpr double kBezierOffset = 30.0; // the re-parent drag curve's control-point offset

QString htmlEscaped(const QString &s) { return s.toHtmlEscaped(); }

} // namespace

TimelineView::TimelineView(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    m_input = new TimelineInput(*this);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_scrollBar->setCursor(Qt::ArrowCursor);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int value) { setVerticalOffset(value); });
    updateScrollBar();

    m_hidePythonAction = new QAction(tr("Hide Python rows"), this);
    m_hidePythonAction->setCheckable(true);
    m_hidePythonAction->setToolTip(tr("Leave out the rows of each thread that hold python_function events only"));
    connect(m_hidePythonAction, &QAction::triggered, this, [this](bool on) { setHidePythonRows(on); });
    m_gpuFirstAction = new QAction(tr("GPU streams first"), this);
    m_gpuFirstAction->setCheckable(true);
    m_gpuFirstAction->setChecked(m_layout.gpuFirst());
    m_gpuFirstAction->setToolTip(tr("Show the GPU groups above the CPU threads"));
    connect(m_gpuFirstAction, &QAction::triggered, this, [this](bool on) { setGpuFirst(on); });
    m_showHiddenAction = new QAction(tr("Show hidden lanes and groups"), this);
    m_showHiddenAction->setEnabled(false);
    connect(m_showHiddenAction, &QAction::triggered, this, &TimelineView::showAllHidden);
    m_resetOrderAction = new QAction(tr("Default order of lanes and groups"), this);
    m_resetOrderAction->setToolTip(tr("Put moved lanes and groups back where they were (GPU streams first if that is on)"));
    m_resetOrderAction->setEnabled(false);
    connect(m_resetOrderAction, &QAction::triggered, this, &TimelineView::resetOrder);
}

TimelineView::~TimelineView() = default;

void TimelineView::setDocument(DocumentPtr doc)
{
    const bool sameTrace = m_doc && doc && m_doc->deviceShared() == doc->deviceShared();
    m_doc = std::move(doc);
    if (m_doc)
        m_viewport.setTraceBounds(std::make_pair(m_doc->startTime(), m_doc->endTime()));
    else
        m_viewport.setTraceBounds(std::nullopt);
    m_edges.setFocusedEdge(core::kNone);
    m_hoverEvent = core::kNone;
    m_edges.clearPainted();
    m_paintedMarkers.clear();
    m_paintedLabels.clear();
    m_headerDrag = HeaderDrag();
    if (!sameTrace) {
        m_highlighted.clear();
        m_path.clear();
        m_linkDrag = LinkDrag();
        m_input->cancelRangeDrag();
        if (hasTimeRange()) {
            m_rangeStart = m_rangeEnd = 0;
            emit timeRangeChanged();
        }
    }
    if (sameTrace) {
        // A relink keeps the lanes (same device trace): keep what the user arranged and where they were.
        m_layout.setDocument(m_doc.get(), true);
    } else {
        m_layout.setDocument(m_doc.get());
        restoreViewSettings();
        fitAll();
    }
    layoutChanged(false);
    invalidateCache();
    m_overview.invalidate();
    updateScrollBar();
    update();
}

void TimelineView::setSelectionModel(EventSelection *selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (m_selection)
        connect(m_selection, &EventSelection::changed, this, &TimelineView::onSelectionChanged);
    update();
}

const QList<QAction *> &TimelineView::keyActions() const
{
    return m_input->keyActions();
}

QAction *TimelineView::keyAction(TimelineKey key) const
{
    return m_input->action(key);
}

bool TimelineView::timeRangeDragging() const
{
    return m_input->rangeDragging();
}

// ---------------------------------------------------------------- viewport

QRect TimelineView::contentRectFor(const QSize &size) const
{
    const int scrollBarWidth = m_scrollBar && m_scrollBar->isVisible() ? m_scrollBar->width() : 0;
    const int top = overviewHeight() + kRulerHeight;
    return QRect(m_headerWidth, top, std::max(1, size.width() - m_headerWidth - scrollBarWidth),
                 std::max(1, size.height() - top));
}

double TimelineView::nanosPerPixel() const
{
    return m_viewport.nanosPerPixel(contentRect().width());
}

double TimelineView::timeToX(core::Nanos t) const
{
    const QRect content = contentRect();
    return content.left() + m_viewport.timeToX(t, content.width());
}

core::Nanos TimelineView::xToTime(double x) const
{
    const QRect content = contentRect();
    return m_viewport.xToTime(x - content.left(), content.width());
}

void TimelineView::viewportChanged(bool changed)
{
    if (!changed)
        return;
    update();
    emit viewChanged();
}

void TimelineView::setVisibleRange(core::Nanos start, core::Nanos end)
{
    viewportChanged(m_viewport.setRange(start, end));
}

void TimelineView::zoomAt(double factor, double x)
{
    const QRect content = contentRect();
    viewportChanged(m_viewport.zoomAt(factor, x - content.left(), content.width()));
}

void TimelineView::panByPixels(double dx)
{
    viewportChanged(m_viewport.panByPixels(dx, contentRect().width()));
}

void TimelineView::centreOn(core::Nanos centre)
{
    viewportChanged(m_viewport.centreOn(centre));
}

void TimelineView::fitAll()
{
    viewportChanged(m_viewport.fitAll());
}

void TimelineView::fitSelection()
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const core::EventIndex selected = m_selection->current();
    const core::DeviceEvent &event = m_doc->event(selected);
    core::Nanos lo = event.ts;
    core::Nanos hi = event.end();
    // A second F in a row also takes in the far ends of the selection's edges.
    if (m_fitSelectionWide) {
        auto [begin, end] = m_doc->edgesOf(selected);
        for (const DrawEdgeIndex *it = begin; it != end; ++it) {
            const DrawEdge &edge = m_doc->edges()[*it];
            if (!isEdgeKindVisible(edge.kind))
                continue;
            for (core::EventIndex e : {edge.from, edge.to}) {
                lo = std::min(lo, m_doc->event(e).ts);
                hi = std::max(hi, m_doc->event(e).end());
            }
        }
    }
    m_fitSelectionWide = !m_fitSelectionWide;
    const core::Nanos span = std::max<core::Nanos>(hi - lo, TimelineViewport::kMinSpan);
    viewportChanged(m_viewport.fitInterval(lo, hi, span / 8));
    revealEvent(selected);
}

void TimelineView::setVerticalOffset(int offset)
{
    offset = std::clamp(offset, 0, maxVerticalOffset(contentRect().height()));
    if (offset == m_verticalOffset)
        return;
    m_verticalOffset = offset;
    if (m_scrollBar->value() != offset)
        m_scrollBar->setValue(offset);
    update();
    emit viewChanged();
}

int TimelineView::maxVerticalOffset(int contentHeight) const
{
    return std::max(0, m_layout.totalHeight() - contentHeight + 8);
}

void TimelineView::updateScrollBar()
{
    const int top = overviewHeight() + kRulerHeight;
    const int width = m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(this->width() - width, top, width, std::max(0, height() - top));
    const int maximum = maxVerticalOffset(height() - top);
    m_scrollBar->setRange(0, maximum);
    m_scrollBar->setPageStep(std::max(1, height() - top));
    m_scrollBar->setSingleStep(TimelineLayout::kRowHeight * 3);
    m_scrollBar->setVisible(maximum > 0);
    if (m_verticalOffset > maximum) {
        m_verticalOffset = maximum;
        update();
    }
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    m_layout.setGroupCollapsed(group, collapsed);
    layoutChanged(true);
}

void TimelineView::setLaneCollapsed(core::LaneIndex lane, bool collapsed)
{
    m_layout.setLaneCollapsed(lane, collapsed);
    layoutChanged(true);
}

void TimelineView::setGroupHidden(int group, bool hidden)
{
    m_layout.setGroupHidden(group, hidden);
    layoutChanged(true);
}

void TimelineView::setLaneHidden(core::LaneIndex lane, bool hidden)
{
    m_layout.setLaneHidden(lane, hidden);
    layoutChanged(true);
}

void TimelineView::showAllHidden()
{
    m_layout.showAllHidden();
    layoutChanged(true);
}

void TimelineView::setHidePythonRows(bool hide)
{
    m_layout.setHidePythonRows(hide);
    layoutChanged(true);
}

void TimelineView::setGpuFirst(bool gpuFirst)
{
    m_layout.setGpuFirst(gpuFirst);
    setVerticalOffset(0);
    layoutChanged(true);
}

void TimelineView::moveGroup(int group, int position)
{
    if (m_layout.moveGroup(group, position))
        layoutChanged(true);
}

void TimelineView::moveLane(core::LaneIndex lane, int position)
{
    if (m_layout.moveLane(lane, position))
        layoutChanged(true);
}

void TimelineView::moveGroupBy(int group, int delta)
{
    if (m_layout.moveGroupBy(group, delta))
        layoutChanged(true);
}

void TimelineView::moveLaneBy(core::LaneIndex lane, int delta)
{
    if (m_layout.moveLaneBy(lane, delta))
        layoutChanged(true);
}

void TimelineView::resetOrder()
{
    m_layout.resetOrder();
    layoutChanged(true);
}

void TimelineView::setOverviewVisible(bool visible)
{
    if (visible == m_overviewVisible)
        return;
    m_overviewVisible = visible;
    invalidateCache();
    update();
    emit viewChanged(); // the content rect moved
}

void TimelineView::setHeaderWidth(int width)
{
    width = std::clamp(width, int(kMinHeaderWidth), std::max(int(kMinHeaderWidth), this->width() / 2));
    if (width == m_headerWidth)
        return;
    m_headerWidth = width;
    m_overview.invalidate();
    update();
    emit viewChanged(); // the content rect moved: the time under each pixel changed
}

void TimelineView::layoutChanged(bool save)
{
    m_hidePythonAction->setChecked(m_layout.hidePythonRows());
    m_gpuFirstAction->setChecked(m_layout.gpuFirst());
    const int hidden = m_layout.hiddenCount();
    m_showHiddenAction->setEnabled(hidden > 0);
    m_showHiddenAction->setText(hidden > 0 ? tr("Show hidden lanes and groups (%L1)").arg(hidden)
                                           : tr("Show hidden lanes and groups"));
    m_resetOrderAction->setEnabled(m_layout.hasCustomOrder());
    updateScrollBar();
    update();
    if (save)
        saveViewSettings();
}

QMenu *TimelineView::createHeaderMenu(const QPoint &pos)
{
    auto *menu = new QMenu(this);
    if (!m_doc)
        return menu;
    const int r = headerRowAt(pos);
    if (r >= 0) {
        const LayoutRow row = m_layout.rows()[r];
        const QString groupLabel = m_layout.groups()[row.group].label;
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
            const QString label = QString::fromStdString(m_doc->index().lane(lane).label);
            menu->addAction(tr("Hide lane “%1”").arg(label), this, [this, lane] { setLaneHidden(lane, true); });
            if (m_doc->laneRows(lane).rowCount() > 1) {
                const bool collapsed = m_layout.isLaneCollapsed(lane);
                menu->addAction(collapsed ? tr("Expand lane") : tr("Collapse lane"), this,
                                [this, lane, collapsed] { setLaneCollapsed(lane, !collapsed); });
            }
            addMoves(menu->addMenu(tr("Move lane “%1”").arg(label)), m_layout.canMoveLaneBy(lane, -1),
                     m_layout.canMoveLaneBy(lane, 1), [this, lane](int delta) { moveLaneBy(lane, delta); },
                     [this, lane](bool bottom) {
                         moveLane(lane, bottom ? static_cast<int>(m_layout.groups()[m_layout.groupOfLane(lane)].lanes.size()) : 0);
                     });
        }
        const int group = row.group;
        menu->addAction(tr("Hide group “%1”").arg(groupLabel), this, [this, group] { setGroupHidden(group, true); });
        const bool collapsed = m_layout.isGroupCollapsed(group);
        menu->addAction(collapsed ? tr("Expand group") : tr("Collapse group"), this,
                        [this, group, collapsed] { setGroupCollapsed(group, !collapsed); });
        addMoves(menu->addMenu(tr("Move group “%1”").arg(groupLabel)), m_layout.canMoveGroupBy(group, -1),
                 m_layout.canMoveGroupBy(group, 1), [this, group](int delta) { moveGroupBy(group, delta); },
                 [this, group](bool bottom) { moveGroup(group, bottom ? static_cast<int>(m_layout.groups().size()) : 0); });
        menu->addSeparator();
    }
    m_hidePythonAction->setText(tr("Hide Python rows (%L1)").arg(m_layout.pythonOnlyRowCount()));
    menu->addAction(m_hidePythonAction);
    menu->addAction(m_gpuFirstAction);
    if (m_resetOrderAction->isEnabled())
        menu->addAction(m_resetOrderAction);
    if (m_layout.hiddenCount() > 0) {
        menu->addSeparator();
        QMenu *hidden = menu->addMenu(tr("Show"));
        for (int g = 0; g < static_cast<int>(m_layout.groups().size()); ++g) {
            const TimelineGroup &group = m_layout.groups()[g];
            if (m_layout.isGroupHidden(g))
                hidden->addAction(tr("Group “%1”").arg(group.label), this, [this, g] { setGroupHidden(g, false); });
            for (core::LaneIndex lane : group.lanes)
                if (m_layout.isLaneHidden(lane))
                    hidden->addAction(tr("Lane “%1” (%2)").arg(QString::fromStdString(m_doc->index().lane(lane).label), group.label),
                                      this, [this, lane] { setLaneHidden(lane, false); });
        }
        menu->addAction(m_showHiddenAction);
    }
    return menu;
}

QMenu *TimelineView::createEventMenu(core::EventIndex e)
{
    auto *menu = new QMenu(this);
    if (!m_doc || !e.in(m_doc->eventCount()))
        return menu;
    auto select = [this](core::EventIndex target) {
        if (m_selection)
            m_selection->select(target);
    };
    QAction *selectAction = menu->addAction(tr("Select"), this, [this, e] {
        if (m_selection)
            m_selection->selectInPlace(e);
    });
    selectAction->setObjectName(QStringLiteral("selectEvent"));
    menu->addAction(tr("Frame"), this, [this, e] { frameEvent(e); })->setObjectName(QStringLiteral("frameEvent"));
    if (const core::GpuLink *link = m_doc->gpuLink(e)) {
        const core::EventIndex parent = link->parent;
        const core::EventIndex launch = link->launch;
        QAction *parentAction = menu->addAction(parent.in(m_doc->eventCount()) ? tr("Select parent “%1”").arg(elidedName(parent))
                                                                             : tr("Select parent (none)"),
                                                this, [select, parent] { select(parent); });
        parentAction->setObjectName(QStringLiteral("selectParent"));
        parentAction->setEnabled(parent.in(m_doc->eventCount()));
        QAction *launchAction = menu->addAction(launch.in(m_doc->eventCount()) ? tr("Select launch “%1”").arg(elidedName(launch))
                                                                             : tr("Select launch (none)"),
                                                this, [select, launch] { select(launch); });
        launchAction->setObjectName(QStringLiteral("selectLaunch"));
        launchAction->setEnabled(launch.in(m_doc->eventCount()));
    }
    menu->addSeparator();
    const QString name = m_doc->eventName(e);
    menu->addAction(tr("Copy name"), this, [name] { QGuiApplication::clipboard()->setText(name); })
        ->setObjectName(QStringLiteral("copyName"));
    if (m_menuProvider) {
        menu->addSeparator();
        m_menuProvider(menu, e, core::kNone);
    }
    return menu;
}

QMenu *TimelineView::createEdgeMenu(DrawEdgeIndex id)
{
    auto *menu = new QMenu(this);
    if (!m_doc || !id.in(m_doc->edges().size()))
        return menu;
    const DrawEdge edge = m_doc->edges()[id];
    auto select = [this](core::EventIndex target) {
        if (m_selection)
            m_selection->select(target);
    };
    menu->addAction(tr("Select source “%1”").arg(elidedName(edge.from)), this, [select, edge] { select(edge.from); })
        ->setObjectName(QStringLiteral("selectEdgeSource"));
    menu->addAction(tr("Select target “%1”").arg(elidedName(edge.to)), this, [select, edge] { select(edge.to); })
        ->setObjectName(QStringLiteral("selectEdgeTarget"));
    menu->addSeparator();
    QTextDocument text;
    text.setHtml(edgeTooltip(id));
    const QString description = text.toPlainText();
    menu->addAction(tr("Copy description"), this, [description] { QGuiApplication::clipboard()->setText(description); })
        ->setObjectName(QStringLiteral("copyEdge"));
    if (m_menuProvider) {
        menu->addSeparator();
        m_menuProvider(menu, core::kNone, id);
    }
    return menu;
}

QMenu *TimelineView::createContextMenu(const QPoint &pos)
{
    if (!m_doc || pos.y() < overviewHeight() + kRulerHeight)
        return nullptr;
    if (pos.x() < m_headerWidth)
        return createHeaderMenu(pos);
    // As for hover and click: a marker is its event's, events win over edges.
    const core::EventIndex marked = markerAt(pos);
    const core::EventIndex e = marked.valid() ? marked : eventAt(pos);
    if (e.valid())
        return createEventMenu(e);
    const DrawEdgeIndex edge = edgeAt(pos);
    if (edge.valid())
        return createEdgeMenu(edge);
    return nullptr;
}

void TimelineView::frameEvent(core::EventIndex e)
{
    if (!m_doc || !e.in(m_doc->eventCount()))
        return;
    if (m_selection)
        m_selection->selectInPlace(e);
    core::Nanos lo = m_doc->event(e).ts;
    core::Nanos hi = m_doc->event(e).end();
    if (const core::GpuLink *link = m_doc->gpuLink(e); link && link->parent.in(m_doc->eventCount())) {
        lo = std::min(lo, m_doc->event(link->parent).ts);
        hi = std::max(hi, m_doc->event(link->parent).end());
    }
    const core::Nanos span = std::max<core::Nanos>(hi - lo, TimelineViewport::kMinSpan);
    viewportChanged(m_viewport.fitInterval(lo, hi, span / 8));
    revealEvent(e);
}

QString TimelineView::elidedName(core::EventIndex e) const
{
    // A kernel's full signature would make the menu as wide as the screen.
    return QFontMetrics(font()).elidedText(m_doc->eventName(e), Qt::ElideMiddle, 360);
}

void TimelineView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu *menu = createContextMenu(event->pos());
    if (!menu) {
        QWidget::contextMenuEvent(event);
        return;
    }
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(event->globalPos());
    event->accept();
}

// ---------------------------------------------------------------- per-trace view settings

namespace {

QString laneKey(const TimelineLayout &layout, const core::TraceIndex &index, core::LaneIndex lane)
{
    return layout.groups()[layout.groupOfLane(lane)].label + QChar(0x1f) + QString::fromStdString(index.lane(lane).label);
}

} // namespace

QString TimelineView::viewSettingsGroup(const QString &devicePath)
{
    const QByteArray path = QFileInfo(devicePath).absoluteFilePath().toUtf8();
    return QStringLiteral("traceViews/") + QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}

void TimelineView::saveViewSettings() const
{
    if (!m_doc || m_doc->devicePath().isEmpty())
        return;
    QStringList hiddenGroups, collapsedGroups, hiddenLanes, collapsedLanes;
    const core::TraceIndex &index = m_doc->index();
    for (int g = 0; g < static_cast<int>(m_layout.groups().size()); ++g) {
        const TimelineGroup &group = m_layout.groups()[g];
        if (m_layout.isGroupHidden(g))
            hiddenGroups << group.label;
        if (m_layout.isGroupCollapsed(g))
            collapsedGroups << group.label;
        for (core::LaneIndex lane : group.lanes) {
            if (m_layout.isLaneHidden(lane))
                hiddenLanes << laneKey(m_layout, index, lane);
            if (m_layout.isLaneCollapsed(lane))
                collapsedLanes << laneKey(m_layout, index, lane);
        }
    }
    QSettings settings;
    settings.beginGroup(viewSettingsGroup(m_doc->devicePath()));
    settings.setValue(QStringLiteral("path"), QFileInfo(m_doc->devicePath()).absoluteFilePath());
    settings.setValue(QStringLiteral("gpuFirst"), m_layout.gpuFirst());
    settings.setValue(QStringLiteral("hidePythonRows"), m_layout.hidePythonRows());
    settings.setValue(QStringLiteral("headerWidth"), m_headerWidth);
    settings.setValue(QStringLiteral("hiddenGroups"), hiddenGroups);
    settings.setValue(QStringLiteral("collapsedGroups"), collapsedGroups);
    settings.setValue(QStringLiteral("hiddenLanes"), hiddenLanes);
    settings.setValue(QStringLiteral("collapsedLanes"), collapsedLanes);
    // The order by stable keys (pid, pid/tid, device/stream), only when the user moved something:
    // a trace never rearranged keeps following the default (GPU streams first).
    const bool custom = m_layout.hasCustomOrder();
    settings.setValue(QStringLiteral("groupOrder"), custom ? m_layout.groupOrder() : QStringList());
    settings.setValue(QStringLiteral("laneOrder"), custom ? m_layout.laneOrder() : QStringList());
}

void TimelineView::restoreViewSettings()
{
    // Defaults for a trace never seen: GPU streams first, everything shown, the default width.
    m_layout.setGpuFirst(true);
    m_layout.setHidePythonRows(false);
    m_headerWidth = kHeaderWidth;
    if (!m_doc || m_doc->devicePath().isEmpty())
        return;
    QSettings settings;
    settings.beginGroup(viewSettingsGroup(m_doc->devicePath()));
    if (!settings.contains(QStringLiteral("gpuFirst")))
        return;
    m_layout.setGpuFirst(settings.value(QStringLiteral("gpuFirst"), true).toBool());
    m_layout.setHidePythonRows(settings.value(QStringLiteral("hidePythonRows"), false).toBool());
    m_headerWidth = std::max(int(kMinHeaderWidth), settings.value(QStringLiteral("headerWidth"), int(kHeaderWidth)).toInt());
    // Keys of lanes that are gone are ignored; new lanes take their default places.
    m_layout.applyOrder(settings.value(QStringLiteral("groupOrder")).toStringList(),
                        settings.value(QStringLiteral("laneOrder")).toStringList());
    auto set = [&](const QString &key) {
        const QStringList list = settings.value(key).toStringList();
        return QSet<QString>(list.begin(), list.end());
    };
    const QSet<QString> hiddenGroups = set(QStringLiteral("hiddenGroups"));
    const QSet<QString> collapsedGroups = set(QStringLiteral("collapsedGroups"));
    const QSet<QString> hiddenLanes = set(QStringLiteral("hiddenLanes"));
    const QSet<QString> collapsedLanes = set(QStringLiteral("collapsedLanes"));
    const core::TraceIndex &index = m_doc->index();
    for (int g = 0; g < static_cast<int>(m_layout.groups().size()); ++g) {
        const TimelineGroup &group = m_layout.groups()[g];
        m_layout.setGroupHidden(g, hiddenGroups.contains(group.label));
        m_layout.setGroupCollapsed(g, collapsedGroups.contains(group.label));
        for (core::LaneIndex lane : group.lanes) {
            const QString key = laneKey(m_layout, index, lane);
            m_layout.setLaneHidden(lane, hiddenLanes.contains(key));
            m_layout.setLaneCollapsed(lane, collapsedLanes.contains(key));
        }
    }
}

void TimelineView::invalidateCache()
{
    m_geometry.doc = nullptr;
}

// ---------------------------------------------------------------- painting

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paint(painter, rect());
}

QImage TimelineView::renderToImage(const QSize &size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(palette::current().background);
    QPainter painter(&image);
    paint(painter, QRect(QPoint(0, 0), size));
    return image;
}

void TimelineView::paint(QPainter &painter, const QRect &target)
{
    QElapsedTimer frameTimer;
    frameTimer.start();
    const auto reportFrame = qScopeGuard([&] {
        m_lastFrameNanos = frameTimer.nsecsElapsed();
        emit framePainted(m_lastFrameNanos);
    });

    painter.save();
    painter.translate(target.topLeft());
    const QRect area(QPoint(0, 0), target.size());
    painter.setClipRect(area);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.fillRect(area, palette::current().background);
    // The scroll bar belongs to the widget; an offscreen target of another size has none.
    const bool widgetSized = target.size() == size();
    QRect content = contentRectFor(target.size());
    if (!widgetSized)
        content.setWidth(std::max(1, target.width() - m_headerWidth));
    const int verticalOffset = std::clamp(m_verticalOffset, 0, maxVerticalOffset(content.height()));

    if (!m_doc) {
        painter.setPen(palette::current().text);
        painter.drawText(area, Qt::AlignCenter,
                         !m_placeholder.isEmpty()
                             ? m_placeholder
                             : tr("Open a trace pair with File ▸ Open pair…, or drop one or two trace files here."));
        painter.restore();
        return;
    }

    const core::Nanos viewStart = m_viewport.start();
    const core::Nanos viewEnd = m_viewport.end();
    const double nanosPerPixel = static_cast<double>(viewEnd - viewStart) / content.width();
    paintLaneBackgrounds(painter, area, content, verticalOffset);
    TimelineRuler::paintGrid(painter, content, viewStart, viewEnd, rulerOrigin()); // under the events
    paintEvents(painter, content, verticalOffset);
    if (m_path.active())
        m_path.paint(painter, *m_doc, content, [&](core::EventIndex e) {
            return eventRectIn(e, content, viewStart, nanosPerPixel, verticalOffset);
        });
    paintOutlines(painter, content, nanosPerPixel, verticalOffset);
    paintTimeRange(painter, content, nanosPerPixel);
    const core::EventIndex selected = m_selection && m_selection->hasSelection() && m_selection->current().in(m_doc->eventCount())
        ? m_selection->current()
        : core::EventIndex(core::kNone);
    m_edges.paint(painter, *m_doc, m_layout, selected, content, viewStart, nanosPerPixel, verticalOffset, currentNotes());
    paintMarkers(painter, content, nanosPerPixel, verticalOffset); // over the edges' heads
    paintLinkDrag(painter, content, nanosPerPixel, verticalOffset);
    m_headerClipWidth = content.right();
    const QRect headerArea(0, content.top(), m_headerWidth, content.height());
    paintHeaders(painter, headerArea, verticalOffset);
    paintHeaderDrop(painter, QRect(0, content.top(), content.right() + 1, content.height()), verticalOffset);
    if (m_overviewVisible)
        m_overview.paint(painter, *m_doc, QRect(0, 0, area.width(), kOverviewHeight), m_headerWidth, viewStart, viewEnd);
    const QRect ruler(0, overviewHeight(), area.width(), kRulerHeight);
    TimelineRuler::paint(painter, font(), ruler, content, viewStart, viewEnd, rulerOrigin());
    m_bookmarks.paint(painter, font(), ruler, content, viewStart, nanosPerPixel);
    if (const auto pixels = timeRangePixels(content, nanosPerPixel))
        TimelineRuler::paintRangeLabel(painter, font(), ruler, content, pixels->first, pixels->second,
                                       m_rangeEnd - m_rangeStart);
    paintStatusOverlays(painter, content);
    painter.restore();
}

void TimelineView::paintLaneBackgrounds(QPainter &painter, const QRect &area, const QRect &content, int verticalOffset)
{
    // Alternating per lane, and the group header bands.
    for (const LayoutRow &row : m_layout.rows()) {
        const int y = content.top() + row.y - verticalOffset;
        if (y + row.height < content.top())
            continue;
        if (y > content.bottom())
            break;
        if (row.kind == LayoutRow::Kind::GroupHeader)
            painter.fillRect(QRect(0, y, area.width(), row.height), palette::current().groupBackground);
        else if (row.lane.value % 2 == 1)
            painter.fillRect(QRect(content.left(), y, content.width(), row.height), palette::current().laneShade);
    }
}

void TimelineView::paintEvents(QPainter &painter, const QRect &content, int verticalOffset)
{
    // From the cached geometry, rebuilt when what it was built for changed.
    const bool cacheValid = m_geometry.doc == m_doc.get() && m_geometry.start == m_viewport.start()
        && m_geometry.end == m_viewport.end() && m_geometry.contentSize == content.size()
        && m_geometry.verticalOffset == verticalOffset && m_geometry.layoutVersion == m_layout.version();
    if (!cacheValid) {
        m_geometry.doc = m_doc.get();
        m_geometry.start = m_viewport.start();
        m_geometry.end = m_viewport.end();
        m_geometry.contentSize = content.size();
        m_geometry.verticalOffset = verticalOffset;
        m_geometry.layoutVersion = m_layout.version();
        buildTimelineGeometry(m_doc.get(), m_layout, m_geometry);
    }
    painter.save();
    painter.setClipRect(content);
    painter.translate(content.topLeft());
    for (int style = 0; style < kEventStyleCount; ++style) {
        const QColor color = eventColor(static_cast<EventStyle>(style));
        for (const QRect &r : m_geometry.rects[style])
            painter.fillRect(r, color);
    }
    // Labels: white on the dark kinds, dark on the light ones.
    QFont labelFont = font();
    labelFont.setPointSizeF(std::max(6.0, labelFont.pointSizeF() * 0.85));
    painter.setFont(labelFont);
    const QFontMetrics metrics(labelFont);
    for (TimelineLabel &label : m_geometry.labels) {
        if (!label.elided) {
            label.text = metrics.elidedText(m_doc->eventName(label.event), Qt::ElideRight, label.rect.width() - 4);
            if (label.text == QStringLiteral("…"))
                label.text.clear();
            label.elided = true;
        }
        const QString &text = label.text;
        if (text.isEmpty())
            continue;
        const QColor background = eventColor(m_doc->style(label.event));
        // On the event's own colour, the same in both themes.
        painter.setPen(background.lightness() < 150 ? QColor(Qt::white) : palette::colors(palette::Theme::Light).text);
        painter.drawText(label.rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
}

void TimelineView::paintOutlines(QPainter &painter, const QRect &content, double nanosPerPixel, int verticalOffset)
{
    // Search hits, hover and selection.
    auto outline = [&](core::EventIndex event, const QColor &color, int width) {
        const QRectF r = eventRectIn(event, content, m_viewport.start(), nanosPerPixel, verticalOffset);
        if (r.isEmpty())
            return;
        painter.save();
        painter.setClipRect(content);
        QRectF box = r.adjusted(-1, -1, 1, 1);
        box.setWidth(std::max(box.width(), 4.0));
        painter.setPen(QPen(color, width));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(box);
        painter.restore();
    };
    if (!m_highlighted.empty()) {
        // Hits are sorted by start. With few hits all are scanned (one that starts before the view
        // may cover it); with many, the scan starts at the view's start and a long hit that began
        // earlier is not marked.
        auto first = m_highlighted.begin();
        if (m_highlighted.size() > 1000)
            first = std::lower_bound(m_highlighted.begin(), m_highlighted.end(), m_viewport.start(),
                                     [&](core::EventIndex e, core::Nanos t) { return m_doc->event(e).ts < t; });
        int drawn = 0;
        for (auto it = first; it != m_highlighted.end() && drawn < 5000; ++it) {
            if (!it->in(m_doc->eventCount()))
                continue;
            const core::DeviceEvent &event = m_doc->event(*it);
            if (event.ts > m_viewport.end())
                break;
            if (event.end() < m_viewport.start())
                continue;
            outline(*it, searchHitColor(), 2);
            ++drawn;
        }
    }
    if (m_hoverEvent.in(m_doc->eventCount()))
        outline(m_hoverEvent, palette::current().hoverOutline, 1);
    if (m_selection && m_selection->hasSelection() && m_selection->current().in(m_doc->eventCount()))
        outline(m_selection->current(), palette::current().selectionOutline, 2);
}

void TimelineView::paintStatusOverlays(QPainter &painter, const QRect &content)
{
    if (m_edges.showAllInView()) {
        painter.setPen(palette::current().text);
        const QString count = (m_edges.inViewEstimated() ? QStringLiteral("~") : QString())
            + QLocale().toString(qulonglong(m_edges.inView()));
        const QString text = m_edges.inView() > m_edges.painted().size() || m_edges.inViewEstimated()
            ? tr("%L1 of %2 edges in view").arg(m_edges.painted().size()).arg(count)
            : tr("%1 edges in view").arg(count);
        const QRect box(content.right() - 260, content.top() + 4, 252, 18);
        painter.fillRect(box, palette::current().overlayBackground);
        painter.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, text);
    }
    if (m_showFrameTime) {
        const QRect box(content.left() + 4, content.bottom() - 22, 330, 18);
        painter.fillRect(box, QColor(0, 0, 0, 170));
        painter.setPen(Qt::white);
        painter.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignVCenter,
                         tr("last frame %1 · %L2 merged columns")
                             .arg(formatDuration(m_lastFrameNanos, 2))
                             .arg(m_geometry.mergedColumns));
    }
}

void TimelineView::paintGroupHeaderLabel(QPainter &painter, const QRect &rowRect, int group, int textWidth)
{
    const bool collapsed = m_layout.isGroupCollapsed(group);
    QFont bold = font();
    bold.setBold(true);
    painter.setPen(palette::current().text);
    painter.setFont(bold);
    const QString arrow = collapsed ? QStringLiteral("▸") : QStringLiteral("▾");
    painter.drawText(rowRect.adjusted(6, 0, 0, 0), Qt::AlignVCenter, arrow);
    const QString text = QFontMetrics(bold).elidedText(m_layout.groups()[group].label, Qt::ElideRight, textWidth - 26);
    painter.drawText(QRect(rowRect.left() + 20, rowRect.top(), textWidth - 24, rowRect.height()), Qt::AlignVCenter, text);
}

void TimelineView::paintLaneLabel(QPainter &painter, const QRect &rowRect, core::LaneIndex laneIndex)
{
    const core::Lane &lane = m_doc->index().lane(laneIndex);
    QString label = QString::fromStdString(lane.label);
    if (label.isEmpty())
        label = tr("lane %1").arg(laneIndex.value);
    const int laneRows = m_doc->laneRows(laneIndex).rowCount();
    const QFontMetrics metrics(font());
    painter.setFont(font());
    painter.setPen(palette::current().text);
    const int indent = 20;
    if (laneRows > 1) {
        const bool collapsed = m_layout.isLaneCollapsed(laneIndex);
        painter.drawText(QRect(rowRect.left() + 8, rowRect.top(), 12, rowRect.height()), Qt::AlignVCenter,
                         collapsed ? QStringLiteral("▸") : QStringLiteral("▾"));
    }
    QString suffix;
    if (laneRows > 1 && m_layout.isLaneCollapsed(laneIndex))
        suffix = tr(" (+%1 rows)").arg(laneRows - 1);
    const QString text = metrics.elidedText(label, Qt::ElideMiddle,
                                            rowRect.width() - indent - 6 - metrics.horizontalAdvance(suffix));
    painter.drawText(QRect(rowRect.left() + indent, rowRect.top(), rowRect.width() - indent - 4, rowRect.height()),
                     Qt::AlignVCenter, text + suffix);
}

void TimelineView::paintHeaders(QPainter &painter, const QRect &area, int verticalOffset)
{
    m_paintedLabels.clear();
    painter.save();
    painter.setClipRect(area);
    painter.fillRect(area, palette::current().headerBackground);
    const auto &rows = m_layout.rows();
    // From the first row in view (rows are sorted by y), not from the top of the trace.
    auto it = std::partition_point(rows.begin(), rows.end(),
                                   [&](const LayoutRow &row) { return row.y + row.height <= verticalOffset; });
    for (; it != rows.end(); ++it) {
        const LayoutRow &row = *it;
        const int y = area.top() + row.y - verticalOffset;
        if (y > area.bottom())
            break;
        const QRect rowRect(area.left(), y, area.width(), row.height);
        if (row.kind == LayoutRow::Kind::GroupHeader) {
            painter.fillRect(rowRect, palette::current().groupBackground);
            // The band spans the whole width, so the group's name may run past the header column.
            painter.setClipping(false);
            paintGroupHeaderLabel(painter, QRect(area.left(), y, m_headerClipWidth, row.height), row.group, m_headerClipWidth);
            painter.setClipRect(area);
            m_paintedLabels.push_back({row.group, core::kNone, rowRect, false});
            continue;
        }
        if (static_cast<int>(it - rows.begin()) != m_layout.firstRowOfLane(row.lane))
            continue; // the label goes on the lane's first shown row
        paintLaneLabel(painter, rowRect, row.lane);
        m_paintedLabels.push_back({row.group, row.lane, rowRect, false});
    }
    paintStickyLabels(painter, area, verticalOffset);
    painter.setPen(palette::current().separator);
    painter.drawLine(area.topRight(), area.bottomRight());
    painter.restore();
}

void TimelineView::paintStickyLabels(QPainter &painter, const QRect &area, int verticalOffset)
{
    // The group and the lane at the top of the view: when their own label row has scrolled off
    // (partly or wholly) and rows of theirs are still in view, their labels stay at the top of that
    // part: the group's first, its lane's just below it, both pushed up by the end of the lane (and
    // of the group) as it scrolls past.
    const auto &rows = m_layout.rows();
    auto firstBelow = [&](int y) {
        auto it = std::partition_point(rows.begin(), rows.end(), [&](const LayoutRow &row) { return row.y + row.height <= y; });
        return it == rows.end() ? -1 : static_cast<int>(it - rows.begin());
    };
    const int first = firstBelow(verticalOffset);
    if (first < 0)
        return;
    const int group = rows[first].group;
    const int header = m_layout.headerRowOfGroup(group);
    if (header < 0 || rows[header].y >= verticalOffset || m_layout.isGroupCollapsed(group))
        return; // the group's header is in view: so is every label below it
    const int groupH = TimelineLayout::kGroupHeaderHeight;
    const int laneH = TimelineLayout::kRowHeight;
    // The lane under the group's sticky label, if its own label row is above the sticky label's bottom.
    core::LaneIndex lane{};
    const int below = firstBelow(verticalOffset + groupH);
    if (below >= 0 && rows[below].kind == LayoutRow::Kind::LaneRow && rows[below].group == group) {
        const int labelRow = m_layout.firstRowOfLane(rows[below].lane);
        if (labelRow >= 0 && rows[labelRow].y < verticalOffset + groupH)
            lane = rows[below].lane;
    }
    // The lane's label is pushed up by the lane's end (under the group's label, drawn after it,
    // unless the group ends there too); the group's by the group's end, staying above its last lane's.
    int groupTop = std::min(verticalOffset, m_layout.groupBottom(group) - groupH);
    if (lane.valid()) {
        const int laneTop = std::min(verticalOffset + groupH, m_layout.laneBottom(lane) - laneH);
        if (m_layout.laneBottom(lane) + TimelineLayout::kLaneGap >= m_layout.groupBottom(group))
            groupTop = std::min(groupTop, laneTop - groupH);
        const QRect laneRect(area.left(), area.top() + laneTop - verticalOffset, area.width(), laneH);
        painter.fillRect(laneRect, palette::current().headerBackground);
        paintLaneLabel(painter, laneRect, lane);
        QColor line = palette::current().separator;
        line.setAlpha(120);
        painter.setPen(line);
        painter.drawLine(laneRect.bottomLeft(), laneRect.bottomRight());
        m_paintedLabels.push_back({group, lane, laneRect, true});
    }
    const QRect groupRect(area.left(), area.top() + groupTop - verticalOffset, area.width(), groupH);
    painter.fillRect(groupRect, palette::current().groupBackground);
    paintGroupHeaderLabel(painter, groupRect, group, area.width());
    painter.setPen(palette::current().separator);
    painter.drawLine(groupRect.bottomLeft(), groupRect.bottomRight());
    m_paintedLabels.push_back({group, core::kNone, groupRect, true});
}

void TimelineView::paintHeaderDrop(QPainter &painter, const QRect &area, int verticalOffset)
{
    if (!m_headerDrag.active)
        return;
    painter.save();
    painter.setClipRect(area);
    const int y = area.top() + m_headerDrag.lineY - verticalOffset;
    const QColor accent = palette::current().selectionOutline;
    painter.fillRect(QRect(area.left(), y - 1, area.width(), 3), accent);
    painter.fillRect(QRect(area.left(), y - 4, 3, 9), accent);
    painter.restore();
}

const TimelineView::HeaderLabel *TimelineView::stickyLabelAt(const QPoint &pos) const
{
    // The last drawn is on top (the lane's sticky label below the group's).
    for (auto it = m_paintedLabels.rbegin(); it != m_paintedLabels.rend(); ++it)
        if (it->sticky && it->rect.contains(pos))
            return &*it;
    return nullptr;
}

int TimelineView::headerRowAt(const QPoint &pos) const
{
    const QRect content = contentRect();
    if (pos.y() < content.top())
        return -1;
    if (pos.x() < m_headerWidth)
        if (const HeaderLabel *sticky = stickyLabelAt(pos))
            return sticky->lane.isNone() ? m_layout.headerRowOfGroup(sticky->group) : m_layout.firstRowOfLane(sticky->lane);
    return m_layout.rowAt(pos.y() - content.top() + m_verticalOffset);
}

TimelineView::HeaderDrag TimelineView::headerDropAt(int r, int y) const
{
    HeaderDrag drag;
    if (r < 0 || r >= static_cast<int>(m_layout.rows().size()))
        return drag;
    const LayoutRow &row = m_layout.rows()[r];
    drag.active = true;
    drag.group = row.group;
    if (row.kind == LayoutRow::Kind::GroupHeader) {
        // Among the shown groups: before the first whose middle is below y, else after the last.
        drag.isGroup = true;
        const int count = static_cast<int>(m_layout.groups().size());
        int before = count;
        int lastShownBottom = 0;
        for (int g = 0; g < count; ++g) {
            const int header = m_layout.headerRowOfGroup(g);
            if (header < 0)
                continue;
            const int top = m_layout.rows()[header].y;
            lastShownBottom = m_layout.groupBottom(g);
            if (before == count && y < (top + lastShownBottom) / 2) {
                before = g;
                drag.lineY = top;
            }
        }
        if (before == count)
            drag.lineY = lastShownBottom;
        drag.position = before > row.group ? before - 1 : before;
        drag.position = std::clamp(drag.position, 0, count - 1);
        return drag;
    }
    // A lane, among its group's shown lanes.
    drag.lane = row.lane;
    const std::vector<core::LaneIndex> &lanes = m_layout.groups()[row.group].lanes;
    const int from = m_layout.lanePosition(row.lane);
    const int count = static_cast<int>(lanes.size());
    int before = count;
    int lastShownBottom = 0;
    for (int p = 0; p < count; ++p) {
        const int first = m_layout.firstRowOfLane(lanes[p]);
        if (first < 0)
            continue;
        const int top = m_layout.rows()[first].y;
        lastShownBottom = m_layout.laneBottom(lanes[p]);
        if (before == count && y < (top + lastShownBottom) / 2) {
            before = p;
            drag.lineY = top - TimelineLayout::kLaneGap / 2;
        }
    }
    if (before == count)
        drag.lineY = lastShownBottom + TimelineLayout::kLaneGap / 2;
    drag.position = std::clamp(before > from ? before - 1 : before, 0, count - 1);
    return drag;
}

// ---------------------------------------------------------------- notes and flags

void TimelineView::setEventNotes(EventNotesPtr notes)
{
    m_notes = std::move(notes);
    update();
}

const EventNotes *TimelineView::currentNotes() const
{
    return m_doc && m_notes && m_notes->isOf(m_doc->device()) ? m_notes.get() : nullptr;
}

void TimelineView::paintMarkers(QPainter &painter, const QRect &content, double nanosPerPixel, int verticalOffset)
{
    m_paintedMarkers.clear();
    const EventNotes *notes = currentNotes();
    if (!notes || notes->marked.empty())
        return;
    // A few per trace (each is a user's edit): every one is placed, those out of view are skipped.
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (core::EventIndex e : notes->marked) {
        const QRectF r = eventRectIn(e, content, m_viewport.start(), nanosPerPixel, verticalOffset);
        if (r.isEmpty() || r.right() < content.left() - kMarkerWidth || r.left() > content.right() || r.bottom() < content.top()
            || r.top() > content.bottom())
            continue;
        double x = std::max(r.left(), double(content.left())) + 1;
        const double y = r.top();
        for (EventMarker marker : {EventMarker::Flag, EventMarker::Note}) {
            if ((marker == EventMarker::Flag && !notes->isFlagged(e)) || (marker == EventMarker::Note && !notes->hasNote(e)))
                continue;
            const QRectF box(x, y, kMarkerWidth, kMarkerHeight);
            // A pale backdrop: the marker reads over a kernel of any colour and over edges.
            painter.setPen(Qt::NoPen);
            painter.setBrush(palette::current().halo);
            painter.drawRoundedRect(box.adjusted(-1, -1, 1, 1), 2, 2);
            drawEventMarker(painter, box, marker);
            m_paintedMarkers.push_back({e, marker, box});
            x += kMarkerWidth + 1;
        }
    }
    painter.restore();
}

core::EventIndex TimelineView::markerAt(const QPoint &pos) const
{
    for (const PaintedMarker &marker : m_paintedMarkers)
        if (marker.rect.adjusted(-1, -1, 1, 1).contains(QPointF(pos)))
            return marker.event;
    return core::kNone;
}

// ---------------------------------------------------------------- time range

void TimelineView::setTimeRange(core::Nanos start, core::Nanos end)
{
    if (end < start)
        std::swap(start, end);
    if (start == end)
        start = end = 0;
    if (start == m_rangeStart && end == m_rangeEnd)
        return;
    m_rangeStart = start;
    m_rangeEnd = end;
    update();
    emit timeRangeChanged();
}

void TimelineView::fitTimeRange()
{
    if (!hasTimeRange())
        return;
    // A small margin keeps the band's edges (and the ruler label) in view.
    viewportChanged(m_viewport.fitInterval(m_rangeStart, m_rangeEnd, (m_rangeEnd - m_rangeStart) / 40));
}

core::Nanos TimelineView::clampedTimeAt(double x) const
{
    const QRect content = contentRect();
    return xToTime(std::clamp(x, double(content.left()), double(content.left() + content.width())));
}

std::optional<std::pair<double, double>> TimelineView::timeRangePixels(const QRect &content, double nanosPerPixel) const
{
    if (!hasTimeRange())
        return std::nullopt;
    const double x0 = content.left() + timeToPixel(m_rangeStart, m_viewport.start(), nanosPerPixel);
    const double x1 = content.left() + timeToPixel(m_rangeEnd, m_viewport.start(), nanosPerPixel);
    if (x1 < content.left() || x0 > content.right())
        return std::nullopt;
    return std::make_pair(x0, x1);
}

void TimelineView::paintTimeRange(QPainter &painter, const QRect &content, double nanosPerPixel)
{
    const auto pixels = timeRangePixels(content, nanosPerPixel);
    if (!pixels)
        return;
    const auto [x0, x1] = *pixels;
    painter.save();
    painter.setClipRect(content);
    const double left = std::max(x0, content.left() - 1.0);
    const double right = std::min(x1, content.right() + 1.0);
    painter.fillRect(QRectF(left, content.top(), std::max(1.0, right - left), content.height()), palette::current().rangeFill);
    painter.setPen(QPen(palette::current().rangeEdge, 1));
    for (double x : {x0, x1})
        if (x >= content.left() && x <= content.right())
            painter.drawLine(QPointF(x, content.top()), QPointF(x, content.bottom()));
    painter.restore();
}

// ---------------------------------------------------------------- re-parent drag

QColor TimelineView::linkDragColor(bool valid) { return valid ? QColor(0x1a, 0x9e, 0x3a) : QColor(0xd3, 0x2f, 0x2f); }

void TimelineView::setLinkDrag(const LinkDrag &drag)
{
    m_linkDrag = drag;
    update();
}

void TimelineView::clearLinkDrag()
{
    if (!linkDragActive())
        return;
    m_linkDrag = LinkDrag();
    m_paintedDragFrom = m_paintedDragTo = QPointF();
    update();
}

void TimelineView::paintLinkDrag(QPainter &painter, const QRect &content, double nanosPerPixel, int verticalOffset)
{
    m_paintedDragFrom = m_paintedDragTo = QPointF();
    if (!linkDragActive() || !m_linkDrag.from.in(m_doc->eventCount()))
        return;
    const QRectF source = eventRectIn(m_linkDrag.from, content, m_viewport.start(), nanosPerPixel, verticalOffset);
    if (source.isEmpty())
        return; // its row is collapsed: nothing to anchor the curve on
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const bool hasTarget = m_linkDrag.target.in(m_doc->eventCount());
    const QColor color = hasTarget ? linkDragColor(m_linkDrag.valid) : QColor(0x5a, 0x6a, 0x80);

    if (hasTarget) {
        const QRectF r = eventRectIn(m_linkDrag.target, content, m_viewport.start(), nanosPerPixel, verticalOffset);
        if (!r.isEmpty()) {
            QRectF box = r.adjusted(-2, -2, 2, 2);
            box.setWidth(std::max(box.width(), 6.0));
            QColor fill = color;
            fill.setAlpha(m_linkDrag.valid ? 70 : 150);
            painter.setPen(QPen(color, 2));
            // Valid: a tinted box; invalid: hatched, so the two differ without relying on colour.
            painter.setBrush(m_linkDrag.valid ? QBrush(fill) : QBrush(fill, Qt::BDiagPattern));
            painter.drawRect(box);
        }
    }

    // From the visible part of the GPU op to the cursor; the symmetric control points put the
    // curve's midpoint exactly halfway between its ends (the tests sample it there).
    const double left = std::max(source.left(), double(content.left()));
    const double right = std::min(source.right(), double(content.right()));
    const QPointF p0(left <= right ? (left + right) / 2 : std::clamp(source.center().x(), double(content.left()),
                                                                     double(content.right())),
                     source.center().y());
    const QPointF p1(m_linkDrag.cursor);
    const double direction = p1.x() >= p0.x() ? 1.0 : -1.0;
    const double offset = std::min(kBezierOffset, std::abs(p1.x() - p0.x()) / 2 + 10);
    QPainterPath path(p0);
    path.cubicTo(QPointF(p0.x() + direction * offset, p0.y()), QPointF(p1.x() - direction * offset, p1.y()), p1);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette::current().halo, 5, Qt::SolidLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(QPen(color, 2.5, hasTarget && m_linkDrag.valid ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    painter.drawPath(path);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawEllipse(p0, 4.0, 4.0);
    m_paintedDragFrom = p0;
    m_paintedDragTo = p1;

    // Beside the cursor: what a release would do.
    QString text;
    if (hasTarget)
        text = m_linkDrag.valid ? tr("Re-parent to %1").arg(m_doc->eventName(m_linkDrag.target)) : m_linkDrag.reason;
    if (!text.isEmpty()) {
        const QFontMetrics metrics(font());
        text = metrics.elidedText(text, Qt::ElideRight, 420);
        QRect box(p1.toPoint() + QPoint(14, 14), QSize(metrics.horizontalAdvance(text) + 12, metrics.height() + 6));
        if (box.right() > content.right())
            box.moveRight(std::max(content.left(), p1.toPoint().x() - 10));
        if (box.bottom() > content.bottom())
            box.moveBottom(p1.toPoint().y() - 10);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setBrush(palette::current().overlayBackground);
        painter.setPen(QPen(color, 1));
        painter.drawRect(box);
        painter.setPen(palette::theme() == palette::Theme::Dark ? color.lighter(140) : color.darker(130));
        painter.drawText(box.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
}

std::vector<DrawEdgeIndex> TimelineView::selectedEdges(bool incoming) const
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return {};
    return m_edges.edgesOf(*m_doc, m_selection->current(), incoming);
}

// ---------------------------------------------------------------- hit testing

core::EventIndex TimelineView::findEventInRow(const LayoutRow &row, core::Nanos t, core::Nanos tolerance) const
{
    const LaneRows &rows = m_doc->laneRows(row.lane);
    if (row.depth >= rows.rowCount())
        return core::kNone;
    const core::DeviceTrace &trace = m_doc->device();
    const core::Nanos *s = rows.starts.data();
    const std::uint32_t begin = rows.rowBegin[row.depth];
    const std::uint32_t end = rows.rowBegin[row.depth + 1];
    std::uint32_t i = static_cast<std::uint32_t>(std::upper_bound(s + begin, s + end, t + tolerance) - s);
    core::EventIndex best{};
    core::Nanos bestDistance = tolerance + 1;
    for (int steps = 0; i > begin && steps < 32; ++steps) {
        --i;
        const core::DeviceEvent &event = trace.event(rows.events[i]);
        const core::Nanos distance = t < event.ts ? event.ts - t : (t > event.end() ? t - event.end() : 0);
        // Prefer the event that contains t; among near misses the closest; shorter wins ties.
        if (distance < bestDistance
            || (distance == bestDistance && best.valid() && event.dur < trace.event(best).dur)) {
            best = rows.events[i];
            bestDistance = distance;
        }
        if (event.end() + tolerance < t && distance > bestDistance)
            break;
    }
    return best;
}

core::EventIndex TimelineView::eventAt(const QPoint &pos) const
{
    if (!m_doc)
        return core::kNone;
    const QRect content = contentRect();
    if (!content.contains(pos))
        return core::kNone;
    const int r = m_layout.rowAt(pos.y() - content.top() + m_verticalOffset);
    if (r < 0 || m_layout.rows()[r].kind != LayoutRow::Kind::LaneRow)
        return core::kNone;
    const double nanosPerPixel = this->nanosPerPixel();
    const core::Nanos t = xToTime(pos.x());
    const core::Nanos tolerance = static_cast<core::Nanos>(std::ceil(2.0 * nanosPerPixel));
    return findEventInRow(m_layout.rows()[r], t, tolerance);
}

QRectF TimelineView::eventRectIn(core::EventIndex event, const QRect &content, core::Nanos start, double nanosPerPixel,
                                 int verticalOffset) const
{
    const core::TraceIndex &index = m_doc->index();
    if (!event.in(index.laneOf.size()) || index.laneOf[event.get()].isNone())
        return {};
    const core::LaneIndex lane = index.laneOf[event.get()];
    const int r = m_layout.rowOfDepth(lane, index.depth[event.get()]);
    if (r < 0)
        return {};
    const LayoutRow &row = m_layout.rows()[r];
    const core::DeviceEvent &e = m_doc->event(event);
    const double x0 = content.left() + timeToPixel(e.ts, start, nanosPerPixel);
    const double x1 = content.left() + timeToPixel(e.end(), start, nanosPerPixel);
    return QRectF(QPointF(x0, content.top() + row.y - verticalOffset + 1),
                  QPointF(std::max(x1, x0 + 1), content.top() + row.y - verticalOffset + row.height - 1));
}

QRectF TimelineView::eventRect(core::EventIndex event) const
{
    if (!m_doc || !event.in(m_doc->eventCount()))
        return {};
    return eventRectIn(event, contentRect(), m_viewport.start(), nanosPerPixel(), m_verticalOffset);
}

// ---------------------------------------------------------------- selection and navigation

void TimelineView::onSelectionChanged(core::EventIndex event)
{
    m_edges.setFocusedEdge(core::kNone);
    m_fitSelectionWide = false;
    if (m_doc && event.in(m_doc->eventCount()) && !m_selection->inPlace())
        revealEvent(event);
    update();
}

void TimelineView::revealEvent(core::EventIndex event)
{
    if (!m_doc || !event.in(m_doc->eventCount()))
        return;
    const core::TraceIndex &index = m_doc->index();
    if (!event.in(index.laneOf.size()) || index.laneOf[event.get()].isNone())
        return;
    const core::LaneIndex lane = index.laneOf[event.get()];
    // Open what hides it.
    const int group = m_layout.groupOfLane(lane);
    const int hiddenBefore = m_layout.hiddenCount();
    m_layout.setGroupHidden(group, false);
    m_layout.setLaneHidden(lane, false);
    if (m_layout.isGroupCollapsed(group))
        m_layout.setGroupCollapsed(group, false);
    if (m_layout.rowOfDepth(lane, index.depth[event.get()]) < 0)
        m_layout.setLaneCollapsed(lane, false);
    if (m_layout.rowOfDepth(lane, index.depth[event.get()]) < 0 && m_layout.hidePythonRows())
        m_layout.setHidePythonRows(false); // a Python frame was asked for
    layoutChanged(m_layout.hiddenCount() != hiddenBefore);
    // Horizontally: keep the zoom when the event fits, else zoom out to show it with a margin.
    const core::DeviceEvent &e = m_doc->event(event);
    viewportChanged(m_viewport.reveal(e.ts, e.end()));
    // Vertically.
    const int shownRow = m_layout.rowOfDepth(lane, index.depth[event.get()]);
    if (shownRow >= 0) {
        const LayoutRow &row = m_layout.rows()[shownRow];
        const int visibleHeight = contentRect().height();
        if (row.y < m_verticalOffset || row.y + row.height > m_verticalOffset + visibleHeight)
            setVerticalOffset(row.y - visibleHeight / 3);
    }
    update();
}

void TimelineView::followEdge(bool outgoing)
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const std::vector<DrawEdgeIndex> candidates = selectedEdges(!outgoing);
    if (candidates.empty())
        return;
    DrawEdgeIndex edgeId = candidates.front();
    if (std::find(candidates.begin(), candidates.end(), m_edges.focusedEdge()) != candidates.end())
        edgeId = m_edges.focusedEdge();
    const DrawEdge &edge = m_doc->edges()[edgeId];
    const core::EventIndex target = outgoing ? edge.to : edge.from;
    m_selection->select(target);
    // Keep the edge we came along focused so that the way back is the same edge.
    m_edges.setFocusedEdge(edgeId);
    update();
}

void TimelineView::cycleFocusedEdge(int delta)
{
    std::vector<DrawEdgeIndex> all = selectedEdges(true);
    const std::vector<DrawEdgeIndex> out = selectedEdges(false);
    all.insert(all.end(), out.begin(), out.end());
    if (all.empty())
        return;
    auto it = std::find(all.begin(), all.end(), m_edges.focusedEdge());
    int position = it == all.end() ? (delta > 0 ? -1 : 0) : static_cast<int>(it - all.begin());
    position = (position + delta + static_cast<int>(all.size())) % static_cast<int>(all.size());
    m_edges.setFocusedEdge(all[position]);
    update();
}

void TimelineView::stepOnRow(int delta)
{
    if (!m_doc || !m_selection || !m_selection->hasSelection())
        return;
    const core::EventIndex selected = m_selection->current();
    const core::TraceIndex &index = m_doc->index();
    if (!selected.in(index.laneOf.size()) || index.laneOf[selected.get()].isNone())
        return;
    const LaneRows &rows = m_doc->laneRows(index.laneOf[selected.get()]);
    const int depth = index.depth[selected.get()];
    const auto begin = rows.events.begin() + rows.rowBegin[depth];
    const auto end = rows.events.begin() + rows.rowBegin[depth + 1];
    const auto it = std::find(begin + (std::lower_bound(rows.starts.begin() + rows.rowBegin[depth],
                                                        rows.starts.begin() + rows.rowBegin[depth + 1],
                                                        m_doc->event(selected).ts)
                                       - (rows.starts.begin() + rows.rowBegin[depth])),
                              end, selected);
    if (it == end)
        return;
    const auto target = it + delta;
    if (target < begin || target >= end)
        return;
    m_selection->select(*target);
}

// ---------------------------------------------------------------- input (TimelineInput)

void TimelineView::resizeEvent(QResizeEvent *)
{
    updateScrollBar();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    m_input->wheel(event);
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    m_input->mousePress(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    m_input->mouseMove(event);
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    m_input->mouseRelease(event);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    m_input->mouseDoubleClick(event);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    if (!m_input->keyPress(event)) {
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::setHoverEvent(core::EventIndex event)
{
    if (event == m_hoverEvent)
        return;
    m_hoverEvent = event;
    update();
}

void TimelineView::leaveEvent(QEvent *)
{
    setHoverEvent(core::kNone);
    setHoverEdge(core::kNone);
}

void TimelineView::toggleHeaderAt(const QPoint &pos)
{
    const int r = headerRowAt(pos);
    if (r < 0)
        return;
    const LayoutRow row = m_layout.rows()[r];
    if (row.kind == LayoutRow::Kind::GroupHeader)
        setGroupCollapsed(row.group, !m_layout.isGroupCollapsed(row.group));
    else if (m_doc->laneRows(row.lane).rowCount() > 1)
        setLaneCollapsed(row.lane, !m_layout.isLaneCollapsed(row.lane));
}

void TimelineView::setHighlightedEvents(std::vector<core::EventIndex> events)
{
    m_highlighted = std::move(events);
    update();
}

void TimelineView::setPathEvents(std::vector<core::EventIndex> chain)
{
    m_path.setChain(std::move(chain));
    update();
}

void TimelineView::setShowAllEdgesInView(bool show)
{
    if (!m_edges.setShowAllInView(show))
        return;
    m_input->action(TimelineKey::AllEdges)->setChecked(show);
    update();
    emit edgeFilterChanged();
}

void TimelineView::setEdgeKindVisible(core::EdgeKind kind, bool visible)
{
    if (!m_edges.setKindVisible(kind, visible))
        return;
    update();
    emit edgeFilterChanged();
}

QString TimelineView::tooltipFor(core::EventIndex e) const
{
    const core::DeviceEvent &event = m_doc->event(e);
    QString html = QStringLiteral("<b>%1</b><br>%2 · %3<br>start +%4 · duration %5")
                       .arg(htmlEscaped(m_doc->eventName(e)), eventStyleName(m_doc->style(e)),
                            htmlEscaped(QString::fromUtf8(categoryName(event.category).data(),
                                                          static_cast<qsizetype>(categoryName(event.category).size()))),
                            formatDuration(event.ts - m_doc->startTime()), formatDuration(event.dur));
    if (const core::GpuLink *link = m_doc->gpuLink(e)) {
        if (link->parent.in(m_doc->eventCount()))
            html += QStringLiteral("<br>parent: %1 <i>(%2)</i>")
                        .arg(htmlEscaped(m_doc->eventName(link->parent)),
                             QString::fromUtf8(parentRuleName(link->rule).data(),
                                               static_cast<qsizetype>(parentRuleName(link->rule).size())));
        else
            html += QStringLiteral("<br><font color='#c00'>orphan: %1</font>")
                        .arg(QString::fromUtf8(orphanReasonName(link->orphan).data(),
                                               static_cast<qsizetype>(orphanReasonName(link->orphan).size())));
    }
    if (m_doc->hasFinding(e))
        html += tr("<br><font color='#b07000'>has a finding (see Details)</font>");
    if (const EventNotes *notes = currentNotes()) {
        if (auto it = notes->flags.find(e); it != notes->flags.end())
            html += tr("<br><font color='#c00'>⚑ flagged by you as wrong</font>%1")
                        .arg(it->second.isEmpty() ? QString() : QStringLiteral(": ") + htmlEscaped(it->second));
        if (auto it = notes->notes.find(e); it != notes->notes.end())
            html += tr("<br>✎ note: %1").arg(htmlEscaped(it->second));
        if (notes->isAccepted(e))
            html += tr("<br>✓ accepted by you");
    }
    return html;
}

DrawEdgeIndex TimelineView::edgeAt(const QPoint &pos) const
{
    if (!m_doc || !contentRect().contains(pos))
        return core::kNone;
    const DrawEdgeIndex edge = m_edges.edgeAt(QPointF(pos), 4.0);
    return edge.in(m_doc->edges().size()) ? edge : DrawEdgeIndex(core::kNone);
}

void TimelineView::selectEdge(DrawEdgeIndex edge)
{
    if (!m_doc || !edge.in(m_doc->edges().size()) || !m_selection)
        return;
    m_selection->select(m_doc->edges()[edge].to);
    m_edges.setFocusedEdge(edge); // after the selection, which clears the focus
    update();
    emit edgeSelected(edge);
}

void TimelineView::setHoverEdge(DrawEdgeIndex edge)
{
    if (edge == m_edges.hoveredEdge())
        return;
    m_edges.setHoveredEdge(edge);
    update();
}

QString TimelineView::edgeTooltip(DrawEdgeIndex id) const
{
    if (!m_doc || !id.in(m_doc->edges().size()))
        return {};
    const DrawEdge &edge = m_doc->edges()[id];
    QString how = edgeProvenanceLabel(edge.provenance);
    if (edge.kind == core::EdgeKind::Parent)
        if (const core::GpuLink *link = m_doc->gpuLink(edge.to)) {
            const std::string_view rule = parentRuleName(link->rule);
            how = tr("rule %1 · %2").arg(QString::fromUtf8(rule.data(), static_cast<qsizetype>(rule.size())), how);
        }
    auto end = [&](core::EventIndex e) {
        const core::DeviceEvent &event = m_doc->event(e);
        return tr("%1 <i>(%2, +%3 … +%4)</i>")
            .arg(htmlEscaped(m_doc->eventName(e)), eventStyleName(m_doc->style(e)),
                 formatDuration(event.ts - m_doc->startTime()), formatDuration(event.end() - m_doc->startTime()));
    };
    // An end folded into a collapsed or hidden lane or group says where it is.
    auto folded = [&](core::EventIndex e) -> QString {
        const core::TraceIndex &index = m_doc->index();
        if (!e.in(index.laneOf.size()) || index.laneOf[e.get()].isNone())
            return {};
        const core::LaneIndex lane = index.laneOf[e.get()];
        const int group = m_layout.groupOfLane(lane);
        const QString groupLabel = htmlEscaped(m_layout.groups()[group].label);
        if (m_layout.isGroupHidden(group))
            return tr(" <i>· in hidden group “%1”</i>").arg(groupLabel);
        if (m_layout.isGroupCollapsed(group))
            return tr(" <i>· in collapsed group “%1”</i>").arg(groupLabel);
        if (m_layout.isLaneHidden(lane))
            return tr(" <i>· in a hidden lane of “%1”</i>").arg(groupLabel);
        if (m_layout.rowOfDepth(lane, index.depth[e.get()]) < 0)
            return tr(" <i>· on a folded row (collapsed lane or hidden Python rows)</i>");
        return {};
    };
    return tr("<b>%1 edge</b> · %2<br>from: %3%4<br>to: %5%6")
        .arg(htmlEscaped(edgeKindLabel(edge.kind)), htmlEscaped(how), end(edge.from), folded(edge.from), end(edge.to),
             folded(edge.to));
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_doc) {
        auto *help = static_cast<QHelpEvent *>(event);
        // A marker may stick out of its event: it is the event's.
        const core::EventIndex marked = markerAt(help->pos());
        const core::EventIndex e = marked.valid() ? marked : eventAt(help->pos());
        const DrawEdgeIndex edge = e.isNone() ? edgeAt(help->pos()) : DrawEdgeIndex(core::kNone);
        if (e.valid())
            QToolTip::showText(help->globalPos(), tooltipFor(e), this);
        else if (edge.valid())
            QToolTip::showText(help->globalPos(), edgeTooltip(edge), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace linkscope::ui
