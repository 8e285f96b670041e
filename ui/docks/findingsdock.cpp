#include "docks/findingsdock.h"

#include "edit/linkchange.h"

#include "docks/elidedelegate.h"

#include "review/correctioncontroller.h"
#include "review/storypanel.h"
#include "timeline/eventselection.h"
#include "timeline/timeformat.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace linkscope::ui {

namespace {
QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
} // namespace

// ---- model ----------------------------------------------------------------------------------

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
    const core::LinkSetChange change = previous ? core::changeBetween(previous->links(), links) : core::LinkSetChange{};
    if (!was || !change.sameOps || previousCauses.size() < was->size()) {
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
    copyOrDerive(!change.traceWideFindingsChanged, 0, now.traceWide().size(), 0);
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
    for (const auto &[begin, end] : change.gpuOps) {
        run(at, std::min(begin, ops), true);
        run(std::min(begin, ops), std::min(end, ops), false);
        at = std::min(end, ops);
    }
    run(at, ops, true);
    copyOrDerive(!change.hostSideFindingsChanged, perOpEnd, now.size(), wasPerOpEnd);
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

void FindingsFilterModel::setKind(int kind)
{
    m_kind = kind;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setOpenOnly(bool on)
{
    m_openOnly = on;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
    emit filterChanged();
}

void FindingsFilterModel::setEvents(std::optional<std::vector<core::EventIndex>> events)
{
    m_events = std::move(events);
    invalidateFilter();
    emit filterChanged();
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *source = sourceModel();
    const QModelIndex first = source->index(sourceRow, 0, sourceParent);
    if (m_events) {
        const core::EventIndex event(
            static_cast<std::uint32_t>(source->data(first, FindingsModel::SubjectEventRole).toULongLong()));
        if (!std::binary_search(m_events->begin(), m_events->end(), event))
            return false;
    }
    if (m_kind >= 0 && source->data(first, FindingsModel::KindRole).toInt() != m_kind)
        return false;
    if (m_openOnly && !source->data(first, FindingsModel::OpenRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    for (int column : {FindingsModel::Subject, FindingsModel::Message, FindingsModel::Kind})
        if (source->data(source->index(sourceRow, column, sourceParent)).toString().contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

// ---- tree -----------------------------------------------------------------------------------

FindingsTreeModel::FindingsTreeModel(FindingsModel *findings, FindingsFilterModel *filter, QObject *parent)
    : QAbstractItemModel(parent), m_findings(findings), m_filter(filter)
{
    // A new document or an edit (a reset of the findings), a review state change (the statuses,
    // and what "open only" keeps) and each filter change rebuild the tree, once each: the filter's
    // own row signals (one per range it hides or shows) are not followed.
    connect(findings, &QAbstractItemModel::modelReset, this, &FindingsTreeModel::rebuild);
    connect(findings, &QAbstractItemModel::dataChanged, this, &FindingsTreeModel::rebuild);
    connect(filter, &FindingsFilterModel::filterChanged, this, &FindingsTreeModel::rebuild);
    rebuild();
}

void FindingsTreeModel::rebuild()
{
    beginResetModel();
    m_nodes.clear();
    m_top.clear();
    m_nodeOfFinding.assign(static_cast<std::size_t>(m_findings->rowCount()), -1);
    std::vector<int> rows;
    rows.reserve(static_cast<std::size_t>(m_filter->rowCount()));
    for (int r = 0; r < m_filter->rowCount(); ++r)
        rows.push_back(m_filter->mapToSource(m_filter->index(r, 0)).row());
    std::sort(rows.begin(), rows.end()); // report order, whatever the proxy's
    std::vector<core::FindingCause> causes;
    causes.reserve(rows.size());
    for (int r : rows)
        causes.push_back(m_findings->causeOf(r));
    const std::vector<core::FindingGroup> groups = core::groupFindings(causes);

    auto add = [this](Node node) {
        const int at = static_cast<int>(m_nodes.size());
        if (node.parent >= 0) {
            node.row = static_cast<int>(m_nodes[static_cast<std::size_t>(node.parent)].children.size());
            m_nodes[static_cast<std::size_t>(node.parent)].children.push_back(at);
        } else {
            node.row = static_cast<int>(m_top.size());
            m_top.push_back(at);
        }
        m_nodes.push_back(std::move(node));
        return at;
    };
    int severityNode = -1;
    for (const core::FindingGroup &group : groups) {
        if (severityNode < 0 || m_nodes[static_cast<std::size_t>(severityNode)].severity != group.cause.severity) {
            Node s;
            s.type = SeverityNode;
            s.severity = group.cause.severity;
            severityNode = add(std::move(s));
        }
        int parent = severityNode;
        if (group.members.size() > 1) {
            Node g;
            g.type = GroupNode;
            g.parent = severityNode;
            g.severity = group.cause.severity;
            g.cause = group.cause;
            parent = add(std::move(g));
        }
        for (std::uint32_t m : group.members) {
            Node f;
            f.type = FindingNode;
            f.parent = parent;
            f.finding = rows[m];
            f.severity = group.cause.severity;
            f.cause = group.cause;
            f.total = 1;
            f.open = m_findings->isOpen(f.finding) ? 1 : 0;
            const int at = add(std::move(f));
            m_nodeOfFinding[static_cast<std::size_t>(rows[m])] = at;
            // Counts up the tree.
            for (int p = parent; p >= 0; p = m_nodes[static_cast<std::size_t>(p)].parent) {
                ++m_nodes[static_cast<std::size_t>(p)].total;
                m_nodes[static_cast<std::size_t>(p)].open += m_nodes[static_cast<std::size_t>(at)].open;
            }
        }
    }
    endResetModel();
}

const FindingsTreeModel::Node *FindingsTreeModel::nodeOf(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == 0 || index.internalId() > m_nodes.size())
        return nullptr;
    return &m_nodes[index.internalId() - 1];
}

QModelIndex FindingsTreeModel::indexOfNode(int node, int column) const
{
    if (node < 0)
        return {};
    return createIndex(m_nodes[static_cast<std::size_t>(node)].row, column, quintptr(node) + 1);
}

QModelIndex FindingsTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(m_top.size()) ? indexOfNode(m_top[static_cast<std::size_t>(row)], column) : QModelIndex();
    const Node *p = nodeOf(parent);
    if (!p || parent.column() != 0 || row >= static_cast<int>(p->children.size()))
        return {};
    return indexOfNode(p->children[static_cast<std::size_t>(row)], column);
}

QModelIndex FindingsTreeModel::parent(const QModelIndex &child) const
{
    const Node *n = nodeOf(child);
    return n ? indexOfNode(n->parent) : QModelIndex();
}

int FindingsTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_top.size());
    const Node *p = nodeOf(parent);
    return p && parent.column() == 0 ? static_cast<int>(p->children.size()) : 0;
}

int FindingsTreeModel::columnCount(const QModelIndex &) const { return ColumnCount; }

FindingsTreeModel::NodeType FindingsTreeModel::nodeType(const QModelIndex &index) const
{
    const Node *n = nodeOf(index);
    return n ? n->type : SeverityNode;
}

int FindingsTreeModel::findingRow(const QModelIndex &index) const
{
    const Node *n = nodeOf(index);
    return n && n->type == FindingNode ? n->finding : -1;
}

QModelIndex FindingsTreeModel::indexOfFinding(int findingRow) const
{
    if (findingRow < 0 || static_cast<std::size_t>(findingRow) >= m_nodeOfFinding.size())
        return {};
    return indexOfNode(m_nodeOfFinding[static_cast<std::size_t>(findingRow)]);
}

std::vector<int> FindingsTreeModel::findingRowsUnder(const QModelIndex &index) const
{
    std::vector<int> out;
    const Node *n = nodeOf(index);
    if (!n)
        return out;
    std::vector<const Node *> stack{n};
    while (!stack.empty()) {
        const Node *at = stack.back();
        stack.pop_back();
        if (at->type == FindingNode)
            out.push_back(at->finding);
        for (auto it = at->children.rbegin(); it != at->children.rend(); ++it)
            stack.push_back(&m_nodes[static_cast<std::size_t>(*it)]);
    }
    return out;
}

core::FindingSeverity FindingsTreeModel::severityOf(const QModelIndex &index) const
{
    const Node *n = nodeOf(index);
    return n ? n->severity : core::FindingSeverity::Info;
}

const core::FindingCause *FindingsTreeModel::causeOf(const QModelIndex &index) const
{
    const Node *n = nodeOf(index);
    return n && n->type != SeverityNode ? &n->cause : nullptr;
}

std::vector<QModelIndex> FindingsTreeModel::findingIndexes() const
{
    std::vector<QModelIndex> out;
    out.reserve(m_nodes.size());
    std::vector<int> stack(m_top.rbegin(), m_top.rend());
    while (!stack.empty()) {
        const int at = stack.back();
        stack.pop_back();
        const Node &n = m_nodes[static_cast<std::size_t>(at)];
        if (n.type == FindingNode)
            out.push_back(indexOfNode(at));
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it)
            stack.push_back(*it);
    }
    return out;
}

QVariant FindingsTreeModel::data(const QModelIndex &index, int role) const
{
    const Node *n = nodeOf(index);
    if (!n)
        return {};
    if (n->type == FindingNode) {
        switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
            case Finding:
                return m_findings->messageOf(n->finding);
            case Status:
                return m_findings->statusOf(n->finding);
            case Suggestion:
                return m_findings->data(m_findings->index(n->finding, FindingsModel::Suggestion));
            }
            return {};
        case Qt::ToolTipRole:
            return fromStd(core::findingKindName(m_findings->finding(n->finding).kind)) + QStringLiteral(": ")
                   + m_findings->data(m_findings->index(n->finding, 0), Qt::ToolTipRole).toString();
        case NodeTypeRole:
            return int(n->type);
        default:
            // FindingRole, SubjectEventRole, KindRole, OpenRole: as the flat model says.
            if (role >= FindingsModel::FindingRole && role <= FindingsModel::OpenRole)
                return m_findings->data(m_findings->index(n->finding, 0), role);
            return {};
        }
    }
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == Finding) {
            if (n->type == SeverityNode) {
                const QString name = n->severity == core::FindingSeverity::Error     ? tr("Errors")
                                     : n->severity == core::FindingSeverity::Warning ? tr("Warnings")
                                                                                     : tr("Info");
                return tr("%1 (%L2)").arg(name).arg(n->total);
            }
            return m_findings->groupTitle(n->cause, static_cast<std::size_t>(n->total));
        }
        if (index.column() == Status)
            return n->open == n->total ? tr("%L1 open").arg(n->open) : tr("%L1 of %L2 open").arg(n->open).arg(n->total);
        return {};
    case Qt::ToolTipRole:
        if (n->type == GroupNode)
            return tr("%1: %2 (expand to see each)")
                .arg(fromStd(core::findingKindName(n->cause.kind)),
                     m_findings->groupTitle(n->cause, static_cast<std::size_t>(n->total)));
        return {};
    case Qt::FontRole:
        if (n->type == SeverityNode && index.column() == Finding) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case FindingsModel::FindingRole:
        return -1;
    case FindingsModel::SubjectEventRole:
        return static_cast<qulonglong>(core::EventIndex::kNoneValue);
    case FindingsModel::KindRole:
        return n->type == GroupNode ? int(n->cause.kind) : -1;
    case NodeTypeRole:
        return int(n->type);
    }
    return {};
}

QVariant FindingsTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case Finding:
        return tr("Finding");
    case Status:
        return tr("Status");
    case Suggestion:
        return tr("Suggestion");
    }
    return {};
}

// ---- dock -----------------------------------------------------------------------------------

FindingsDock::FindingsDock(CorrectionController *controller, EventSelection *selection, QWidget *parent)
    : QDockWidget(tr("Findings"), parent), m_controller(controller), m_selection(selection),
      m_model(new FindingsModel(controller, this)), m_filter(new FindingsFilterModel(this))
{
    setObjectName(QStringLiteral("FindingsDock"));
    m_filter->setSourceModel(m_model);
    m_tree = new FindingsTreeModel(m_model, m_filter, this);

    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *filters = new QHBoxLayout;
    m_kindBox = new QComboBox(body);
    m_kindBox->setToolTip(tr("Show one kind of finding (the count of each is in brackets)"));
    m_search = new QLineEdit(body);
    m_search->setPlaceholderText(tr("Filter by name or message"));
    m_search->setClearButtonEnabled(true);
    m_search->installEventFilter(this);
    m_openOnly = new QCheckBox(tr("Open only"), body);
    m_openOnly->setToolTip(tr("Hide findings resolved by the corrections, reviewed or corrected"));
    m_countLabel = new QLabel(body);
    filters->addWidget(m_kindBox, 2);
    filters->addWidget(m_search, 3);
    filters->addWidget(m_openOnly);
    filters->addWidget(m_countLabel);
    m_story = new StoryPanel(body);
    layout->addWidget(m_story);
    layout->addLayout(filters);
    m_eventFilterBar = new QWidget(body);
    auto *eventFilter = new QHBoxLayout(m_eventFilterBar);
    eventFilter->setContentsMargins(0, 0, 0, 0);
    m_eventFilterLabel = new QLabel(m_eventFilterBar);
    auto *clearEvents = new QPushButton(tr("Show all"), m_eventFilterBar);
    clearEvents->setToolTip(tr("Show the findings of every event again"));
    eventFilter->addWidget(m_eventFilterLabel, 1);
    eventFilter->addWidget(clearEvents);
    m_eventFilterBar->hide();
    layout->addWidget(m_eventFilterBar);
    connect(clearEvents, &QPushButton::clicked, this, &FindingsDock::clearEventFilter);

    m_view = new QTreeView(body);
    m_view->setModel(m_tree);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setUniformRowHeights(true); // thousands of rows under one group stay cheap
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle); // kernel names are long: keep both ends
    m_view->installEventFilter(this);
    // Columns that fit: the finding takes what the status does not, the suggestion a third.
    QHeaderView *header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(FindingsTreeModel::Finding, QHeaderView::Stretch);
    header->setSectionResizeMode(FindingsTreeModel::Status, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(FindingsTreeModel::Suggestion, QHeaderView::Interactive);
    header->resizeSection(FindingsTreeModel::Suggestion, 460);
    // A suggestion is a sentence ("Re-parent to … under …"): cut at its end, not in its middle.
    m_view->setItemDelegateForColumn(FindingsTreeModel::Suggestion, new ElideRightDelegate(m_view));
    // A job's cross-rank findings above the open rank's own (hidden until a job is open).
    auto *split = new QSplitter(Qt::Vertical, body);
    m_jobPanel = new QWidget(split);
    auto *jobLayout = new QVBoxLayout(m_jobPanel);
    jobLayout->setContentsMargins(0, 0, 0, 0);
    m_jobLabel = new QLabel(m_jobPanel);
    m_jobLabel->setWordWrap(true);
    m_jobFindings = new JobFindingsList(m_jobPanel);
    jobLayout->addWidget(m_jobLabel);
    jobLayout->addWidget(m_jobFindings, 1);
    m_rankLabel = new QLabel(m_jobPanel);
    jobLayout->addWidget(m_rankLabel);
    m_jobPanel->hide();
    split->addWidget(m_jobPanel);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    connect(m_jobFindings, &JobFindingsList::findingActivated, this, &FindingsDock::jobFindingActivated);

    auto *buttons = new QHBoxLayout;
    auto *prev = new QPushButton(tr("◀ Previous"), body);
    auto *next = new QPushButton(tr("Next ▶"), body);
    prev->setToolTip(tr("Previous finding (Shift+N, Shift+F8)"));
    next->setToolTip(tr("Next finding (N, F8)"));
    m_applyButton = new QPushButton(tr("Apply suggestion"), body);
    m_applyAllButton = new QPushButton(tr("Apply to all of this kind"), body);
    m_reviewedButton = new QPushButton(tr("Mark reviewed"), body);
    m_flagButton = new QPushButton(tr("Flag…"), body);
    m_applyAllButton->setToolTip(tr("Re-parent every finding of this kind to its suggested parent, as one undoable step"));
    for (QPushButton *b : {prev, next, m_applyButton, m_applyAllButton, m_reviewedButton, m_flagButton})
        buttons->addWidget(b);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    setWidget(body);

    connect(prev, &QPushButton::clicked, this, &FindingsDock::previous);
    connect(next, &QPushButton::clicked, this, &FindingsDock::next);
    connect(m_applyButton, &QPushButton::clicked, this, &FindingsDock::applySuggestion);
    connect(m_applyAllButton, &QPushButton::clicked, this, &FindingsDock::applySuggestionToKind);
    connect(m_reviewedButton, &QPushButton::clicked, this, &FindingsDock::markReviewed);
    connect(m_flagButton, &QPushButton::clicked, this, &FindingsDock::flag);
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
        updateButtons();
    });
    connect(m_search, &QLineEdit::textChanged, m_filter, &FindingsFilterModel::setText);
    connect(m_openOnly, &QCheckBox::toggled, m_filter, &FindingsFilterModel::setOpenOnly);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { onCurrentChanged(current); });
    connect(m_selection, &EventSelection::changed, this, &FindingsDock::onSelectionChanged);
    // The user's folding survives every rebuild (each edit, each filter).
    connect(m_view, &QTreeView::expanded, this, [this](const QModelIndex &index) {
        if (m_restoring)
            return;
        m_expanded.insert(expansionKey(index));
        m_collapsed.remove(expansionKey(index));
    });
    connect(m_view, &QTreeView::collapsed, this, [this](const QModelIndex &index) {
        if (m_restoring)
            return;
        m_expanded.remove(expansionKey(index));
        m_collapsed.insert(expansionKey(index));
    });
    // Every edit publishes new findings: the current row stays on the same finding (kind, subject),
    // or the same group. Taken before the findings reset (after it, the tree's rows are stale).
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const int f = currentFinding();
        m_keepCurrent = f >= 0 ? std::optional<core::FindingRef>(core::refOf(m_model->finding(f))) : std::nullopt;
        m_keepCurrentKey = f < 0 && m_view->currentIndex().isValid() ? expansionKey(m_view->currentIndex()) : QString();
        m_keepTaken = true;
    });
    connect(m_tree, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        if (m_keepTaken)
            return;
        const int f = currentFinding();
        m_keepCurrent = f >= 0 ? std::optional<core::FindingRef>(core::refOf(m_model->finding(f))) : std::nullopt;
        m_keepCurrentKey = f < 0 && m_view->currentIndex().isValid() ? expansionKey(m_view->currentIndex()) : QString();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &FindingsDock::updateKinds);
    connect(m_tree, &QAbstractItemModel::modelReset, this, [this] {
        restoreExpansion();
        QModelIndex at;
        if (m_keepCurrent) {
            const int row = m_model->rowOf(*m_keepCurrent);
            at = row >= 0 ? m_tree->indexOfFinding(row) : QModelIndex();
        } else if (!m_keepCurrentKey.isEmpty()) {
            for (int s = 0; s < m_tree->rowCount() && !at.isValid(); ++s) {
                const QModelIndex severity = m_tree->index(s, 0);
                if (expansionKey(severity) == m_keepCurrentKey)
                    at = severity;
                for (int g = 0; g < m_tree->rowCount(severity) && !at.isValid(); ++g)
                    if (expansionKey(m_tree->index(g, 0, severity)) == m_keepCurrentKey)
                        at = m_tree->index(g, 0, severity);
            }
        }
        m_keepCurrent.reset();
        m_keepCurrentKey.clear();
        m_keepTaken = false;
        if (at.isValid()) {
            m_syncing = true;
            m_view->setCurrentIndex(at);
            m_syncing = false;
        }
        updateButtons();
    });
    connect(m_controller, &CorrectionController::changed, this, &FindingsDock::updateButtons);
    updateKinds();
    restoreExpansion();
}

QString FindingsDock::expansionKey(const QModelIndex &index) const
{
    const core::FindingCause *cause = m_tree->causeOf(index);
    if (m_tree->nodeType(index) == FindingsTreeModel::SeverityNode || !cause)
        return QStringLiteral("s%1").arg(int(m_tree->severityOf(index)));
    return QStringLiteral("g%1/%2/%3/%4/%5")
        .arg(int(cause->severity))
        .arg(int(cause->kind))
        .arg(int(cause->detail))
        .arg(cause->name)
        .arg(cause->otherName);
}

void FindingsDock::restoreExpansion()
{
    // Errors and warnings unfolded, info folded away, groups folded: unless the user chose otherwise.
    m_restoring = true;
    for (int s = 0; s < m_tree->rowCount(); ++s) {
        const QModelIndex severity = m_tree->index(s, 0);
        const QString key = expansionKey(severity);
        const bool byDefault = m_tree->severityOf(severity) != core::FindingSeverity::Info;
        m_view->setExpanded(severity, m_expanded.contains(key) || (byDefault && !m_collapsed.contains(key)));
        for (int g = 0; g < m_tree->rowCount(severity); ++g) {
            const QModelIndex group = m_tree->index(g, 0, severity);
            if (m_tree->nodeType(group) == FindingsTreeModel::GroupNode)
                m_view->setExpanded(group, m_expanded.contains(expansionKey(group)));
        }
    }
    m_restoring = false;
}

int FindingsDock::currentFinding() const { return m_tree->findingRow(m_view->currentIndex()); }

bool FindingsDock::setCurrentFinding(int row)
{
    const QModelIndex at = m_tree->indexOfFinding(row);
    if (!at.isValid())
        return false;
    for (QModelIndex p = at.parent(); p.isValid(); p = p.parent())
        m_view->expand(p);
    m_view->setCurrentIndex(at);
    m_view->scrollTo(at);
    return true;
}

void FindingsDock::returnFocus()
{
    if (m_focusHome)
        m_focusHome->setFocus(Qt::OtherFocusReason);
}

bool FindingsDock::eventFilter(QObject *watched, QEvent *event)
{
    if ((watched == m_view || watched == m_search) && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape) {
            returnFocus();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            // On a severity or group row Enter folds or unfolds it, and the keyboard stays here.
            const QModelIndex current = m_view->currentIndex();
            if (watched == m_view && current.isValid() && m_tree->nodeType(current) != FindingsTreeModel::FindingNode) {
                m_view->setExpanded(current.siblingAtColumn(0), !m_view->isExpanded(current.siblingAtColumn(0)));
                return true;
            }
            returnFocus();
            return true;
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

void FindingsDock::updateKinds()
{
    const QVariant keep = m_kindBox->currentData();
    const auto counts = m_model->countsByKind();
    QSignalBlocker block(m_kindBox);
    m_kindBox->clear();
    // As the status line counts them (the open findings of the links shown), plus those your
    // corrections resolved, which the list keeps.
    int resolved = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        resolved += m_model->isResolved(row) ? 1 : 0;
    m_kindBox->addItem(resolved ? tr("All kinds (%L1 + %L2 resolved)").arg(m_model->rowCount() - resolved).arg(resolved)
                                : tr("All kinds (%L1)").arg(m_model->rowCount()));
    for (int k = 0; k < core::kFindingKindCount; ++k)
        if (counts[static_cast<std::size_t>(k)] > 0)
            m_kindBox->addItem(tr("%1 (%L2)")
                                   .arg(fromStd(core::findingKindName(static_cast<core::FindingKind>(k))))
                                   .arg(counts[static_cast<std::size_t>(k)]),
                               k);
    const int at = keep.isValid() ? m_kindBox->findData(keep) : 0;
    m_kindBox->setCurrentIndex(at < 0 ? 0 : at);
    m_filter->setKind(m_kindBox->currentData().isValid() ? m_kindBox->currentData().toInt() : -1);
    updateButtons();
}

void FindingsDock::showEvents(const QString &title, const std::vector<core::EventIndex> &events)
{
    m_eventFilterTitle = title;
    m_eventFilterCount = events.size();
    std::vector<core::EventIndex> sorted = events;
    std::sort(sorted.begin(), sorted.end());
    m_kindBox->setCurrentIndex(0); // every kind: the GPU ops are the filter
    m_filter->setEvents(std::move(sorted));
    m_eventFilterBar->show();
    updateButtons();
}

void FindingsDock::clearEventFilter()
{
    m_filter->setEvents(std::nullopt);
    m_eventFilterBar->hide();
    updateButtons();
}

std::vector<core::Finding> FindingsDock::openFindingsUnder(const QModelIndex &index) const
{
    std::vector<core::Finding> out;
    for (int row : m_tree->findingRowsUnder(index))
        if (!m_model->isResolved(row) && m_model->statusOf(row) == tr("open"))
            out.push_back(m_model->finding(row));
    return out;
}

void FindingsDock::updateButtons()
{
    m_countLabel->setText(tr("%L1 shown").arg(m_filter->rowCount()));
    if (m_filter->hasEventFilter())
        m_eventFilterLabel->setText(tr("Showing only the findings of %1 (%L2 GPU ops; all of them are in the search results)")
                                        .arg(m_eventFilterTitle)
                                        .arg(m_eventFilterCount));
    const QModelIndex current = m_view->currentIndex();
    const bool group = current.isValid() && m_tree->nodeType(current) == FindingsTreeModel::GroupNode;
    const int f = currentFinding();
    const bool has = f >= 0 && m_controller->ready();
    const bool resolved = has && m_model->isResolved(f);
    const core::Finding *finding = has ? &m_model->finding(f) : nullptr;
    if (group) {
        // A folded group: its open findings with a suggested parent, as one step.
        const std::vector<core::Finding> open = openFindingsUnder(current);
        const auto withSuggestion = std::count_if(open.begin(), open.end(), [](const core::Finding &g) {
            return g.suggestedParent.valid() && g.subjectKind == core::SubjectKind::DeviceEvent;
        });
        m_applyButton->setEnabled(m_controller->ready() && withSuggestion > 0);
        m_applyButton->setText(withSuggestion > 0 ? tr("Apply %L1 suggestions").arg(withSuggestion) : tr("Apply suggestion"));
        m_applyButton->setToolTip(withSuggestion > 0
                                      ? tr("Re-parent the group's open findings to their suggested parents, as one undoable step")
                                      : tr("No open finding of this group has a suggested parent"));
        const core::FindingCause *cause = m_tree->causeOf(current);
        const bool kindHasSuggestions = cause && withSuggestion > 0;
        m_applyAllButton->setEnabled(kindHasSuggestions);
        m_reviewedButton->setEnabled(false);
        m_flagButton->setEnabled(false);
        return;
    }
    m_applyButton->setText(tr("Apply suggestion"));
    // A resolved finding's suggestion is of the linker's links, not the corrected ones: nothing to apply.
    m_applyButton->setEnabled(finding && !resolved && finding->suggestedParent.valid()
                              && finding->subjectKind == core::SubjectKind::DeviceEvent);
    m_applyAllButton->setEnabled(m_applyButton->isEnabled());
    m_applyButton->setToolTip(resolved ? tr("The corrections resolved this finding") : QString());
    m_reviewedButton->setEnabled(has && !resolved);
    m_flagButton->setEnabled(has && m_model->subjectEvent(f).valid());
}

void FindingsDock::onCurrentChanged(const QModelIndex &current)
{
    updateButtons();
    if (m_syncing || !current.isValid())
        return;
    const int f = m_tree->findingRow(current);
    if (f < 0)
        return;
    const core::EventIndex event = m_model->subjectEvent(f);
    if (event.isNone())
        return;
    m_syncing = true;
    m_selection->select(event);
    m_syncing = false;
    emit frameRequested(event, m_model->finding(f).suggestedParent);
}

void FindingsDock::onSelectionChanged(core::EventIndex event)
{
    if (m_syncing || event.isNone())
        return;
    // The current row follows the timeline when the event has a finding; otherwise it stays.
    if (currentFinding() >= 0 && m_model->subjectEvent(currentFinding()) == event)
        return;
    for (int row = 0; row < m_filter->rowCount(); ++row) {
        const QModelIndex index = m_filter->index(row, 0);
        if (core::EventIndex(static_cast<std::uint32_t>(m_filter->data(index, FindingsModel::SubjectEventRole).toULongLong()))
            == event) {
            m_syncing = true;
            setCurrentFinding(m_filter->mapToSource(index).row());
            m_syncing = false;
            return;
        }
    }
}

void FindingsDock::step(int delta)
{
    // Through every finding in tree order, folded ones included (landing on one unfolds it).
    const std::vector<QModelIndex> all = m_tree->findingIndexes();
    if (all.empty())
        return;
    const int rows = static_cast<int>(all.size());
    const int current = currentFinding();
    int at = -1;
    for (int i = 0; i < rows && at < 0; ++i)
        if (m_tree->findingRow(all[static_cast<std::size_t>(i)]) == current)
            at = i;
    int row = at >= 0 ? at + delta : (delta > 0 ? 0 : rows - 1);
    row = (row + rows) % rows; // wraps around, as "next problem" does in editors
    setCurrentFinding(m_tree->findingRow(all[static_cast<std::size_t>(row)]));
}

void FindingsDock::next() { step(1); }
void FindingsDock::previous() { step(-1); }

void FindingsDock::applySuggestion()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid() && m_tree->nodeType(current) == FindingsTreeModel::GroupNode) {
        m_controller->applySuggestions(openFindingsUnder(current));
        return;
    }
    const int f = currentFinding();
    if (f >= 0 && !m_model->isResolved(f))
        m_controller->applySuggestion(m_model->finding(f));
}

void FindingsDock::applySuggestionToKind()
{
    const int f = currentFinding();
    if (f >= 0) {
        m_controller->applySuggestionToKind(m_model->finding(f).kind);
        return;
    }
    if (const core::FindingCause *cause = m_tree->causeOf(m_view->currentIndex()))
        m_controller->applySuggestionToKind(cause->kind);
}

void FindingsDock::markReviewed()
{
    const int f = currentFinding();
    if (f >= 0)
        m_controller->markReviewed(m_model->finding(f));
}

void FindingsDock::flag()
{
    const int f = currentFinding();
    if (f < 0 || m_model->subjectEvent(f).isNone())
        return;
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Flag the link as wrong"), tr("Note:"), QLineEdit::Normal,
                                               QString::fromStdString(m_model->finding(f).message), &ok);
    if (ok)
        m_controller->flag(m_model->subjectEvent(f), text);
}

void FindingsDock::setJob(const JobPtr &job)
{
    m_jobFindings->setJob(job);
    m_jobPanel->setVisible(job != nullptr);
    // A job without findings needs only the line saying so; a list takes at most about five rows.
    m_jobFindings->setVisible(m_jobFindings->findingCount() > 0);
    m_jobFindings->setMaximumHeight(m_jobFindings->header()->sizeHint().height()
                                    + m_jobFindings->fontMetrics().height() * 7 / 5 * std::min(m_jobFindings->findingCount(), 5)
                                    + 8);
    if (job)
        m_jobLabel->setText(tr("<b>Across ranks</b> — %1 in %2 (%3)")
                                .arg(m_jobFindings->summary(), job->folder.toHtmlEscaped(), ranksText(job->report.ranks.size())));
    setOpenRank(m_openRank);
}

void FindingsDock::setOpenRank(qint64 rank)
{
    m_openRank = rank;
    m_rankLabel->setVisible(rank >= 0);
    m_rankLabel->setText(tr("<b>Rank %1</b> — the findings of its links, below").arg(rank));
}

} // namespace linkscope::ui
