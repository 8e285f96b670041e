#include "edit/linkchange.h"

#include "base/cowdiff.h"
#include "edit/correction.h"

#include <algorithm>

namespace linkscope::core {

namespace {

// Whether the findings of GPU link `op` live in the same (shared) chunk in both lists: a shared chunk
// is the same memory, and an equal null means both hold no findings there.
bool sameFindingsChunk(const FindingList &a, const FindingList &b, std::size_t op)
{
    return a.ofGpuOp(op).first == b.ofGpuOp(op).first;
}

IndexRanges unsharedFindingOps(const FindingList &was, const FindingList &now)
{
    IndexRanges out;
    const std::size_t ops = std::min(was.gpuOpCount(), now.gpuOpCount());
    for (std::size_t c = 0; c < ops; c += FindingList::kOpsPerChunk)
        if (!sameFindingsChunk(was, now, c))
            out.emplace_back(c, std::min(ops, c + FindingList::kOpsPerChunk));
    return unionOfRanges(std::move(out), {});
}

// The (kind, subject) of every finding of a vector or a FindingList, sorted; no finding is copied.
template <typename Findings>
std::vector<FindingRef> sortedRefs(const Findings &findings)
{
    std::vector<FindingRef> refs;
    refs.reserve(findings.size());
    for (const Finding &f : findings)
        refs.push_back(refOf(f));
    std::sort(refs.begin(), refs.end());
    return refs;
}

// Findings of `was` (positions from `offset`) with no finding of the same ref in `now`.
void missingFrom(const std::vector<Finding> &was, const std::vector<Finding> &now, std::size_t offset,
                 std::vector<FindingIndex> &out)
{
    if (&was == &now)
        return;
    const std::vector<FindingRef> current = sortedRefs(now);
    for (std::size_t i = 0; i < was.size(); ++i)
        if (!std::binary_search(current.begin(), current.end(), refOf(was[i])))
            out.push_back(FindingIndex::at(offset + i));
}

} // namespace

IndexRanges unionOfRanges(IndexRanges a, const IndexRanges &b)
{
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    IndexRanges out;
    for (const auto &[begin, end] : a) {
        if (begin >= end)
            continue;
        if (!out.empty() && begin <= out.back().second)
            out.back().second = std::max(out.back().second, end);
        else
            out.emplace_back(begin, end);
    }
    return out;
}

LinkSetChange changeBetween(const LinkSet &was, const LinkSet &now)
{
    LinkSetChange change;
    change.sameOps = now.gpuLinkOf.sharedWith(was.gpuLinkOf) && was.gpuLinks.size() == now.gpuLinks.size()
                     && was.findings.gpuOpCount() == now.findings.gpuOpCount()
                     && now.findings.gpuOpCount() == now.gpuLinks.size();
    change.traceWideFindingsChanged = &was.findings.traceWide() != &now.findings.traceWide();
    change.hostSideFindingsChanged = &was.findings.hostSide() != &now.findings.hostSide();
    change.edges = unsharedRanges(now.edges, was.edges);
    if (!change.sameOps)
        return change;
    change.findingOps = unsharedFindingOps(was.findings, now.findings);
    change.gpuOps = unionOfRanges(unsharedRanges(now.gpuLinks, was.gpuLinks), change.findingOps);
    return change;
}

std::vector<GpuLinkIndex> reparentedLinks(const LinkSet &was, const LinkSet &now, const LinkSetChange &change)
{
    std::vector<GpuLinkIndex> out;
    const std::size_t n = std::min(was.gpuLinks.size(), now.gpuLinks.size());
    for (const auto &[begin, end] : change.gpuOps)
        for (std::size_t k = begin; k < std::min(end, n); ++k)
            if (now.gpuLinks[k].parent != was.gpuLinks[k].parent || now.gpuLinks[k].gpuEvent != was.gpuLinks[k].gpuEvent)
                out.push_back(GpuLinkIndex::at(k));
    return out;
}

std::vector<FindingIndex> resolvedFindings(const FindingList &was, const FindingList &now)
{
    // The per-GPU-op findings of an op are about that op (link/diagnose.h) and their kinds are never
    // trace-wide or host-side ones, so over the same GPU ops they are matched op by op where the
    // edit replaced the op's group; every other group is shared, hence present.
    std::vector<FindingIndex> out;
    if (was.gpuOpCount() != now.gpuOpCount()) {
        const std::vector<FindingRef> current = sortedRefs(now);
        FindingIndex i{0};
        for (const Finding &f : was) {
            if (!std::binary_search(current.begin(), current.end(), refOf(f)))
                out.push_back(i);
            ++i;
        }
        return out;
    }
    missingFrom(was.traceWide(), now.traceWide(), 0, out);
    for (const auto &[begin, end] : unsharedFindingOps(was, now)) {
        for (std::size_t k = begin; k < end; ++k) {
            const auto [from, fromEnd] = was.ofGpuOp(k);
            const auto [is, isEnd] = now.ofGpuOp(k);
            const std::size_t position = was.positionOfGpuOp(k);
            for (const Finding *f = from; f != fromEnd; ++f)
                if (std::none_of(is, isEnd, [&](const Finding &g) { return refOf(*f) == refOf(g); }))
                    out.push_back(FindingIndex::at(position + static_cast<std::size_t>(f - from)));
        }
    }
    missingFrom(was.hostSide(), now.hostSide(), was.size() - was.hostSide().size(), out);
    return out;
}

std::vector<FindingIndex> createdFindings(const FindingList &was, const FindingList &now) { return resolvedFindings(now, was); }

} // namespace linkscope::core
