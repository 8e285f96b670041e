#pragma once
// The strips above the lanes: the time ruler (ticks as offsets from the trace start, the visible span,
// the selected time range's duration) and the overview of the whole trace with the visible window.

#include "ground/tracedocument.h"

#include <QCoreApplication>
#include <QImage>
#include <QRect>

class QFont;
class QPainter;

namespace linkscope::ui {

class TimelineRuler {
    Q_DECLARE_TR_FUNCTIONS(TimelineRuler)
public:
    static constexpr double kTickSpacing = 110; // minimum pixels between labelled ticks

    // Vertical grid lines over `content` at the ruler's major ticks, for the view [start, end).
    static void paintGrid(QPainter &painter, const QRect &content, core::Nanos start, core::Nanos end, core::Nanos origin);
    // The ruler in `area` (full width; the part left of content.left() shows the span and grid step).
    static void paint(QPainter &painter, const QFont &font, const QRect &area, const QRect &content, core::Nanos start,
                      core::Nanos end, core::Nanos origin);
    // The time range [x0, x1] (pixels) in the ruler strip, with its duration in a box.
    static void paintRangeLabel(QPainter &painter, const QFont &font, const QRect &area, const QRect &content, double x0,
                                double x1, core::Nanos duration);
};

class TimelineOverview {
    Q_DECLARE_TR_FUNCTIONS(TimelineOverview)
public:
    // The strip of `area` that shows the trace (right of the header column).
    static QRect stripOf(const QRect &area, int headerWidth);
    // The trace time under x in a widget `widgetWidth` wide (clamped to the trace).
    static core::Nanos timeAt(const TraceDocument &doc, int x, int widgetWidth, int headerWidth);

    // The whole trace, each lane's top row as a band (cached per document and size), the view
    // [start, end) as a framed window, the total duration left of the strip.
    void paint(QPainter &painter, const TraceDocument &doc, const QRect &area, int headerWidth, core::Nanos start,
               core::Nanos end);
    void invalidate() { m_doc = nullptr; }

private:
    QImage m_image;
    const TraceDocument *m_doc = nullptr;
    int m_theme = -1; // palette::Theme the image was drawn for
};

} // namespace linkscope::ui
