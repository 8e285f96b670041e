#pragma once
// Where a rank of the open job did not issue a collective the other members of its group issued (a
// missing_collective finding), on that rank's own lanes: a dashed red band across the lanes over the
// span the others ran it in (the job overview draws the same mark on the rank's row,
// joboverviewmarks.h), with its name at the top and a tooltip. A layer of its own over a timeline
// (a transparent child widget that follows the view's size and time window), so the timeline's
// painting is not touched; RankPanes sets the marks of every view that shows a rank of the job.

#include "model/common.h"

#include <QRectF>
#include <QString>
#include <QWidget>

#include <vector>

class QPainter;

namespace linkscope::ui {

class TimelineView;

class MissingCollectiveMarks : public QWidget {
    Q_OBJECT
public:
    struct Mark {
        core::Nanos start = 0; // the view's document clock
        core::Nanos end = 0;
        QString label; // "all_reduce #12 in group 5"
    };

    // The marks layer of `view`, made on first use (a child of the view).
    static MissingCollectiveMarks *of(TimelineView *view);

    void setMarks(std::vector<Mark> marks);
    const std::vector<Mark> &marks() const { return m_marks; }
    // The marks the last paint drew, widget (= view) coordinates, for tests and hit tests.
    struct Painted {
        std::size_t index = 0;
        QRectF band;
    };
    const std::vector<Painted> &painted() const { return m_painted; }
    // Paints the marks in view now (paintEvent calls it) and returns what was drawn.
    void paintOn(QPainter &painter);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    explicit MissingCollectiveMarks(TimelineView *view);
    TimelineView *m_view;
    std::vector<Mark> m_marks;
    std::vector<Painted> m_painted;
};

} // namespace linkscope::ui
