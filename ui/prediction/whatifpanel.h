#pragma once
// A what-if form: a target (GPU kernels matching a regex, a stream, all communication, the network's
// bandwidth or latency, a rank's delay) and a factor (or ms), replayed on an evaluator's graph
// (whatifevaluator.h: the open pair's, or the job's) as it is typed (no rebuild), with the predicted
// step, its change against the baseline and the replay's wall time. "Add" keeps the what-if as a
// row of a comparison table (description, step, change); rows are replayed again when the graph is
// rebuilt (the links changed) and each has a remove button. Beside the comparison, in a tab of its
// own, the current what-if's breakdown, top ops and path diff against the baseline (whatifdiffview.h).

#include "ground/tracedocument.h"
#include "prediction/whatifevaluator.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTimer;

namespace linkscope::ui {

class WhatIfDiffView;

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    enum class Target { GpuKernels, Stream, Communication, Bandwidth, Latency, RankDelay, CpuOps };
    enum Column { Description, Step, Change, Remove };

    explicit WhatIfPanel(WhatIfEvaluator *evaluator, QWidget *parent = nullptr);

    // Prefills the pattern (the GPU op's name, regex-escaped) and the stream from the selected op; a
    // collective's kernel (NCCL, RCCL) turns a GPU-kernel what-if to all communication instead (a
    // transfer's time is the network's, not the kernel's).
    void setSelectedEvent(const TraceDocument *doc, core::EventIndex event);
    void setTarget(Target target);
    Target target() const;
    void setParameter(const QString &text); // the regex, the stream or the rank
    QString parameter() const;
    void setValue(double value); // the factor, or the delay in ms
    double value() const;

    // The what-if the form describes; nullopt with `error` set when it is not valid.
    std::optional<core::WhatIf> formWhatIf(QString *error) const;
    // Replays the form's what-if (done at every change of the form; typing waits for a pause).
    void apply();
    // The form was edited and not replayed yet (the result shown is the previous form's).
    bool pending() const;
    // Replays a what-if the form cannot spell (an opportunity chosen: opportunitiesview.h) and shows it,
    // titled, until the form changes; "+ Compare" keeps it.
    void showWhatIf(const core::WhatIf &whatIf, const QString &title);
    const WhatIfOutcome &current() const { return m_current; }
    // The what-if shown: the opportunity's (showWhatIf) until the form changes, else the form's (nullopt
    // when the form is not valid). What File ▸ Compare with… checks against run B (ui/compare/).
    std::optional<core::WhatIf> activeWhatIf() const { return m_shownWhatIf ? m_shownWhatIf : formWhatIf(nullptr); }
    QString resultText() const;
    // Keeps the form's what-if as a row of the comparison table; false when it is not valid.
    bool addRow();
    void removeRow(int row);
    QTableWidget *table() const { return m_table; }
    // The current what-if beside the baseline: breakdown, top ops, path diff (whatifdiffview.h).
    WhatIfDiffView *diffView() const { return m_diffView; }
    const std::vector<WhatIfOutcome> &rowOutcomes() const { return m_outcomes; }
    // The graph was rebuilt: the form and the rows are replayed on the new one.
    void refresh();

    // ECMAScript's special characters escaped, so that a name matches itself.
    static QString escapeRegex(const QString &text);

signals:
    void applied(const linkscope::ui::WhatIfOutcome &outcome);

private:
    void targetChanged();
    void showTargetFields(); // the parameter's label, placeholder and text for the target chosen
    void fillRow(int row);

    WhatIfEvaluator *m_evaluator;
    QTimer *m_typing = nullptr; // the pause after a keystroke
    QComboBox *m_target = nullptr;
    QLabel *m_parameterLabel = nullptr;
    QLineEdit *m_parameter = nullptr;
    QLabel *m_valueLabel = nullptr;
    QDoubleSpinBox *m_value = nullptr;
    QLabel *m_result = nullptr;
    QPushButton *m_add = nullptr;
    QTableWidget *m_table = nullptr;
    QTabWidget *m_tabs = nullptr; // the diff view and the comparison table
    WhatIfDiffView *m_diffView = nullptr;
    WhatIfOutcome m_current;
    QString m_texts[7];                        // the parameter per target (the selected op's name and stream prefill theirs)
    Target m_shown = Target::GpuKernels;       // whose text the parameter field holds
    std::optional<core::WhatIf> m_shownWhatIf; // showWhatIf's, until the form changes
    QString m_shownTitle;
    std::vector<core::WhatIf> m_rows;
    std::vector<WhatIfOutcome> m_outcomes;
};

} // namespace linkscope::ui
