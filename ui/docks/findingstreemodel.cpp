#include "docks/findingstreemodel.h"

#include "ground/fromstd.h"

#include "ground/timeformat.h"

#include <algorithm>

namespace linkscope::ui {

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

} // namespace linkscope::ui
