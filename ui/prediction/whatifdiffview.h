#pragma once
// A what-if beside the baseline (issue 40, "a what-if you can read"): for the rank whose step the
// what-if sets, the breakdown along each run's critical path (CPU, GPU, communication, other ranks,
// idle: baseline → what-if and the change), the top ops on either path with their time on each,
// and the path diff: how many ops left the path and joined it, the longest of each named. Shows a
// WhatIfOutcome (whatifevaluator.h); computes nothing itself.

#include "prediction/whatifevaluator.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace linkscope::ui {

class WhatIfDiffView : public QWidget {
    Q_OBJECT
public:
    enum BreakdownColumn { Share, Baseline, WhatIf, Delta };
    explicit WhatIfDiffView(QWidget *parent = nullptr);

    // Shows `outcome`'s path change; an outcome without one (an error, no replay) clears the view.
    void showOutcome(const WhatIfOutcome &outcome);
    QTableWidget *breakdownTable() const { return m_breakdown; }
    // The top ops on either path, with their time on each: a widget of its own, for a tab beside the view.
    QTableWidget *topTable() const { return m_top; }
    // "Left the path: 3 ops — … · Joined it: 1 op — …" as plain text; empty without a path change.
    QString pathDiffText() const { return m_diffPlain; }

private:
    QLabel *m_caption = nullptr;
    QTableWidget *m_breakdown = nullptr;
    QTableWidget *m_top = nullptr;
    QLabel *m_diff = nullptr;
    QString m_diffPlain;
};

} // namespace linkscope::ui
