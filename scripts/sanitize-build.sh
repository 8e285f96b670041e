#!/usr/bin/env bash
# Configures and builds build-asan/ (or $LINKSCOPE_ASAN_BUILD): clang with ASan + UBSan and libFuzzer's
# coverage instrumentation, no GUI. One build serves both `scripts/dev sanitize` (the core tests under
# the sanitizers) and fuzz/run.sh (the libFuzzer targets), so CI compiles core once for both.
# Usage: scripts/sanitize-build.sh [TARGET...]   (default: everything the configuration builds)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LINKSCOPE_ASAN_BUILD:-$root/build-asan}
jobs=$(nproc 2>/dev/null || echo 2)

# A build directory configured by another compiler (an older GCC sanitizer build) cannot be
# reconfigured for clang; it holds only build products, so start it afresh.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$build/CMakeCache.txt"; then
  echo "scripts/sanitize-build.sh: $build was configured for another compiler; rebuilding it with clang" >&2
  rm -rf "$build"
fi

# Through ccache where it is installed, with paths relative to the checkout, so a clean clone
# (CI) reuses what a checkout of the same sources compiled.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" \
  -DLINKSCOPE_SANITIZE=ON -DLINKSCOPE_FUZZ=ON \
  -DLINKSCOPE_BUILD_GUI=OFF -DLINKSCOPE_BUILD_BENCH=OFF >/dev/null
if (($#)); then
  cmake --build "$build" -j "$jobs" --target "$@"
else
  cmake --build "$build" -j "$jobs"
fi
