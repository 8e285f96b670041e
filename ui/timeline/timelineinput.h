#pragma once
// The timeline's input: mouse gestures (drag pans, click selects, Shift+drag selects a time range,
// drag in the overview moves the view, a click in the header column collapses lanes and a drag there
// moves a lane or group, the wheel zooms, pans and scrolls), the keyboard, context menus and tooltips:
// an event filter on the view. Every key binding is a QAction defined once, in timelineinput.cpp; the
// view dispatches its key presses to them, and the shortcut sheet (F1) is generated from them and
// from mouseGestures().

#include "model/common.h"

#include <QKeySequence>
#include <QList>
#include <QObject>
#include <QPoint>
#include <QString>

#include <functional>
#include <utility>

class QAction;
class QHelpEvent;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;

namespace linkscope::ui {

class TimelineView;

// The timeline's key bindings, in the order the shortcut sheet lists them.
enum class TimelineKey {
    ZoomIn,
    ZoomInFast,
    ZoomOut,
    ZoomOutFast,
    PanLeft,
    PanLeftFast,
    PanRight,
    PanRightFast,
    Fit,
    FitAll,
    FitRows, // checkable: rows shrink so that every row fits the view's height
    Escape,
    FollowIncoming,
    FollowOutgoing,
    FocusPreviousEdge,
    FocusNextEdge,
    PreviousOnRow,
    NextOnRow,
    AllEdges, // checkable: follows TimelineEdgeOverlay::showAllInView()
    FrameTime,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    AddBookmark, // M: TimelineView::bookmarkRequested
};

class TimelineInput : public QObject {
    Q_OBJECT
public:
    explicit TimelineInput(TimelineView &view);

    // The key bindings, indexed by TimelineKey. Menus may show them: their shortcut context is
    // Qt::WidgetShortcut, so only the timeline's own key presses trigger them.
    const QList<QAction *> &keyActions() const { return m_keyActions; }
    QAction *action(TimelineKey key) const { return m_keyActions.at(static_cast<int>(key)); }
    // The mouse gestures, as (gesture, what it does), for the shortcut sheet.
    static QList<std::pair<QString, QString>> mouseGestures();

    // Triggers the action bound to the event's key: the exact modifiers first, then with fewer of
    // Shift and Ctrl (Shift+Up scrolls like Up). Returns false if no action has that key.
    bool keyPress(QKeyEvent *event);
    void wheel(QWheelEvent *event);
    void mousePress(QMouseEvent *event);
    void mouseMove(QMouseEvent *event);
    void mouseRelease(QMouseEvent *event);
    void mouseDoubleClick(QMouseEvent *event);

    bool rangeDragging() const { return m_rangeDragging; }
    // The view's input events, dispatched to the handlers above (installed on the view).
    bool eventFilter(QObject *watched, QEvent *event) override;
    // Ends a time-range drag without setting a range (the caller decides what the range becomes).
    void cancelRangeDrag();

private:
    void addKey(TimelineKey key, const QString &text, const QList<QKeySequence> &keys, std::function<void()> run,
                const QString &description = QString());
    double zoomAnchorX() const;
    // The zoom steps of one W/S press: 1 for a tap, more as the key's auto-repeats go on.
    double heldZoomSteps() const;
    core::Nanos bookmarkTime() const;
    void showTooltip(QHelpEvent *event);
    void escape();

    TimelineView &m_view;
    QList<QAction *> m_keyActions;

    QPoint m_pressPos;
    bool m_pressed = false;
    bool m_panning = false;
    bool m_overviewDrag = false;
    bool m_headerResize = false;
    bool m_headerPressed = false; // pressed on a lane header: a click toggles it, a drag moves it
    int m_headerRow = -1;         // the layout row pressed (a sticky label's lane or group)
    static constexpr int kHeaderDragThreshold = 6;
    static constexpr int kHeaderGrip = 3; // pixels either side of the header column's edge
    core::Nanos m_pressViewStart = 0;
    int m_pressVerticalOffset = 0;
    bool m_rangeDragging = false;
    core::Nanos m_rangeAnchor = 0;
    int m_lastKey = 0;     // the key of the last press
    int m_zoomRepeats = 0; // auto-repeats of it so far (0: a fresh press)
    static constexpr int kZoomRepeatsToFull = 10;
};

} // namespace linkscope::ui
