#include "review/undocommands.h"

#include "review/correctioncontroller.h"

namespace linkscope::ui {

namespace {
QString labelOf(const core::LogEntry &entry)
{
    if (!entry.label.empty())
        return QString::fromStdString(entry.label);
    return entry.edits.empty() ? QStringLiteral("Correction") : QString::fromStdString(entry.edits.front().describe());
}

// The text of the Undo / Redo actions (menus, the Edits dock's buttons): at most kActionChars, the
// middle elided, so that a full kernel signature does not widen the window. The whole label stays
// the command's text() (QUndoView, tooltips).
constexpr int kActionChars = 60;

QString actionLabel(const QString &full)
{
    if (full.size() <= kActionChars)
        return full;
    const int head = kActionChars * 2 / 3;
    return full.left(head) + QChar(0x2026) + full.right(kActionChars - head - 1);
}

// QUndoCommand::setText: the part before '\n' is text(), the part after is actionText().
QString commandText(const QString &full) { return full + QLatin1Char('\n') + actionLabel(full); }
} // namespace

CorrectionCommand::CorrectionCommand(CorrectionController *controller, core::LogEntry entry)
    : m_controller(controller), m_entry(std::move(entry))
{
    setText(commandText(labelOf(m_entry)));
}

void CorrectionCommand::redo() { m_controller->applyEntryNow(m_entry); }
void CorrectionCommand::undo() { m_controller->undoEntryNow(); }

RemoveEntryCommand::RemoveEntryCommand(CorrectionController *controller, std::size_t index, core::LogEntry entry)
    : m_controller(controller), m_index(index), m_entry(std::move(entry))
{
    setText(commandText(QStringLiteral("Remove: %1").arg(labelOf(m_entry))));
}

void RemoveEntryCommand::redo() { m_controller->removeEntryNow(m_index); }
void RemoveEntryCommand::undo() { m_controller->insertEntryNow(m_index, m_entry); }

} // namespace linkscope::ui
