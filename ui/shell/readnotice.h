#pragma once
// What could not be read whole, in one sentence for the notice above the timeline: a host ET or a
// Kineto trace cut short (read up to the cut, core/io/formats.h), a job's ranks without trace files or
// whose traces could not be read. The count of warnings in the status bar says how many problems
// there are; this says the one that changes what the timeline means.

#include "jobview/jobloader.h"
#include "shell/tracedocument.h"

#include <QString>

namespace linkscope::ui {

// Empty when both traces were read whole.
QString incompleteTraceSentence(const TraceDocument &doc);
// Empty when every rank of the job was found and read.
QString incompleteJobSentence(const JobDocument &job);

} // namespace linkscope::ui
