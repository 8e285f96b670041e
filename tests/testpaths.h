#pragma once
// Where the checkout, the build folder and the optional outside folders are, for the tests. They come
// from one source generated when the build is configured (tests/testpaths.cpp.in), not from compile
// definitions on every test: a test source then compiles to the same object in any clone at any path,
// and ccache serves a clean clone what the checkout compiled (HACKING.md, "Checks").

#include <string>

namespace linkscope::test::paths {

const std::string &sourceDir();         // the checkout
const std::string &testDataDir();       // tests/data
const std::string &binaryDir();         // the build folder
const std::string &sharedTracesDir();   // ../shared/traces (may be absent)
const std::string &astraSimDir();       // ../shared/tools/astra-sim (may be absent)
const std::string &astraSimFixedHome(); // where tests/astrasim/fixed-simulator.sh builds the simulator

} // namespace linkscope::test::paths
