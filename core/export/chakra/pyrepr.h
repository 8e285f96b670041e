#pragma once
// JSON text → the text Python's repr() gives for the same value once json.loads has read it:
// what chakra_converter writes into a node's inputs/outputs (`str(node.inputs["values"])`), and
// the form ASTRA-sim's process-group parser expects (`['[{"pg_name": ...}]']`).
//
// The mapping is token by token, so no document is built and nesting depth costs nothing:
// [ ] { } stay, "," → ", ", ":" → ": ", true/false/null → True/False/None, integers as written
// (a "-0" becomes 0), other numbers as Python's float repr (shortest round trip, exponent form
// below 1e-4 and from 1e16, "1.0" for whole values), strings as Python's str repr (single quotes
// unless the text holds a ' and no ", escapes \\ \' \n \r \t and \xNN for control characters;
// other characters as UTF-8). NaN / Infinity / -Infinity (which PyTorch's writer can emit) become
// nan / inf / -inf.

#include <string>
#include <string_view>

namespace linkscope::core {

// Appends the Python repr of the JSON text to `out`. Returns false (and leaves `out` as it was)
// when the text is not well-formed token by token (an unterminated string, an unknown word).
bool appendPythonRepr(std::string &out, std::string_view json);

// The same as a value; `json` itself when it cannot be converted.
std::string pythonRepr(std::string_view json);

// Python's repr of one double ("1.0", "1e-05", "1.2345678901234568e+17", "inf", "nan").
void appendPythonFloat(std::string &out, double value);

} // namespace linkscope::core
