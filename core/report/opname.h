#pragma once
// The name under which `linkscope diff` matches an op of one run with an op of another
// (docs/diff.md): a kernel's demangled signature without its template arguments, its parameter
// list and its return type, and a step number replaced by N, so that the same family of kernels or
// CPU ops meets across runs whatever its instantiation or iteration:
//   "void at::native::foo<float, 4>(int, float*)"  → "at::native::foo"
//   "void (anonymous namespace)::softmax<float>()" → "softmax"
//   "ncclDevKernel_AllReduce(ncclDevKernelArgs<4>)" → "ncclDevKernel_AllReduce"
//   "ProfilerStep#12"                              → "ProfilerStep#N"
// A name that is not a C++ signature ("Memcpy HtoD (Pageable -> Device)", "aten::mm",
// "ampere_sgemm_128x64_nn") is kept as it is, but for a trailing "#<digits>".

#include <string>
#include <string_view>

namespace linkscope::core {

std::string normalizeOpName(std::string_view name);

} // namespace linkscope::core
