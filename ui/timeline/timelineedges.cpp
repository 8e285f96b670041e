#include "timeline/timelineedges.h"

#include "timeline/timelinepalette.h"

#include "ground/eventstyle.h"
#include "ground/timeformat.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace linkscope::ui {

namespace {

constexpr double kBezierOffset = 30.0;
constexpr double kArrowSize = 6.0;
constexpr int kMaxDescendantEdges = 500;

} // namespace

bool TimelineEdgeOverlay::setShowAllInView(bool show)
{
    if (m_showAll == show)
        return false;
    m_showAll = show;
    return true;
}

bool TimelineEdgeOverlay::setKindVisible(core::EdgeKind kind, bool visible)
{
    if (isKindVisible(kind) == visible)
        return false;
    m_kinds.set(static_cast<std::size_t>(kind), visible);
    return true;
}

std::vector<DrawEdgeIndex> TimelineEdgeOverlay::edgesOf(const TraceDocument &doc, core::EventIndex selected, bool incoming) const
{
    std::vector<DrawEdgeIndex> out;
    auto [begin, end] = doc.edgesOf(selected);
    for (const DrawEdgeIndex *it = begin; it != end; ++it) {
        const DrawEdge &edge = doc.edges()[*it];
        if (!isKindVisible(edge.kind))
            continue;
        if ((incoming && edge.to == selected) || (!incoming && edge.from == selected))
            out.push_back(*it);
    }
    std::stable_sort(out.begin(), out.end(),
                     [&](DrawEdgeIndex a, DrawEdgeIndex b) { return doc.edges()[a].kind < doc.edges()[b].kind; });
    return out;
}

void TimelineEdgeOverlay::collect(std::vector<DrawEdgeIndex> &out, const TraceDocument &doc, core::EventIndex selected,
                                  core::Nanos start, core::Nanos end)
{
    out.clear();
    m_inView = 0;
    const auto &edges = doc.edges();
    // 1) The selection's chain: its own edges, and for a CPU op the parent edges of the ops nested
    //    in it, so selecting aten::linear shows the kernels its aten::mm launched.
    if (selected.in(doc.eventCount())) {
        auto [begin, endIt] = doc.edgesOf(selected);
        for (const DrawEdgeIndex *it = begin; it != endIt; ++it)
            if (isKindVisible(edges[*it].kind))
                out.push_back(*it);
        const core::TraceIndex &index = doc.index();
        const core::DeviceEvent &event = doc.event(selected);
        if (isCpuOpCategory(event.category) && selected.in(index.laneOf.size()) && index.laneOf[selected.get()].valid()
            && isKindVisible(core::EdgeKind::Parent)) {
            const LaneRows &rows = doc.laneRows(index.laneOf[selected.get()]);
            int added = 0;
            for (int r = index.depth[selected.get()] + 1; r < rows.rowCount() && added < kMaxDescendantEdges; ++r) {
                const core::Nanos *s = rows.starts.data();
                std::uint32_t i = static_cast<std::uint32_t>(
                    std::lower_bound(s + rows.rowBegin[r], s + rows.rowBegin[r + 1], event.ts) - s);
                for (; i < rows.rowBegin[r + 1] && s[i] < event.end() && added < kMaxDescendantEdges; ++i) {
                    auto [db, de] = doc.edgesOf(rows.events[i]);
                    for (const DrawEdgeIndex *it = db; it != de; ++it)
                        if (edges[*it].kind == core::EdgeKind::Parent && edges[*it].from == rows.events[i]) {
                            out.push_back(*it);
                            ++added;
                        }
                }
            }
        }
    }
    // 2) All edges with an end in view, capped. Up to kExamineLimit candidates are counted
    //    exactly; beyond that the from-side range is sampled with a stride, the count is an
    //    estimate (shown with "~") and the drawn edges are spread over the whole view.
    m_inViewEstimated = false;
    if (m_showAll) {
        const core::DeviceTrace &trace = doc.device();
        auto range = [&](const TraceDocument::EdgeOrder &sorted, bool byFrom) {
            auto key = [&](DrawEdgeIndex id) { return trace.event(byFrom ? edges[id].from : edges[id].to).ts; };
            auto lo = std::lower_bound(sorted.begin(), sorted.end(), start,
                                       [&](DrawEdgeIndex id, core::Nanos t) { return key(id) < t; });
            auto hi = std::upper_bound(lo, sorted.end(), end, [&](core::Nanos t, DrawEdgeIndex id) { return t < key(id); });
            return std::make_pair(lo, hi);
        };
        constexpr std::size_t kExamineLimit = 100'000;
        auto [fromLo, fromHi] = range(doc.edgesByFromTime(), true);
        auto [toLo, toHi] = range(doc.edgesByToTime(), false);
        const std::size_t fromCount = static_cast<std::size_t>(fromHi - fromLo);
        const std::size_t toCount = static_cast<std::size_t>(toHi - toLo);
        std::vector<DrawEdgeIndex> inView;
        if (fromCount + toCount <= kExamineLimit) {
            for (auto it = fromLo; it != fromHi; ++it)
                if (isKindVisible(edges[*it].kind))
                    inView.push_back(*it);
            for (auto it = toLo; it != toHi; ++it) {
                const core::Nanos fromTs = trace.event(edges[*it].from).ts;
                if (isKindVisible(edges[*it].kind) && (fromTs < start || fromTs > end))
                    inView.push_back(*it); // not counted in the first pass
            }
            m_inView = inView.size();
        } else {
            const std::size_t stride = std::max<std::size_t>(1, fromCount / (4 * kEdgeCap));
            std::size_t examined = 0;
            for (std::size_t base = 0; base < fromCount; base += stride) {
                // A scrambled offset inside each stride: a fixed one would lock onto periodic
                // structure (e.g. always the launch edge of each parent/launch/stream triple).
                const std::size_t offset = (base / stride * 2654435761u) % stride;
                const DrawEdgeIndex id = fromLo[static_cast<std::ptrdiff_t>(std::min(base + offset, fromCount - 1))];
                ++examined;
                if (isKindVisible(edges[id].kind))
                    inView.push_back(id);
            }
            m_inView = examined ? static_cast<std::size_t>(double(inView.size()) / examined * fromCount) : 0;
            m_inViewEstimated = true;
        }
        if (inView.size() > static_cast<std::size_t>(kEdgeCap)) {
            // Spread what is drawn over the whole view rather than its left part.
            const double step = double(inView.size()) / kEdgeCap;
            for (int k = 0; k < kEdgeCap; ++k)
                out.push_back(inView[static_cast<std::size_t>(k * step)]);
        } else {
            out.insert(out.end(), inView.begin(), inView.end());
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

EdgeProvenance TimelineEdgeOverlay::drawnProvenance(const DrawEdge &edge, const EventNotes *notes)
{
    if (notes && edge.kind == core::EdgeKind::Parent && notes->isFlagged(edge.to))
        return EdgeProvenance::Flagged;
    return edge.provenance;
}

const TimelineEdgeOverlay::PaintedEdge *TimelineEdgeOverlay::paintedEdge(DrawEdgeIndex edge) const
{
    for (const PaintedEdge &painted : m_painted)
        if (painted.edge == edge)
            return &painted;
    return nullptr;
}

void TimelineEdgeOverlay::paint(QPainter &painter, const TraceDocument &doc, const TimelineLayout &layout,
                                core::EventIndex selected, const QRect &content, core::Nanos start, double nanosPerPixel,
                                int verticalOffset, const EventNotes *notes, int pinnedHeight)
{
    m_painted.clear();
    std::vector<DrawEdgeIndex> ids;
    const core::Nanos end = start + static_cast<core::Nanos>(nanosPerPixel * content.width());
    collect(ids, doc, selected, start, end);
    if (ids.empty())
        return;
    const auto &edges = doc.edges();
    const core::TraceIndex &index = doc.index();
    const core::DeviceTrace &trace = doc.device();
    painter.save();
    painter.setClipRect(content);
    painter.setRenderHint(QPainter::Antialiasing, true);
    auto anchorY = [&](core::EventIndex e) -> TimelineLayout::Anchor {
        if (!e.in(index.laneOf.size()) || index.laneOf[e.get()].isNone())
            return {};
        TimelineLayout::Anchor a = layout.anchorOfEvent(e);
        // Pinned rows (above pinnedHeight) do not scroll; an end scrolled under them points at their edge.
        const bool pinned = a.y < pinnedHeight;
        a.y += content.top() - (pinned ? 0 : verticalOffset);
        if (pinnedHeight > 0 && !pinned)
            a.y = std::max(a.y, content.top() + pinnedHeight);
        return a;
    };
    auto xOf = [&](core::Nanos t) { return content.left() + timeToPixel(t, start, nanosPerPixel); };
    const bool drawHalo = ids.size() <= 200;
    // Hundreds of antialiased curves cost more than a frame; when that many are shown, each one
    // matters less than the overall picture.
    painter.setRenderHint(QPainter::Antialiasing, ids.size() <= 500);
    for (DrawEdgeIndex id : ids) {
        const DrawEdge &edge = edges[id];
        const TimelineLayout::Anchor fromAnchor = anchorY(edge.from);
        const TimelineLayout::Anchor toAnchor = anchorY(edge.to);
        if (!fromAnchor.valid || !toAnchor.valid)
            continue;
        const core::DeviceEvent &src = trace.event(edge.from);
        const core::DeviceEvent &dst = trace.event(edge.to);
        // Where the arrow leaves the source: a parent at the moment its launch call ran (that is
        // the causal point inside a long CPU op); otherwise the source's end, unless the target
        // starts before it (nested or overlapping), then its start.
        core::Nanos fromTime = src.end() <= dst.ts ? src.end() : src.ts;
        core::Nanos toTime = dst.ts;
        if (edge.kind == core::EdgeKind::Sync) {
            // A sync returns when the GPU op finishes: end of the op → end of the waiting call. A
            // GPU op that waits (stream wait event) cannot start before the op it waits for ends:
            // end → start of the waiting op.
            fromTime = src.end();
            toTime = core::isGpuOpCategory(dst.category) ? dst.ts : dst.end();
        } else if (edge.kind == core::EdgeKind::Parent) {
            fromTime = src.ts;
            if (const core::GpuLink *link = doc.gpuLink(edge.to); link && trace.contains(link->launch)) {
                const core::Nanos launchTs = trace.event(link->launch).ts;
                if (launchTs >= src.ts && launchTs <= src.end())
                    fromTime = launchTs;
            }
        }
        const QPointF p0(xOf(fromTime), fromAnchor.y);
        const QPointF p1(xOf(toTime), toAnchor.y);
        // Skip edges entirely off-screen (both ends on the same side).
        if ((p0.x() < content.left() && p1.x() < content.left()) || (p0.x() > content.right() && p1.x() > content.right())
            || (p0.y() < content.top() && p1.y() < content.top()) || (p0.y() > content.bottom() && p1.y() > content.bottom()))
            continue;
        const bool focused = id == m_focused;
        const bool folded = !fromAnchor.exact || !toAnchor.exact;
        QPainterPath path(p0);
        const QPointF c0(p0.x() + kBezierOffset, p0.y());
        const QPointF c1(p1.x() - kBezierOffset, p1.y());
        path.cubicTo(c0, c1, p1);
        QPen pen = edgePen(edge.kind, drawnProvenance(edge, notes), focused);
        if (id == m_hovered)
            pen.setWidthF(pen.widthF() + 1.5);
        if (folded) {
            // An end is folded into a collapsed or hidden lane or group: dimmed, so the user sees
            // that it does not end on the event itself.
            QColor color = pen.color();
            color.setAlpha(kFoldedAlpha);
            pen.setColor(color);
        }
        if (!drawHalo && !focused && id != m_hovered) {
            pen.setWidth(1); // cosmetic 1-px lines take the rasterizer's fast path
            pen.setCosmetic(true);
        }
        // A pale halo keeps the curve readable over dense kernels of any colour (skipped when
        // hundreds of edges are drawn: it doubles the cost and they overlap anyway).
        painter.setBrush(Qt::NoBrush);
        if (drawHalo) {
            painter.setPen(QPen(palette::current().halo, pen.widthF() + 2.5, Qt::SolidLine, Qt::RoundCap));
            painter.drawPath(path);
        }
        painter.setPen(pen);
        painter.drawPath(path);
        painter.setPen(Qt::NoPen);
        painter.setBrush(pen.color());
        // A folded end: a ring on the stand-in row (the lane's row, the group's header, or the line
        // where a hidden group would be), drawn even among many edges (there are few of them).
        auto ring = [&](const QPointF &at) {
            painter.save();
            painter.setBrush(palette::current().background);
            painter.setPen(QPen(pen.color(), 1.5));
            painter.drawEllipse(at, 3.5, 3.5);
            painter.restore();
        };
        if (!fromAnchor.exact)
            ring(p0);
        if (!toAnchor.exact) {
            ring(p1);
        } else if (!drawHalo && !focused) {
            // Many edges: no heads (they would merge into blots); the curve's direction is the
            // same left-to-right convention throughout.
        } else {
            // The head follows the curve's final tangent (c1 → p1), which is horizontal.
            const QPointF dir = p1 - c1;
            const double len = std::hypot(dir.x(), dir.y());
            const QPointF u = len > 0 ? dir / len : QPointF(1, 0);
            const QPointF n(-u.y(), u.x());
            const double size = kArrowSize + (focused ? 2 : 0);
            QPolygonF head;
            head << p1 << p1 - u * size * 1.6 + n * size * 0.7 << p1 - u * size * 1.6 - n * size * 0.7;
            painter.drawPolygon(head);
        }
        m_painted.push_back({id, p0, p1, toAnchor.exact, fromAnchor.exact, toAnchor.hiddenGroup, fromAnchor.hiddenGroup});
    }
    painter.restore();
}

QPointF TimelineEdgeOverlay::curvePoint(const PaintedEdge &edge, double t)
{
    const QPointF p0 = edge.from, p1 = edge.to;
    const QPointF c0(p0.x() + kBezierOffset, p0.y());
    const QPointF c1(p1.x() - kBezierOffset, p1.y());
    const double u = 1 - t;
    return u * u * u * p0 + 3 * u * u * t * c0 + 3 * u * t * t * c1 + t * t * t * p1;
}

DrawEdgeIndex TimelineEdgeOverlay::edgeAt(const QPointF &pos, double tolerance) const
{
    constexpr int kSegments = 24;
    DrawEdgeIndex best{};
    double bestDistance = tolerance;
    for (auto it = m_painted.rbegin(); it != m_painted.rend(); ++it) { // the last drawn is on top
        const PaintedEdge &edge = *it;
        const QRectF box = QRectF(edge.from, edge.to)
                               .normalized()
                               .adjusted(-kBezierOffset - tolerance, -tolerance, kBezierOffset + tolerance, tolerance);
        if (!box.contains(pos))
            continue;
        QPointF previous = edge.from;
        for (int k = 1; k <= kSegments; ++k) {
            const QPointF next = curvePoint(edge, double(k) / kSegments);
            // Distance from pos to the segment previous → next.
            const QPointF d = next - previous;
            const double length2 = d.x() * d.x() + d.y() * d.y();
            const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(pos - previous, d) / length2, 0.0, 1.0) : 0.0;
            const QPointF nearest = previous + t * d;
            const double distance = std::hypot(pos.x() - nearest.x(), pos.y() - nearest.y());
            if (distance < bestDistance || (best.isNone() && distance <= bestDistance)) {
                bestDistance = distance;
                best = edge.edge;
            }
            previous = next;
        }
    }
    return best;
}

} // namespace linkscope::ui
