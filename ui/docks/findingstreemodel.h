#pragma once
// The Findings dock's tree: severity, folded group of one cause, finding.

#include "docks/findingsfiltermodel.h"
#include "docks/findingsmodel.h"

#include <QAbstractItemModel>

#include <vector>

namespace linkscope::ui {

// The filtered findings as a tree: severity → folded group (two or more findings of one cause) →
// finding; a cause with one finding is a finding row directly under its severity. Rebuilt whenever
// the filter or the findings change.
class FindingsTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Finding, Status, Suggestion, ColumnCount };
    enum NodeType { SeverityNode, GroupNode, FindingNode };
    enum Role { NodeTypeRole = FindingsModel::SortRole + 1 }; // also FindingsModel's Finding/SubjectEvent/Kind roles

    FindingsTreeModel(FindingsModel *findings, FindingsFilterModel *filter, QObject *parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    NodeType nodeType(const QModelIndex &index) const;
    int findingRow(const QModelIndex &index) const;                    // FindingsModel row of a finding node, else -1
    QModelIndex indexOfFinding(int findingRow) const;                  // invalid when filtered out
    std::vector<int> findingRowsUnder(const QModelIndex &index) const; // a group's (or severity's) findings
    core::FindingSeverity severityOf(const QModelIndex &index) const;
    const core::FindingCause *causeOf(const QModelIndex &index) const; // groups and findings
    // Every finding node, in tree order (next / previous step through these).
    std::vector<QModelIndex> findingIndexes() const;

private:
    struct Node {
        NodeType type = FindingNode;
        int parent = -1; // node index
        int row = 0;     // in the parent
        std::vector<int> children;
        int finding = -1; // FindingsModel row (finding nodes)
        core::FindingSeverity severity = core::FindingSeverity::Info;
        core::FindingCause cause;
        int open = 0;  // open findings under it
        int total = 0; // findings under it
    };
public slots:
    void rebuild();

private:
    const Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOfNode(int node, int column = 0) const;

    FindingsModel *m_findings;
    FindingsFilterModel *m_filter;
    std::vector<Node> m_nodes;
    std::vector<int> m_top;           // severity nodes
    std::vector<int> m_nodeOfFinding; // FindingsModel row → node, -1
};

} // namespace linkscope::ui
