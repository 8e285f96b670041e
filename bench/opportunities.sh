#!/usr/bin/env bash
# `linkscope predict --opportunities` (docs/prediction.md, "Opportunities"): how long the sweep takes
# on megatron's 8 ranks, and whether its ranking is the truth's on generated jobs.
#
#   bench/opportunities.sh [BUILD_DIR] [OUT_DIR] [CASE...]
#
# CASE megatron (../shared/traces, skipped when absent): the job exported once (`linkscope job`),
# then the sweep RUNS times (OPPORTUNITY_RUNS, default 5) per model: candidates, the sweep's own
# time (sweep_ms) and the command's wall time, medians; the first five.
#
# Generated cases (gpu4, cpu4, ovl4; all by default): linkscope-gen writes job A, the sweep ranks
# A's export in both models, then every candidate linkscope-gen can express is regenerated from the
# same seed and draws with that change (the truth: a kernel family ×0.5 is --kernel-scale
# 'ITS_REGEX=0.5', all compute kernels --compute-scale, all communication --comm-scale, bandwidth ×2
# --net-bw, latency ×0.5 --net-latency, a rank's CPU --cpu-scale-rank, all CPU --cpu-scale). The true
# gain is A's measured makespan (the longest rank's measured profiled steps) less the changed job's.
# Printed per candidate: the predicted gain of each model, the true gain, the error of the faithful
# gain (predicted ÷ true − 1); then the issue's targets: the top-ranked candidate with a truth within
# ±5 % of its true gain, and the first three in the true order. A GPU stream or a single CPU op has no
# linkscope-gen knob (nor a copy or a set, which linkscope-gen never scales): listed, not compared.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
out=$(realpath -m "${2:-/tmp/linkscope-opportunities}")
shift $(($# > 2 ? 2 : $#))
cases=("$@")
((${#cases[@]})) || cases=(megatron gpu4 cpu4 ovl4)
traces=${LINKSCOPE_TRACES_DIR:-$root/../shared/traces}
runs=${OPPORTUNITY_RUNS:-5}
linkscope=$build/app/linkscope
gen=$build/tools/linkscope-gen
[ -x "$linkscope" ] && [ -x "$gen" ] || { echo "opportunities.sh: build first (no $linkscope or $gen)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "opportunities.sh: needs python3" >&2; exit 2; }
mkdir -p "$out"

run_megatron() {
  local dir=$out/megatron m=$traces/astrasim_megatron_tp8_8rank_pair
  [ -d "$m" ] || { echo "== megatron: $m not found, skipped"; return; }
  rm -rf "$dir"
  mkdir -p "$dir/in"
  local r
  for r in 0 1 2 3 4 5 6 7; do
    ln -s "$m/megatron_et_$r.json.gz" "$dir/in/host_$r.json.gz"
    ln -s "$m/megatron_kineto_$r.json.gz" "$dir/in/kineto_$r.json.gz"
  done
  "$linkscope" job "$dir/in" --out "$dir/out" >"$dir/job.txt" 2>&1
  echo "== megatron: 8 ranks (astrasim_megatron_tp8_8rank_pair), $runs runs per model"
  local model i t0 t1
  for model in faithful astra-sim; do
    : >"$dir/wall-$model"
    for ((i = 0; i < runs; i++)); do
      t0=$(date +%s%N)
      "$linkscope" predict "$dir/out" --opportunities --json --model "$model" >"$dir/opp-$model-$i.json"
      t1=$(date +%s%N)
      echo $(((t1 - t0) / 1000000)) >>"$dir/wall-$model"
    done
    python3 - "$dir" "$model" "$runs" <<'EOF'
import json, statistics, sys
d, model, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
js = [json.load(open(f"{d}/opp-{model}-{i}.json")) for i in range(runs)]
walls = [int(l) for l in open(f"{d}/wall-{model}")]
j = js[0]
print(f"  {model:<9}: {j['candidates']} candidates, sweep {statistics.median(x['sweep_ms'] for x in js):.0f} ms "
      f"(median of {runs}; min {min(x['sweep_ms'] for x in js):.0f}), command wall {statistics.median(walls)} ms "
      f"(load {statistics.median(x['load_ms'] for x in js):.0f} ms); step {j['baseline_makespan_ns'] / 1e6:.3f} ms, "
      f"stragglers {j['stragglers']}")
for o in j["opportunities"][:5]:
    print(f"    {o['position']:>2}. {o['gain_pct']:+7.2f} %  {o['title'][:90]}")
EOF
  done
}

run_generated() {
  local name=$1 ranks=$2
  shift 2
  local dir=$out/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  "$gen" --ranks "$ranks" --out-dir "$dir/A/in" --seed 5 --steps 4 "$@" >/dev/null
  "$linkscope" job "$dir/A/in" --out "$dir/A/out" >"$dir/A/job.txt" 2>&1
  local model
  for model in faithful astra-sim; do
    "$linkscope" predict "$dir/A/out" --opportunities --json --model "$model" >"$dir/opp-$model.json"
  done
  echo "== $name: $ranks ranks, linkscope-gen --seed 5 --steps 4 $*"
  python3 - "$dir" "$gen" "$linkscope" "$ranks" "$@" <<'EOF'
import json, os, subprocess, sys
d, gen, linkscope, ranks, base = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def value(flag, default):
    return float(base[base.index(flag) + 1]) if flag in base else default

rest, skip = [], False
for a in base:  # the case's own scales are multiplied by the candidates'
    if skip:
        skip = False
    elif a in ("--compute-scale", "--comm-scale", "--net-bw", "--net-latency", "--cpu-scale"):
        skip = True
    else:
        rest.append(a)
compute, comm = value("--compute-scale", 1), value("--comm-scale", 1)
bw, lat, cpu = value("--net-bw", 12.5), value("--net-latency", 5), value("--cpu-scale", 1)

def knob(o):
    k, kind = o["factor"], o["kind"]
    scales = {"--compute-scale": compute, "--comm-scale": comm, "--net-bw": bw, "--net-latency": lat, "--cpu-scale": cpu}
    extra = []
    if kind == "kernel_family" and o["pattern"].startswith(("^(void )?Memcpy", "^(void )?Memset")):
        return None  # linkscope-gen scales no copy and no set
    if kind == "kernel_family":
        extra = ["--kernel-scale", f"{o['pattern']}={k}"]
    elif kind == "all_kernels":
        scales["--compute-scale"] = compute * k
    elif kind == "transfers":
        scales["--comm-scale"] = comm * k
    elif kind == "bandwidth":
        scales["--net-bw"] = bw * k
    elif kind == "latency":
        scales["--net-latency"] = lat * k
    elif kind == "rank_cpu":
        extra = ["--cpu-scale-rank", f"{o['rank']}={k}"]
    elif kind == "all_cpu":
        scales["--cpu-scale"] = cpu * k
    else:
        return None
    return [x for f, v in scales.items() for x in (f, repr(v))] + extra

def makespan(job):
    rep = json.load(open(f"{job}/out/job-report.json"))
    return max(r["export"]["measured_ns"] for r in rep["ranks"] if r.get("export"))

def truth_of(sub, flags):
    job = f"{d}/{sub}"
    subprocess.run([gen, "--ranks", ranks, "--out-dir", f"{job}/in", "--seed", "5", "--steps", "4"] + rest + flags,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([linkscope, "job", f"{job}/in", "--out", f"{job}/out"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return makespan(job)

models = {m: json.load(open(f"{d}/opp-{m}.json")) for m in ("faithful", "astra-sim")}
true_a = truth_of("A0", knob({"kind": "all_cpu", "factor": 1.0}))  # A itself, through the same knobs
measured_a = makespan(f"{d}/A")
fa = models["faithful"]
print(f"  measured step {measured_a / 1e6:.3f} ms (A regenerated through the knobs: {true_a / 1e6:.3f} ms); predicted "
      f"{fa['baseline_makespan_ns'] / 1e6:.3f} ms (faithful), {models['astra-sim']['baseline_makespan_ns'] / 1e6:.3f} ms "
      f"(astra-sim); {fa['candidates']} candidates, sweep {fa['sweep_ms']:.0f} ms")
by_args = {m: {tuple(o["args"]): o for o in j["opportunities"]} for m, j in models.items()}
rows = []
print(f"  {'#':>3}  {'candidate':<58} {'faithful':>9} {'astra-sim':>9} {'true':>9}  error of the gain")
for o in fa["opportunities"]:
    flags = knob(o)
    other = by_args["astra-sim"].get(tuple(o["args"]))
    other_pct = f"{other['gain_pct']:+8.2f}%" if other else "        -"
    title = o["title"] if len(o["title"]) <= 58 else o["title"][:55] + "..."
    if flags is None:
        print(f"  {o['position']:>3}. {title:<58} {o['gain_pct']:+8.2f}% {other_pct}         -  (no linkscope-gen knob)")
        continue
    t = truth_of(f"c{o['position']}", flags)
    true_pct = 100 * (true_a - t) / true_a
    err = (o["gain_pct"] / true_pct - 1) * 100 if abs(true_pct) > 1e-9 else float("nan")
    rows.append((o, true_pct, other))
    print(f"  {o['position']:>3}. {title:<58} {o['gain_pct']:+8.2f}% {other_pct} {true_pct:+8.2f}%  {err:+.1f} %")
if not rows:
    print("  no candidate with a truth"); sys.exit()
top, top_true, _ = rows[0]
err = (top["gain_pct"] / top_true - 1) * 100
print(f"  top-ranked with a truth: {top['title'][:70]}: predicted {top['gain_pct']:+.2f} %, true {top_true:+.2f} % of the "
      f"step ({top['gain_pct'] - top_true:+.2f} points): error of the gain {err:+.1f} % "
      f"({'within' if abs(err) <= 5 else 'NOT within'} ±5 %)")
for m in ("faithful", "astra-sim"):
    ranked = [(by_args[m][tuple(o["args"])]["gain_ns"], tp, o["title"]) for o, tp, _ in rows if tuple(o["args"]) in by_args[m]]
    pred_order = [t for _, _, t in sorted(ranked, key=lambda x: -x[0])]
    true_order = [t for _, _, t in sorted(ranked, key=lambda x: -x[1])]
    same = pred_order[:3] == true_order[:3]
    print(f"  {m}: first three with a truth {'in the true order' if same else 'NOT in the true order'}: "
          + "; ".join(x[:40] for x in pred_order[:3]) + ("" if same else " (true: " + "; ".join(x[:40] for x in true_order[:3]) + ")"))
EOF
}

echo "opportunities.sh: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), linkscope $("$linkscope" --version 2>&1 | head -1)"
for c in "${cases[@]}"; do
  case $c in
    megatron) run_megatron ;;
    gpu4) run_generated gpu4 4 ;;
    cpu4) run_generated cpu4 4 --compute-scale 0.1 --straggler 1 ;;
    ovl4) run_generated ovl4 4 --compute-streams 2 ;;
    *) echo "opportunities.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
