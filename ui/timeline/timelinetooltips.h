#pragma once
// The timeline's hover texts (rich text): an event's name, kind, times, link and the user's notes;
// an edge's kind, rule or provenance and both ends, saying where an end is folded away.

#include "ground/eventnotes.h"
#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QCoreApplication>
#include <QString>

namespace linkscope::ui {

class TimelineTooltips {
    Q_DECLARE_TR_FUNCTIONS(TimelineTooltips)
public:
    // `notes` may be null.
    static QString event(const TraceDocument &doc, core::EventIndex event, const EventNotes *notes);
    static QString edge(const TraceDocument &doc, const TimelineLayout &layout, DrawEdgeIndex edge);
};

} // namespace linkscope::ui
