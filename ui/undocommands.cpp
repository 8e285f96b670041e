#include "undocommands.h"

#include "correctioncontroller.h"

namespace linkscope::ui {

namespace {
QString labelOf(const core::LogEntry &entry)
{
    if (!entry.label.empty())
        return QString::fromStdString(entry.label);
    return entry.edits.empty() ? QStringLiteral("Correction") : QString::fromStdString(entry.edits.front().describe());
}
} // namespace

CorrectionCommand::CorrectionCommand(CorrectionController *controller, core::LogEntry entry)
    : m_controller(controller), m_entry(std::move(entry))
{
    setText(labelOf(m_entry));
}

void CorrectionCommand::redo() { m_controller->applyEntryNow(m_entry); }
void CorrectionCommand::undo() { m_controller->undoEntryNow(); }

RemoveEntryCommand::RemoveEntryCommand(CorrectionController *controller, std::size_t index, core::LogEntry entry)
    : m_controller(controller), m_index(index), m_entry(std::move(entry))
{
    setText(QStringLiteral("Remove: %1").arg(labelOf(m_entry)));
}

void RemoveEntryCommand::redo() { m_controller->removeEntryNow(m_index); }
void RemoveEntryCommand::undo() { m_controller->insertEntryNow(m_index, m_entry); }

} // namespace linkscope::ui
