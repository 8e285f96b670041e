#pragma once
// The Kineto trace's row of the input-format table (io/formats.h) and its detector.

#include "io/formats.h"

namespace linkscope::core::io {

// A JSON array (Chrome's "JSON Array Format") or an object whose first trace key is "traceEvents".
bool isKinetoTrace(const FileHead &head);

InputFormat kinetoInputFormat();

} // namespace linkscope::core::io
