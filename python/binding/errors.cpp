#include "errors.h"

#include "export/chakra/etformat.h"
#include "io/file/atomicfile.h"
#include "model/common.h"

namespace linkscope::python {

namespace py = pybind11;

namespace {

// Types live as long as the module: leaked on purpose (the interpreter owns them).
PyObject *g_error = nullptr;
PyObject *g_loadError = nullptr;
PyObject *g_exportError = nullptr;
PyObject *g_writeError = nullptr;
PyObject *g_correctionError = nullptr;

PyObject *newType(py::module_ &m, const char *name, PyObject *base, const char *doc)
{
    const std::string qualified = std::string("linkscope.") + name;
    PyObject *type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    if (!type)
        throw py::error_already_set();
    m.add_object(name, py::handle(type));
    return type;
}

void raise(PyObject *type, const std::string &message) { PyErr_SetString(type, message.c_str()); }

} // namespace

void registerErrors(py::module_ &m)
{
    g_error = newType(m, "Error", PyExc_RuntimeError, "Every error Linkscope raises (a RuntimeError).");
    g_loadError = newType(m, "LoadError", g_error,
                          "A trace or sidecar that cannot be read: .file, .offset (the byte or node where it stops "
                          "being readable) and .detail; str() is the message `linkscope` prints.");
    g_exportError = newType(m, "ExportError", g_error,
                            "An export refused (a dependency cycle, a target that needs the host ET).");
    g_writeError = newType(m, "WriteError", g_error, "An output that cannot be written, or would replace an input.");
    g_correctionError = newType(m, "CorrectionError", g_error,
                                "A correction that cannot be made or saved (a sidecar made from other inputs).");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const core::LoadError &e) {
            py::object error = py::reinterpret_borrow<py::object>(g_loadError)(e.what());
            error.attr("file") = e.file();
            error.attr("offset") = e.offset();
            error.attr("detail") = e.detail();
            PyErr_SetObject(g_loadError, error.ptr());
        } catch (const core::ExportError &e) {
            raise(g_exportError, e.what());
        } catch (const core::WriteError &e) {
            raise(g_writeError, e.what());
        } catch (const CorrectionError &e) {
            raise(g_correctionError, e.what());
        } catch (const core::Cancelled &e) {
            // Stopped for a signal: the exception its handler raised (KeyboardInterrupt for Ctrl+C).
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        }
    });
}

} // namespace linkscope::python
