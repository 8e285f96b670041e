#!/usr/bin/env bash
# Runs every linkscope-bench stage on a generated pair of at least 1 GB (Kineto) and prints the figures.
#
#   bench/run.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to ./build (must hold tools/linkscope-gen and bench/linkscope-bench);
# OUT_DIR defaults to /tmp/linkscope-bench. LINKSCOPE_BENCH_SIZE overrides the Kineto size (default 1G).
# The pair is regenerated only when missing or made with other parameters.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-/tmp/linkscope-bench}
size=${LINKSCOPE_BENCH_SIZE:-1G}
seed=1
devices=2

gen="$build/tools/linkscope-gen"
bench="$build/bench/linkscope-bench"
for tool in "$gen" "$bench"; do
    [[ -x $tool ]] || { echo "run.sh: $tool not built (ninja -C $build linkscope-gen linkscope-bench)" >&2; exit 2; }
done

mkdir -p "$out"
host="$out/host_et.json"
kineto="$out/kineto.json"
truth="$out/truth.jsonl"
params="size=$size seed=$seed devices=$devices generator=$(sha256sum "$gen" | cut -c1-16)"
if [[ ! -s $kineto || ! -s $host || "$(cat "$out/params" 2>/dev/null)" != "$params" ]]; then
    echo "== generate ($params)"
    echo "\$ $gen --target-bytes $size --seed $seed --devices $devices $host $kineto $truth"
    "$gen" --target-bytes "$size" --seed "$seed" --devices "$devices" "$host" "$kineto" "$truth"
    echo "$params" > "$out/params"
fi
ls -l "$host" "$kineto" "$truth"
# Warm the page cache so the load figures measure parsing, not the disk.
cat "$host" "$kineto" > /dev/null

stages=$("$bench" --help)
run() {
    echo
    echo "== $*"
    echo "\$ linkscope-bench $*"
    "$bench" "$@"
}

run load "$host" "$kineto"
run link
run link "$host" "$kineto" --truth "$truth"
if grep -q '^  export' <<<"$stages"; then
    run export "$host" "$kineto" --out "$out/export"
fi
if grep -q '^  render' <<<"$stages"; then
    QT_QPA_PLATFORM=offscreen run render
fi
