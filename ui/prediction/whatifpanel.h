#pragma once
// The what-if part of the Prediction dock: a target (GPU kernels matching a regex, a stream, all
// communication, the network's bandwidth or latency, a rank's delay) and a factor (or ms), replayed
// on the open pair's graph at every change (predictioncontroller.h: no rebuild), with the predicted
// step, its change against the baseline and the replay's wall time. "Add" keeps the what-if as a
// row of a comparison table (description, step, change); rows are replayed again when the graph is
// rebuilt (the links changed) and each has a remove button.

#include "prediction/predictioncontroller.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace linkscope::ui {

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    enum class Target { GpuKernels, Stream, Communication, Bandwidth, Latency, RankDelay, CpuOps };
    enum Column { Description, Step, Change, Remove };

    explicit WhatIfPanel(PredictionController *controller, QWidget *parent = nullptr);

    // Prefills the pattern (the GPU op's name, regex-escaped) and the stream from the selected op.
    void setSelectedEvent(const TraceDocument *doc, core::EventIndex event);
    void setTarget(Target target);
    Target target() const;
    void setParameter(const QString &text); // the regex, the stream or the rank
    QString parameter() const;
    void setValue(double value); // the factor, or the delay in ms
    double value() const;

    // The what-if the form describes; nullopt with `error` set when it is not valid.
    std::optional<core::WhatIf> formWhatIf(QString *error) const;
    // Replays the form's what-if (done at every change of the form).
    void apply();
    const WhatIfOutcome &current() const { return m_current; }
    QString resultText() const;
    // Keeps the form's what-if as a row of the comparison table; false when it is not valid.
    bool addRow();
    void removeRow(int row);
    QTableWidget *table() const { return m_table; }
    const std::vector<WhatIfOutcome> &rowOutcomes() const { return m_outcomes; }
    // The graph was rebuilt: the form and the rows are replayed on the new one.
    void refresh();

    // ECMAScript's special characters escaped, so that a name matches itself.
    static QString escapeRegex(const QString &text);

signals:
    void applied(const linkscope::ui::WhatIfOutcome &outcome);

private:
    void targetChanged();
    void fillRow(int row);

    PredictionController *m_controller;
    QComboBox *m_target = nullptr;
    QLabel *m_parameterLabel = nullptr;
    QLineEdit *m_parameter = nullptr;
    QLabel *m_valueLabel = nullptr;
    QDoubleSpinBox *m_value = nullptr;
    QLabel *m_result = nullptr;
    QPushButton *m_add = nullptr;
    QTableWidget *m_table = nullptr;
    WhatIfOutcome m_current;
    QString m_texts[7];                  // the parameter per target (the selected op's name and stream prefill theirs)
    Target m_shown = Target::GpuKernels; // whose text the parameter field holds
    std::vector<core::WhatIf> m_rows;
    std::vector<WhatIfOutcome> m_outcomes;
};

} // namespace linkscope::ui
