#include "prediction/whatifevaluator.h"

namespace linkscope::ui {

void countMatches(WhatIfOutcome &out, const core::predict::SimJob &job, const core::WhatIf &whatIf,
                  const core::predict::PathMembership &onPath)
{
    const std::vector<core::predict::WhatIfMatch> matches = core::predict::matchWhatIf(job, whatIf, onPath);
    out.matchCounted = true;
    for (const core::predict::WhatIfMatch &m : matches) {
        out.matchedNodes += m.nodes;
        out.matchedOnPath += m.onPath;
    }
    for (const std::string &w : core::predict::whatIfWarnings(job, whatIf, matches))
        out.warnings << QString::fromStdString(w);
}

} // namespace linkscope::ui
