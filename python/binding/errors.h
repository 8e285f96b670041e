#pragma once
// The module's exceptions: linkscope.Error (a RuntimeError) and, under it, LoadError (a file that
// cannot be read: .file, .offset and .detail, the message the CLI prints), ExportError, WriteError
// and CorrectionError. core's exceptions are translated where they cross into Python.

#include <pybind11/pybind11.h>

#include <string>

namespace linkscope::python {

// A correction that cannot be made or saved (a sidecar of other inputs, an edit refused).
class CorrectionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

void registerErrors(pybind11::module_ &m);

} // namespace linkscope::python
