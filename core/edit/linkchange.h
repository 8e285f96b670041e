#pragma once
// What an edit changed between two link sets over the same GPU ops (a correction, an undo, a redo):
// the GPU links, the per-GPU-op findings and the core edges a derived view must look at again, and
// the findings the edit resolved and created. Computed from the chunks the two copies do not share
// (base/cowdiff.h, FindingList's chunks): O(chunks + what changed), never O(events). Views (the
// timeline's edges, the findings' causes, the comparison with Chakra) consume it; none of them needs
// to know how a LinkSet is chunked.

#include "base/indices.h"
#include "link/finding.h"
#include "link/linkset.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace linkscope::core {

using IndexRanges = std::vector<std::pair<std::size_t, std::size_t>>; // [begin, end), sorted, disjoint

struct LinkSetChange {
    // Both are over the same GPU ops and events (a shared event → GPU link table, as many links and
    // per-op finding groups): only then do the ranges below say what changed; otherwise a view
    // rebuilds in full.
    bool sameOps = false;
    // GPU links whose link or findings may differ (the edit copied their chunk); outside these ranges
    // both are equal.
    IndexRanges gpuOps;
    // Of those, the GPU links whose per-op findings may differ.
    IndexRanges findingOps;
    // Core edges (LinkSet::edges) that may differ, including slots past the shorter list's end.
    IndexRanges edges;
    bool traceWideFindingsChanged = true; // the trace-wide part of the findings is another list
    bool hostSideFindingsChanged = true;  // the host-side part is another list
};

// What changed from `was` to `now`.
LinkSetChange changeBetween(const LinkSet &was, const LinkSet &now);

// The GPU links, within `change`, whose parent or GPU event differ.
std::vector<GpuLinkIndex> reparentedLinks(const LinkSet &was, const LinkSet &now, const LinkSetChange &change);

// The findings of `was` that `now` no longer has (the same kind about the same subject): what an edit
// resolved. createdFindings is the converse, indices into `now`. Over the same GPU ops only the groups
// the edit replaced are compared; otherwise every finding.
std::vector<FindingIndex> resolvedFindings(const FindingList &was, const FindingList &now);
std::vector<FindingIndex> createdFindings(const FindingList &was, const FindingList &now);

// Sorted, merged union of two range lists.
IndexRanges unionOfRanges(IndexRanges a, const IndexRanges &b);

} // namespace linkscope::core
