#pragma once
// Which SIMD kernel the JSON readers use. The readers are compiled for the baseline CPU of the
// build's architecture; simdjson picks its kernel for the CPU it finds at run time (icelake:
// AVX-512, haswell: AVX2, westmere: SSE4.2 + PCLMUL, arm64: NEON, fallback: any 64-bit CPU) for the
// stage that indexes the text. Every kernel gives the same result; only the speed differs.

#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

struct JsonKernel {
    std::string name;        // "icelake", "haswell", "westmere", "arm64", "fallback"
    std::string description; // simdjson's ("Intel/AMD AVX2", ...)
};

// The kernel in use.
JsonKernel activeJsonKernel();
// The kernels compiled in that this CPU can run, fastest first.
std::vector<JsonKernel> runnableJsonKernels();
// Makes the readers use kernel `name` from now on (tests and benchmarks compare kernels; the
// SIMDJSON_FORCE_IMPLEMENTATION environment variable does the same for a whole run). Returns false,
// changing nothing, when no such kernel is compiled in or this CPU cannot run it. Not for use
// while a reader runs on another thread.
bool selectJsonKernel(std::string_view name);

} // namespace linkscope::core
