#pragma once
// A rank's predicted critical path (core/predict/criticalpath.h) placed on the job overview's
// aligned, measured clock, and drawn across its rank rows. The replay's times are not the trace's:
// each collective step of the path whose node matches a collective of the overview (the rank's
// n-th collective of that process group in the exported graph is the n-th call of the group in the
// rank's trace, of the same kind) is put at that call's measured kernel; the steps between two
// such anchors are spread over the measured time between them in the replay's proportions (the
// replay's time 0 and the path's end anchor the ends: the job's first event and the rank's last).
// Where the path changes rank (a collective's last arrival, a message), a join links the rows.

#include "job/jobrun.h"
#include "predict/criticalpath.h"
#include "predict/simgraph.h"

#include <QColor>
#include <QString>

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

class QPainter;
class QRect;

namespace linkscope::ui {

struct PlacedStep {
    std::int64_t rank = -1;                      // global rank
    std::uint32_t node = core::predict::kNoNode; // position in the rank's SimRank
    core::predict::PathCategory category = core::predict::PathCategory::Cpu;
    std::int64_t simStartNs = 0, simEndNs = 0; // the replay's stretch
    std::int64_t startNs = 0, endNs = 0;       // placed, on the overview's aligned clock
    bool anchored = false;                     // a collective at its measured kernel
    QString name;
};

struct PlacedPath {
    std::int64_t rank = -1;               // whose step the path sets
    std::int64_t stepNs = 0;              // its predicted step
    std::vector<PlacedStep> steps;        // time order
    std::size_t collectives = 0;          // collective steps on the path
    std::size_t anchored = 0;             // of those, at their measured kernel
    std::set<std::int64_t> ranks() const; // the ranks its steps are on
    // The step drawn on `rank`'s row at aligned time `t` (± `tolerance` ns), or null.
    const PlacedStep *stepAt(std::int64_t rank, std::int64_t t, std::int64_t tolerance) const;
};

// Places `path` (of `job`, replayed) over `report`'s ranks; aligned times use the report's clock offsets.
PlacedPath placePath(const core::job::JobReport &report, const core::predict::SimJob &job, const core::predict::RankPath &path);

QColor pathCategoryColour(core::predict::PathCategory category);

// Draws `path` in `content`: `rowMiddle(rank)` is the y of a rank's row middle (nullopt-like -1: not
// shown), `xOf` maps an aligned time to x. Returns the ranks whose rows got a segment.
std::set<std::int64_t> paintPlacedPath(QPainter &painter, const PlacedPath &path, const QRect &content, int rowHeight,
                                       const std::function<int(std::int64_t)> &rowMiddle,
                                       const std::function<double(std::int64_t)> &xOf);

} // namespace linkscope::ui
