#pragma once
// What the job overview draws besides its rows, kept apart from its painting loop:
//  * JobOverviewLegend, a strip under the overview naming its marks: a GPU stream's busy band, the
//    colour of each collective kind the job has (the overview colours collectives by kind, not as
//    the timeline's "NCCL kernel" red), the launch tick (the arrival) and the missing-collective mark;
//  * missingCollectives(), where a rank did not issue a collective the other members of its group
//    did (a missing_collective finding): the span of the others' calls on the aligned clock, which
//    the overview marks on that rank's row whether or not the finding is selected.

#include "ground/jobloader.h"

#include <QColor>
#include <QWidget>

#include <vector>

namespace linkscope::ui {

// The overview's colours, one home for the rows and the legend.
QColor callKindColour(core::job::CallKind kind);
QColor busyBandColour();
QColor missingMarkColour();

struct MissingCollective {
    std::int64_t rank = -1; // the rank that did not issue it
    std::int64_t start = 0; // the others' earliest launch, aligned ns
    std::int64_t end = 0;   // their latest kernel end
    QString label;          // "all_reduce #12 in group 5"
};
std::vector<MissingCollective> missingCollectives(const JobDocument &job);

class JobOverviewLegend : public QWidget {
    Q_OBJECT
public:
    explicit JobOverviewLegend(QWidget *parent = nullptr);
    // The kinds listed are those the job's ranks issued (null: none).
    void setJob(const JobPtr &job);
    QStringList entries() const; // tests: the legend's labels, in order
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    struct Entry {
        QString text;
        QColor colour;
        enum Shape { Box, Tick, Missing } shape = Box;
    };
    std::vector<Entry> m_entries;
};

} // namespace linkscope::ui
