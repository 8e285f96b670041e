#pragma once
// File ▸ Open pair…: the user picks one or both files of a pair, in any order. A single file is
// detected at once (the input-format table, core/io/formats.h, as the pair pipeline resolves a pair): a host ET asks
// for its Kineto trace next, a Kineto trace for its host ET (Cancel opens it alone), anything else
// is named as what it is before a second question is asked.

#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace linkscope::ui {

struct PairChoice {
    QString host; // empty: the device trace alone
    QString device;
    QString error; // not a trace of a pair: why
    bool cancelled = false;
};

// Asks for files: a short title (the window's), the question in a sentence (in the dialog), the
// folder to start in, and whether several may be picked.
using FileAsker = std::function<QStringList(const QString &title, const QString &prompt, const QString &folder, bool several)>;

PairChoice choosePair(const FileAsker &ask);
// The asker of the real GUI: QFileDialog's open dialogs, with the trace filter.
FileAsker fileDialogAsker(QWidget *parent);

} // namespace linkscope::ui
