#pragma once
// A Kineto trace's top-level values beside "traceEvents" that Linkscope keeps: "schemaVersion",
// "baseTimeNanoseconds", "deviceProperties" (the GPUs) and "distributedInfo" (rank, world size,
// process groups). Each value's text is parsed here with nlohmann, nesting bounded; what cannot be
// used is a warning, never an error. Other keys are ignored.

#include "io/warningsink.h"
#include "model/devicetrace.h"

#include <cstdint>
#include <string_view>

namespace linkscope::core::io {

// The top-level `key`'s JSON text `value` (at byte `offset` of the file) into `trace`.
void readKinetoMetadata(std::string_view key, std::string_view value, std::uint64_t offset, DeviceTrace &trace,
                        WarningSink &sink);

} // namespace linkscope::core::io
