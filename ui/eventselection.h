#pragma once
// The one selection shared by the timeline and every dock: a DeviceTrace event index (or none).
// Docks select through it; the timeline scrolls to whatever becomes selected elsewhere.

#include "model/devicetrace.h"

#include <QObject>

#include <cstdint>

namespace linkscope::ui {

class EventSelection : public QObject {
    Q_OBJECT
public:
    explicit EventSelection(QObject *parent = nullptr) : QObject(parent) {}

    std::uint32_t current() const { return m_current; }
    bool hasSelection() const { return m_current != core::kNoIndex; }

public slots:
    // Selects `event` (core::kNoIndex clears). Emits changed() only when it differs.
    void select(std::uint32_t event)
    {
        if (event == m_current)
            return;
        m_current = event;
        emit changed(event);
    }
    void clear() { select(core::kNoIndex); }

signals:
    void changed(std::uint32_t event);

private:
    std::uint32_t m_current = core::kNoIndex;
};

} // namespace linkscope::ui
