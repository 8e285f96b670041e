#!/usr/bin/env bash
# What-if validation of the astra-sim export (docs/astra-sim-export.md, "What-if"): predict a changed
# configuration from the trace of the original and compare with a trace of the changed one.
#
#   bench/whatif.sh [BUILD_DIR] [OUT_DIR] [CASE...]
#
# For each generated job (CASE: gpu1, gpu2, cpu2, comm2, gpu8, comm8, ovl2, ovl4, copy4; all by
# default) linkscope-gen writes configuration A and, from the same seed and random draws, each changed
# configuration B (compute kernels ×0.5 and ×2, GEMM kernels ×0.5, NCCL ×0.25 and ×4, network
# bandwidth ×4, rank 1 delayed 2 ms per step, every rank's CPU ×0.5, rank 1's CPU ×0.5). ovl2, ovl4
# and copy4 run kernels on overlapping compute streams (--compute-streams; copy4 also copies on a
# stream of its own, --copy-stream): ovl2 is CPU-bound (--compute-scale 0.1), ovl4 and copy4 GPU-bound.
# A is exported once (`linkscope job`), each change is applied to A's export (`linkscope whatif`: the
# .et durations or network.yml) and replayed in ASTRA-sim; B is exported for its measured time.
# Printed per row: predicted (ASTRA-sim on A changed), true (B's measured profiled steps) and the
# error; the identity row compares A's replay with A's measurement. Also printed: the blocked time
# left in CPU durations (% of the step) and the fitted network against the generator's.
#
# Every row also runs `linkscope predict` on A's export with the same what-if (docs/prediction.md),
# twice: with its default model (faithful: each stream and each CPU thread its own queue) against the
# truth, B's measured steps (the target: within 3 %), and with --model astra-sim against ASTRA-sim on
# the same files (the target: within 1 % per rank), with the wall time of both; and a third time,
# faithful, on the job's Kineto traces alone (no host ET; docs/prediction.md, "From a Kineto trace
# alone") against the truth, with its worst rank against the pair's prediction.
#
# CASE megatron (the real 8-rank trace in ../shared/traces) prints identity, the network sweep
# (fitted, 10× slower, 100× and 1000× faster) and the step under Chakra's External-id links.
#
# ASTRA_SIM_TOOLS overrides ../shared/tools/astra-sim. Jobs whose ranks run one collective type on
# two groups smaller than the world make the stock simulator abort after the run
# (docs/astra-sim-export.md): those replay on the fixed build tests/astrasim/fixed-simulator.sh makes
# (once, about a minute, kept in OUT_DIR/astra-sim-fixed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
out=$(realpath -m "${2:-/tmp/linkscope-whatif}")
shift $(($# > 2 ? 2 : $#))
cases=("$@")
((${#cases[@]})) || cases=(gpu1 gpu2 cpu2 comm2 gpu8 comm8 ovl2 ovl4 copy4 megatron)
sim=${ASTRA_SIM_TOOLS:-$root/../shared/tools/astra-sim}
traces=${LINKSCOPE_TRACES_DIR:-$root/../shared/traces}
linkscope=$build/app/linkscope
gen=$build/tools/linkscope-gen
[ -x "$linkscope" ] && [ -x "$gen" ] || { echo "whatif.sh: build first (no $linkscope or $gen)" >&2; exit 2; }
[ -x "$sim/run.sh" ] || { echo "whatif.sh: no $sim/run.sh" >&2; exit 2; }
command -v python3 >/dev/null || { echo "whatif.sh: needs python3 (apt-get install python3)" >&2; exit 2; }
mkdir -p "$out"
# run.sh makes a folder with mktemp even when it is given a log folder: those go under OUT, removed
# at the end.
export TMPDIR=$out/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
fixed_home=""

# simulate DIR NPUS: "R cycles" lines of ASTRA-sim on DIR/trace.R.et with DIR's comm groups and network.
simulate() {
  local dir=$1 npus=$2 status=0
  local env=()
  if [ "$npus" = 1 ]; then
    # The analytical network needs two NPUs: a one-rank job (no collective between ranks) runs as two
    # copies of its rank, and rank 0's line is kept.
    cp "$dir/trace.0.et" "$dir/trace.1.et"
    simulate "$dir" 2 | grep '^0 ' || true
    rm -f "$dir/trace.1.et"
    return
  fi
  [ -n "$fixed_home" ] && env=(env "ASTRA_SIM_HOME=$fixed_home")
  local files=()
  [ -f "$dir/comm_group.json" ] && files+=(--comm-groups "$dir/comm_group.json")
  [ -f "$dir/network.yml" ] && files+=(--network "$dir/network.yml") # none for one rank: run.sh's ring
  local t0 t1
  t0=$(date +%s%N)
  "${env[@]}" "$sim/run.sh" "$dir/trace" "$npus" "$dir/log" "${files[@]}" >"$dir/replay.txt" 2>&1 || status=$?
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000)) >"$dir/sim-ms"
  grep -o 'sys\[[0-9]*\] finished, [0-9]* cycles' "$dir/replay.txt" | sed 's/sys\[\([0-9]*\)\] finished, \([0-9]*\) cycles/\1 \2/' | sort -n || true
  [ "$status" = 0 ] || echo "(simulator exit status $status)" >&2
}

# measured DIR: "R measured_ns" from DIR/job-report.json.
measured() {
  python3 - "$1/job-report.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["ranks"]:
    if r.get("export"):
        print(r["rank"], r["export"]["measured_ns"])
EOF
}

# compare LABEL PREDICTED_FILE TRUE_FILE: one line, the worst rank's error and every rank's ratio.
compare() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
label, pf, tf = sys.argv[1:]
pred = dict(l.split() for l in open(pf) if l.strip() and not l.startswith("("))
true = dict(l.split() for l in open(tf) if l.strip())
rows = []
for r in sorted(true, key=int):
    if r in pred:
        rows.append((int(r), int(pred[r]) / 1e6, int(true[r]) / 1e6))
if not rows:
    print(f"{label:<26} no rank finished"); sys.exit()
worst = max(rows, key=lambda x: abs(x[1] / x[2] - 1))
mean_p = sum(p for _, p, _ in rows) / len(rows); mean_t = sum(t for _, _, t in rows) / len(rows)
print(f"{label:<26} predicted {mean_p:9.3f} ms  true {mean_t:9.3f} ms  error {100 * (mean_p / mean_t - 1):+6.2f} %"
      f"  worst rank {worst[0]} {100 * (worst[1] / worst[2] - 1):+6.2f} %  ({len(rows)} ranks)")
EOF
}

# agree MODEL DIR REF_FILE REF_LABEL OUT_DIR [what-if flags]: `linkscope predict DIR --model MODEL`
# with the flags against the "R ns" lines of REF_FILE (ASTRA-sim's cycles, or the truth's measured
# steps): both means, the error of the mean, the worst rank's and the wall times (ASTRA-sim's from
# OUT_DIR/sim-ms).
agree() {
  local model=$1 dir=$2 ref=$3 label=$4 outdir=$5
  shift 5
  local t0 t1 tag=${agree_tag:-}
  mkdir -p "$outdir"
  t0=$(date +%s%N)
  "$linkscope" predict "$dir" --json --path-limit 1 --model "$model" "$@" >"$outdir/predict-$model$tag.json" \
    2>"$outdir/predict-$model$tag.err" || true
  t1=$(date +%s%N)
  python3 - "$outdir/predict-$model$tag.json" "$ref" "$(((t1 - t0) / 1000000))" "$(cat "$outdir/sim-ms" 2>/dev/null || echo 0)" \
    "$model" "$label" "$tag" <<'EOF'
import json, sys
model, label, tag = sys.argv[5], sys.argv[6], sys.argv[7]
head = f"    linkscope predict --model {model:<10}" + (f" [{tag}]" if tag else "")
try:
    p = json.load(open(sys.argv[1]))
    ref = dict(l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("("))
except Exception:
    err = open(sys.argv[1][:-len(".json")] + ".err").readline().strip()
    print(f"{head} failed" + (f" ({err})" if err else "")); sys.exit()
rows = [(r["rank"], r["step_ns"], int(ref[str(r["rank"])])) for r in p["ranks"] if str(r["rank"]) in ref and r["finished"]]
if not rows:
    print(f"{head} no rank to compare with {label}"); sys.exit()
worst = max(rows, key=lambda x: abs(x[1] / x[2] - 1))
mean, mean_ref = sum(x[1] for x in rows) / len(rows) / 1e6, sum(x[2] for x in rows) / len(rows) / 1e6
wall = f"; wall {sys.argv[3]} ms" + (f" vs ASTRA-sim {sys.argv[4]} ms" if label == "ASTRA-sim" else "")
print(f"{head} {mean:9.3f} ms  vs {label} {mean_ref:9.3f} ms: error {100 * (mean / mean_ref - 1):+6.2f} %,"
      f" worst rank {worst[0]} {100 * (worst[1] / worst[2] - 1):+.4f} %  ({len(rows)} ranks){wall}")
EOF
}

# predictions DIR TRUE_FILE SIM_FILE OUT_DIR [what-if flags]: both models of `linkscope predict`, the
# faithful one (the default) against the truth and the astra-sim one against ASTRA-sim.
predictions() {
  local dir=$1 truth=$2 simfile=$3 outdir=$4
  shift 4
  agree faithful "$dir" "$truth" truth "$outdir" "$@"
  agree astra-sim "$dir" "$simfile" ASTRA-sim "$outdir" "$@"
  # The same job's Kineto traces alone (no host ET: docs/prediction.md, "From a Kineto trace alone"),
  # when the case made a folder of them, against the truth and against the pair's prediction.
  if [ -n "${alone_dir:-}" ]; then
    agree_tag=kineto-only agree faithful "$alone_dir" "$truth" truth "$outdir" "$@"
    python3 - "$outdir/predict-faithful.json" "$outdir/predict-faithfulkineto-only.json" <<'EOF'
import json, sys
try:
    p, a = (json.load(open(f)) for f in sys.argv[1:3])
except Exception:
    sys.exit()
pair = {r["rank"]: r["step_ns"] for r in p["ranks"] if r["finished"]}
rows = [(r["rank"], r["step_ns"] / pair[r["rank"]] - 1) for r in a["ranks"] if r["finished"] and r["rank"] in pair]
if rows:
    worst = max(rows, key=lambda x: abs(x[1]))
    print(f"      kineto-only vs pair: worst rank {worst[0]} {100 * worst[1]:+.3f} % ({len(rows)} ranks)")
EOF
  fi
}

blocked_summary() {
  python3 - "$1/job-report.json" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
worst = max(rep["ranks"], key=lambda r: r["export"]["blocked"]["kept_ns"] / r["export"]["measured_ns"])
e = worst["export"]; b = e["blocked"]
net = rep["network"]
print(f"  blocked time removed {b['removed_ns'] / 1e6:.3f} ms, left in CPU durations {b['kept_ns'] / 1e3:.1f} us "
      f"= {100 * b['kept_ns'] / e['measured_ns']:.3f} % of the step (worst rank {worst['rank']}); "
      f"deps: sync {e['sync_deps']}, thread wait {e['thread_wait_deps']}, thread start {e['thread_start_deps']}, "
      f"compute waits comm {e['compute_waits_comm_deps']}")
if net.get("fitted"):
    print(f"  network fitted from {net['samples']} transfers: {net['bandwidth_gbps'] * 1.073741824:.3f} GB/s (10^9 B), "
          f"latency {net['latency_ns']:.0f} ns per ring step, mean error {net['mean_abs_error_pct']:.1f} %")
else:
    print(f"  network: not fitted ({net.get('reason', '')})")
EOF
}

need_fixed() {
  [ -n "$fixed_home" ] && return 0
  fixed_home=$("$root/tests/astrasim/fixed-simulator.sh" "$sim" "$out/astra-sim-fixed" | tail -1)
}

run_generated() {
  local name=$1 ranks=$2; shift 2
  local base=("$@") dir=$out/$name
  local compute=1 comm=1
  # The case's own scales: the what-ifs multiply them.
  local i
  for ((i = 0; i < ${#base[@]}; i++)); do
    [ "${base[i]}" = --compute-scale ] && compute=${base[i + 1]}
    [ "${base[i]}" = --comm-scale ] && comm=${base[i + 1]}
  done
  local rest=()
  for ((i = 0; i < ${#base[@]}; i++)); do
    case ${base[i]} in --compute-scale | --comm-scale) i=$((i + 1)) ;; *) rest+=("${base[i]}") ;; esac
  done
  rm -rf "$dir"
  mkdir -p "$dir"
  ((ranks >= 8)) && need_fixed
  gen_job() { # gen_job DIR COMPUTE COMM [extra]
    local d=$1 c=$2 m=$3; shift 3
    "$gen" --ranks "$ranks" --out-dir "$d/in" --seed 5 --steps 4 --compute-scale "$c" --comm-scale "$m" "${rest[@]}" "$@" >/dev/null
    "$linkscope" job "$d/in" --out "$d/out" >"$d/job.txt" 2>&1
  }
  gen_job "$dir/A" "$compute" "$comm"
  mkdir -p "$dir/A/alone"
  for f in "$dir"/A/in/*kineto*; do ln -s "$f" "$dir/A/alone/"; done
  alone_dir=$dir/A/alone
  echo "== $name: $ranks rank(s), linkscope-gen --seed 5 --steps 4 ${base[*]}"
  blocked_summary "$dir/A/out"
  measured "$dir/A/out" >"$dir/A/true"
  simulate "$dir/A/out" "$ranks" >"$dir/A/pred"
  compare "identity" "$dir/A/pred" "$dir/A/true"
  predictions "$dir/A/out" "$dir/A/true" "$dir/A/pred" "$dir/A/out"
  local kernels='^(?!Memcpy|Memset|nccl)'
  whatif() { # whatif LABEL SUBDIR "whatif flags" "generator compute" "generator comm" [generator extra]
    local label=$1 sub=$2 flags=$3 c=$4 m=$5; shift 5
    read -r -a wflags <<<"$flags"
    gen_job "$dir/$sub" "$c" "$m" "$@"
    measured "$dir/$sub/out" >"$dir/$sub/true"
    if "$linkscope" whatif "$dir/A/out" "$dir/$sub/pred-et" "${wflags[@]}" >"$dir/$sub/whatif.txt" 2>&1; then
      simulate "$dir/$sub/pred-et" "$ranks" >"$dir/$sub/pred"
      compare "$label" "$dir/$sub/pred" "$dir/$sub/true"
    else # a what-if `linkscope whatif` does not know (yet): no ASTRA-sim column
      mkdir -p "$dir/$sub/pred-et"
      : >"$dir/$sub/pred"
      printf '%-26s linkscope whatif failed: %s\n' "$label" "$(head -1 "$dir/$sub/whatif.txt")"
    fi
    predictions "$dir/A/out" "$dir/$sub/true" "$dir/$sub/pred" "$dir/$sub/pred-et" "${wflags[@]}"
  }
  whatif "compute kernels x0.5" k05 "--scale-gpu $kernels=0.5" "$(echo "$compute * 0.5" | bc -l)" "$comm"
  whatif "compute kernels x2" k2 "--scale-gpu $kernels=2" "$(echo "$compute * 2" | bc -l)" "$comm"
  whatif "GEMM kernels x0.5" g05 "--scale-gpu gemm=0.5" "$compute" "$comm" --kernel-scale gemm=0.5
  whatif "CPU x0.5" c05 "--scale-cpu .*=0.5" "$compute" "$comm" --cpu-scale 0.5
  if ((ranks > 1)); then
    whatif "NCCL x0.25 (network)" n025 "--scale-comm 0.25" "$compute" "$(echo "$comm * 0.25" | bc -l)"
    whatif "NCCL x4 (network)" n4 "--scale-comm 4" "$compute" "$(echo "$comm * 4" | bc -l)"
    whatif "network bandwidth x4" bw4 "--scale-network 4" "$compute" "$comm" --net-bw 50
    whatif "rank 1 delayed 2 ms/step" d1 "--delay-rank 1=2" "$compute" "$comm" --delay-rank 1=2
    whatif "rank 1 CPU x0.5" r1c05 "--scale-cpu 1:.*=0.5" "$compute" "$comm" --cpu-scale-rank 1=0.5
  fi
}

run_megatron() {
  local dir=$out/megatron m=$traces/astrasim_megatron_tp8_8rank_pair
  [ -d "$m" ] || { echo "== megatron: $m not found, skipped"; return; }
  rm -rf "$dir"
  mkdir -p "$dir/in"
  for r in 0 1 2 3 4 5 6 7; do
    ln -s "$m/megatron_et_$r.json.gz" "$dir/in/host_$r.json.gz"
    ln -s "$m/megatron_kineto_$r.json.gz" "$dir/in/kineto_$r.json.gz"
    mkdir -p "$dir/alone"
    ln -s "$m/megatron_kineto_$r.json.gz" "$dir/alone/kineto_$r.json.gz"
  done
  alone_dir=$dir/alone
  "$linkscope" job "$dir/in" --out "$dir/out" >"$dir/job.txt" 2>&1
  echo "== megatron: 8 ranks, TP 8 (astrasim_megatron_tp8_8rank_pair)"
  blocked_summary "$dir/out"
  measured "$dir/out" >"$dir/true"
  simulate "$dir/out" 8 >"$dir/pred"
  compare "identity" "$dir/pred" "$dir/true"
  predictions "$dir/out" "$dir/true" "$dir/pred" "$dir/out"
  local k
  for k in 10 0.01 0.001; do
    "$linkscope" whatif "$dir/out" "$dir/net$k" --scale-comm "$k" >/dev/null
    simulate "$dir/net$k" 8 >"$dir/pred$k"
    compare "transfers x$k (vs measured)" "$dir/pred$k" "$dir/true"
    agree astra-sim "$dir/out" "$dir/pred$k" ASTRA-sim "$dir/net$k" --scale-comm "$k"
  done
  python3 - "$dir/pred" "$dir/pred0.01" "$dir/out/job-report.json" <<'EOF'
import json, sys
base = dict(l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("("))
fast = dict(l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("("))
rep = json.load(open(sys.argv[3]))
cut = {r: (int(base[r]) - int(fast[r])) / 1e6 for r in base if r in fast}
print(f"  100x faster network: the step shortens by {min(cut.values()):.3f}-{max(cut.values()):.3f} ms "
      f"(Σ transfers, the shortest kernel of each collective: {rep['network']['transfer_ns'] / 1e6:.3f} ms; "
      f"Σ longest kernels, waits included: {rep['network']['longest_kernel_ns'] / 1e6:.3f} ms)")
EOF
  alone_dir=""
  "$linkscope" job "$dir/in" --out "$dir/out-extid" --policy external-id >"$dir/job-extid.txt" 2>&1
  simulate "$dir/out-extid" 8 >"$dir/pred-extid"
  compare "Chakra's External-id links" "$dir/pred-extid" "$dir/true"
  predictions "$dir/out-extid" "$dir/true" "$dir/pred-extid" "$dir/out-extid"
}

echo "whatif.sh: $(date -u +%FT%TZ), $(nproc) cores, linkscope $("$linkscope" --version 2>&1 | head -1)"
for c in "${cases[@]}"; do
  case $c in
    gpu1) run_generated gpu1 1 ;;
    gpu2) run_generated gpu2 2 ;;
    cpu2) run_generated cpu2 2 --compute-scale 0.1 ;;
    comm2) run_generated comm2 2 --comm-scale 8 ;;
    gpu8) run_generated gpu8 8 ;;
    comm8) run_generated comm8 8 --comm-scale 8 ;;
    ovl2) run_generated ovl2 2 --compute-streams 2 --compute-scale 0.1 ;;
    ovl4) run_generated ovl4 4 --compute-streams 2 ;;
    copy4) run_generated copy4 4 --compute-streams 3 --copy-stream ;;
    megatron) run_megatron ;;
    *) echo "whatif.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
