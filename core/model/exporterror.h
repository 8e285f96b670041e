#pragma once
// The error an export stops with. Below the writers because what decides a node (which collective a
// GPU op is, collective/classify.h) reads the host ET's text too, and fails the same way when the
// file changed on disk since it was loaded.

#include <stdexcept>

namespace linkscope::core {

// Thrown when a graph may not be written; what() says why (with the cycle's ids and names).
class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace linkscope::core
