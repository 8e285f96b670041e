#pragma once
// The timeline's time-range (area) selection: [start, end) of trace time, empty when end <= start.
// A Shift+drag previews it as it grows and sets it on release; changed() announces it only when it
// is set or cleared, so that what listens (the counts per group) does not run per mouse move.

#include "model/common.h"

#include <QObject>

namespace linkscope::ui {

class TimeRangeSelection : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    bool has() const { return m_end > m_start; }
    core::Nanos start() const { return m_start; }
    core::Nanos end() const { return m_end; }
    // Either order; empty (start == end) clears. Announced when it changed.
    void set(core::Nanos start, core::Nanos end);
    void clear() { set(0, 0); }
    // While a drag lasts: shown (redraw()), not announced.
    void preview(core::Nanos start, core::Nanos end);
    // Sets the range and always announces it, even when it did not change (the end of a drag).
    void commit(core::Nanos start, core::Nanos end);

signals:
    void changed(); // set or cleared (also asks for a redraw)
    void redraw();  // previewed: only drawn

private:
    core::Nanos m_start = 0;
    core::Nanos m_end = 0;
};

} // namespace linkscope::ui
