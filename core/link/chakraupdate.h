#pragma once
// compared_with_chakra after a correction, without visiting every GPU op again: a correction
// changes the parents of a few GPU ops, and of a RuleComparison only their membership in the
// lists that depend on our parent (differentParent, collectiveOnRecordParamComms, dropped and its
// count by reason) can change; what depends on Chakra's links alone stays. Equal to
// compareLinkSets(trace, oursNow, theirs) (tests/test_chakracompare.cpp checks it).

#include "link/chakracompare.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace linkscope::core {

// `before` is compareLinkSets(trace, oursBefore, theirs). `changedLinks` lists (sorted, unique)
// every GPU link index whose parent may differ between oursBefore and oursNow. Returns nullopt
// when the update does not apply — other GPU ops, or another set of our sync edges (they are
// compared edge by edge) — and the caller compares in full.
std::optional<RuleComparison> updateComparison(const DeviceTrace &trace, const RuleComparison &before, const LinkSet &oursBefore,
                                               const LinkSet &oursNow, const LinkSet &theirs,
                                               const std::vector<GpuLinkIndex> &changedLinks);

} // namespace linkscope::core
