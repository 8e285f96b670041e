#!/usr/bin/env bash
# Configures the one sanitizer build (clang, ASan + UBSan, libFuzzer's coverage hooks) that both
# `scripts/dev sanitize` (the core tests) and fuzz/run.sh (the fuzz targets) build into, so CI compiles
# core once for both. Default folder build-asan/.
#
#   scripts/configure-asan.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$root/build-asan}
launcher=()
if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
fi
# A build-asan/ configured by an older scripts/dev with GCC: start its cache again (cmake cannot
# change the compiler of a configured folder).
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$dir/CMakeCache.txt"; then
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
fi
# fuzzer-no-link: the coverage hooks libFuzzer needs, in every object; only the fuzz targets link
# libFuzzer itself (fuzz/CMakeLists.txt), so the test executables keep their own main().
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    -DLINKSCOPE_SANITIZE=ON -DLINKSCOPE_FUZZ=ON -DLINKSCOPE_BUILD_GUI=OFF -DLINKSCOPE_BUILD_BENCH=OFF >/dev/null
