#pragma once
// Per-trace view settings of the timeline (QSettings, keyed by the Kineto trace's absolute path):
// GPU streams first, hidden and folded Python rows, hidden, collapsed and pinned groups, hidden and
// collapsed lanes (by label), the
// order of groups and lanes (by stable key: pid/tid, device/stream), the header column's width.

#include "ground/tracedocument.h"
#include "timeline/timelinelayout.h"

#include <QString>

namespace linkscope::ui {

class TimelineViewSettings {
public:
    // The QSettings group of the trace whose device file is `devicePath`.
    static QString group(const QString &devicePath);
    // Saves what `layout` shows of `doc` and the header width (nothing for a document without a path).
    static void save(const TraceDocument &doc, const TimelineLayout &layout, int headerWidth);
    // Puts `layout` in the defaults, then applies what was saved for `doc`; returns the header
    // width to use (`defaultHeaderWidth` for a trace never seen), at least `minHeaderWidth`.
    static int restore(const TraceDocument *doc, TimelineLayout &layout, int defaultHeaderWidth, int minHeaderWidth);
};

} // namespace linkscope::ui
