#pragma once
// Internal entry point of the host execution trace reader (the public API is io/tracereader.h).

#include "io/file/inputtext.h"
#include "model/hosttrace.h"

namespace linkscope::core::io {

HostTrace parseHost(InputText input, const std::string &name, ProgressReporter &progress);

} // namespace linkscope::core::io
