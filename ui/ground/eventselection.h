#pragma once
// The one selection shared by the timeline and every dock: a DeviceTrace event index (or none).
// Docks select through it; the timeline scrolls to whatever becomes selected elsewhere (not to what
// is selected in place, by a click on it).

#include "model/devicetrace.h"

#include <QObject>

#include <cstdint>

namespace linkscope::ui {

class EventSelection : public QObject {
    Q_OBJECT
public:
    explicit EventSelection(QObject *parent = nullptr) : QObject(parent) { }

    core::EventIndex current() const { return m_current; }
    bool hasSelection() const { return m_current.valid(); }

public slots:
    // Selects `event` (none clears). Emits changed() only when it differs.
    void select(core::EventIndex event)
    {
        if (event == m_current)
            return;
        m_current = event;
        emit changed(event);
    }
    void clear() { select(core::kNone); }
    // Selects `event` where the user sees it (a click on the timeline): views keep their place.
    void selectInPlace(core::EventIndex event)
    {
        m_inPlace = true;
        select(event);
        m_inPlace = false;
    }

public:
    // True while changed() is emitted for selectInPlace(): views do not scroll to the event.
    bool inPlace() const { return m_inPlace; }

signals:
    void changed(core::EventIndex event);

private:
    core::EventIndex m_current{};
    bool m_inPlace = false;
};

} // namespace linkscope::ui
