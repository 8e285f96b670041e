#pragma once
// Undo commands: each wraps one core correction (a LogEntry) so that Ctrl+Z / Ctrl+Shift+Z walk
// the correction log. The commands hold data only; the CorrectionController applies it.

#include "edit/correction.h"

#include <QUndoCommand>

namespace linkscope::ui {

class CorrectionController;

// Appends an entry to the log (redo) / drops it again (undo).
class CorrectionCommand : public QUndoCommand {
public:
    CorrectionCommand(CorrectionController *controller, core::LogEntry entry);
    void redo() override;
    void undo() override;
    const core::LogEntry &entry() const { return m_entry; }

private:
    CorrectionController *m_controller;
    core::LogEntry m_entry;
};

// Removes the entry at `index` (any entry, e.g. one loaded from the sidecar) / puts it back.
class RemoveEntryCommand : public QUndoCommand {
public:
    RemoveEntryCommand(CorrectionController *controller, std::size_t index, core::LogEntry entry);
    void redo() override;
    void undo() override;

private:
    CorrectionController *m_controller;
    std::size_t m_index;
    core::LogEntry m_entry;
};

} // namespace linkscope::ui
