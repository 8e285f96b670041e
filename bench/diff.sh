#!/usr/bin/env bash
# `linkscope diff` on two generated pairs (docs/diff.md): its time against the time to load the pairs,
# and whether it finds the change made.
#
#   bench/diff.sh [BUILD_DIR] [OUT_DIR] [EVENTS] [RUNS]
#
# linkscope-gen writes pair A (--target-events EVENTS, default 1000000, --seed 3) and pair B, the same
# run with the vectorized_layer_norm kernels ×2 (--kernel-scale vectorized_layer_norm=2: same ops, only those kernels'
# times change). Timed with farm-bench (RUNS runs each, default 3, medians), A and B alternating:
#   diff       linkscope diff --a HOST_A KINETO_A --b HOST_B KINETO_B --json
#   load       linkscope inspect HOST_A KINETO_A HOST_B KINETO_B (the four files read and joined)
#   load-kineto linkscope inspect KINETO_A KINETO_B (the two files diff reads)
# and printed: the medians, diff / load (the target: under 2), the family diff ranks first and its
# change against the true one, counted by python3 from the Kineto files (the target: the
# vectorized_layer_norm family first, within 1 %). OUT_DIR (default /tmp/linkscope-diff) is removed at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
out=$(realpath -m "${2:-/tmp/linkscope-diff}")
events=${3:-1000000}
runs=${4:-3}
linkscope=$build/app/linkscope
gen=$build/tools/linkscope-gen
[ -x "$linkscope" ] && [ -x "$gen" ] || { echo "diff.sh: build first (no $linkscope or $gen)" >&2; exit 2; }
command -v farm-bench >/dev/null || { echo "diff.sh: needs farm-bench" >&2; exit 2; }
py=$(command -v /usr/bin/python3 || command -v python3) || { echo "diff.sh: needs python3" >&2; exit 2; }
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

echo "diff.sh: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), linkscope $("$linkscope" --version 2>&1 | head -1)"
"$gen" --target-events "$events" --seed 3 "$out/host_a.json" "$out/kineto_a.json" >/dev/null
"$gen" --target-events "$events" --seed 3 --kernel-scale vectorized_layer_norm=2 "$out/host_b.json" "$out/kineto_b.json" >/dev/null
echo "pairs: A $(du -m "$out/host_a.json" | cut -f1) MB + $(du -m "$out/kineto_a.json" | cut -f1) MB, B the same with the vectorized_layer_norm kernels x2"

# median FILE FIELD: the median of farm-bench's line for FIELD (wall, cpu) in seconds.
median() { awk -v f="$2" '$1 == "A" && $2 == f { print $5; exit }' "$1"; }
bench() { # bench NAME COMMAND...: farm-bench's report in $out/NAME.txt
  local name=$1; shift
  farm-bench -n "$runs" --timeout 1800 -- "$@" >"$out/$name.txt" 2>&1 || true
}
bench diff "$linkscope" diff --a "$out/host_a.json" "$out/kineto_a.json" --b "$out/host_b.json" "$out/kineto_b.json" --json
bench load "$linkscope" inspect "$out/host_a.json" "$out/kineto_a.json" "$out/host_b.json" "$out/kineto_b.json"
bench load-kineto "$linkscope" inspect "$out/kineto_a.json" "$out/kineto_b.json"
for n in diff load load-kineto; do
  echo "--- farm-bench: $n"
  grep -E "^ +min|^A (cpu|wall|peak)|exit" "$out/$n.txt"
done

"$linkscope" diff --a "$out/host_a.json" "$out/kineto_a.json" --b "$out/host_b.json" "$out/kineto_b.json" --json >"$out/diff.json"
"$py" - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
def family(path):
    total = count = 0
    for e in json.load(open(path))["traceEvents"]:
        if e.get("cat") == "kernel" and "vectorized_layer_norm" in e.get("name", ""):
            total += round(e["dur"] * 1000); count += 1
    return count, total
ca, ta = family(f"{out}/kineto_a.json")
cb, tb = family(f"{out}/kineto_b.json")
d = json.load(open(f"{out}/diff.json"))
first = d["moved"][0]
true = tb - ta
print(f"first moved: {first['kind']} {first['name']}: {first['a_ns'] / 1e6:.3f} -> {first['b_ns'] / 1e6:.3f} ms, "
      f"change {first['change_ns'] / 1e6:+.3f} ms")
print(f"true change (vectorized_layer_norm kernels in the Kineto files, {ca} -> {cb}): {true / 1e6:+.3f} ms; "
      f"diff's off by {100 * (first['change_ns'] / true - 1):+.4f} %; second moved: {d['moved'][1]['name']} "
      f"{d['moved'][1]['change_ns'] / 1e6:+.3f} ms")
PY
python_ratio() { "$py" -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.2f}')" "$1" "$2"; }
dw=$(median "$out/diff.txt" wall); lw=$(median "$out/load.txt" wall); kw=$(median "$out/load-kineto.txt" wall)
dc=$(median "$out/diff.txt" cpu); lc=$(median "$out/load.txt" cpu); kc=$(median "$out/load-kineto.txt" cpu)
echo "medians (s): diff wall $dw cpu $dc; load the pairs wall $lw cpu $lc; load the Kineto traces wall $kw cpu $kc"
echo "diff / load the pairs: wall $(python_ratio "$dw" "$lw"), cpu $(python_ratio "$dc" "$lc");" \
  "diff / load the Kineto traces: wall $(python_ratio "$dw" "$kw"), cpu $(python_ratio "$dc" "$kc")"
