#pragma once
// What the top-level JSON value at the start of a file says, for the detectors of the JSON formats
// (io/kineto/kinetoformat.cpp, io/hostet/hostetformat.cpp): an array, or an object whose first
// "traceEvents" or "nodes" key comes before any other that names a trace. Only the head of the file
// is looked at; a head cut inside a value says no more than what precedes it.

#include <cstddef>
#include <string_view>

namespace linkscope::core::io {

enum class JsonShape { Array, TraceEvents, Nodes, Other };
struct JsonHead {
    JsonShape shape = JsonShape::Other;
    std::size_t valueAt = 0; // where the "traceEvents" or "nodes" value starts
};

// A UTF-8 byte-order mark is skipped.
JsonHead jsonHead(std::string_view head);

} // namespace linkscope::core::io
