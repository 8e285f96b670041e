#include "io/kineto/kinetoformat.h"

#include "io/json/jsonhead.h"
#include "io/tracereader.h"

namespace linkscope::core::io {

bool isKinetoTrace(const FileHead &head)
{
    const JsonShape shape = jsonHead(head.start()).shape;
    return shape == JsonShape::Array || shape == JsonShape::TraceEvents;
}

InputFormat kinetoInputFormat()
{
    return {.kind = std::string(kKinetoKind),
            .role = TraceRole::Device,
            .name = "Kineto trace",
            .detect = isKinetoTrace,
            .readHost = nullptr,
            .readDevice = readKinetoTrace,
            .parseHost = nullptr,
            .parseDevice = parseKinetoTrace};
}

} // namespace linkscope::core::io
