#pragma once
// The job overview: one row per rank on the job's aligned time axis (core/job/timing.h clock
// offsets), each rank's GPU streams summarised as busy bands (core/job/rankoverview.h) and its
// collectives drawn on them, coloured by type. Selecting a collective highlights the same
// collective on every rank (JobReport::callsAt), draws the match across the rows, and names its
// arrival skew and the last-arriving rank; ranks that arrive last far more often than their share
// are stragglers and their header is tinted. Ctrl+wheel zooms at the cursor, Shift+wheel or a drag
// pans, the wheel scrolls the rows, double-click on a rank opens its full lanes (rankActivated).
// In critical-path mode it draws a rank's predicted critical path across the rows (jobpath.h).

#include "ground/jobloader.h"
#include "jobview/joboverviewmarks.h"
#include "prediction/jobpath.h"
#include "timeline/timelinebookmarks.h"
#include "timeline/timelineviewstate.h"

#include <QWidget>

class QScrollBar;

#include <optional>
#include <set>

namespace linkscope::ui {

class JobOverview : public QWidget {
    Q_OBJECT
public:
    static constexpr int kHeaderWidth = 176;
    static constexpr int kRulerHeight = 22;
    static constexpr int kInfoHeight = 20;

    explicit JobOverview(QWidget *parent = nullptr);

    // `job` may hold a part of the ranks (while loading); times are unaligned until it has a report.
    void setJob(JobPtr job);
    const JobPtr &job() const { return m_job; }
    // What the overview says while it has no rank to draw ("Reading 8 ranks…", why none opened).
    void setPlaceholder(const QString &text);
    QString placeholder() const { return m_placeholder; }

    struct Selection {
        QString group;
        qint64 index = -1;    // position in the group's sequence; -1: one call alone
        qint64 rank = -1;     // the rank clicked (or -1)
        std::size_t call = 0; // its call (when index is -1)
    };
    const std::optional<Selection> &selection() const { return m_selection; }
    // Selects position `index` of `group` on every rank (emits collectiveSelected); frames it when asked.
    void selectCollective(const QString &group, qint64 index, bool frame);
    void clearSelection();
    void setHighlightedRanks(const std::vector<qint64> &ranks);
    // The rank whose full lanes are open below (its header says so); -1 none.
    void setOpenRank(qint64 rank);
    qint64 openRank() const { return m_openRank; }
    // The rank the job dock's buttons act on (its header is outlined); -1 none. A click on a row
    // (its label or its lanes) picks it and emits rankClicked.
    void setSelectedRank(qint64 rank);
    qint64 selectedRank() const { return m_selectedRank; }
    // The view spans every rank's extent.
    void frameAll();
    // The view spans [start, end) (aligned ns) with a margin.
    void frameRange(qint64 start, qint64 end);
    // The window shown (aligned ns): the overview's own until the job's window (RankPanes::jobWindow)
    // is set, which it then shares with every view of a rank — they pan and zoom together.
    TimelineViewState *viewState() const { return m_state; }
    void setViewState(TimelineViewState *state);

    // The bookmarks of the ranks shown (RankPanes::bookmarksShared: aligned ns, named with their rank),
    // drawn across the rows as on the ranks' timelines.
    void setBookmarks(core::BookmarkList bookmarks);
    const TimelineBookmarks &bookmarkOverlay() const { return m_bookmarks; }

    // Tests: where rank `rank`'s row is (null if not shown) and where its call sits (aligned ns).
    QRect rowRect(qint64 rank) const;
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    std::optional<std::pair<qint64, qint64>> alignedCall(qint64 rank, std::size_t call) const;
    // Stragglers (StragglerCount::straggler): last at least 3 times and more than twice what chance gives.
    const std::set<qint64> &stragglers() const { return m_stragglers; }
    // The text under the ruler for the selection ("all_reduce #12 in group 0: skew 1.2 ms, last rank 5").
    QString selectionText() const;
    // The critical path drawn across the rows (null: none), and what the info line says of it.
    void setCriticalPath(std::shared_ptr<const PlacedPath> path, const QString &legend);
    const std::shared_ptr<const PlacedPath> &criticalPath() const { return m_path; }
    // The ranks whose rows got a segment of the path in the last paint.
    const std::set<std::int64_t> &pathRanksDrawn() const { return m_pathDrawn; }
    // Where a rank did not issue a collective of its group (marked on its row, selected or not).
    const std::vector<MissingCollective> &missingMarks() const { return m_missing; }

signals:
    void collectiveSelected(const QString &group, qint64 index);
    void rankActivated(qint64 rank);
    void rankClicked(qint64 rank);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Row {
        qint64 rank = -1;
        const core::job::RankSummary *summary = nullptr;
        qint64 offset = 0; // the rank's clock minus the reference's
    };
    QRect contentRect() const;
    void syncScrollBar();
    int rowHeight() const;
    int rowTop(int row) const;
    int rowAt(int y) const;
    double nanosPerPixel() const;
    qint64 alignedStart() const;
    qint64 alignedEnd() const;
    // The call under (x, y) in row `row`, or -1.
    long callAt(int row, int x) const;
    void setView(qint64 start, qint64 end);
    void clampScroll();
    QColor kindColour(core::job::CallKind kind) const;
    const MissingCollective *missingAt(qint64 rank, int x) const;
    struct Frame; // one paint's colours, scale and scratch (joboverview.cpp)
    void paintInfoLine(Frame &f) const;
    void paintRowHeader(Frame &f, const Row &row, int top) const;
    void paintStreamBands(Frame &f, const Row &row, int top, QRgb background) const;
    void paintCollectiveBand(Frame &f, const Row &row, int top, QRgb background) const;
    void paintMissingMarks(Frame &f, const Row &row, int top) const;

    JobPtr m_job;
    QString m_placeholder;
    std::vector<Row> m_rows;
    std::set<qint64> m_stragglers;
    std::vector<MissingCollective> m_missing;
    std::set<qint64> m_highlighted;
    qint64 m_openRank = -1;
    qint64 m_selectedRank = -1;
    std::optional<Selection> m_selection;
    std::vector<std::pair<std::int64_t, std::size_t>> m_selectedCalls; // (rank, call) of the selection
    TimelineViewState *m_state;
    int m_scroll = 0; // rows scrolled past
    QScrollBar *m_scrollBar = nullptr;
    bool m_dragging = false;
    bool m_dragged = false;
    QPoint m_dragOrigin;
    qint64 m_dragViewStart = 0;
    std::shared_ptr<const PlacedPath> m_path;
    QString m_pathLegend;
    std::set<std::int64_t> m_pathDrawn;
    TimelineBookmarks m_bookmarks;
};

} // namespace linkscope::ui
