#include "prediction/jobpath.h"

#include "ground/eventstyle.h"

#include "jobmodel/processgroups.h"

#include <QPainter>
#include <QRect>

#include <algorithm>
#include <limits>
#include <map>

namespace linkscope::ui {

using namespace core::predict;
using core::job::CallKind;

namespace {

constexpr std::int64_t kUnknown = core::job::kUnknownTime;

bool pointToPoint(CallKind kind) { return kind == CallKind::Send || kind == CallKind::Recv; }

// Per collective node of one rank (position → index into the rank's RankSummary::calls, or -1): the
// n-th collective of a group in the graph is the n-th call of that group in the trace, when the
// kinds agree.
std::map<std::uint32_t, std::size_t> matchCollectives(const SimJob &job, const SimRank &rank,
                                                      const core::job::RankSummary &summary)
{
    const std::int64_t world = core::job::processGroupId("0");
    std::map<std::int64_t, std::vector<std::size_t>> callsOf; // group id → calls in issue order
    for (std::size_t c = 0; c < summary.calls.size(); ++c)
        if (!pointToPoint(summary.calls[c].kind))
            callsOf[summary.calls[c].processGroup.empty() ? world : core::job::processGroupId(summary.calls[c].processGroup)]
                .push_back(c);
    std::map<std::int64_t, std::size_t> seen;
    std::map<std::uint32_t, std::size_t> out;
    for (std::uint32_t n = 0; n < rank.nodes.size(); ++n) {
        const SimNode &node = rank.nodes[n];
        if (node.kind != NodeKind::Collective || node.comm < 0)
            continue;
        const SimComm &comm = rank.comms[static_cast<std::size_t>(node.comm)];
        const std::int64_t group = comm.group >= 0 && static_cast<std::size_t>(comm.group) < job.groupIds.size()
                                       ? job.groupIds[static_cast<std::size_t>(comm.group)]
                                       : world;
        const std::size_t ordinal = seen[group]++;
        const auto calls = callsOf.find(group);
        if (calls == callsOf.end() || ordinal >= calls->second.size())
            continue;
        const std::size_t call = calls->second[ordinal];
        if (summary.calls[call].kind == comm.kind)
            out[n] = call;
    }
    return out;
}

struct Anchor {
    std::int64_t sim, measured;
};

// The longest chain of anchors increasing in both times (patience sorting on the measured time).
std::vector<Anchor> monotone(std::vector<Anchor> anchors)
{
    std::sort(anchors.begin(), anchors.end(), [](const Anchor &a, const Anchor &b) {
        return a.sim != b.sim ? a.sim < b.sim : a.measured > b.measured; // equal sim: at most one kept
    });
    std::vector<std::size_t> tails, previous(anchors.size(), std::numeric_limits<std::size_t>::max());
    for (std::size_t i = 0; i < anchors.size(); ++i) {
        const auto it = std::lower_bound(tails.begin(), tails.end(), anchors[i].measured,
                                         [&](std::size_t t, std::int64_t m) { return anchors[t].measured < m; });
        if (it != tails.begin())
            previous[i] = *(it - 1);
        if (it == tails.end())
            tails.push_back(i);
        else
            *it = i;
    }
    std::vector<Anchor> out;
    for (std::size_t i = tails.empty() ? previous.size() : tails.back(); i < anchors.size(); i = previous[i])
        out.push_back(anchors[i]);
    std::reverse(out.begin(), out.end());
    return out;
}

// Piecewise-linear from the replay's clock to the aligned one through `anchors` (sorted, increasing).
std::int64_t warp(const std::vector<Anchor> &anchors, std::int64_t sim)
{
    if (anchors.size() < 2)
        return anchors.empty() ? sim : anchors.front().measured + (sim - anchors.front().sim);
    auto hi = std::upper_bound(anchors.begin(), anchors.end(), sim, [](std::int64_t s, const Anchor &a) { return s < a.sim; });
    if (hi == anchors.begin())
        hi = anchors.begin() + 1;
    if (hi == anchors.end())
        hi = anchors.end() - 1;
    const Anchor &a = *(hi - 1), &b = *hi;
    const double f = double(sim - a.sim) / double(std::max<std::int64_t>(1, b.sim - a.sim));
    return a.measured + static_cast<std::int64_t>(f * double(b.measured - a.measured));
}

} // namespace

std::set<std::int64_t> PlacedPath::ranks() const
{
    std::set<std::int64_t> out;
    for (const PlacedStep &s : steps)
        out.insert(s.rank);
    return out;
}

const PlacedStep *PlacedPath::stepAt(std::int64_t rank, std::int64_t t, std::int64_t tolerance) const
{
    const PlacedStep *best = nullptr;
    std::int64_t bestDistance = std::numeric_limits<std::int64_t>::max();
    for (const PlacedStep &s : steps) {
        if (s.rank != rank)
            continue;
        const std::int64_t d = t < s.startNs ? s.startNs - t : (t > s.endNs ? t - s.endNs : 0);
        if (d <= tolerance && d < bestDistance) {
            best = &s;
            bestDistance = d;
        }
    }
    return best;
}

PlacedPath placePath(const core::job::JobReport &report, const SimJob &job, const RankPath &path)
{
    PlacedPath out;
    out.rank = path.rank;
    out.stepNs = path.stepNs;
    std::map<std::int32_t, std::map<std::uint32_t, std::size_t>> matched; // per rank index
    std::vector<Anchor> anchors;
    std::int64_t jobStart = std::numeric_limits<std::int64_t>::max(), rankEnd = std::numeric_limits<std::int64_t>::min();
    for (const core::job::RankSummary &s : report.ranks)
        if (s.overview && s.overview->endNs > s.overview->startNs) {
            jobStart = std::min(jobStart, s.overview->startNs - report.timing.offsetOf(s.rank));
            if (s.rank == path.rank)
                rankEnd = s.overview->endNs - report.timing.offsetOf(s.rank);
        }
    for (const PathStep &step : path.steps) {
        if (step.rank < 0 || static_cast<std::size_t>(step.rank) >= job.ranks.size())
            continue;
        const SimRank &rank = job.ranks[static_cast<std::size_t>(step.rank)];
        PlacedStep placed;
        placed.rank = rank.rank;
        placed.node = step.node;
        placed.category = step.category;
        placed.simStartNs = step.startNs;
        placed.simEndNs = step.endNs;
        const SimNode *node = step.node < rank.nodes.size() ? &rank.nodes[step.node] : nullptr;
        if (node)
            placed.name = QString::fromStdString(rank.names[node->name]);
        if (node && node->kind == NodeKind::Collective) {
            ++out.collectives;
            auto found = matched.find(step.rank);
            if (found == matched.end()) {
                const core::job::RankSummary *summary = report.rank(rank.rank);
                found = matched
                            .emplace(step.rank,
                                     summary ? matchCollectives(job, rank, *summary) : std::map<std::uint32_t, std::size_t>{})
                            .first;
            }
            if (const auto call = found->second.find(step.node); call != found->second.end()) {
                const core::job::CollectiveCall &c = report.rank(rank.rank)->calls[call->second];
                const std::int64_t offset = report.timing.offsetOf(rank.rank);
                const std::int64_t start = c.startNs != kUnknown ? c.startNs : c.launchNs;
                if (start != kUnknown && c.endNs != kUnknown && c.endNs >= start) {
                    anchors.push_back({step.startNs, start - offset});
                    anchors.push_back({step.endNs, c.endNs - offset});
                    placed.anchored = true;
                }
            }
        }
        out.steps.push_back(std::move(placed));
    }
    // The ends: the replay starts with the job's first event, the path ends with its rank's last.
    if (jobStart != std::numeric_limits<std::int64_t>::max())
        anchors.push_back({0, jobStart});
    if (rankEnd != std::numeric_limits<std::int64_t>::min())
        anchors.push_back({path.stepNs, rankEnd});
    const std::vector<Anchor> chain = monotone(std::move(anchors));
    std::set<std::int64_t> kept; // sim times that remained anchors
    for (const Anchor &a : chain)
        kept.insert(a.sim);
    for (PlacedStep &s : out.steps) {
        s.startNs = warp(chain, s.simStartNs);
        s.endNs = std::max(s.startNs, warp(chain, s.simEndNs));
        s.anchored = s.anchored && kept.count(s.simStartNs) && kept.count(s.simEndNs);
        out.anchored += s.anchored ? 1 : 0;
    }
    return out;
}

QColor pathCategoryColour(PathCategory category)
{
    switch (category) {
    case PathCategory::Cpu:
        return eventColor(EventStyle::CpuOp);
    case PathCategory::Gpu:
        return eventColor(EventStyle::Kernel);
    case PathCategory::Comm:
        return eventColor(EventStyle::NcclKernel);
    case PathCategory::OtherRank:
        return eventColor(EventStyle::GpuAnnotation);
    case PathCategory::Idle:
        break;
    }
    return QColor(0xa0, 0xa4, 0xaa);
}

std::set<std::int64_t> paintPlacedPath(QPainter &painter, const PlacedPath &path, const QRect &content, int rowHeight,
                                       const std::function<int(std::int64_t)> &rowMiddle,
                                       const std::function<double(std::int64_t)> &xOf)
{
    std::set<std::int64_t> drawn;
    const double band = std::clamp(rowHeight / 4.0, 3.0, 7.0);
    const QColor ink(0x10, 0x10, 0x10);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    // Joins first, under the segments: the previous step's end on its row to the next one's start.
    painter.setPen(QPen(ink, 1.5));
    for (std::size_t i = 1; i < path.steps.size(); ++i) {
        const PlacedStep &a = path.steps[i - 1], &b = path.steps[i];
        if (a.rank == b.rank)
            continue;
        const int ya = rowMiddle(a.rank), yb = rowMiddle(b.rank);
        if (ya < 0 && yb < 0)
            continue;
        const double xa = xOf(a.endNs), xb = xOf(b.startNs);
        const double top = content.top(), bottom = content.bottom();
        painter.drawLine(QPointF(xa, ya < 0 ? (yb > ya ? top : bottom) : ya),
                         QPointF(xb, yb < 0 ? (ya > yb ? top : bottom) : yb));
        if (yb >= 0) // the end the path goes on from
            painter.drawEllipse(QPointF(xb, yb), 2.5, 2.5);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
    for (const PlacedStep &s : path.steps) {
        const int y = rowMiddle(s.rank);
        if (y < 0)
            continue;
        const double x0 = xOf(s.startNs), x1 = std::max(x0 + 1.5, xOf(s.endNs));
        if (x1 < content.left() || x0 > content.right())
            continue;
        drawn.insert(s.rank);
        const QRectF r(x0, y - band / 2, x1 - x0, band);
        painter.fillRect(r.adjusted(0, -1, 0, 1), ink); // a dark edge: the path reads over busy bands
        painter.fillRect(r, pathCategoryColour(s.category));
        if (s.anchored) { // at its measured kernel: outlined
            painter.setPen(QPen(ink, 1));
            painter.drawRect(r);
        }
    }
    painter.restore();
    return drawn;
}

} // namespace linkscope::ui
