#pragma once
// How the prediction views show their numbers (the Prediction dock, its what-if panel, the job's
// prediction, the Details line): one way, so that a step reads the same in each.

#include <QString>

#include <cstdint>

class QTableWidgetItem;

namespace linkscope::ui {

// "12.345 ms", in the user's locale.
QString msText(std::int64_t ns);
// "+12.3 %", "−4.0 %", "0.0 %": a change against a baseline.
QString changePctText(double pct);

// A read-only table cell showing `text`, whole in its tooltip (columns may be narrow); a number
// is right-aligned.
QTableWidgetItem *readOnlyCell(const QString &text, bool number);

} // namespace linkscope::ui
