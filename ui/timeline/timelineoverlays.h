#pragma once
// The render passes drawn over the events: the selected time range's band, flag and note markers,
// the re-parent drag (a curve from the dragged GPU op to the cursor and the verdict on the event
// under it), and the status boxes (edges in view, frame time). Each returns what hit-testing needs.

#include "ground/eventnotes.h"
#include "timeline/timelineframe.h"

#include <QColor>
#include <QCoreApplication>
#include <QPoint>
#include <QString>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace linkscope::ui {

class TimelineEdgeOverlay;

// A Ctrl+drag re-parenting a GPU op, as whoever handles it (ReviewUi) describes it. The view does
// not decide validity and does not act on the drop.
struct TimelineLinkDrag {
    core::EventIndex from{};   // the GPU op being re-parented
    QPoint cursor;             // widget coordinates
    core::EventIndex target{}; // event under the cursor, or none
    bool valid = false;        // target is an acceptable new parent
    QString reason;            // why not (empty when valid or no target)
};

class TimelineOverlayPass {
    Q_DECLARE_TR_FUNCTIONS(TimelineOverlayPass)
public:
    // The ends of the time range [start, end) in pixels of the frame; nullopt when empty or out of view.
    static std::optional<std::pair<double, double>> rangePixels(const TimelineFrame &frame, core::Nanos start, core::Nanos end);
    static void paintTimeRange(QPainter &painter, const TimelineFrame &frame, core::Nanos start, core::Nanos end);

    // Flags and notes of `notes` (null: none), each placed at its event's top-left; returns them.
    static std::vector<TimelinePaintedMarker> paintMarkers(QPainter &painter, const TimelineFrame &frame,
                                                           const EventNotes *notes);

    // The drag's curve and verdict; returns the curve's ends (null points when not drawn).
    static std::pair<QPointF, QPointF> paintLinkDrag(QPainter &painter, const TimelineFrame &frame, const TimelineLinkDrag &drag);
    static QColor linkDragColor(bool valid);

    struct Status {
        const TimelineEdgeOverlay &edges; // "N edges in view" while all edges in view are shown
        bool showFrameTime = false;
        qint64 lastFrameNanos = 0;
        std::size_t mergedColumns = 0;
    };
    static void paintStatus(QPainter &painter, const TimelineFrame &frame, const Status &status);
};

} // namespace linkscope::ui
