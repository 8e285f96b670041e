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

void describePathChange(WhatIfOutcome &out, const core::predict::SimJob &job, const core::predict::RankPrediction &baseline,
                        core::predict::RankPrediction whatIf, std::size_t diffLimit)
{
    WhatIfPathChange &c = out.path;
    c.rank = whatIf.rank;
    c.baselineBreakdown = baseline.path.breakdown;
    c.breakdown = whatIf.path.breakdown;
    c.baselineTop = baseline.top;
    c.top = std::move(whatIf.top);
    c.diff = core::predict::diffPaths(job, baseline.path, whatIf.path, diffLimit);
    c.path = std::move(whatIf.path);
    out.pathKnown = true;
}

} // namespace linkscope::ui
