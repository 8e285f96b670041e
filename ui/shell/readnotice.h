#pragma once
// What could not be read whole, in one sentence for the notice above the timeline: a host ET or a
// Kineto trace cut short (read up to the cut, core/io/formats.h), a job's ranks without trace files or
// whose traces could not be read or were cut short. The count of warnings in the status bar says how many problems
// there are; this says the one that changes what the timeline means.

#include "ground/jobloader.h"
#include "ground/tracedocument.h"

#include <QString>
#include <QStringList>

namespace linkscope::ui {

// Empty when both traces were read whole.
QString incompleteTraceSentence(const TraceDocument &doc);
// Each rank without trace files, whose traces could not be read or were read up to a cut; empty
// when every rank of the job was found and read whole.
QStringList incompleteJobProblems(const JobDocument &job);
// The first of them in one sentence (with the second, or how many more); empty when there is none.
QString incompleteJobSentence(const JobDocument &job);

} // namespace linkscope::ui
