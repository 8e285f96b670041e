#pragma once
// A job's cross-rank findings as a list (severity, kind, process group, position, ranks, message),
// one row per JobFinding in report order. The job dock and the Findings dock ("Across ranks") each
// show one; the main window keeps the two on the same row. A job without findings shows one
// disabled row saying what was checked.

#include "ground/jobloader.h"

#include <QTreeWidget>

namespace linkscope::ui {

class JobFindingsList : public QTreeWidget {
    Q_OBJECT
public:
    explicit JobFindingsList(QWidget *parent = nullptr);

    void setJob(const JobPtr &job);
    // The number of findings shown (0 for a job without any, or no job).
    int findingCount() const { return m_count; }
    // The finding in the current row (a JobReport::findings index), or -1.
    int currentFinding() const;
    // Makes `row` current without emitting findingActivated; -1 clears.
    void setCurrentFinding(int row);
    // One line for a status area: "3 cross-rank findings: 2 errors, 1 warning" / "no cross-rank findings".
    QString summary() const;

signals:
    // The user made finding `row` current (click or keys).
    void findingActivated(int row);

private:
    int m_count = 0;
    int m_errors = 0;
    int m_warnings = 0;
    bool m_setting = false;
};

} // namespace linkscope::ui
