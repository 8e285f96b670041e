#!/usr/bin/env bash
# Speed of `linkscope predict` against ASTRA-sim on the same files (docs/prediction.md, "Speed").
#
#   bench/predict-speed.sh [BUILD_DIR] [OUT_DIR] [RUNS] [--big]
#
# Exports the megatron job (../shared/traces/astrasim_megatron_tp8_8rank_pair) with `linkscope job`,
# then runs, alternating, RUNS times each (default 5): `linkscope predict` on its 8 .et files and
# ASTRA-sim (../shared/tools/astra-sim/run.sh) on the same files, comm groups and network. Prints per
# command the median wall and CPU time (user + sys) and peak RSS, the ratio ASTRA-sim / predict (per
# pair, median), and the floors: a process that does nothing (`linkscope --version`) and reading the
# bytes (`cat` of the .et files). --big adds the 8 x 1 M-event generated job (linkscope-gen --ranks 8
# --target-events 1000000 --seed 3: about 5 GB of traces and 1.7 GB of .et in OUT_DIR, a few minutes
# to make, removed at the end): predict RUNS times, ASTRA-sim once (about 3 min, 5.7 GB). A benchmark:
# it prints figures and never fails for being slow. ASTRA_SIM_TOOLS overrides ../shared/tools/astra-sim.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
out=$(realpath -m "${2:-/tmp/linkscope-predict-speed}")
runs=${3:-5}
big=0
for a in "$@"; do [ "$a" = --big ] && big=1; done
sim=${ASTRA_SIM_TOOLS:-$root/../shared/tools/astra-sim}
traces=${LINKSCOPE_TRACES_DIR:-$root/../shared/traces}
linkscope=$build/app/linkscope
gen=$build/tools/linkscope-gen
[ -x "$linkscope" ] || { echo "predict-speed.sh: build first (no $linkscope)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "predict-speed.sh: needs python3" >&2; exit 2; }
mkdir -p "$out"
# run.sh makes a folder with mktemp even when it is given a log folder: those go under OUT, removed
# at the end.
export TMPDIR=$out/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT

# measure FILE CMD...: appends "wall_s cpu_s peak_kb" of one run of CMD (its output thrown away), from
# the kernel's accounting of the finished process (wait4).
measure() {
  local file=$1; shift
  python3 - "$@" >>"$file" <<'EOF'
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
print(f"{time.perf_counter() - t0:.4f} {ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss}")
EOF
}

# report LABEL FILE: median wall, CPU and peak RSS of the runs in FILE.
report() {
  python3 - "$1" "$2" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
med = lambda i: statistics.median(r[i] for r in rows)
print(f"  {sys.argv[1]:<34} wall {med(0) * 1000:9.1f} ms  cpu {med(1) * 1000:9.1f} ms  peak {med(2) / 1024:8.1f} MiB  ({len(rows)} runs)")
EOF
}

# ratio FILE_SLOW FILE_FAST: the median of the pairwise wall and CPU ratios.
ratio() {
  python3 - "$1" "$2" <<'EOF'
import statistics, sys
a = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
b = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
pairs = list(zip(a, b))
wall = statistics.median(x[0] / max(y[0], 1e-3) for x, y in pairs)
cpu = statistics.median(x[1] / max(y[1], 1e-3) for x, y in pairs)
print(f"  ASTRA-sim / linkscope predict: wall {wall:.1f}x, cpu {cpu:.1f}x (median of {len(pairs)} pairs)")
EOF
}

# compare NAME DIR RUNS SIM_RUNS: predict and ASTRA-sim on DIR's export, alternating.
compare() {
  local name=$1 dir=$2 n=$3 simruns=$4 i
  local files=("$dir"/trace.*.et)
  local npus=${#files[@]}
  local args=("${files[@]}" --comm-groups "$dir/comm_group.json" --network "$dir/network.yml")
  rm -f "$out/$name".*.runs
  echo "== $name: $npus ranks, $("$linkscope" predict "${args[@]}" | head -1 | sed 's/^predict: //')"
  echo "   .et bytes: $(cat "${files[@]}" | wc -c)"
  "$linkscope" predict "${args[@]}" >/dev/null 2>&1 || true # warm the page cache
  for ((i = 0; i < n; i++)); do
    measure "$out/$name.predict.runs" "$linkscope" predict "${args[@]}"
    if ((i < simruns)); then
      if [ -x "$sim/run.sh" ]; then
        measure "$out/$name.astra.runs" "$sim/run.sh" "$dir/trace" "$npus" "$out/$name-astra-log" \
          --comm-groups "$dir/comm_group.json" --network "$dir/network.yml"
      fi
    fi
    measure "$out/$name.version.runs" "$linkscope" --version
    measure "$out/$name.cat.runs" cat "${files[@]}"
  done
  report "linkscope predict" "$out/$name.predict.runs"
  [ -s "$out/$name.astra.runs" ] && report "ASTRA-sim (run.sh)" "$out/$name.astra.runs"
  report "floor: linkscope --version" "$out/$name.version.runs"
  report "floor: cat of the .et files" "$out/$name.cat.runs"
  if [ -s "$out/$name.astra.runs" ]; then
    ratio "$out/$name.astra.runs" "$out/$name.predict.runs"
  else
    echo "  (no ASTRA-sim at $sim: no ratio)"
  fi
}

meg=$traces/astrasim_megatron_tp8_8rank_pair
if [ -d "$meg" ]; then
  [ -f "$out/megatron/trace.7.et" ] || "$linkscope" job "$meg" --out "$out/megatron" >"$out/megatron-job.txt" 2>&1
  compare megatron "$out/megatron" "$runs" "$runs"
else
  echo "== megatron: $meg not found, skipped"
fi

if ((big)); then
  [ -x "$gen" ] || { echo "predict-speed.sh: --big needs $gen" >&2; exit 2; }
  rm -rf "$out/big-traces" "$out/big"
  "$gen" --ranks 8 --target-events 1000000 --seed 3 --out-dir "$out/big-traces" >"$out/big-gen.txt"
  "$linkscope" job "$out/big-traces" --out "$out/big" --jobs 2 >"$out/big-job.txt" 2>&1 || true
  rm -rf "$out/big-traces"
  compare big-8x1M "$out/big" "$runs" 1
  rm -rf "$out/big"
fi
