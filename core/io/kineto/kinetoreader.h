#pragma once
// Internal entry point of the Kineto reader (the public API is io/tracereader.h).

#include "io/file/inputtext.h"
#include "model/devicetrace.h"

namespace linkscope::core::io {

DeviceTrace parseKineto(InputText input, const std::string &name, ProgressReporter &progress);

} // namespace linkscope::core::io
