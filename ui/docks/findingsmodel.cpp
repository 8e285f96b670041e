#include "docks/findingsmodel.h"

#include "ground/fromstd.h"

#include "edit/linkchange.h"

#include "ground/timeformat.h"
#include "review/correctioncontroller.h"

#include <algorithm>

namespace linkscope::ui {

std::vector<core::FindingIndex> FindingsModel::resolvedFindings(const core::FindingList &linked, const core::FindingList &now)
{
    return core::resolvedFindings(linked, now);
}

std::vector<core::FindingCause> FindingsModel::causesOf(const TraceDocument &doc, const TraceDocument *previous,
                                                        const std::vector<core::FindingCause> &previousCauses)
{
    // A finding's cause depends on it and on its GPU op's link (report/findinggroups.h): where
    // both the findings chunk and the GPU links are shared with the previous document, its causes
    // are copied; elsewhere derived again.
    const core::FindingList &now = doc.links().findings;
    const core::LinkSet &links = doc.links();
    std::vector<core::FindingCause> out;
    out.reserve(now.size());
    auto derive = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i)
            out.push_back(core::causeOf(now[i], doc.device(), links));
    };
    const core::FindingList *was = previous ? &previous->links().findings : nullptr;
    // What the edit changed, as the document carries it (null when it was not made from `previous`).
    const core::LinkSetChange *change = previous ? doc.changeSince(*previous) : nullptr;
    if (!was || !change || !change->sameOps || previousCauses.size() < was->size()) {
        derive(0, now.size());
        return out;
    }
    auto copyOrDerive = [&](bool shared, std::size_t from, std::size_t to, std::size_t wasFrom) {
        if (shared)
            out.insert(out.end(), previousCauses.begin() + static_cast<std::ptrdiff_t>(wasFrom),
                       previousCauses.begin() + static_cast<std::ptrdiff_t>(wasFrom + (to - from)));
        else
            derive(from, to);
    };
    copyOrDerive(!change->traceWideFindingsChanged, 0, now.traceWide().size(), 0);
    const std::size_t ops = now.gpuOpCount();
    const std::size_t perOpEnd = now.size() - now.hostSide().size();
    const std::size_t wasPerOpEnd = was->size() - was->hostSide().size();
    // The GPU ops the edit did not touch keep their findings and links, hence their causes.
    auto run = [&](std::size_t begin, std::size_t end, bool shared) {
        if (begin >= end)
            return;
        const std::size_t from = now.positionOfGpuOp(begin);
        const std::size_t to = end < ops ? now.positionOfGpuOp(end) : perOpEnd;
        copyOrDerive(shared, from, to, was->positionOfGpuOp(begin));
    };
    std::size_t at = 0;
    for (const auto &[begin, end] : change->gpuOps) {
        run(at, std::min(begin, ops), true);
        run(std::min(begin, ops), std::min(end, ops), false);
        at = std::min(end, ops);
    }
    run(at, ops, true);
    copyOrDerive(!change->hostSideFindingsChanged, perOpEnd, now.size(), wasPerOpEnd);
    return out;
}

FindingsModel::FindingsModel(CorrectionController *controller, QObject *parent)
    : QAbstractTableModel(parent), m_controller(controller)
{
    // An edit emits changed() and then, once its document is built, published(): the findings (and
    // their statuses) are read once, at the second. changed() alone (nothing to publish) refreshes.
    connect(controller, &CorrectionController::changed, this, [this] {
        if (!m_controller->publishing())
            refresh();
    });
    connect(controller, &CorrectionController::published, this, &FindingsModel::refresh);
    connect(controller, &CorrectionController::publishFailed, this, &FindingsModel::refresh);
    refresh();
}

void FindingsModel::refresh()
{
    DocumentPtr linked = m_controller->linkedDocument();
    DocumentPtr doc = m_controller->document();
    if (!doc || !linked || doc->deviceShared() != linked->deviceShared())
        doc = linked; // a new trace, before its corrections are shown
    if (doc != m_doc || linked != m_linked) {
        beginResetModel();
        const bool sameLinked = linked == m_linked;
        // The document shown before, when it is of the same links' load: its causes are reused
        // wherever the findings are shared with it.
        DocumentPtr previous = m_doc && doc && m_doc->links().index == doc->links().index ? m_doc : DocumentPtr();
        m_doc = std::move(doc);
        m_linked = std::move(linked);
        m_resolved.clear();
        if (!sameLinked) {
            // The linker's findings change only with the linker's document, not with each edit.
            m_linkedRefs.clear();
            if (m_linked) {
                m_linkedRefs.reserve(m_linked->links().findings.size());
                for (const core::Finding &f : m_linked->links().findings)
                    m_linkedRefs.push_back(core::refOf(f));
                std::sort(m_linkedRefs.begin(), m_linkedRefs.end());
            }
        }
        if (m_doc && m_linked && m_doc != m_linked)
            m_resolved = resolvedFindings(m_linked->links().findings, m_doc->links().findings);
        std::vector<core::FindingCause> previousCauses;
        previousCauses.swap(m_causes);
        if (m_doc) {
            m_causes = causesOf(*m_doc, previous.get(), previousCauses);
            // A resolved finding's cause is of the links it was found on: the linker's.
            m_causes.reserve(m_causes.size() + m_resolved.size());
            for (core::FindingIndex r : m_resolved)
                m_causes.push_back(core::causeOf(m_linked->links().findings.at(r.get()), m_linked->device(), m_linked->links()));
        }
        endResetModel();
    } else if (rowCount() > 0) {
        // Review state changes only the status column.
        emit dataChanged(index(0, Status), index(rowCount() - 1, Status));
    }
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_doc ? 0 : static_cast<int>(m_doc->links().findings.size() + m_resolved.size());
}

int FindingsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

bool FindingsModel::isResolved(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) >= m_doc->links().findings.size();
}

const core::Finding &FindingsModel::finding(int row) const
{
    const std::size_t current = m_doc->links().findings.size();
    const auto r = static_cast<std::size_t>(row);
    return r < current ? m_doc->links().findings.at(r) : m_linked->links().findings.at(m_resolved.at(r - current).get());
}

int FindingsModel::rowOf(const core::FindingRef &ref) const
{
    // A GPU op's own findings first (its run of the list), then every row.
    if (m_doc && ref.subjectKind == core::SubjectKind::DeviceEvent) {
        const core::LinkSet &links = m_doc->links();
        const core::GpuLinkIndex link = ref.event.in(links.gpuLinkOf.size()) ? links.gpuLinkOf[ref.event]
                                                                             : core::GpuLinkIndex(core::kNone);
        if (link.in(links.findings.gpuOpCount())) {
            const auto [first, last] = links.findings.ofGpuOp(link.get());
            for (const core::Finding *f = first; f != last; ++f)
                if (core::refOf(*f) == ref)
                    return static_cast<int>(links.findings.positionOfGpuOp(link.get()) + static_cast<std::size_t>(f - first));
        }
    }
    for (int row = 0; row < rowCount(); ++row)
        if (core::refOf(finding(row)) == ref)
            return row;
    return -1;
}

core::EventIndex FindingsModel::subjectEvent(int row) const
{
    const core::Finding &f = finding(row);
    return f.subjectKind == core::SubjectKind::DeviceEvent && f.event.in(m_doc->eventCount()) ? f.event
                                                                                              : core::EventIndex(core::kNone);
}

FindingsModel::RowStatus FindingsModel::status(int row) const
{
    if (isResolved(row))
        return RowStatus::Resolved;
    const core::CorrectionSession *session = m_controller->session();
    if (!session || !session->attached())
        return RowStatus::Open;
    const core::Finding &f = finding(row);
    if (session->editor().review().isReviewed(f))
        return RowStatus::Reviewed;
    const core::LinkSet &working = session->working();
    if (f.subjectKind == core::SubjectKind::DeviceEvent && f.event.in(working.gpuLinkOf.size())) {
        const core::GpuLinkIndex link = working.gpuLinkOf[f.event];
        if (link.valid() && working.gpuLinks[link].rule == core::ParentRule::Manual
            && std::binary_search(m_linkedRefs.begin(), m_linkedRefs.end(), core::refOf(f)))
            return RowStatus::Corrected;
    }
    return RowStatus::Open;
}

QString FindingsModel::statusOf(int row) const
{
    switch (status(row)) {
    case RowStatus::Resolved:
        return tr("resolved");
    case RowStatus::Reviewed:
        return tr("reviewed");
    case RowStatus::Corrected:
        return tr("corrected");
    case RowStatus::Open:
        break;
    }
    return tr("open");
}

QString FindingsModel::messageOf(int row) const
{
    const core::Nanos origin = m_doc->startTime();
    const auto format = [](core::Nanos t) { return formatDuration(t).toStdString(); };
    return QString::fromStdString(core::retimeMessage(finding(row).message, origin, format, format));
}

QString FindingsModel::groupTitle(const core::FindingCause &cause, std::size_t count) const
{
    return m_doc ? QString::fromStdString(core::describeCause(cause, count, m_doc->device())) : QString();
}

std::array<int, core::kFindingKindCount> FindingsModel::countsByKind() const
{
    std::array<int, core::kFindingKindCount> counts{};
    for (int row = 0; row < rowCount(); ++row)
        ++counts[static_cast<std::size_t>(finding(row).kind)];
    return counts;
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const core::Finding &f = finding(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind:
            return fromStd(core::findingKindName(f.kind));
        case Severity:
            return fromStd(core::findingSeverityName(f.severity));
        case Subject: {
            const core::EventIndex e = subjectEvent(index.row());
            if (e.valid())
                return m_doc->eventName(e);
            if (f.subjectKind == core::SubjectKind::HostNode && m_doc->host() && m_doc->host()->contains(f.hostNode))
                return tr("ET node %1").arg(m_doc->host()->node(f.hostNode).id);
            return tr("trace");
        }
        case Status:
            return statusOf(index.row());
        case Message:
            return messageOf(index.row());
        case Suggestion:
            return QString::fromStdString(f.suggestion);
        }
        break;
    case Qt::ToolTipRole:
        return messageOf(index.row())
               + (f.suggestion.empty() ? QString() : QStringLiteral("\n→ ") + QString::fromStdString(f.suggestion));
    case SortRole:
        if (index.column() == Severity)
            return static_cast<int>(f.severity);
        return data(index, Qt::DisplayRole);
    case FindingRole:
        return index.row();
    case SubjectEventRole:
        return static_cast<qulonglong>(subjectEvent(index.row()).value);
    case KindRole:
        return static_cast<int>(f.kind);
    case OpenRole:
        return isOpen(index.row());
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind:
        return tr("Kind");
    case Severity:
        return tr("Severity");
    case Subject:
        return tr("Subject");
    case Status:
        return tr("Status");
    case Message:
        return tr("Message");
    case Suggestion:
        return tr("Suggestion");
    }
    return {};
}

} // namespace linkscope::ui
